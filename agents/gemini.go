package agents

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

type geminiRequest struct {
	Contents []geminiContent `json:"contents"`
	Tools    []struct {
		FunctionDeclarations []struct {
			Name                 string          `json:"name"`
			Parameters           json.RawMessage `json:"parameters"`
			ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
	} `json:"generationConfig"`
}

type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

type geminiPart struct {
	Text         *string `json:"text"`
	Thought      bool    `json:"thought"`
	Signature    string  `json:"thoughtSignature"`
	FunctionCall *struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"functionResponse"`
	InlineData json.RawMessage `json:"inlineData"`
	FileData   json.RawMessage `json:"fileData"`
}

// gemini answers generateContent and streamGenerateContent (alt=sse)
// of the Gemini API.
func (u *Upstream) gemini(w http.ResponseWriter, r *http.Request, n int, body, orig []byte) {
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		u.breach(n, breaches{{Rule: "json", Detail: err.Error()}})
		http.Error(w, `{"error":{"code":400,"message":"invalid JSON","status":"INVALID_ARGUMENT"}}`, http.StatusBadRequest)
		return
	}
	bs, answered := checkGemini(req.Contents, u.sent, u.signed)
	bs = append(bs, checkGeminiCache(body)...)
	bs = append(bs, sameFields(body, orig, "contents", "systemInstruction", "tools")...)
	rbs, ask := u.checkForwarded("gemini", "contents", body, orig, answered)
	bs = append(bs, rbs...)
	u.breach(n, bs)
	stream := strings.Contains(r.URL.Path, ":streamGenerateContent")
	var parts []map[string]any
	if strings.Contains(req.GenerationConfig.ResponseMimeType, "json") {
		// A side request for structured output (the CLI's model router,
		// its next-speaker check): an object of the schema's shape.
		schema := req.GenerationConfig.ResponseJSONSchema
		if len(schema) == 0 {
			schema = req.GenerationConfig.ResponseSchema
		}
		b, _ := json.Marshal(fillSchema(schema))
		parts = append(parts, map[string]any{"text": string(b)})
	} else {
		t := turn{format: "gemini", n: n, stream: stream, answered: answered, ask: ask}
		for _, tl := range req.Tools {
			for _, f := range tl.FunctionDeclarations {
				s := f.ParametersJSONSchema
				if len(s) == 0 {
					s = f.Parameters
				}
				t.tools = append(t.tools, Tool{Name: f.Name, Schema: s})
			}
		}
		rep := u.next(t, len(body))
		if rep.text != "" {
			parts = append(parts, map[string]any{"text": rep.text})
		} else {
			parts = append(parts, map[string]any{"text": fmt.Sprintf("Step %d: print the next step file.", rep.step), "thought": true})
			if rep.prose != "" {
				parts = append(parts, map[string]any{"text": rep.prose})
			}
			parts = append(parts, map[string]any{"functionCall": map[string]any{"id": rep.id, "name": rep.tool.Name, "args": json.RawMessage(rep.args)},
				"thoughtSignature": sign(rep.id)})
			u.remember(rep.id, call{step: rep.step, rec: rep.rec})
		}
	}
	resp := func(parts []map[string]any, finish bool) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		if finish {
			cand["finishReason"] = "STOP"
		}
		return map[string]any{"candidates": []any{cand}, "modelVersion": "gemini-2.5-pro", "responseId": fmt.Sprintf("resp-%04d", n),
			"usageMetadata": map[string]any{"promptTokenCount": len(body) / 4, "candidatesTokenCount": 40, "totalTokenCount": len(body)/4 + 40}}
	}
	if !stream {
		b, _ := json.Marshal(resp(parts, true))
		writeJSON(w, string(b))
		return
	}
	s := newSSE(w)
	for i, p := range parts {
		s.event("", resp([]map[string]any{p}, i == len(parts)-1))
	}
}

// fillSchema returns a value of a JSON schema's shape (types in either
// case): strings "ok" or an enum's first value, numbers 0, false (the
// Gemini CLI's loop check reads a confidence: 0 says no loop).
func fillSchema(raw json.RawMessage) any {
	var s struct {
		Type       string                     `json:"type"`
		Enum       []any                      `json:"enum"`
		Properties map[string]json.RawMessage `json:"properties"`
		Items      json.RawMessage            `json:"items"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return map[string]any{}
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	switch strings.ToLower(s.Type) {
	case "object", "":
		out := map[string]any{}
		for k, v := range s.Properties {
			out[k] = fillSchema(v)
		}
		return out
	case "array":
		return []any{}
	case "integer", "number":
		return 0
	case "boolean":
		return false
	}
	return "ok"
}

// checkGeminiCache checks the API's rule for a request that names a
// cachedContent: it must not set systemInstruction, tools or toolConfig,
// which belong to the cache (400 INVALID_ARGUMENT).
func checkGeminiCache(body []byte) breaches {
	var f map[string]json.RawMessage
	if json.Unmarshal(body, &f) != nil {
		return nil
	}
	set := func(names ...string) string {
		for _, k := range names {
			if v := strings.TrimSpace(string(f[k])); v != "" && v != "null" && v != `""` {
				return k
			}
		}
		return ""
	}
	if set("cachedContent", "cached_content") == "" {
		return nil
	}
	var bs breaches
	for _, k := range [][]string{{"systemInstruction", "system_instruction"}, {"tools"}, {"toolConfig", "tool_config"}} {
		if name := set(k...); name != "" {
			bs.add("cached-content", "%q is set beside cachedContent", name)
		}
	}
	return bs
}

// checkGemini checks Gemini contents against the API's rules and returns
// the breaches and the call id the last function response answers. A
// function call and its response need no id in the Gemini API (pi sends
// none): a response without one answers the call of the content before
// it, known by its id or else by the thought signature the upstream sent
// with it (signed: the call id a signature was sent with, "" for none).
func checkGemini(contents []geminiContent, sent func(string) (call, bool), signed func(string) string) (breaches, string) {
	var bs breaches
	if len(contents) == 0 {
		bs.add("contents", "no contents")
		return bs, ""
	}
	for i, c := range contents {
		if c.Role != "user" && c.Role != "model" && c.Role != "" {
			bs.add("role", "content %d has role %q", i, c.Role)
		}
		if len(c.Parts) == 0 {
			bs.add("empty-content", "content %d has no parts", i)
		}
		var calls, responses []string
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				calls = append(calls, p.FunctionCall.Name)
				if _, ours := sent(p.FunctionCall.ID); ours && p.Signature != sign(p.FunctionCall.ID) {
					bs.add("thought-signature", "content %d: the call %s comes without the thought signature sent with it", i, p.FunctionCall.ID)
				}
				if p.FunctionCall.ID == "" && signed(p.Signature) == "" {
					// Every call is the upstream's, one a turn; one without
					// an id is known by its signature alone.
					bs.add("thought-signature", "content %d: the call %s has no id and not a thought signature the upstream sent", i, p.FunctionCall.Name)
				}
			}
			if p.FunctionResponse != nil {
				responses = append(responses, p.FunctionResponse.Name)
			}
		}
		if len(calls) > 0 {
			if c.Role != "model" {
				bs.add("role", "content %d holds function calls and is not a model turn", i)
			}
			if i == 0 || !(contents[i-1].Role == "user") {
				bs.add("call-turn", "content %d: a function call turn must follow a user turn or a function response turn", i)
			}
			if i+1 >= len(contents) {
				bs.add("tool-result-missing", "content %d (the last) calls %s and no response follows", i, strings.Join(calls, ", "))
			} else if next := contents[i+1]; countResponses(next) != len(calls) {
				bs.add("tool-result-missing", "content %d makes %d function calls, content %d holds %d function responses", i, len(calls), i+1, countResponses(next))
			}
		}
		if len(responses) > 0 && (i == 0 || countCalls(contents[i-1]) == 0) {
			bs.add("tool-result-orphan", "content %d holds function responses (%s) and the content before it makes no call", i, strings.Join(responses, ", "))
		}
	}
	// pi sends a picture its read returned in a user content of its own
	// after the functionResponse.
	k := len(contents) - 1
	for k > 0 && contents[k].Role != "model" && countResponses(contents[k]) == 0 && countMedia(contents[k]) > 0 {
		k--
	}
	answered := ""
	last := contents[k]
	for _, p := range last.Parts {
		if p.FunctionResponse != nil {
			answered = p.FunctionResponse.ID
		}
	}
	if answered == "" && countResponses(last) > 0 && k > 0 {
		for _, p := range contents[k-1].Parts {
			switch {
			case p.FunctionCall == nil:
			case p.FunctionCall.ID != "":
				answered = p.FunctionCall.ID
			case p.Signature != "":
				answered = signed(p.Signature)
			}
		}
	}
	return bs, answered
}

func countCalls(c geminiContent) int {
	n := 0
	for _, p := range c.Parts {
		if p.FunctionCall != nil {
			n++
		}
	}
	return n
}

// countMedia counts the inlineData and fileData parts of c.
func countMedia(c geminiContent) int {
	n := 0
	for _, p := range c.Parts {
		if p.InlineData != nil || p.FileData != nil {
			n++
		}
	}
	return n
}

func countResponses(c geminiContent) int {
	n := 0
	for _, p := range c.Parts {
		if p.FunctionResponse != nil {
			n++
		}
	}
	return n
}
