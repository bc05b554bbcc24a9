package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
)

// The items of a Responses body, their content parts and their strings
// are read as jsontext tokens rather than through encoding/json's
// reflection: a Codex CLI request of 100,000 tokens holds hundreds of
// items, and encoding/json took most of its parse (BenchmarkParseResponses).
// Each reader does what json.Unmarshal does, and where its value might
// not be the same (a name differing from a known one by case only, a
// string field holding another kind, invalid UTF-8 or a lone surrogate,
// anything after the value) it hands the whole value to json.Unmarshal,
// so that what is decoded, and every error, is json.Unmarshal's
// (TestDecodeItemSameAsUnmarshal, FuzzDecodeItem, FuzzDecodePart,
// FuzzUnquote, FuzzSplitArray).

// fastJSON is false to read every value by json.Unmarshal (the
// benchmarks' baseline).
var fastJSON = true

// decodeItem decodes an input item into it as json.Unmarshal does.
func decodeItem(raw []byte, it *rItem) error {
	if fastObject(raw, it.field, itemNames) {
		return nil
	}
	*it = rItem{}
	return json.Unmarshal(raw, it)
}

// itemNames are rItem's JSON names.
var itemNames = []string{"type", "role", "content", "id", "call_id", "approval_request_id", "name", "arguments", "input", "action", "operation", "code", "output", "result"}

// field returns where the fast read puts the item's field name.
func (it *rItem) field(name string) field {
	switch name {
	case "type":
		return field{str: &it.Type}
	case "role":
		return field{opt: &it.Role}
	case "content":
		return field{raw: &it.Content}
	case "id":
		return field{str: &it.ID}
	case "call_id":
		return field{str: &it.CallID}
	case "approval_request_id":
		return field{str: &it.ApprovalRequestID}
	case "name":
		return field{str: &it.Name}
	case "arguments":
		return field{raw: &it.Arguments}
	case "input":
		return field{str: &it.Input}
	case "action":
		return field{raw: &it.Action}
	case "operation":
		return field{raw: &it.Operation}
	case "code":
		return field{str: &it.Code}
	case "output":
		return field{raw: &it.Output}
	case "result":
		return field{str: &it.Result}
	}
	return field{}
}

// decodePart decodes a content part into p as json.Unmarshal does.
func decodePart(raw []byte, p *part) error {
	if fastObject(raw, p.field, partNames) {
		return nil
	}
	*p = part{}
	return json.Unmarshal(raw, p)
}

// partNames are part's JSON names.
var partNames = []string{"type", "text", "refusal", "detail", "image_url", "filename", "file_data", "stdout", "stderr"}

func (p *part) field(name string) field {
	switch name {
	case "type":
		return field{str: &p.Type}
	case "text":
		return field{opt: &p.Text}
	case "refusal":
		return field{str: &p.Refusal}
	case "detail":
		return field{str: &p.Detail}
	case "image_url":
		return field{raw: &p.ImageURL}
	case "filename":
		return field{str: &p.Filename}
	case "file_data":
		return field{str: &p.FileData}
	case "stdout":
		return field{str: &p.Stdout}
	case "stderr":
		return field{str: &p.Stderr}
	}
	return field{}
}

// A field is where the fast read puts a known field's value: a string, a
// string that null makes nil, the value's bytes, or an array's elements'
// bytes. None set: a field not decoded.
type field struct {
	str *string
	opt **string
	raw *json.RawMessage
	arr *[]json.RawMessage
}

// fastObject decodes the JSON object raw through fieldOf (names: the
// known fields' names) and reports whether it could.
func fastObject(raw []byte, fieldOf func(string) field, names []string) bool {
	if !fastJSON {
		return false
	}
	dec := jsontext.NewDecoder(bytes.NewReader(raw), fastOptions)
	if t, err := dec.ReadToken(); err != nil || t.Kind() != '{' {
		return false
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return false
		}
		k := name.String()
		f := fieldOf(k)
		switch {
		case f.raw != nil:
			v, err := dec.ReadValue()
			if err != nil {
				return false
			}
			end := int(dec.InputOffset()) // v is the decoder's: the field holds raw's bytes
			*f.raw = json.RawMessage(raw[end-len(v) : end : end])
		case f.arr != nil:
			if dec.PeekKind() == 'n' {
				if err := dec.SkipValue(); err != nil {
					return false
				}
				*f.arr = nil
				continue
			}
			v, err := dec.ReadValue()
			if err != nil || v.Kind() != '[' {
				return false
			}
			end := int(dec.InputOffset())
			elems, ok := fastArray(raw[end-len(v) : end : end])
			if !ok {
				return false
			}
			*f.arr = elems
		case f.str == nil && f.opt == nil:
			if foldsTo(k, names) {
				return false // json.Unmarshal matches names without regard to case
			}
			if err := dec.SkipValue(); err != nil {
				return false
			}
		case dec.PeekKind() == 'n':
			if err := dec.SkipValue(); err != nil {
				return false
			}
			if f.opt != nil {
				*f.opt = nil
			} // null leaves a string as it was
		case dec.PeekKind() == '"':
			t, err := dec.ReadToken()
			if err != nil {
				return false
			}
			s := t.String()
			if f.opt != nil {
				*f.opt = &s
			} else {
				*f.str = s
			}
		default:
			return false // json.Unmarshal's error names the field
		}
	}
	if _, err := dec.ReadToken(); err != nil { // '}'
		return false
	}
	_, err := dec.ReadToken()
	return errors.Is(err, io.EOF) // nothing after the object
}

// foldsTo reports whether name is one of names in another case ("Type"),
// which json.Unmarshal takes for it.
func foldsTo(name string, names []string) bool {
	for _, f := range names {
		if len(f) == len(name) && f != name && bytes.EqualFold([]byte(f), []byte(name)) {
			return true
		}
	}
	return false
}

// unquote sets *s to the JSON string raw as json.Unmarshal does, error
// for error (for anything but a string, *s as it was).
func unquote(raw []byte, s *string) error {
	if fastJSON && len(raw) >= 2 && raw[0] == '"' {
		if b, err := jsontext.AppendUnquote(nil, raw); err == nil {
			*s = unsafe.String(unsafe.SliceData(b), len(b)) // b is this string's alone
			return nil
		}
	}
	return json.Unmarshal(raw, s)
}

// decodeMap decodes the JSON object raw into *m, a new map of each
// member's bytes, as json.Unmarshal does, error for error.
func decodeMap(raw []byte, m *map[string]json.RawMessage) error {
	if fm, ok := fastMap(raw); ok {
		*m = fm
		return nil
	}
	*m = nil
	return json.Unmarshal(raw, m)
}

func fastMap(raw []byte) (map[string]json.RawMessage, bool) {
	if !fastJSON {
		return nil, false
	}
	dec := jsontext.NewDecoder(bytes.NewReader(raw), fastOptions)
	if t, err := dec.ReadToken(); err != nil || t.Kind() != '{' {
		return nil, false
	}
	m := map[string]json.RawMessage{}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return nil, false
		}
		k := name.String() // before the next read voids the token
		v, err := dec.ReadValue()
		if err != nil {
			return nil, false
		}
		end := int(dec.InputOffset())
		m[k] = json.RawMessage(raw[end-len(v) : end : end])
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, false
	}
	_, err := dec.ReadToken()
	return m, errors.Is(err, io.EOF)
}

// splitArray returns the elements of the JSON array raw as
// json.Unmarshal into []json.RawMessage does, error for error.
func splitArray(raw []byte) ([]json.RawMessage, error) {
	if parts, ok := fastArray(raw); ok {
		return parts, nil
	}
	var parts []json.RawMessage
	err := json.Unmarshal(raw, &parts)
	return parts, err
}

func fastArray(raw []byte) ([]json.RawMessage, bool) {
	if !fastJSON {
		return nil, false
	}
	dec := jsontext.NewDecoder(bytes.NewReader(raw), fastOptions)
	if t, err := dec.ReadToken(); err != nil || t.Kind() != '[' {
		return nil, false
	}
	parts := []json.RawMessage{}
	for dec.PeekKind() != ']' {
		v, err := dec.ReadValue()
		if err != nil {
			return nil, false
		}
		end := int(dec.InputOffset())
		parts = append(parts, json.RawMessage(raw[end-len(v):end:end]))
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, false
	}
	_, err := dec.ReadToken()
	return parts, errors.Is(err, io.EOF)
}
