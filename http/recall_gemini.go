package http

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/swcmem/swc/chat"
)

// swc_recall on the Gemini API: the tool is one more entry of the
// request's functionDeclarations, its calls functionCall parts of the
// model's content, swc's answers functionResponse parts of a user content
// that follows the model's content as it came (its parts byte for byte,
// thought signatures included: Gemini wants them back).

// recallToolGemini is swc_recall's function declaration: Gemini's
// parameters are an OpenAPI schema (types in capitals, no
// additionalProperties).
const recallToolGemini = `{"name":"swc_recall","description":` + `"` + recallDescription + `"` + `,"parameters":{"type":"OBJECT","properties":{` +
	`"handle":{"type":"STRING","description":"` + recallHandleDescription + `"},` +
	`"query":{"type":"STRING","description":"` + recallQueryDescription + `"}}}}`

// geminiRecallOn reports whether a Gemini request may go out with
// swc_recall: it is a generateContent request (or a countTokens body
// holding one) that declares functions, none named swc_recall, its
// functionCallingConfig's mode is not NONE and it asks for one candidate.
func geminiRecallOn(body map[string]json.RawMessage) bool {
	req, _, err := chat.GeminiRequest(body)
	if err != nil {
		return false
	}
	tools, _ := chat.GeminiField(req, "tools")
	var entries []map[string]json.RawMessage
	if json.Unmarshal(tools, &entries) != nil {
		return false
	}
	declared := 0
	for _, e := range entries {
		fds, _ := chat.GeminiField(e, "functionDeclarations")
		var decls []struct {
			Name string `json:"name"`
		}
		json.Unmarshal(fds, &decls)
		for _, d := range decls {
			if d.Name == recallTool {
				return false
			}
			declared++
		}
	}
	if declared == 0 {
		return false
	}
	if tc, _ := chat.GeminiField(req, "toolConfig"); tc != nil {
		var cfg map[string]json.RawMessage
		json.Unmarshal(tc, &cfg)
		fc, _ := chat.GeminiField(cfg, "functionCallingConfig")
		var mode struct {
			Mode string `json:"mode"`
		}
		if json.Unmarshal(fc, &mode) == nil && strings.EqualFold(mode.Mode, "NONE") {
			return false
		}
	}
	if gc, _ := chat.GeminiField(req, "generationConfig"); gc != nil {
		var cfg map[string]json.RawMessage
		json.Unmarshal(gc, &cfg)
		if n, _ := chat.GeminiField(cfg, "candidateCount"); n != nil {
			if s := string(bytes.TrimSpace(n)); s != "1" && s != "null" {
				return false
			}
		}
	}
	return true
}

// geminiWithRecallTool returns body with swc_recall's declaration
// appended to the functionDeclarations of the first entry of its tools
// that has them (a new entry {"functionDeclarations":[…]} at the end when
// none has), in the request itself or in a countTokens body's
// generateContentRequest; every other byte is kept.
func geminiWithRecallTool(body []byte) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, err
	}
	if c, _ := chat.GeminiField(top, "contents"); c == nil {
		_, key := chat.GeminiField(top, "generateContentRequest")
		if key == "" {
			return nil, errors.New("no contents")
		}
		return spliceMember(body, key, geminiWithRecallTool)
	}
	_, key := chat.GeminiField(top, "tools")
	if key == "" {
		return nil, errors.New("no tools")
	}
	return spliceMember(body, key, func(tools []byte) ([]byte, error) {
		start, end, ok := geminiDeclarations(tools)
		if !ok {
			out, ok := appendValues(tools, `{"functionDeclarations":[`+recallToolGemini+`]}`)
			if !ok {
				return nil, errors.New(key + ": not an array")
			}
			return out, nil
		}
		entry, err := appendToArray(tools[start:end], declarationsKey(tools[start:end]), recallToolGemini)
		if err != nil {
			return nil, err
		}
		out := make([]byte, 0, len(tools)+len(recallToolGemini)+1)
		return append(append(append(out, tools[:start]...), entry...), tools[end:]...), nil
	})
}

// geminiDeclarations returns the offsets in tools (a JSON array) of its
// first entry that has functionDeclarations.
func geminiDeclarations(tools []byte) (int, int, bool) {
	dec := json.NewDecoder(bytes.NewReader(tools))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return 0, 0, false
	}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return 0, 0, false
		}
		end := int(dec.InputOffset())
		if declarationsKey(raw) != "" {
			return end - len(raw), end, true
		}
	}
	return 0, 0, false
}

// declarationsKey returns how a tools entry spells functionDeclarations
// ("" when it has none, or not as an array).
func declarationsKey(entry []byte) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(entry, &m) != nil {
		return ""
	}
	v, key := chat.GeminiField(m, "functionDeclarations")
	if v = bytes.TrimSpace(v); len(v) == 0 || v[0] != '[' {
		return ""
	}
	return key
}

// geminiPart is what recall reads of a part of the model's content.
type geminiPart struct {
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
}

// geminiTurn is the turn of a Gemini answer: one GenerateContentResponse,
// or the chunks of a stream. The model's content to send back holds every
// part of its candidate, in order, each byte for byte; the usage is the
// last chunk's usageMetadata (a stream's chunks carry it as it grows).
func geminiTurn(chunks []json.RawMessage) (recallTurn, bool) {
	t := recallTurn{swcIdx: map[int]bool{}}
	var parts []string
	for _, c := range chunks {
		var r struct {
			Candidates []struct {
				Content struct {
					Parts []json.RawMessage `json:"parts"`
				} `json:"content"`
			} `json:"candidates"`
			Usage json.RawMessage `json:"usageMetadata"`
		}
		if json.Unmarshal(c, &r) != nil || len(r.Candidates) > 1 {
			return recallTurn{}, false
		}
		if len(r.Usage) > 0 && string(r.Usage) != "null" {
			u, err := decodeJSON(r.Usage)
			if err != nil {
				return recallTurn{}, false
			}
			t.usage = obj(u)
		}
		if len(r.Candidates) == 0 {
			continue
		}
		for _, raw := range r.Candidates[0].Content.Parts {
			var p geminiPart
			if json.Unmarshal(raw, &p) != nil {
				return recallTurn{}, false
			}
			parts = append(parts, string(raw))
			switch {
			case p.FunctionCall == nil:
			case p.FunctionCall.Name == recallTool:
				args := string(bytes.TrimSpace(p.FunctionCall.Args))
				if args == "" || args == "null" {
					args = "{}"
				}
				t.calls = append(t.calls, recallCall{p.FunctionCall.ID, args})
			default:
				t.others++
			}
		}
	}
	t.assistant = []byte(`{"role":"model","parts":[` + strings.Join(parts, ",") + `]}`)
	return t, true
}

// parseGemini reads a Gemini answer: a GenerateContentResponse, the JSON
// array of streamGenerateContent without ?alt=sse, or (stream) its event
// stream.
func parseGemini(stream bool, data []byte) (recallTurn, bool) {
	var chunks []json.RawMessage
	if stream {
		for _, e := range splitEvents(data) {
			if d := strings.TrimSpace(e.data); d != "" {
				chunks = append(chunks, json.RawMessage(d))
			}
		}
	} else if d := bytes.TrimSpace(data); len(d) > 0 && d[0] == '[' {
		if json.Unmarshal(d, &chunks) != nil {
			return recallTurn{}, false
		}
	} else {
		chunks = []json.RawMessage{d}
	}
	return geminiTurn(chunks)
}

// geminiRound returns the contents of a round: the model's content as it
// came, then a user content of swc's functionResponse parts.
func geminiRound(t recallTurn, answers []string) ([]string, error) {
	parts := make([]any, len(t.calls))
	for i, c := range t.calls {
		fr := map[string]any{"name": recallTool, "response": map[string]any{"output": answers[i]}}
		if c.id != "" {
			fr["id"] = c.id
		}
		parts[i] = map[string]any{"functionResponse": fr}
	}
	b, err := marshalNoEscape(map[string]any{"role": "user", "parts": parts})
	if err != nil {
		return nil, err
	}
	return []string{string(t.assistant), string(b)}, nil
}

// rewriteGemini rewrites one GenerateContentResponse m for the client:
// swc_recall's functionCall parts removed (a thought signature one
// carried moves to the client's first call after it when that has none:
// Gemini wants the first call of a step signed), a content left without
// parts without its "parts", and prior's counts added to its
// usageMetadata. It reports false when a chunk of a stream (event true)
// is left with nothing to say.
func rewriteGemini(m map[string]any, t *recallTurn, prior map[string]any, event bool) bool {
	removed, left := false, false
	for _, c := range arr(m["candidates"]) {
		cand := obj(c)
		content := obj(cand["content"])
		parts := arr(content["parts"])
		if parts == nil {
			continue
		}
		kept := make([]any, 0, len(parts))
		for _, p := range parts {
			part := obj(p)
			fc := obj(part["functionCall"])
			if fc != nil && str(fc["name"]) == recallTool {
				removed = true
				if sig := str(part["thoughtSignature"]); sig != "" && !t.geminiCalled && t.geminiSig == "" {
					t.geminiSig = sig
				}
				continue
			}
			if fc != nil {
				if t.geminiSig != "" && str(part["thoughtSignature"]) == "" {
					part["thoughtSignature"] = t.geminiSig
				}
				t.geminiSig, t.geminiCalled = "", true
			}
			kept = append(kept, p)
		}
		if len(kept) > 0 {
			content["parts"] = kept
			left = true
		} else {
			delete(content, "parts")
		}
		if cand["finishReason"] != nil {
			left = true
		}
	}
	if u := obj(m["usageMetadata"]); u != nil {
		addUsage(u, prior)
		left = true
	}
	return !event || !removed || left
}

// rewriteGeminiJSON is rewriteJSON of a Gemini answer: a
// GenerateContentResponse, or a JSON array of them.
func rewriteGeminiJSON(v any, t *recallTurn, prior map[string]any) any {
	if chunks, ok := v.([]any); ok {
		out := make([]any, 0, len(chunks))
		for _, c := range chunks {
			if m := obj(c); m == nil || rewriteGemini(m, t, prior, true) {
				out = append(out, c)
			}
		}
		return out
	}
	if m := obj(v); m != nil {
		rewriteGemini(m, t, prior, false)
	}
	return v
}

// noteGeminiCalls is noteCalls of a Gemini chunk: it reports whether m
// holds a client's call.
func noteGeminiCalls(m map[string]any, t *recallTurn) bool {
	client := false
	for _, c := range arr(m["candidates"]) {
		for _, p := range arr(obj(obj(c)["content"])["parts"]) {
			if fc := obj(obj(p)["functionCall"]); fc != nil && str(fc["name"]) != recallTool {
				t.others++
				client = true
			}
		}
	}
	return client
}
