package chat

import (
	"bytes"
	"encoding/json"
	"sort"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/swcmem/swc"
)

// Writing a request back, for every codec: a rewritten message (Output.Rewritten) changes only its
// content, every other byte of it is sent as it came.

// rewriteRaw returns the source message (or item) o of in with the
// contents of its rewritten messages replaced, at the path (see
// valueSpan) that path gives for each such message (where: its
// Input.Where; raw: the source as rewritten so far). It returns raw
// itself when none of o's messages is rewritten.
//
// value, when not nil, writes the new value from the text (m: the
// message rewritten; raw: the source as rewritten so far; v: the value it
// replaces); nil writes the text as a JSON string.
func rewriteRaw(in *Input, out Output, o int, path func(where string, raw []byte) []any, value func(m *swc.Message, raw, v []byte, text string) ([]byte, error)) (json.RawMessage, error) {
	raw := in.Raw[o]
	if len(out.Rewritten) == 0 {
		return raw, nil
	}
	cur := raw
	for i, oi := range in.Origin {
		if oi != o { // the cheap test first: every source of a request walks every message
			continue
		}
		text, ok := out.Rewritten[i]
		if !ok {
			continue
		}
		start, end, err := valueSpan(cur, path(in.Where[i], cur)...)
		if err != nil {
			return nil, swc.Errorf(swc.EINVALID, "%s: rewriting its content: %v", in.Where[i], err)
		}
		q := jsonString(text)
		if value != nil {
			if q, err = value(&in.Messages[i], cur, cur[start:end], text); err != nil {
				return nil, swc.Errorf(swc.EINVALID, "%s: rewriting its content: %v", in.Where[i], err)
			}
		}
		next := make([]byte, 0, len(cur)-(end-start)+len(q))
		next = append(append(append(next, cur[:start]...), q...), cur[end:]...)
		cur = next
	}
	return cur, nil
}

// contentPath is the path of a message's own "content".
func contentPath(string, []byte) []any { return []any{"content"} }

// jsonString returns s as a JSON string, without HTML escaping.
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimRight(b.Bytes(), "\n")
}

// valueSpan returns the offsets [start, end) in raw of the JSON value at
// path: a string names an object's member, an int an array's element.
// It reads with jsontext (skipping values without decoding them), and
// again with encoding/json where jsontext refuses raw (invalid UTF-8 in
// a string, which encoding/json takes).
func valueSpan(raw []byte, path ...any) (start, end int, err error) {
	if start, end, ok := fastValueSpan(raw, path...); ok {
		return start, end, nil
	}
	return slowValueSpan(raw, path...)
}

// fastValueSpan is valueSpan with jsontext; ok false at any error.
func fastValueSpan(raw []byte, path ...any) (start, end int, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewBuffer(raw), fastOptions)
	for _, p := range path {
		t, err := dec.ReadToken()
		if err != nil {
			return 0, 0, false
		}
		switch p := p.(type) {
		case string:
			if t.Kind() != '{' {
				return 0, 0, false
			}
			found := false
			for dec.PeekKind() != '}' {
				name, err := dec.ReadToken()
				if err != nil {
					return 0, 0, false
				}
				if name.String() == p {
					found = true
					break
				}
				if dec.SkipValue() != nil {
					return 0, 0, false
				}
			}
			if !found {
				return 0, 0, false
			}
		case int:
			if t.Kind() != '[' {
				return 0, 0, false
			}
			for n := 0; n < p; n++ {
				if dec.PeekKind() == ']' || dec.SkipValue() != nil {
					return 0, 0, false
				}
			}
			if dec.PeekKind() == ']' {
				return 0, 0, false
			}
		default:
			return 0, 0, false
		}
	}
	v, err := dec.ReadValue()
	if err != nil {
		return 0, 0, false
	}
	end = int(dec.InputOffset())
	return end - len(v), end, true
}

// slowValueSpan is valueSpan with encoding/json.
func slowValueSpan(raw []byte, path ...any) (start, end int, err error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var skip json.RawMessage
	for _, p := range path {
		tok, err := dec.Token()
		if err != nil {
			return 0, 0, err
		}
		switch p := p.(type) {
		case string:
			if tok != json.Delim('{') {
				return 0, 0, errorf("%q: not in an object", p)
			}
			found := false
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return 0, 0, err
				}
				if kt == p {
					found = true
					break
				}
				if err := dec.Decode(&skip); err != nil {
					return 0, 0, err
				}
			}
			if !found {
				return 0, 0, errorf("no %q", p)
			}
		case int:
			if tok != json.Delim('[') {
				return 0, 0, errorf("[%d]: not in an array", p)
			}
			for n := 0; n < p; n++ {
				if !dec.More() {
					return 0, 0, errorf("no element %d", p)
				}
				if err := dec.Decode(&skip); err != nil {
					return 0, 0, err
				}
			}
			if !dec.More() {
				return 0, 0, errorf("no element %d", p)
			}
		}
	}
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return 0, 0, err
	}
	end = int(dec.InputOffset())
	return end - len(v), end, nil
}

func errorf(format string, args ...any) error { return swc.Errorf(swc.EINVALID, format, args...) }

// withMessages returns the request body with its messages (and system,
// when not nil) replaced, every other field as it came. It writes the raw
// values as they are rather than through json.Marshal, which would compact
// and re-validate the whole history again.
func withMessages(in *Input, msgs []json.RawMessage, system json.RawMessage) ([]byte, error) {
	keys := make([]string, 0, len(in.Body)+1)
	for k := range in.Body {
		if k != "messages" && (k != "system" || system == nil) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	// Sized for what is written, not for the body read: a compressed
	// request is a small part of its input, and the buffer goes upstream.
	size := 64 + len(system)
	for _, k := range keys {
		size += len(k) + len(in.Body[k]) + 4
	}
	for _, m := range msgs {
		size += len(m) + 1
	}
	out := make([]byte, 0, size)
	out = append(out, '{')
	field := func(k string, v []byte) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		kb, _ := json.Marshal(k) // JSON quoting, not Go's
		out = append(out, kb...)
		out = append(out, ':')
		out = append(out, v...)
	}
	for _, k := range keys {
		field(k, in.Body[k])
	}
	if system != nil {
		field("system", system)
	}
	field("messages", nil)
	out = append(out, '[')
	for i, m := range msgs {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, m...)
	}
	out = append(out, ']', '}')
	return out, nil
}

func joinArray(elems []json.RawMessage) json.RawMessage {
	n := 2
	for _, e := range elems {
		n += len(e) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for i, e := range elems {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	return append(out, ']')
}

// writeObject returns the JSON object of obj's fields with set's replacing
// them (a nil value in set drops the field), the values written as they
// are, keys in name order.
func writeObject(obj, set map[string]json.RawMessage) json.RawMessage {
	keys := make([]string, 0, len(obj)+len(set))
	for k := range obj {
		if _, ok := set[k]; !ok {
			keys = append(keys, k)
		}
	}
	for k, v := range set {
		if v != nil {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := []byte{'{'}
	for i, k := range keys {
		if i > 0 {
			out = append(out, ',')
		}
		kb, _ := json.Marshal(k)
		out = append(out, kb...)
		out = append(out, ':')
		if v, ok := set[k]; ok {
			out = append(out, v...)
		} else {
			out = append(out, obj[k]...)
		}
	}
	return append(out, '}')
}
