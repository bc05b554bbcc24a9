package chat

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/swcmem/swc"
)

// openAICodec is the Chat Completions format (openai.go reads it).
type openAICodec struct{}

func (openAICodec) Format() Format                               { return OpenAI }
func (openAICodec) AlignUser() bool                              { return false }
func (openAICodec) parse(data []byte, _ reading) (*Input, error) { return parseOpenAI(data) }

// Splice writes the request body with out's messages: kept messages as
// they came (a rewritten one with its "content" replaced, every other
// byte as it came) and the memory at the end of the message it follows
// (withMemoryAfter: a string content stays a string, the memory after a
// blank line; a list of parts gets a text part):
//   - after a user message kept whole (a tool loop's task, memoryOrigin),
//     in that message;
//   - else, when the request starts with the client's system (or
//     developer) message, in that message;
//   - else, when the request has no system message, at the start of the
//     first message kept if it is a user's (the memory, a blank line, its
//     text; a list of parts gets a text part first) or as a user message
//     of its own, the first.
//
// swc never adds a system message: strict chat templates refuse one that
// is not the first ("System message must be at the beginning": Qwen's,
// served by vLLM or llama.cpp) or any at all ("System role not
// supported": Gemma 2's; "Conversation roles must alternate": Mistral's
// first), where the client's own request passed. A string is never
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
	lead, led := -1, false
	if into < 0 {
		lead = leadingUser(in, out)
	}
	msgs := make([]json.RawMessage, 0, len(out.Messages))
	for k, src := range out.Source {
		switch {
		case src < 0 && (into >= 0 || lead >= 0):
			continue // in the message it follows, or the first
		case src < 0:
			m := out.Messages[k]
			m.Role = swc.RoleUser
			b, err := json.Marshal(OpenAIMessages([]swc.Message{m})[0])
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
		if o := in.Origin[src]; o == into || o == lead && !led {
			var ok bool
			if o == into {
				raw, ok = withMemoryAfter(raw, out.Memory)
			} else {
				raw, ok = withMemoryBefore(raw, out.Memory)
				led = true // once: a message read as several shares its origin
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
	if _, ok := withMemoryAfter(in.Raw[o], out.Memory); !ok {
		return -1
	}
	return o
}

// leadingUser returns the body element of out's first kept message when
// out has a memory, the request has no system or developer message and
// that message is a user's whose content takes the memory before its
// text (withMemoryBefore); or -1.
func leadingUser(in *Input, out Output) int {
	if out.Memory == "" {
		return -1
	}
	for _, m := range in.Messages {
		if m.Role == swc.RoleSystem || m.Role == swc.RoleDeveloper {
			return -1
		}
	}
	for _, src := range out.Source {
		if src < 0 {
			continue
		}
		o := in.Origin[src]
		if o < 0 || in.Messages[src].Role != swc.RoleUser {
			return -1
		}
		if _, ok := withMemoryBefore(in.Raw[o], out.Memory); !ok {
			return -1
		}
		return o
	}
	return -1
}

// withMemoryBefore returns the Chat Completions message raw with the
// memory before its text: a string content stays a string, the memory and
// a blank line before it; a list of parts gets a text part first; every
// other member as it came. It returns false when the content is neither.
func withMemoryBefore(raw json.RawMessage, memory string) (json.RawMessage, bool) {
	start, end, err := valueSpan(raw, "content")
	if err != nil {
		return nil, false
	}
	var s string
	var q []byte
	switch content := raw[start:end]; {
	case json.Unmarshal(content, &s) == nil:
		if s != "" {
			memory = strings.TrimRight(memory, "\n") + "\n\n"
		}
		q = jsonString(memory + s)
	default:
		parts, err := arrayElems(content)
		if err != nil {
			return nil, false
		}
		part, err := json.Marshal(memoryBlock{Type: "text", Text: memory})
		if err != nil {
			return nil, false
		}
		q = joinElems(append([][]byte{part}, parts...))
	}
	next := make([]byte, 0, len(raw)+len(q))
	next = append(append(append(next, raw[:start]...), q...), raw[end:]...)
	return next, true
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
// end of the leading system or developer message; else at the start of the
// first message when it is a user's, or as a user message of its own, the
// first), so that swc adds no system message a strict chat template would
// refuse.
func OpenAIRequestMessages(msgs []swc.Message, memory int) ([]json.RawMessage, error) {
	if memory < 0 || memory >= len(msgs) {
		return rawMessages(OpenAIMessages(msgs))
	}
	kept := slices.Delete(slices.Clone(msgs), memory, memory+1)
	if len(kept) == 0 {
		m := msgs[memory]
		m.Role = swc.RoleUser
		return rawMessages(OpenAIMessages([]swc.Message{m}))
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
