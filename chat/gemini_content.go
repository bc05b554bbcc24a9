package chat

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/swcmem/swc"
)

// gContent is a Gemini content as decoded: whether the model said it, and
// its parts.
type gContent struct {
	model bool
	parts []gPart
}

// gPart is a part of a content as decoded: a functionCall (call), a
// functionResponse (resp; key is its field's name as written), or any
// other part's text and the tokens its media and thought count.
type gPart struct {
	call  *gCall
	resp  *gResponse
	key   string
	text  string
	media int
}

// gCall is a functionCall: its id ("" for none), name and arguments
// ("{}" for none).
type gCall struct {
	ID, Name, args string
}

// gResponse is a functionResponse: the id and name it answers, its text
// and the tokens its media parts count.
type gResponse struct {
	ID, Name, text string
	media          int
}

// decodeGeminiContent decodes content raw (named by where), its media
// counted under res, or returns an EINVALID error naming what is wrong
// with it alone (a call or a response in the wrong role's content, a
// call without a name, a part that is not an object).
func decodeGeminiContent(raw json.RawMessage, where string, res geminiMedia) (*gContent, error) {
	role, parts, err := geminiContent(raw, where)
	if err != nil {
		return nil, err
	}
	dc := &gContent{model: role == "model", parts: make([]gPart, len(parts))}
	for j, p := range parts {
		pw := func() string { return fmt.Sprintf("%s.parts[%d]", where, j) }
		if fc, key := GeminiField(p, "functionCall"); fc != nil {
			if role != "model" {
				return nil, swc.Errorf(swc.EINVALID, "%s.%s: a functionCall part in a user content (only the model calls functions)", pw(), key)
			}
			var f geminiFunction
			if err := f.decode(fc); err != nil {
				return nil, swc.Errorf(swc.EINVALID, "%s.%s: want an object with name and args, got %s", pw(), key, kind(fc))
			}
			if f.Name == "" {
				return nil, swc.Errorf(swc.EINVALID, "%s.%s.name: missing", pw(), key)
			}
			args := string(bytes.TrimSpace(f.Args))
			if args == "" || args == "null" {
				args = "{}"
			}
			dc.parts[j] = gPart{call: &gCall{ID: f.ID, Name: f.Name, args: args}, key: key}
			continue
		}
		if fr, key := GeminiField(p, "functionResponse"); fr != nil {
			if role == "model" {
				return nil, swc.Errorf(swc.EINVALID, "%s.%s: a functionResponse part in a model content (responses come in user contents)", pw(), key)
			}
			var f geminiFunction
			if err := f.decode(fr); err != nil {
				return nil, swc.Errorf(swc.EINVALID, "%s.%s: want an object with name and response, got %s", pw(), key, kind(fr))
			}
			r := &gResponse{ID: f.ID, Name: f.Name, text: geminiResponseText(f.Response)}
			for k, rp := range f.Parts {
				var mp map[string]json.RawMessage
				if err := decodeMap(rp, &mp); err != nil || mp == nil {
					return nil, swc.Errorf(swc.EINVALID, "%s.%s.parts[%d]: want a part object, got %s", pw(), key, k, kind(rp))
				}
				if r.text != "" {
					r.text += "\n"
				}
				r.text += geminiPartText(mp)
				r.media += geminiMediaTokens(mp, res)
			}
			dc.parts[j] = gPart{resp: r, key: key}
			continue
		}
		dc.parts[j] = gPart{text: geminiPartText(p), media: geminiMediaTokens(p, res) + geminiThoughtTokens(p)}
	}
	return dc, nil
}
