package chat

import (
	"bytes"
	"encoding/json"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/swcmem/swc"
)

// Writing a rewritten assistant turn (memory's Options.TurnTokens clips the
// text of old ones): its text changes, its tool calls and every block or
// part that is not text go as they came, but for an Anthropic turn's
// reasoning blocks when the new text holds no placeholder of them
// (StripReasoning: the provider wants them only in the turn whose calls
// the request answers). Memory rewrites only an assistant message whose
// Content holds no other placeholder (HasPlaceholder), so the new text
// stands for the message's text parts alone.

// arraySpans returns where each element of JSON array list is in it.
func arraySpans(list []byte) ([]span, error) {
	dec := jsontext.NewDecoder(bytes.NewBuffer(list), fastOptions)
	if t, err := dec.ReadToken(); err != nil || t.Kind() != '[' {
		return nil, errorf("want an array, got %s", kind(list))
	}
	var spans []span
	for dec.PeekKind() != ']' {
		v, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		end := int(dec.InputOffset())
		spans = append(spans, span{end - len(v), end})
	}
	return spans, nil
}

// arrayElems returns the elements of JSON array list, each a slice of it.
func arrayElems(list []byte) ([][]byte, error) {
	spans, err := arraySpans(list)
	if err != nil {
		return nil, err
	}
	elems := make([][]byte, len(spans))
	for k, sp := range spans {
		elems[k] = list[sp.a:sp.e:sp.e]
	}
	return elems, nil
}

// joinElems returns the JSON array of elems, written as they are.
func joinElems(elems [][]byte) []byte {
	return append(append([]byte{'['}, bytes.Join(elems, []byte{','})...), ']')
}

// replaceValue returns obj with the value of its member name replaced by
// v, every other byte as it came.
func replaceValue(obj []byte, name string, v []byte) ([]byte, error) {
	return replaceAt(obj, v, name)
}

// anthropicValue writes the new content of a rewritten Anthropic message,
// or of a tool_result block (v: the value it replaces): an assistant's
// list of blocks as anthropicTurn says, a user message's as besideResults
// says (a list, so that a cache mark can go on its text: a tool loop
// whose results come back as user text, such as Cline's, has its stubs
// there), a tool_result's content as a string.
func anthropicValue(m *swc.Message, _, v []byte, text string) ([]byte, error) {
	v = bytes.TrimSpace(v)
	if m.Role == swc.RoleUser && text != "" {
		if len(v) == 0 || v[0] != '[' {
			return textBlocks(text, nil), nil
		}
		return besideResults(v, text, true)
	}
	if len(v) == 0 || v[0] != '[' {
		return jsonString(text), nil
	}
	if m.Role != swc.RoleAssistant {
		return besideResults(v, text, false)
	}
	return anthropicTurn(v, text)
}

// textBlocks returns text as a content list of one text block
// (markedTextBlock).
func textBlocks(text string, mark json.RawMessage) []byte {
	return append(append([]byte{'['}, markedTextBlock(text, mark)...), ']')
}

// markedTextBlock returns text as a text block, with the cache_control mark
// when mark is not nil.
func markedTextBlock(text string, mark json.RawMessage) []byte {
	block := append([]byte(`{"type":"text","text":`), jsonString(text)...)
	if mark != nil {
		block = append(append(block, `,"cache_control":`...), mark...)
	}
	return append(block, '}')
}

// besideResults returns a user message's content blocks (list) with text
// as what is not a tool result: its tool_result blocks byte for byte, in
// their places at the start (the API wants them first), then text as one
// text block, which stands for every other block (Claude Code's document
// block beside a PDF's result, a reminder) and carries the cache_control
// mark of the last of them that had one. A tool_result's own list of
// blocks (no tool_result in it) becomes text as a string, a user
// message's list without tool_result blocks text as one text block.
func besideResults(list []byte, text string, user bool) ([]byte, error) {
	elems, err := arrayElems(list)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, 0, len(elems)+1)
	var mark json.RawMessage
	for _, e := range elems {
		var b struct {
			Type         string          `json:"type"`
			CacheControl json.RawMessage `json:"cache_control"`
		}
		if json.Unmarshal(e, &b) != nil {
			continue
		}
		switch {
		case b.Type == "tool_result":
			out = append(out, e)
		case len(b.CacheControl) > 0 && string(b.CacheControl) != "null":
			mark = b.CacheControl
		}
	}
	if len(out) == 0 {
		if user && text != "" {
			return textBlocks(text, mark), nil
		}
		return jsonString(text), nil
	}
	if text != "" {
		out = append(out, markedTextBlock(text, mark))
	}
	return append(append([]byte{'['}, bytes.Join(out, []byte{','})...), ']'), nil
}

// anthropicTurn returns an assistant message's content blocks (list) with
// text as its text: the first text block's "text" replaced (its other
// members, such as cache_control, as they came), the other text blocks
// removed, its thinking and redacted_thinking blocks removed unless text
// holds their placeholder, every other block (tool_use, …) byte for byte
// in its place. A list without a text block gets one first when text is
// not empty.
func anthropicTurn(list []byte, text string) ([]byte, error) {
	elems, err := arrayElems(list)
	if err != nil {
		return nil, err
	}
	reasoning := holdsReasoning(text)
	out := make([][]byte, 0, len(elems)+1)
	done := false
	for _, e := range elems {
		var b struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(e, &b) != nil || b.Type != "text" {
			if !reasoning && (b.Type == "thinking" || b.Type == "redacted_thinking") {
				continue
			}
			out = append(out, e)
			continue
		}
		if done || text == "" { // the new text stands for every text block
			continue
		}
		nb, err := replaceValue(e, "text", jsonString(text))
		if err != nil {
			return nil, err
		}
		out = append(out, nb)
		done = true
	}
	if !done && text != "" {
		tb, _ := json.Marshal(memoryBlock{Type: "text", Text: text})
		out = append([][]byte{tb}, out...)
	}
	if len(out) == 0 {
		return jsonString(text), nil
	}
	return joinElems(out), nil
}

// responsesTurn returns an assistant message item's content parts (list)
// with text as its text: one part, the first that holds a "text" (an
// output_text part) with its text replaced and its "annotations" emptied
// (they index into the old text), its other members as they came; an
// output_text part of its own when none holds a text.
func responsesTurn(list []byte, text string) ([]byte, error) {
	elems, err := arrayElems(list)
	if err != nil {
		return nil, err
	}
	for _, e := range elems {
		var p map[string]json.RawMessage
		if json.Unmarshal(e, &p) != nil || p["text"] == nil {
			continue
		}
		var typ string
		_ = json.Unmarshal(p["type"], &typ)
		np, err := replaceValue(e, "text", jsonString(text))
		if err != nil {
			return nil, err
		}
		switch {
		case p["annotations"] != nil:
			if np, err = replaceValue(np, "annotations", []byte("[]")); err != nil {
				return nil, err
			}
		case typ == "output_text": // the API wants the member on an output_text part
			np = append([]byte(`{"annotations":[],`), bytes.TrimSpace(np)[1:]...)
		}
		return joinElems([][]byte{np}), nil
	}
	part, _ := json.Marshal(struct {
		Type        string   `json:"type"`
		Text        string   `json:"text"`
		Annotations []string `json:"annotations"`
	}{"output_text", text, []string{}})
	return joinElems([][]byte{part}), nil
}
