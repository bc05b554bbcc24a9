package chat

import (
	"encoding/json"

	"github.com/swcmem/swc"
)

// Where a tool loop's memory goes in Responses form. A developer item
// after the first input item is what strict chat templates refuse once a
// server renders the request as chat messages ("System message must be at
// the beginning": Qwen's templates behind vLLM, llama.cpp or a Responses
// bridge), so after a tool loop's task kept whole the memory goes into the
// task's message item, after the client's text (a token-prefix cache
// still serves that text when the memory changes), as Chat Completions
// form does (openai_write.go).

// responsesMemoryAfter returns Raw element raw (its items,
// comma-separated) with memory after the text of its last message item of
// role: a string content stays a string, the memory after a blank line; a
// list of parts gets an input_text part. It returns false when no such
// item can take it.
func responsesMemoryAfter(raw []byte, memory string, role swc.Role) ([]byte, bool) {
	spans, err := arraySpans(append(append([]byte{'['}, raw...), ']'))
	if err != nil {
		return nil, false
	}
	for k := len(spans) - 1; k >= 0; k-- {
		a, e := spans[k].a-1, spans[k].e-1 // in raw, not in "[" + raw + "]"
		item := raw[a:e]
		it := topStrings(item, "type", "role")
		if it["role"] != string(role) || it["type"] != "" && it["type"] != "message" {
			continue
		}
		nb, ok := withInputText(item, memory)
		if !ok {
			return nil, false
		}
		out := make([]byte, 0, len(raw)+len(nb)-len(item))
		return append(append(append(out, raw[:a]...), nb...), raw[e:]...), true
	}
	return nil, false
}

// withInputText returns message item raw with text after its content: a
// string stays a string (a blank line between), a list of parts gets an
// input_text part.
func withInputText(raw []byte, text string) ([]byte, bool) {
	start, end, err := valueSpan(raw, "content")
	if err != nil {
		return nil, false
	}
	var s string
	if json.Unmarshal(raw[start:end], &s) == nil {
		if s != "" {
			s += "\n\n"
		}
		b, err := replaceAt(raw, jsonString(s+text), "content")
		return b, err == nil
	}
	parts, err := arrayElems(raw[start:end])
	if err != nil {
		return nil, false
	}
	part := append(append([]byte(`{"type":"input_text","text":`), jsonString(text)...), '}')
	b, err := replaceAt(raw, joinElems(append(parts, part)), "content")
	return b, err == nil
}
