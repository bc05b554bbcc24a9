package chat

import "encoding/json"

// openAICodec is the Chat Completions format (openai.go reads it).
type openAICodec struct{}

func (openAICodec) Format() Format                    { return OpenAI }
func (openAICodec) AlignUser() bool                   { return false }
func (openAICodec) parse(data []byte) (*Input, error) { return parseOpenAI(data) }

// Splice writes the request body with out's messages: kept messages as
// they came (a rewritten one with its "content" replaced, every other
// byte as it came), the memory as a system message — or, when it follows
// a user message kept whole (a tool loop's task, memoryOrigin), as a text
// part appended to that message's content (withMemoryText): a system
// message after a user message is what strict chat templates refuse
// ("System message must be at the beginning", Qwen's, served by vLLM or
// llama.cpp), and the task's bytes still come first for a prompt cache.
func (openAICodec) Splice(in *Input, out Output) ([]byte, error) {
	msgs := make([]json.RawMessage, 0, len(out.Messages))
	memOrigin := memoryOrigin(in, out)
	if memOrigin >= 0 {
		if _, ok := withMemoryText(in.Raw[memOrigin], out.Memory); !ok {
			memOrigin = -1
		}
	}
	for k, src := range out.Source {
		if src < 0 && memOrigin >= 0 {
			continue // in the task's message
		}
		if src >= 0 && in.Origin[src] == memOrigin {
			raw, _ := withMemoryText(in.Raw[memOrigin], out.Memory)
			msgs = append(msgs, raw)
			continue
		}
		if src < 0 {
			b, err := json.Marshal(OpenAIMessages(out.Messages[k : k+1])[0])
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, b)
			continue
		}
		raw, err := rewriteRaw(in, out, in.Origin[src], contentPath, nil)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, raw)
	}
	return withMessages(in, msgs, nil)
}

// withMemoryText returns the Chat Completions message raw with the memory
// appended to its content as a text part (a string content becomes a
// text part first; every other member as it came); false when its
// content is neither a string nor a list of parts.
func withMemoryText(raw json.RawMessage, memory string) (json.RawMessage, bool) {
	return appendBlock(raw, memoryBlock{Type: "text", Text: memory}, nil)
}
