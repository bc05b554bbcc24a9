package trajectory

import (
	"encoding/json"
	"reflect"
	"testing"
)

// decodeCases are items, contents and calls, the usual and the odd.
var decodeCases = []string{
	`{"type":"function_call","call_id":"c","name":"shell","arguments":"{\"cmd\":\"ls\"}"}`,
	`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"x"}]}`,
	`{"role":"model","parts":[{"text":"a"},{"functionCall":{"id":"1","name":"read","args":{"p":"a"}}},null]}`,
	`{"role":"user","parts":null}`,
	`{"role":"user","parts":[1]}`,
	`{"parts":{}}`,
	`{"Role":"model"}`,
	`{"id":"1","name":"n","args":null}`,
	`{"arguments":{"not":"a string"}}`,
	`{"content":"plain"}`,
	`{"content":[1,2],"content":[3]}`,
	`{"CONTENT":1}`,
	"{\"role\":\"\xff\"}",
	`{"type":"x"} y`,
	`null`,
	`[]`,
}

func TestDecodeSameAsUnmarshal(t *testing.T) {
	for _, raw := range decodeCases {
		sameDecodes(t, []byte(raw))
	}
}

func FuzzDecodeStructs(f *testing.F) {
	for _, raw := range decodeCases {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { sameDecodes(t, raw) })
}

// sameDecodes checks each of the bench's decoders decodes raw as
// json.Unmarshal does, error for error.
func sameDecodes(t *testing.T, raw []byte) {
	t.Helper()
	check := func(what string, gerr, werr error, got, want any) {
		t.Helper()
		if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
			t.Fatalf("%s of %q: error %v, json.Unmarshal's %v", what, raw, gerr, werr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%s of %q: decoded %+v, json.Unmarshal %+v", what, raw, got, want)
		}
	}
	var it, wit responsesItem
	check("responses item", decodeResponsesItem(raw, &it), json.Unmarshal(raw, &wit), it, wit)
	var c, wc geminiContent
	check("gemini content", decodeGeminiContent(raw, &c), json.Unmarshal(raw, &wc), c, wc)
	var f, wf geminiFunc
	check("gemini call", decodeGeminiFunc(raw, &f), json.Unmarshal(raw, &wf), f, wf)
	var content json.RawMessage
	var m struct {
		Content json.RawMessage `json:"content"`
	}
	check("content", decodeContent(raw, &content), json.Unmarshal(raw, &m), content, m.Content)
	var parts []json.RawMessage
	var p struct {
		Parts []json.RawMessage `json:"parts"`
	}
	check("parts", decodeParts(raw, &parts), json.Unmarshal(raw, &p), parts, p.Parts)
}
