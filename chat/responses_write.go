package chat

import (
	"bytes"
	"encoding/json"

	"github.com/swcmem/swc"
)

// responsesCodec is OpenAI's Responses format (responses.go reads it).
type responsesCodec struct{}

func (responsesCodec) Format() Format                               { return Responses }
func (responsesCodec) AlignUser() bool                              { return false }
func (responsesCodec) parse(data []byte, _ reading) (*Input, error) { return parseResponses(data) }

// Splice writes the request body with out's items: the input array
// replaced, kept items as they came (a reasoning item with the item it
// belongs to; a rewritten function_call_output with its "output"
// replaced, a message item's "content", as rewriteItems says), a tool
// loop's memory in its task's message item, any other at the end of the
// leading system or developer message item, or, with none, at the start
// of the first item kept when it is a user's message, else a user message
// item of its own where out puts it (responses_memory.go): swc adds no
// system or developer item; every other byte of the body as it came.
func (responsesCodec) Splice(in *Input, out Output) ([]byte, error) {
	if in.Request == nil {
		return nil, swc.Errorf(swc.EINVALID, "not a responses request body: nothing to splice the input into")
	}
	// A tool loop's memory goes into its task's message item, any other
	// into the leading system or developer item (after) or the first
	// user's (before) (responses_memory.go). The memory follows the task
	// and the leading item in out.Source, so their item is written (and
	// takes it, memDone) before the memory's place comes; it precedes the
	// first user's, whose item takes it later.
	memOrigin, memDone := memoryOrigin(in, out), out.Memory == ""
	after, before := -1, -1
	if !memDone && memOrigin < 0 {
		after, before = responsesMemoryPlace(in, out)
	}
	items := make([][]byte, 0, len(out.Source))
	size := len(in.Request) - (in.Span[1] - in.Span[0]) // every byte but the input's, which the items replace
	done := make(map[int]bool, len(out.Source))
	for k, src := range out.Source {
		if src < 0 {
			if memDone || after >= 0 || before >= 0 {
				continue // in the task's item, the leading one or the first user's
			}
			text, err := json.Marshal(out.Messages[k].Content)
			if err != nil {
				return nil, err
			}
			item := append(append([]byte(`{"type":"message","role":"user","content":`), text...), '}')
			items = append(items, item)
			size += len(item)
			continue
		}
		o := in.Origin[src]
		if o < 0 || done[o] { // the instructions stay in their field
			continue
		}
		done[o] = true
		raw, err := rewriteItems(in, out, o)
		if err != nil {
			return nil, err
		}
		if raw, err = rewriteCalls(in, out, o, raw, responsesCalls); err != nil {
			return nil, err
		}
		switch {
		case memDone:
		case o == memOrigin:
			if b, ok := responsesMemoryAfter(raw, out.Memory, swc.RoleUser); ok {
				raw, memDone = b, true
			}
		case o == after:
			b, ok := responsesMemoryAfter(raw, out.Memory, in.Messages[src].Role)
			if !ok {
				return nil, swc.Errorf(swc.EINVALID, "%s: cannot write the memory into its content", in.Where[src])
			}
			raw, memDone = b, true
		case o == before:
			b, ok := responsesMemoryBefore(raw, out.Memory)
			if !ok {
				return nil, swc.Errorf(swc.EINVALID, "%s: cannot write the memory into its content", in.Where[src])
			}
			raw, memDone = b, true
		}
		items = append(items, raw)
		size += len(raw)
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

// rewriteItems returns the items of source message o (Raw[o]: its items,
// comma-separated) with its rewritten messages' texts written into the
// item each came from, every other byte as it came: a tool message's into
// the output item answering its call ("output", as responsesOutput says),
// any other message's into its message item's "content" (a string; an
// assistant's list of parts as responsesTurn says). Reasoning items and
// call items are never changed: the text of an assistant message made of
// a call item (a hosted call, or one nobody answers here) has no place to
// go, and the item is sent as it came.
func rewriteItems(in *Input, out Output, o int) (json.RawMessage, error) {
	raw := in.Raw[o]
	if len(out.Rewritten) == 0 {
		return raw, nil
	}
	var spans []span // of the items in raw
	var items []rItem
	next := map[int][]byte{} // item → its new bytes
	for i, oi := range in.Origin {
		if oi != o {
			continue
		}
		text, ok := out.Rewritten[i]
		if !ok {
			continue
		}
		if spans == nil {
			var err error
			if spans, err = arraySpans(append(append([]byte{'['}, raw...), ']')); err != nil {
				return nil, swc.Errorf(swc.EINVALID, "%s: rewriting its content: %v", in.Where[i], err)
			}
			items = make([]rItem, len(spans))
			for k := range spans {
				spans[k].a-- // in raw, not in "[" + raw + "]"
				spans[k].e--
				_ = json.Unmarshal(raw[spans[k].a:spans[k].e], &items[k]) // an item swc does not read is no target
			}
		}
		m := &in.Messages[i]
		k := itemOf(m, items)
		if k < 0 {
			if m.Role == swc.RoleAssistant {
				continue
			}
			return nil, swc.Errorf(swc.EINVALID, "%s: rewriting its content: no item holds it", in.Where[i])
		}
		item := []byte(raw[spans[k].a:spans[k].e])
		if b, ok := next[k]; ok {
			item = b
		}
		b, err := rewriteItem(m, item, text)
		if err != nil {
			return nil, swc.Errorf(swc.EINVALID, "%s: rewriting its content: %v", in.Where[i], err)
		}
		next[k] = b
	}
	if len(next) == 0 {
		return raw, nil
	}
	b := make([]byte, 0, len(raw))
	pos := 0
	for k, sp := range spans {
		if nb, ok := next[k]; ok {
			b = append(append(b, raw[pos:sp.a]...), nb...)
			pos = sp.e
		}
	}
	return append(b, raw[pos:]...), nil
}

// itemOf returns the index of the item message m came from: a tool
// message's output item (the first answering its call), any other's
// message item; -1 for none.
func itemOf(m *swc.Message, items []rItem) int {
	for k := range items {
		kd, id := items[k].kind()
		if m.Role == swc.RoleTool && kd == kOutput && id == m.ToolCallID || m.Role != swc.RoleTool && kd == kMessage {
			return k
		}
	}
	return -1
}

// rewriteItem returns item (a message item, or an output item of a tool
// message m) holding text.
func rewriteItem(m *swc.Message, item []byte, text string) ([]byte, error) {
	field := "content"
	if m.Role == swc.RoleTool {
		field = "output"
	}
	start, end, err := valueSpan(item, field)
	if err != nil {
		return nil, err
	}
	v := bytes.TrimSpace(item[start:end])
	var q []byte
	switch {
	case m.Role == swc.RoleTool:
		q, err = responsesOutput(item, v, text)
	case m.Role == swc.RoleAssistant && len(v) > 0 && v[0] == '[':
		q, err = responsesTurn(v, text)
	default:
		q = jsonString(text)
	}
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(item)-(end-start)+len(q))
	return append(append(append(out, item[:start]...), q...), item[end:]...), nil
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
