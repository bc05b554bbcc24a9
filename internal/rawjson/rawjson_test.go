package rawjson

import (
	"encoding/json"
	"reflect"
	"testing"
)

// stringCases are JSON strings and things that are not.
var stringCases = []string{`"a"`, `""`, `"a\nb\u00e9\"\\"`, `"\ud800"`, `"\ud83d\ude00"`, "\"\xff\"", `"a" `, ` "a"`, `"a`, `1`, `null`, `"\x"`, "\"\t\""}

// arrayCases are JSON arrays and things that are not.
var arrayCases = []string{`[]`, `[1,"a",{"b":[2]},null]`, ` [ 1 , 2 ] `, `[1,]`, `[1] x`, `null`, `{}`, `"a"`, "[\"\xff\"]", `[`}

// mapCases are JSON objects and things that are not.
var mapCases = []string{`{}`, `{"a":1,"b":"x","a":[2]}`, ` { "a" : { "b" : null } } `, `{"A":1,"a":2}`, `null`, `[]`, `{"a":1} x`, `{"a":}`, "{\"\xff\":1}", `{"\ud800":1}`, `{"a\u0041":"\n"}`}

func TestSameAsUnmarshal(t *testing.T) {
	for _, raw := range stringCases {
		sameStringAsUnmarshal(t, []byte(raw))
	}
	for _, raw := range arrayCases {
		sameArrayAsUnmarshal(t, []byte(raw))
	}
	for _, raw := range mapCases {
		sameMapAsUnmarshal(t, []byte(raw))
	}
}

func sameStringAsUnmarshal(t *testing.T, raw []byte) {
	t.Helper()
	got, want := "was", "was"
	Unquote(raw, &got)
	json.Unmarshal(raw, &want)
	if got != want {
		t.Fatalf("%q: unquoted %q, json.Unmarshal %q", raw, got, want)
	}
}

func sameArrayAsUnmarshal(t *testing.T, raw []byte) {
	t.Helper()
	got, gerr := Array(raw)
	var want []json.RawMessage
	werr := json.Unmarshal(raw, &want)
	if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
		t.Fatalf("%q: error %v, json.Unmarshal's %v", raw, gerr, werr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: split %q, json.Unmarshal %q", raw, got, want)
	}
}

// sameAsUnmarshal checks decodeItem decodes raw as json.Unmarshal does,
// error for error.
func sameMapAsUnmarshal(t *testing.T, raw []byte) {
	t.Helper()
	var want map[string]json.RawMessage
	got, gerr := Object(raw)
	werr := json.Unmarshal(raw, &want)
	if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
		t.Fatalf("%q: error %v, json.Unmarshal's %v", raw, gerr, werr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: decoded %q, json.Unmarshal %q", raw, got, want)
	}
}

func FuzzUnquote(f *testing.F) {
	for _, raw := range stringCases {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { sameStringAsUnmarshal(t, raw) })
}

func FuzzArray(f *testing.F) {
	for _, raw := range arrayCases {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { sameArrayAsUnmarshal(t, raw) })
}

func FuzzObject(f *testing.F) {
	for _, raw := range mapCases {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { sameMapAsUnmarshal(t, raw) })
}
