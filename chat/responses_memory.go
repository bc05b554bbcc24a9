package chat

import (
	"encoding/json"
	"strings"

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

// Any other memory (a conversation's, or a tool loop's whose task was not
// kept whole) is no developer item either: a server rendering the request
// as chat messages makes it a system message, which Qwen's templates
// refuse after another one and Gemma 2's refuse at all. It goes at the end
// of the leading system or developer message item, when the input starts
// with one (after the instructions field, which stays as it was); else at
// the start of the first item kept when it is a user's message; else it
// is a user message item of its own.

// responsesMemoryPlace returns the body element the memory goes at the
// end of (after: the last of the leading system or developer message
// items kept, when it can take it) or at the start of (before: the first
// item kept, when it is a user's message that can take it); -1 for
// neither.
func responsesMemoryPlace(in *Input, out Output) (after, before int) {
	after, before = -1, -1
	for _, src := range out.Source {
		if src < 0 {
			continue
		}
		o := in.Origin[src]
		if o < 0 {
			continue // the instructions field
		}
		r := in.Messages[src].Role
		if r == swc.RoleSystem || r == swc.RoleDeveloper {
			if _, ok := responsesMemoryAfter(in.Raw[o], out.Memory, r); ok {
				after = o
				continue
			}
			return -1, -1
		}
		if after < 0 && r == swc.RoleUser {
			if _, ok := responsesMemoryBefore(in.Raw[o], out.Memory); ok {
				before = o
			}
		}
		return after, before
	}
	return after, before
}

// responsesMemoryBefore returns Raw element raw with memory before the
// text of its first item, a user's message item: a string content stays a
// string (the memory, a blank line, the text), a list of parts gets an
// input_text part first. It returns false when the first item is not one.
func responsesMemoryBefore(raw []byte, memory string) ([]byte, bool) {
	spans, err := arraySpans(append(append([]byte{'['}, raw...), ']'))
	if err != nil || len(spans) == 0 {
		return nil, false
	}
	a, e := spans[0].a-1, spans[0].e-1
	item := raw[a:e]
	if it := topStrings(item, "type", "role"); it["role"] != string(swc.RoleUser) || it["type"] != "" && it["type"] != "message" {
		return nil, false
	}
	start, end, err := valueSpan(item, "content")
	if err != nil {
		return nil, false
	}
	var nb []byte
	var s string
	if json.Unmarshal(item[start:end], &s) == nil {
		if s != "" {
			memory = strings.TrimRight(memory, "\n") + "\n\n"
		}
		nb, err = replaceAt(item, jsonString(memory+s), "content")
	} else {
		var parts [][]byte
		if parts, err = arrayElems(item[start:end]); err != nil {
			return nil, false
		}
		part := append(append([]byte(`{"type":"input_text","text":`), jsonString(memory)...), '}')
		nb, err = replaceAt(item, joinElems(append([][]byte{part}, parts...)), "content")
	}
	if err != nil {
		return nil, false
	}
	next := make([]byte, 0, len(raw)+len(nb)-len(item))
	return append(append(append(next, raw[:a]...), nb...), raw[e:]...), true
}

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
