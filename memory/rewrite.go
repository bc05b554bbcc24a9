package memory

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// Writing Result.Rewritten into a request: only the content of a
// rewritten message changes, every other byte of it is sent as it came.

// rewriteRaw returns the source message (or item) o of in with the
// contents of its rewritten messages replaced: OpenAI's "content", a
// tool_result block's "content" in an Anthropic message (a message's own
// "content" for its text), a Responses item's "output" (a message item's
// "content"). It returns raw itself when none of o's messages is
// rewritten.
func rewriteRaw(in *chat.Input, res *Result, o int) (json.RawMessage, error) {
	raw := in.Raw[o]
	if len(res.Rewritten) == 0 {
		return raw, nil
	}
	out := raw
	for i, oi := range in.Origin {
		text, ok := res.Rewritten[i]
		if oi != o || !ok {
			continue
		}
		var path []any
		switch in.Format {
		case chat.Anthropic:
			if k, ok := blockIndex(in.Where[i]); ok {
				path = []any{"content", k, "content"}
			} else {
				path = []any{"content"}
			}
		case chat.Responses:
			path = []any{"content"}
			if _, _, err := valueSpan(out, "output"); err == nil {
				path = []any{"output"}
			}
		default:
			path = []any{"content"}
		}
		start, end, err := valueSpan(out, path...)
		if err != nil {
			return nil, swc.Errorf(swc.EINVALID, "%s: rewriting its content: %v", in.Where[i], err)
		}
		q := jsonString(text)
		if in.Format == chat.Responses && path[0] == "output" {
			if q, err = responsesOutput(out, out[start:end], text); err != nil {
				return nil, swc.Errorf(swc.EINVALID, "%s: rewriting its output: %v", in.Where[i], err)
			}
		}
		next := make([]byte, 0, len(out)-(end-start)+len(q))
		next = append(append(append(next, out[:start]...), q...), out[end:]...)
		out = next
	}
	return out, nil
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

// blockIndex returns k of a where ending in ".content[k]" (an Anthropic
// content block).
func blockIndex(where string) (int, bool) {
	i := strings.LastIndex(where, ".content[")
	if i < 0 || !strings.HasSuffix(where, "]") {
		return 0, false
	}
	k, err := strconv.Atoi(where[i+len(".content[") : len(where)-1])
	return k, err == nil
}

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
func valueSpan(raw []byte, path ...any) (start, end int, err error) {
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
