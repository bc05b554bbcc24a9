// Package wiretest holds checks of request bodies as swc forwards them
// that the tests of several packages share.
package wiretest

import "encoding/json"

// Unthought reports whether model content c is one of raws (contents as
// a client sent them) without its thought parts that carry no signature,
// compared by value: an old turn of a tool loop goes without them.
func Unthought(raws map[string]bool, c []byte) bool {
	got, _, ok := canon(c, false)
	if !ok {
		return false
	}
	for r := range raws {
		if want, dropped, ok := canon([]byte(r), true); ok && dropped && want == got {
			return true
		}
	}
	return false
}

// canon returns a model content re-encoded (keys sorted), with drop its
// unsigned thought parts left out, and whether any was; ok is false for
// a content that is not a model's.
func canon(raw []byte, drop bool) (s string, dropped, ok bool) {
	var v map[string]any
	if json.Unmarshal(raw, &v) != nil || v["role"] != "model" {
		return "", false, false
	}
	parts, _ := v["parts"].([]any)
	kept := []any{}
	for _, p := range parts {
		m, _ := p.(map[string]any)
		if _, signed := m["thoughtSignature"]; drop && m["thought"] == true && !signed {
			dropped = true
			continue
		}
		kept = append(kept, p)
	}
	v["parts"] = kept
	b, _ := json.Marshal(v)
	return string(b), dropped, true
}
