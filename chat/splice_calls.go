package chat

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/swcmem/swc"
)

// Writing the clipped arguments of old tool calls (Output.Calls): each
// call's arguments go where its format keeps them, every other byte of
// the call, of its message and of the other calls as it came. A call is
// found by its id (Gemini's synthetic one by its part).

// callArgs returns the new arguments of the calls of source element o's
// messages that out.Calls changes, by call id (nil when none).
func callArgs(in *Input, out Output, o int) map[string]string {
	if len(out.Calls) == 0 {
		return nil
	}
	var args map[string]string
	for i, cs := range out.Calls { // fewer than the messages: the old turns with long arguments
		if i < 0 || i >= len(in.Origin) || in.Origin[i] != o {
			continue
		}
		was := in.Messages[i].ToolCalls
		for k, tc := range cs {
			if k < len(was) && was[k].ID == tc.ID && was[k].Arguments != tc.Arguments {
				if args == nil {
					args = map[string]string{}
				}
				args[tc.ID] = tc.Arguments
			}
		}
	}
	return args
}

// withCalls returns JSON object raw with the elements of its array member
// list rewritten by each (nil: as it came); raw itself when none changed.
func withCalls(raw []byte, list string, each func(elem []byte) ([]byte, error)) ([]byte, error) {
	start, end, err := valueSpan(raw, list)
	if err != nil {
		return nil, err
	}
	elems, err := arrayElems(raw[start:end])
	if err != nil {
		return nil, err
	}
	changed := false
	out := make([][]byte, len(elems))
	for k, e := range elems {
		out[k] = e
		nb, err := each(e)
		if err != nil {
			return nil, err
		}
		if nb != nil {
			out[k], changed = nb, true
		}
	}
	if !changed {
		return raw, nil
	}
	return replaceValue(raw, list, joinElems(out))
}

// openAICalls writes args into a Chat Completions assistant message's
// tool_calls: each named call's function.arguments, a JSON string.
func openAICalls(raw []byte, args map[string]string) ([]byte, error) {
	return withCalls(raw, "tool_calls", func(e []byte) ([]byte, error) {
		a, ok := args[topStrings(e, "id")["id"]]
		if !ok {
			return nil, nil
		}
		return replaceAt(e, jsonString(a), "function", "arguments")
	})
}

// anthropicCalls writes args into an Anthropic assistant message's
// content: each named tool_use block's input, a JSON object.
func anthropicCalls(raw []byte, args map[string]string) ([]byte, error) {
	return withCalls(raw, "content", func(e []byte) ([]byte, error) {
		b := topStrings(e, "type", "id")
		if b["type"] != "tool_use" {
			return nil, nil
		}
		a, ok := args[b["id"]]
		if !ok || !json.Valid([]byte(a)) {
			return nil, nil
		}
		return replaceValue(e, "input", []byte(a))
	})
}

// responsesCall writes args into a Responses call item when args names
// its call_id (nil otherwise): where its kind keeps them — a
// function_call's arguments and a custom_tool_call's input as JSON
// strings, a local_shell_call's action and an apply_patch_call's
// operation as the JSON values they are.
func responsesCall(item []byte, args map[string]string) ([]byte, error) {
	it := topStrings(item, "call_id")
	a, ok := args[it["call_id"]]
	if !ok {
		return nil, nil
	}
	for _, f := range []string{"arguments", "input", "action", "operation", "code"} {
		start, end, err := valueSpan(item, f)
		if err != nil {
			continue
		}
		v := item[start:end]
		if len(v) > 0 && v[0] == '"' {
			return replaceAt(item, jsonString(a), f)
		}
		if !json.Valid([]byte(a)) {
			return nil, nil
		}
		return replaceAt(item, []byte(a), f)
	}
	return nil, nil
}

// responsesCalls writes args into the call items of Raw element raw (its
// items, comma-separated).
func responsesCalls(raw []byte, args map[string]string) ([]byte, error) {
	spans, err := arraySpans(append(append([]byte{'['}, raw...), ']'))
	if err != nil {
		return nil, err
	}
	var b []byte
	pos := 0
	for _, sp := range spans {
		a, e := sp.a-1, sp.e-1 // in raw, not in "[" + raw + "]"
		nb, err := responsesCall(raw[a:e], args)
		if err != nil {
			return nil, err
		}
		if nb != nil {
			b = append(append(b, raw[pos:a]...), nb...)
			pos = e
		}
	}
	if b == nil {
		return raw, nil
	}
	return append(b, raw[pos:]...), nil
}

// geminiCalls writes args into Gemini content raw (contents[o] as
// written so far; orig, as it came): each functionCall part's args, a JSON
// object, the call named by its id or its synthetic one
// (geminiSyntheticID, of its part in orig: the writer may have dropped
// thought parts before it, never a call); its thoughtSignature and every
// other member of the part as it came.
func geminiCalls(raw, orig []byte, o int, args map[string]string) ([]byte, error) {
	var ids []string // of orig's functionCall parts, in order
	j := -1          // the part's index in orig
	if _, err := withCalls(orig, "parts", func(e []byte) ([]byte, error) {
		j++
		if id, _, ok := geminiCallID(e, o, j); ok {
			ids = append(ids, id)
		}
		return nil, nil
	}); err != nil {
		return nil, err
	}
	n := 0
	return withCalls(raw, "parts", func(e []byte) ([]byte, error) {
		_, key, ok := geminiCallID(e, o, 0)
		if !ok || n >= len(ids) {
			return nil, nil
		}
		id := ids[n]
		n++
		a, ok := args[id]
		if !ok || !json.Valid([]byte(a)) {
			return nil, nil
		}
		return replaceAt(e, []byte(a), key, "args")
	})
}

// geminiCallID returns the id of part e when it is a functionCall (its
// own, or geminiSyntheticID(o, j)) and the part's key for it. The part is
// read as tokens, the call's arguments skipped, not decoded (a call that
// writes a file carries the file); a part the reader refuses (invalid
// UTF-8) is decoded whole instead.
func geminiCallID(e []byte, o, j int) (id, key string, ok bool) {
	// A part without a "functionCall" or "function_call" member is none:
	// the bytes `unctionCall"` or `unction_call"` end such a key, and
	// inside a string a quote is escaped.
	if !bytes.Contains(e, []byte(`unctionCall"`)) && !bytes.Contains(e, []byte(`unction_call"`)) {
		return "", "", false
	}
	id, key, ok, err := geminiCallToken(e)
	if err != nil {
		var p map[string]json.RawMessage
		if json.Unmarshal(e, &p) != nil {
			return "", "", false
		}
		fc, k := GeminiField(p, "functionCall")
		if fc == nil {
			return "", "", false
		}
		var f struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(fc, &f)
		id, key, ok = f.ID, k, true
	}
	if ok && id == "" {
		id = geminiSyntheticID(o, j)
	}
	return id, key, ok
}

// geminiCallToken reads part e's functionCall (or function_call) member
// and its id as tokens, skipping every other value.
func geminiCallToken(e []byte) (id, key string, ok bool, err error) {
	dec := jsontext.NewDecoder(bytes.NewBuffer(e), fastOptions)
	t, err := dec.ReadToken()
	if err != nil || t.Kind() != '{' {
		return "", "", false, err
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return "", "", false, err
		}
		k := name.String()
		if (k != "functionCall" && k != "function_call") || dec.PeekKind() != '{' {
			if err := dec.SkipValue(); err != nil {
				return "", "", false, err
			}
			continue
		}
		if _, err := dec.ReadToken(); err != nil {
			return "", "", false, err
		}
		for dec.PeekKind() != '}' {
			m, err := dec.ReadToken()
			if err != nil {
				return "", "", false, err
			}
			if m.String() == "id" && dec.PeekKind() == '"' {
				v, err := dec.ReadToken()
				if err != nil {
					return "", "", false, err
				}
				id = v.String()
				continue
			}
			if err := dec.SkipValue(); err != nil {
				return "", "", false, err
			}
		}
		return id, k, true, nil
	}
	return "", "", false, nil
}

// topStrings returns the string members names of JSON object obj (those
// it has), read without decoding the other members' values (a call's
// arguments may be a whole file); nil when obj is not an object jsontext
// reads.
func topStrings(obj []byte, names ...string) map[string]string {
	dec := jsontext.NewDecoder(bytes.NewBuffer(obj), fastOptions)
	if t, err := dec.ReadToken(); err != nil || t.Kind() != '{' {
		return nil
	}
	out := make(map[string]string, len(names))
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return nil
		}
		k := name.String() // before the next read voids the token
		if !slices.Contains(names, k) || dec.PeekKind() != '"' {
			if dec.SkipValue() != nil {
				return nil
			}
			continue
		}
		v, err := dec.ReadToken()
		if err != nil {
			return nil
		}
		out[k] = v.String()
	}
	return out
}

// replaceAt returns obj with the value at path replaced by v, every other
// byte as it came.
func replaceAt(obj, v []byte, path ...any) ([]byte, error) {
	start, end, err := valueSpan(obj, path...)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(obj)-(end-start)+len(v))
	return append(append(append(out, obj[:start]...), v...), obj[end:]...), nil
}

// rewriteCalls returns raw (source element o as written so far) with the
// clipped arguments out.Calls gives its messages' calls, written by
// write; raw itself when none is.
func rewriteCalls(in *Input, out Output, o int, raw []byte, write func(raw []byte, args map[string]string) ([]byte, error)) ([]byte, error) {
	args := callArgs(in, out, o)
	if args == nil {
		return raw, nil
	}
	b, err := write(raw, args)
	if err != nil {
		return nil, swc.Errorf(swc.EINVALID, "%s: rewriting its calls' arguments: %v", whereOf(in, o), err)
	}
	return b, nil
}

// whereOf names source element o by its first message's Where.
func whereOf(in *Input, o int) string {
	for i, oi := range in.Origin {
		if oi == o {
			return in.Where[i]
		}
	}
	return "message"
}
