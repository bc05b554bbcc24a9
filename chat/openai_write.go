package chat

import (
	"encoding/json"
	"slices"

	"github.com/swcmem/swc"
)

// openAICodec is the Chat Completions format (openai.go reads it).
type openAICodec struct{}

func (openAICodec) Format() Format                    { return OpenAI }
func (openAICodec) AlignUser() bool                   { return false }
func (openAICodec) parse(data []byte) (*Input, error) { return parseOpenAI(data) }

// Splice writes the request body with out's messages: kept messages as
// they came (a rewritten one with its "content" replaced, every other
// byte as it came) and the memory at the end of the message it follows
// (withMemoryAfter: a string content stays a string, the memory after a
// blank line; a list of parts gets a text part):
//   - after a user message kept whole (a tool loop's task, memoryOrigin),
//     in that message;
//   - else, when the request starts with the client's system (or
//     developer) message, in that message;
//   - else a system message of its own, the first.
//
// The memory is never a system message after another message: strict
// chat templates (Qwen's, served by vLLM or llama.cpp) refuse a system
// message that is not the first ("System message must be at the
// beginning"), where the client's own request passed. A string is never
// made a list of parts: some servers take only strings (DeepSeek's API:
// "invalid type: sequence, expected a string"). The bytes before the
// memory are the client's, so a prompt cache, which reads tokens, still
// serves them.
func (openAICodec) Splice(in *Input, out Output) ([]byte, error) {
	into := memoryOrigin(in, out)
	if into >= 0 {
		if _, ok := withMemoryAfter(in.Raw[into], out.Memory); !ok {
			into = -1
		}
	}
	if into < 0 {
		into = leadingSystem(in, out)
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
		if raw, err = rewriteCalls(in, out, in.Origin[src], raw, openAICalls); err != nil {
			return nil, err
		}
		if in.Origin[src] == into {
			var ok bool
			if raw, ok = withMemoryAfter(raw, out.Memory); !ok {
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
	if _, ok := withMemoryAfter(in.Raw[o], out.Memory); !ok {
		return -1
	}
	return o
}

// withMemoryAfter returns the Chat Completions message raw with the
// memory after its text: a string content stays a string, the memory
// after a blank line (servers that take only strings still take it); a
// list of parts gets a text part; every other member as it came. It
// returns false when the content is neither.
func withMemoryAfter(raw json.RawMessage, memory string) (json.RawMessage, bool) {
	start, end, err := valueSpan(raw, "content")
	if err != nil {
		return nil, false
	}
	var s string
	if json.Unmarshal(raw[start:end], &s) != nil {
		return appendBlock(raw, memoryBlock{Type: "text", Text: memory}, nil)
	}
	if s != "" {
		s += "\n\n"
	}
	q := jsonString(s + memory)
	next := make([]byte, 0, len(raw)+len(q))
	next = append(append(append(next, raw[:start]...), q...), raw[end:]...)
	return next, true
}

// OpenAIRequestMessages returns msgs, a compression's messages whose
// memory message is msgs[memory] (-1: none), in Chat Completions wire form
// as a compressed request holds them: the memory written where Splice
// writes it (after a tool loop's task, in the task's message; else at the
// end of the leading system or developer message; else a system message of
// its own, the first), so that no system message follows another message
// and a strict chat template takes the list.
func OpenAIRequestMessages(msgs []swc.Message, memory int) ([]json.RawMessage, error) {
	if memory < 0 || memory >= len(msgs) {
		return rawMessages(OpenAIMessages(msgs))
	}
	kept := slices.Delete(slices.Clone(msgs), memory, memory+1)
	if len(kept) == 0 {
		return rawMessages(OpenAIMessages(msgs))
	}
	body, err := json.Marshal(struct {
		Messages []OpenAIMessage `json:"messages"`
	}{OpenAIMessages(kept)})
	if err != nil {
		return nil, err
	}
	in, err := Parse(body, OpenAI)
	if err != nil {
		return nil, err
	}
	if len(in.Messages) != len(kept) {
		return nil, swc.Errorf(swc.EINVALID, "openai: %d messages read back as %d", len(kept), len(in.Messages))
	}
	out := Output{Memory: msgs[memory].Content, Messages: msgs}
	for i := range msgs {
		switch {
		case i < memory:
			out.Source = append(out.Source, i)
		case i == memory:
			out.Source = append(out.Source, -1)
		default:
			out.Source = append(out.Source, i-1)
		}
	}
	spliced, err := openAICodec{}.Splice(in, out)
	if err != nil {
		return nil, err
	}
	var req struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(spliced, &req); err != nil {
		return nil, err
	}
	return req.Messages, nil
}

// rawMessages returns each of msgs as its JSON.
func rawMessages(msgs []OpenAIMessage) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		b, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}
