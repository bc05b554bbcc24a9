// Package rawjson decodes JSON objects, arrays and strings as
// encoding/json does, reading them as jsontext tokens
// (github.com/go-json-experiment/json/jsontext) rather than through
// encoding/json's reflection: 2.4–4× faster on agents' request bodies,
// where most of the bytes are long strings (chat's
// BenchmarkParseResponses and BenchmarkParseGemini). Each function does
// what json.Unmarshal does, and where its result might not be the same
// (a name differing from a known one by case only, a string field holding
// another kind, invalid UTF-8 or an unpaired surrogate, anything after
// the value) it hands the whole value to json.Unmarshal, so that what is
// decoded, and every error, is json.Unmarshal's (FuzzObject, FuzzArray and
// FuzzUnquote compare the two; chat's FuzzDecodeItem, FuzzDecodePart and
// FuzzDecodeFunction and the trajectory bench's FuzzDecodeStructs, Fields). A value's bytes in what it
// returns are slices of the input, not copies.
package rawjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
)

// Fast is false to read every value by json.Unmarshal: the benchmarks'
// baseline. Programs leave it true.
var Fast = true

// options: duplicate names are json.Unmarshal's business (the last wins).
var options = jsontext.AllowDuplicateNames(true)

// Object decodes the JSON object raw into a new map of each member's
// bytes, as json.Unmarshal into a nil map[string]json.RawMessage does,
// error for error (null: a nil map, no error).
func Object(raw []byte) (map[string]json.RawMessage, error) {
	if m, ok := fastObject(raw); ok {
		return m, nil
	}
	var m map[string]json.RawMessage
	err := json.Unmarshal(raw, &m)
	return m, err
}

func fastObject(raw []byte) (map[string]json.RawMessage, bool) {
	if !Fast {
		return nil, false
	}
	dec := jsontext.NewDecoder(bytes.NewBuffer(raw), options)
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
		v, ok := value(dec, raw)
		if !ok {
			return nil, false
		}
		m[k] = v
	}
	return m, end(dec)
}

// Array returns the elements of the JSON array raw as json.Unmarshal
// into []json.RawMessage does, error for error (null: nil, no error).
func Array(raw []byte) ([]json.RawMessage, error) {
	if elems, ok := fastArray(raw); ok {
		return elems, nil
	}
	var elems []json.RawMessage
	err := json.Unmarshal(raw, &elems)
	return elems, err
}

func fastArray(raw []byte) ([]json.RawMessage, bool) {
	if !Fast {
		return nil, false
	}
	dec := jsontext.NewDecoder(bytes.NewBuffer(raw), options)
	if t, err := dec.ReadToken(); err != nil || t.Kind() != '[' {
		return nil, false
	}
	elems := []json.RawMessage{}
	for dec.PeekKind() != ']' {
		v, ok := value(dec, raw)
		if !ok {
			return nil, false
		}
		elems = append(elems, v)
	}
	return elems, end(dec)
}

// Unquote sets *s to the JSON string raw as json.Unmarshal does, error
// for error (for anything but a string, *s as it was).
func Unquote(raw []byte, s *string) error {
	if Fast && len(raw) >= 2 && raw[0] == '"' {
		if b, err := jsontext.AppendUnquote(nil, raw); err == nil {
			*s = unsafe.String(unsafe.SliceData(b), len(b)) // b is this string's alone
			return nil
		}
	}
	return json.Unmarshal(raw, s)
}

// A Field is where Fields puts a known member's value: a string, a
// string that null makes nil, the value's bytes, or an array's
// elements' bytes. None set: a member not decoded.
type Field struct {
	Str *string
	Opt **string
	Raw *json.RawMessage
	Arr *[]json.RawMessage
}

// Fields decodes the JSON object raw into the fields fieldOf names (of
// a struct whose JSON names are names) as json.Unmarshal into that
// struct would, and reports whether it could; when it could not, the
// caller runs json.Unmarshal on the zeroed struct, which then decodes
// what the fast read would have got wrong, and words the error.
func Fields(raw []byte, fieldOf func(name string) Field, names []string) bool {
	if !Fast {
		return false
	}
	dec := jsontext.NewDecoder(bytes.NewBuffer(raw), options)
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
		case f.Raw != nil:
			v, ok := value(dec, raw)
			if !ok {
				return false
			}
			*f.Raw = v
		case f.Arr != nil:
			if dec.PeekKind() == 'n' {
				if dec.SkipValue() != nil {
					return false
				}
				*f.Arr = nil
				continue
			}
			v, ok := value(dec, raw)
			if !ok || len(v) == 0 || v[0] != '[' {
				return false
			}
			elems, ok := fastArray(v)
			if !ok {
				return false
			}
			*f.Arr = elems
		case f.Str == nil && f.Opt == nil:
			if foldsTo(k, names) {
				return false // json.Unmarshal matches names without regard to case
			}
			if dec.SkipValue() != nil {
				return false
			}
		case dec.PeekKind() == 'n':
			if dec.SkipValue() != nil {
				return false
			}
			if f.Opt != nil {
				*f.Opt = nil
			} // null leaves a string as it was
		case dec.PeekKind() == '"':
			t, err := dec.ReadToken()
			if err != nil {
				return false
			}
			s := t.String()
			if f.Opt != nil {
				*f.Opt = &s
			} else {
				*f.Str = s
			}
		default:
			return false // json.Unmarshal's error names the field
		}
	}
	return end(dec)
}

// Decode decodes the JSON object raw into *v, a struct whose members
// fieldOf places (names: its JSON names), as json.Unmarshal does, error
// for error: by Fields, else by json.Unmarshal into a zeroed *v.
func Decode[T any](raw []byte, v *T, fieldOf func(name string) Field, names []string) error {
	if Fields(raw, fieldOf, names) {
		return nil
	}
	var zero T
	*v = zero
	return json.Unmarshal(raw, v)
}

// value reads the next value and returns its bytes in raw, the input.
func value(dec *jsontext.Decoder, raw []byte) (json.RawMessage, bool) {
	v, err := dec.ReadValue()
	if err != nil {
		return nil, false
	}
	e := int(dec.InputOffset()) // v is the decoder's: the value is raw's bytes
	return json.RawMessage(raw[e-len(v) : e : e]), true
}

// end reads the closing delimiter and reports whether nothing comes after
// it.
func end(dec *jsontext.Decoder) bool {
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	_, err := dec.ReadToken()
	return errors.Is(err, io.EOF)
}

// foldsTo reports whether name is one of names in another case ("Type",
// or "ſtdout" with a long s), which json.Unmarshal takes for it: its
// folding is bytes.EqualFold's.
func foldsTo(name string, names []string) bool {
	for _, f := range names {
		if f != name && bytes.EqualFold([]byte(f), []byte(name)) {
			return true
		}
	}
	return false
}
