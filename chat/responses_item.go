package chat

import (
	"encoding/json"

	"github.com/swcmem/swc/internal/rawjson"
)

// The items of a Responses body and their content parts, and Gemini's
// function calls and responses, are read by rawjson (as jsontext tokens,
// json.Unmarshal wherever a value might come out otherwise) rather than
// through encoding/json's reflection: a Codex CLI request of 100,000
// tokens holds hundreds of items, and encoding/json took most of its
// parse (BenchmarkParseResponses, BenchmarkParseGemini).
// TestDecodeItemSameAsUnmarshal, FuzzDecodeItem, FuzzDecodePart and
// FuzzDecodeFunction compare them with json.Unmarshal.

// decodeItem decodes an input item into it as json.Unmarshal does.
func decodeItem(raw []byte, it *rItem) error { return rawjson.Decode(raw, it, it.field, itemNames) }

// itemNames are rItem's JSON names.
var itemNames = []string{"type", "role", "content", "id", "call_id", "approval_request_id", "name", "arguments", "input", "action", "operation", "code", "output", "result", "encrypted_content"}

// field returns where the fast read puts the item's member name.
func (it *rItem) field(name string) rawjson.Field {
	switch name {
	case "type":
		return rawjson.Field{Str: &it.Type}
	case "role":
		return rawjson.Field{Opt: &it.Role}
	case "content":
		return rawjson.Field{Raw: &it.Content}
	case "id":
		return rawjson.Field{Str: &it.ID}
	case "call_id":
		return rawjson.Field{Str: &it.CallID}
	case "approval_request_id":
		return rawjson.Field{Str: &it.ApprovalRequestID}
	case "name":
		return rawjson.Field{Str: &it.Name}
	case "arguments":
		return rawjson.Field{Raw: &it.Arguments}
	case "input":
		return rawjson.Field{Str: &it.Input}
	case "action":
		return rawjson.Field{Raw: &it.Action}
	case "operation":
		return rawjson.Field{Raw: &it.Operation}
	case "code":
		return rawjson.Field{Str: &it.Code}
	case "output":
		return rawjson.Field{Raw: &it.Output}
	case "result":
		return rawjson.Field{Str: &it.Result}
	case "encrypted_content":
		return rawjson.Field{Raw: &it.EncryptedContent}
	}
	return rawjson.Field{}
}

// decodePart decodes a content part into p as json.Unmarshal does.
func decodePart(raw []byte, p *part) error { return rawjson.Decode(raw, p, p.field, partNames) }

// partNames are part's JSON names.
var partNames = []string{"type", "text", "refusal", "detail", "image_url", "filename", "file_data", "stdout", "stderr"}

func (p *part) field(name string) rawjson.Field {
	switch name {
	case "type":
		return rawjson.Field{Str: &p.Type}
	case "text":
		return rawjson.Field{Opt: &p.Text}
	case "refusal":
		return rawjson.Field{Str: &p.Refusal}
	case "detail":
		return rawjson.Field{Str: &p.Detail}
	case "image_url":
		return rawjson.Field{Raw: &p.ImageURL}
	case "filename":
		return rawjson.Field{Str: &p.Filename}
	case "file_data":
		return rawjson.Field{Str: &p.FileData}
	case "stdout":
		return rawjson.Field{Str: &p.Stdout}
	case "stderr":
		return rawjson.Field{Str: &p.Stderr}
	}
	return rawjson.Field{}
}

// decode decodes a functionCall or functionResponse into f as
// json.Unmarshal does.
func (f *geminiFunction) decode(raw []byte) error {
	return rawjson.Decode(raw, f, f.field, geminiFunctionNames)
}

var geminiFunctionNames = []string{"id", "name", "args", "response", "parts"}

func (f *geminiFunction) field(name string) rawjson.Field {
	switch name {
	case "id":
		return rawjson.Field{Str: &f.ID}
	case "name":
		return rawjson.Field{Str: &f.Name}
	case "args":
		return rawjson.Field{Raw: &f.Args}
	case "response":
		return rawjson.Field{Raw: &f.Response}
	case "parts":
		return rawjson.Field{Arr: &f.Parts}
	}
	return rawjson.Field{}
}

// decodeMap is rawjson.Object into *m, for the readers that test the map
// and the error together.
func decodeMap(raw []byte, m *map[string]json.RawMessage) error {
	var err error
	*m, err = rawjson.Object(raw)
	return err
}
