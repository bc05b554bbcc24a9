package trajectory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/swcmem/swc/internal/rawjson"
)

// object is a JSON object's fields as they came.
type object map[string]json.RawMessage

// decodeObject reads a JSON object; it returns an error naming what the
// data is instead.
func decodeObject(data []byte) (object, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	o, err := rawjson.Object(data)
	if err != nil {
		return nil, err
	}
	return object(o), nil
}

// decodeList reads the JSON array of field key of o.
func (o object) list(key string) ([]json.RawMessage, error) {
	raw, ok := o[key]
	if !ok {
		return nil, fmt.Errorf("no %q", key)
	}
	items, err := rawjson.Array(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: want an array: %w", key, err)
	}
	return items, nil
}

// encode writes o with field key replaced by the array items: keys
// sorted, every value byte for byte as it is held (no re-encoding, so "<"
// stays "<").
func (o object) with(key string, items []json.RawMessage) []byte {
	keys := make([]string, 0, len(o)+1)
	for k := range o {
		if k != key {
			keys = append(keys, k)
		}
	}
	keys = append(keys, key)
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		if k != key {
			b.Write(bytes.TrimSpace(o[k]))
			continue
		}
		b.WriteByte('[')
		for j, it := range items {
			if j > 0 {
				b.WriteByte(',')
			}
			b.Write(bytes.TrimSpace(it))
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.Bytes()
}

// marshal encodes v without HTML escaping.
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(b.Bytes()), nil
}

// jsonStrings appends every string value of a JSON document (object keys
// left out) to out, one per line: the text a reader of the document sees.
func jsonStrings(out *bytes.Buffer, raw json.RawMessage) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		out.Write(raw)
		out.WriteByte('\n')
		return
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out.WriteString(x)
			out.WriteByte('\n')
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(x[k])
			}
		}
	}
	walk(v)
}
