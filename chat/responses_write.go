package chat

import (
	"bytes"
	"encoding/json"

	"github.com/swcmem/swc"
)

// responsesCodec is OpenAI's Responses format (responses.go reads it).
type responsesCodec struct{}

func (responsesCodec) Format() Format                    { return Responses }
func (responsesCodec) AlignUser() bool                   { return false }
func (responsesCodec) parse(data []byte) (*Input, error) { return parseResponses(data) }

// Splice writes the request body with out's items: the input array
// replaced, kept items as they came (a reasoning item with the item it
// belongs to; a rewritten function_call_output with its "output"
// replaced, a message item's "content"), the memory as a developer
// message item where out puts it; every other byte of the body as it
// came.
func (responsesCodec) Splice(in *Input, out Output) ([]byte, error) {
	if in.Request == nil {
		return nil, swc.Errorf(swc.EINVALID, "not a responses request body: nothing to splice the input into")
	}
	items := make([][]byte, 0, len(out.Source))
	size := len(in.Request)
	done := make(map[int]bool, len(out.Source))
	for k, src := range out.Source {
		if src < 0 {
			text, err := json.Marshal(out.Messages[k].Content)
			if err != nil {
				return nil, err
			}
			item := append(append([]byte(`{"type":"message","role":"developer","content":`), text...), '}')
			items = append(items, item)
			size += len(item)
			continue
		}
		o := in.Origin[src]
		if o < 0 || done[o] { // the instructions stay in their field
			continue
		}
		done[o] = true
		raw, err := rewriteRaw(in, out, o, responsesPath, responsesValue)
		if err != nil {
			return nil, err
		}
		items = append(items, raw)
	}
	b := make([]byte, 0, size+len(items)+2)
	b = append(b, in.Request[:in.Span[0]]...)
	b = append(b, '[')
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	b = append(b, ']')
	return append(b, in.Request[in.Span[1]:]...), nil
}

// responsesPath is where a rewritten item's text goes: a
// function_call_output's "output", a message item's "content".
func responsesPath(_ string, raw []byte) []any {
	if _, _, err := valueSpan(raw, "output"); err == nil {
		return []any{"output"}
	}
	return []any{"content"}
}

// responsesValue writes a rewritten item's text: where it goes in
// "output", as responsesOutput says; in a message's "content", a string.
func responsesValue(raw, v []byte, text string) ([]byte, error) {
	if _, _, err := valueSpan(raw, "output"); err == nil {
		return responsesOutput(raw, v, text)
	}
	return jsonString(text), nil
}

// responsesOutput returns the "output" of Responses item raw (its value
// now v) holding text: a string where the item's output may be one
// (function_call_output and custom_tool_call_output, whose output may
// also be a list of parts; an output that is a string), a
// shell_call_output's list of chunks as one chunk, its first, whose
// stdout is text (stderr emptied, its other fields kept). An output that
// is an object (a computer_call_output's screenshot) cannot hold text.
func responsesOutput(raw, v []byte, text string) ([]byte, error) {
	var it struct{ Type string }
	if err := json.Unmarshal(raw, &it); err != nil {
		return nil, err
	}
	v = bytes.TrimSpace(v)
	switch {
	case len(v) > 0 && v[0] == '"', it.Type == "function_call_output", it.Type == "custom_tool_call_output":
		return jsonString(text), nil
	case it.Type == "shell_call_output" && len(v) > 0 && v[0] == '[':
		var chunks []map[string]json.RawMessage
		if err := json.Unmarshal(v, &chunks); err != nil || len(chunks) == 0 {
			return nil, errorf("a shell_call_output's output: want a list of chunks")
		}
		c := writeObject(chunks[0], map[string]json.RawMessage{"stdout": jsonString(text), "stderr": json.RawMessage(`""`)})
		return append(append([]byte{'['}, c...), ']'), nil
	}
	return nil, errorf("a %s's output (%.20s) cannot hold a stub", it.Type, v)
}
