package chat

import (
	"encoding/json"

	"github.com/swcmem/swc"
)

// openAICodec is the Chat Completions format (openai.go reads it).
type openAICodec struct{}

func (openAICodec) Format() Format                    { return OpenAI }
func (openAICodec) AlignUser() bool                   { return false }
func (openAICodec) parse(data []byte) (*Input, error) { return parseOpenAI(data) }

// Splice writes the request body with out's messages: kept messages as
// they came (a rewritten one with its "content" replaced, every other
// byte as it came) and the memory in the message it follows:
//   - after a user message kept whole (a tool loop's task, memoryOrigin),
//     a text part appended to that message's content (withMemoryText);
//   - else, when the request starts with the client's system (or
//     developer) message, at the end of that message's content
//     (withSystemMemory);
//   - else a system message of its own, the first message.
//
// The memory is never a system message after another message: strict
// chat templates (Qwen's, served by vLLM or llama.cpp) refuse a system
// message that is not the first ("System message must be at the
// beginning"), where the client's own request passed. The bytes before
// the memory are the client's, so a prompt cache still serves them.
func (openAICodec) Splice(in *Input, out Output) ([]byte, error) {
	into, system := memoryOrigin(in, out), false
	if into >= 0 {
		if _, ok := withMemoryText(in.Raw[into], out.Memory); !ok {
			into = -1
		}
	}
	if into < 0 {
		into = leadingSystem(in, out)
		system = into >= 0
	}
	msgs := make([]json.RawMessage, 0, len(out.Messages))
	for k, src := range out.Source {
		switch {
		case src < 0 && into >= 0:
			continue // in the message it follows
		case src < 0:
			b, err := json.Marshal(OpenAIMessages(out.Messages[k : k+1])[0])
			if err != nil {
				return nil, err
			}
			msgs = append([]json.RawMessage{b}, msgs...)
			continue
		}
		raw, err := rewriteRaw(in, out, in.Origin[src], contentPath, nil)
		if err != nil {
			return nil, err
		}
		if in.Origin[src] == into {
			ok := false
			if system {
				raw, ok = withSystemMemory(raw, out.Memory)
			} else {
				raw, ok = withMemoryText(raw, out.Memory)
			}
			if !ok {
				return nil, swc.Errorf(swc.EINVALID, "%s: cannot write the memory into its content", in.Where[src])
			}
		}
		msgs = append(msgs, raw)
	}
	return withMessages(in, msgs, nil)
}

// leadingSystem returns the body element of out's first message when it
// is the client's system or developer message, its content a string or
// a list of parts, and out has a memory; or -1.
func leadingSystem(in *Input, out Output) int {
	if out.Memory == "" || len(out.Source) == 0 || out.Source[0] < 0 {
		return -1
	}
	src := out.Source[0]
	o := in.Origin[src]
	if r := in.Messages[src].Role; o < 0 || r != swc.RoleSystem && r != swc.RoleDeveloper {
		return -1
	}
	if _, ok := withSystemMemory(in.Raw[o], out.Memory); !ok {
		return -1
	}
	return o
}

// withMemoryText returns the Chat Completions message raw with the memory
// appended to its content as a text part (a string content becomes a
// text part first; every other member as it came); false when its
// content is neither a string nor a list of parts.
func withMemoryText(raw json.RawMessage, memory string) (json.RawMessage, bool) {
	return appendBlock(raw, memoryBlock{Type: "text", Text: memory}, nil)
}

// withSystemMemory returns the system message raw with the memory after
// its text: a string content stays a string, the memory after a blank
// line (servers that take only a string system content still take it); a
// list of parts gets a text part.
func withSystemMemory(raw json.RawMessage, memory string) (json.RawMessage, bool) {
	start, end, err := valueSpan(raw, "content")
	if err != nil {
		return nil, false
	}
	var s string
	if json.Unmarshal(raw[start:end], &s) != nil {
		return withMemoryText(raw, memory)
	}
	if s != "" {
		s += "\n\n"
	}
	q := jsonString(s + memory)
	next := make([]byte, 0, len(raw)+len(q))
	next = append(append(append(next, raw[:start]...), q...), raw[end:]...)
	return next, true
}
