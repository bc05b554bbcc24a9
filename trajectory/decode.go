package trajectory

import (
	"encoding/json"

	"github.com/swcmem/swc/internal/rawjson"
)

// The bench reads every request of a run, each holding the whole history
// before it, so its decoding of items and contents is most of its time:
// these read the structs it decodes most through rawjson (jsontext
// tokens, json.Unmarshal wherever a value might come out otherwise;
// TestDecodeSameAsUnmarshal, FuzzDecodeStructs).

// decodeResponsesItem decodes a Responses input item as json.Unmarshal
// does.
func decodeResponsesItem(raw []byte, it *responsesItem) error {
	return rawjson.Decode(raw, it, it.field, responsesItemNames)
}

var responsesItemNames = []string{"type", "role", "content", "call_id", "arguments", "input"}

func (it *responsesItem) field(name string) rawjson.Field {
	switch name {
	case "type":
		return rawjson.Field{Str: &it.Type}
	case "role":
		return rawjson.Field{Str: &it.Role}
	case "content":
		return rawjson.Field{Raw: &it.Content}
	case "call_id":
		return rawjson.Field{Str: &it.CallID}
	case "arguments":
		return rawjson.Field{Str: &it.Arguments}
	case "input":
		return rawjson.Field{Str: &it.Input}
	}
	return rawjson.Field{}
}

// decodeGeminiContent decodes a Gemini content as json.Unmarshal does.
func decodeGeminiContent(raw []byte, c *geminiContent) error {
	var parts []json.RawMessage
	ok := rawjson.Fields(raw, func(name string) rawjson.Field {
		switch name {
		case "role":
			return rawjson.Field{Str: &c.Role}
		case "parts":
			return rawjson.Field{Arr: &parts}
		}
		return rawjson.Field{}
	}, geminiContentNames)
	if ok && parts != nil {
		c.Parts = make([]map[string]json.RawMessage, len(parts))
		for i, p := range parts {
			if string(p) == "null" {
				continue
			}
			if c.Parts[i], ok = fastObject(p); !ok {
				break
			}
		}
	}
	if ok {
		return nil
	}
	*c = geminiContent{}
	return json.Unmarshal(raw, c)
}

var geminiContentNames = []string{"role", "parts"}

// fastObject is rawjson.Object of an object, false for anything else or
// an error.
func fastObject(raw []byte) (map[string]json.RawMessage, bool) {
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	m, err := rawjson.Object(raw)
	return m, err == nil
}

// decodeGeminiFunc decodes a functionCall or functionResponse as
// json.Unmarshal does.
func decodeGeminiFunc(raw []byte, f *geminiFunc) error {
	return rawjson.Decode(raw, f, f.field, geminiFuncNames)
}

var geminiFuncNames = []string{"id", "name", "args"}

func (f *geminiFunc) field(name string) rawjson.Field {
	switch name {
	case "id":
		return rawjson.Field{Str: &f.ID}
	case "name":
		return rawjson.Field{Str: &f.Name}
	case "args":
		return rawjson.Field{Raw: &f.Args}
	}
	return rawjson.Field{}
}

// decodeContent decodes the "content" member of a message as
// json.Unmarshal into struct{ Content json.RawMessage } does.
func decodeContent(raw []byte, content *json.RawMessage) error {
	var m struct {
		Content json.RawMessage `json:"content"`
	}
	err := rawjson.Decode(raw, &m, func(name string) rawjson.Field {
		if name == "content" {
			return rawjson.Field{Raw: &m.Content}
		}
		return rawjson.Field{}
	}, contentNames)
	*content = m.Content
	return err
}

var contentNames = []string{"content"}

// decodeParts decodes the "parts" member of a Gemini content as
// json.Unmarshal into struct{ Parts []json.RawMessage } does.
func decodeParts(raw []byte, parts *[]json.RawMessage) error {
	var obj struct {
		Parts []json.RawMessage `json:"parts"`
	}
	err := rawjson.Decode(raw, &obj, func(name string) rawjson.Field {
		if name == "parts" {
			return rawjson.Field{Arr: &obj.Parts}
		}
		return rawjson.Field{}
	}, partsNames)
	*parts = obj.Parts
	return err
}

var partsNames = []string{"parts"}
