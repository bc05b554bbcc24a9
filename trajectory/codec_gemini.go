package trajectory

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/internal/rawjson"
)

// geminiContent is a Gemini API content as the bench reads it: its role
// and its parts, each a JSON object whose fields may be spelled camelCase
// or snake_case (chat.GeminiField reads either).
type geminiContent struct {
	Role  string                       `json:"role"`
	Parts []map[string]json.RawMessage `json:"parts"`
}

// geminiFunc is a functionCall's or functionResponse's id and name.
type geminiFunc struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// geminiPart returns the value of part p's field name (either spelling)
// decoded into v, and whether p has it.
func geminiPart(p map[string]json.RawMessage, name string, v any) bool {
	raw, _ := chat.GeminiField(p, name)
	if raw == nil {
		return false
	}
	switch v := v.(type) {
	case nil:
	case *string:
		_ = rawjson.Unquote(raw, v)
	case *geminiFunc:
		_ = decodeGeminiFunc(raw, v)
	default:
		_ = json.Unmarshal(raw, v)
	}
	return true
}

// geminiThought reports whether part p is a thought (its "thought" true).
func geminiThought(p map[string]json.RawMessage) bool {
	var t bool
	geminiPart(p, "thought", &t)
	return t
}

// geminiTurn is the text of a run of model contents: their text parts
// (thoughts left out) and the string values of their function calls'
// args.
func geminiTurn(items []json.RawMessage) string {
	var b bytes.Buffer
	for _, raw := range items {
		var c geminiContent
		if decodeGeminiContent(raw, &c) != nil || c.Role != "model" {
			break
		}
		for _, p := range c.Parts {
			var s string
			var f geminiFunc
			switch {
			case geminiPart(p, "functionCall", &f):
				jsonStrings(&b, f.Args)
			case !geminiThought(p) && geminiPart(p, "text", &s):
				b.WriteString(s)
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// geminiRewrite rewrites a content as swc's Gemini writer rewrites one
// (chat's geminiPartly): the k-th functionResponse part answers call
// calls[k] (the ids chat.Parse gave the content's tool messages, in part
// order: the call's own id, or "gemini:<content>:<part>" for a call
// without one), and one named in texts gets the response {"output": text},
// its name, id and other fields kept, its "parts" (media of the output)
// removed; texts[""] replaces the content's other parts (a user's text)
// with one text part where the first was, function calls kept.
func geminiRewrite(item json.RawMessage, calls []string, texts map[string]string) (json.RawMessage, error) {
	o, err := decodeObject(item)
	if err != nil {
		return nil, err
	}
	var parts []map[string]json.RawMessage
	if p, ok := o["parts"]; ok {
		if err := json.Unmarshal(p, &parts); err != nil {
			return nil, fmt.Errorf("parts: %w", err)
		}
	}
	own, ownSet := texts[""]
	ownDone := false
	out := make([]map[string]json.RawMessage, 0, len(parts))
	k := 0
	for _, p := range parts {
		if fr, key := chat.GeminiField(p, "functionResponse"); fr != nil {
			if k >= len(calls) {
				return nil, fmt.Errorf("more functionResponse parts than the %d results chat read", len(calls))
			}
			t, ok := texts[calls[k]]
			k++
			if ok {
				f, err := decodeObject(fr)
				if err != nil {
					return nil, fmt.Errorf("functionResponse: %w", err)
				}
				delete(f, "parts")
				if f["response"], err = marshal(map[string]string{"output": t}); err != nil {
					return nil, err
				}
				q := map[string]json.RawMessage{}
				for name, v := range p {
					q[name] = v
				}
				if q[key], err = marshal(f); err != nil {
					return nil, err
				}
				p = q
			}
			out = append(out, p)
			continue
		}
		if !ownSet || geminiPart(p, "functionCall", nil) {
			out = append(out, p)
			continue
		}
		if !ownDone {
			out = append(out, map[string]json.RawMessage{"text": mustString(own)})
			ownDone = true
		}
	}
	if ownSet && !ownDone {
		out = append(out, map[string]json.RawMessage{"text": mustString(own)})
	}
	if o["parts"], err = marshal(out); err != nil {
		return nil, err
	}
	return marshal(o)
}

// mustString is s as a JSON string.
func mustString(s string) json.RawMessage {
	b, _ := marshal(s)
	return b
}

// validateGemini checks the Gemini API's rules on contents (the ones its
// endpoint answers 400 to, and chat's reading of function responses): at
// least one content; roles user or model (or none: a user's); no content
// without parts; function calls only in model contents, right after a
// user content, and answered by the next content, a user's, with as many
// functionResponse parts, each answering one of them (by id, else the
// first unanswered call of its name, as chat matches them); no function
// response elsewhere. And, in a body whose model signs its function calls
// (some functionCall part carries a thoughtSignature: a Gemini 3 thinking
// model's run), the first functionCall part of each model content of the
// current turn (after the last user content with more than function
// responses) carries its signature, which the API requires of the turn
// it is answering.
func validateGemini(_ object, items []json.RawMessage) []string {
	if len(items) == 0 {
		return []string{"no contents"}
	}
	cs := make([]geminiContent, len(items))
	var out []string
	signed, turnStart := false, 0
	for i, raw := range items {
		if err := decodeGeminiContent(raw, &cs[i]); err != nil {
			out = append(out, fmt.Sprintf("contents[%d]: %v", i, err))
			continue
		}
		c := cs[i]
		if c.Role != "user" && c.Role != "model" && c.Role != "" {
			out = append(out, fmt.Sprintf("contents[%d]: role %q (want user or model)", i, c.Role))
		}
		if len(c.Parts) == 0 {
			out = append(out, fmt.Sprintf("contents[%d]: no parts", i))
		}
		userText := false
		for _, p := range c.Parts {
			if geminiPart(p, "functionCall", nil) {
				signed = signed || geminiPart(p, "thoughtSignature", nil)
			} else if !geminiPart(p, "functionResponse", nil) {
				userText = true
			}
		}
		if c.Role != "model" && userText {
			turnStart = i + 1
		}
	}
	for i, c := range cs {
		calls, responses := geminiFuncs(c)
		if len(calls) > 0 {
			if c.Role != "model" {
				out = append(out, fmt.Sprintf("contents[%d]: %d function calls in a %s content (only the model calls functions)", i, len(calls), roleName(c.Role)))
			}
			if i == 0 || cs[i-1].Role == "model" {
				out = append(out, fmt.Sprintf("contents[%d]: a function call turn not right after a user turn", i))
			}
			if signed && i >= turnStart && !geminiPart(firstCall(c), "thoughtSignature", nil) {
				out = append(out, fmt.Sprintf("contents[%d]: the current turn's function call %q without its thoughtSignature", i, calls[0].Name))
			}
			out = append(out, geminiAnswers(i, calls, cs[i+1:])...)
		}
		if len(responses) > 0 {
			if c.Role == "model" {
				out = append(out, fmt.Sprintf("contents[%d]: %d function responses in a model content", i, len(responses)))
			}
			var before []geminiFunc
			if i > 0 && cs[i-1].Role == "model" {
				before, _ = geminiFuncs(cs[i-1])
			}
			if len(before) == 0 {
				out = append(out, fmt.Sprintf("contents[%d]: %d function responses and the content before it makes no call", i, len(responses)))
			}
		}
	}
	return out
}

// geminiAnswers checks that the content after contents[i] (next[0])
// answers calls: a user content with one functionResponse per call.
func geminiAnswers(i int, calls []geminiFunc, next []geminiContent) []string {
	if len(next) == 0 {
		return []string{fmt.Sprintf("contents[%d]: %d function calls and no content after them", i, len(calls))}
	}
	_, responses := geminiFuncs(next[0])
	if len(responses) != len(calls) {
		return []string{fmt.Sprintf("contents[%d]: %d function calls answered by %d function responses in contents[%d] (want as many)", i, len(calls), len(responses), i+1)}
	}
	answered := make([]bool, len(calls))
	var out []string
	for _, r := range responses {
		k := matchCall(calls, answered, r)
		if k < 0 {
			out = append(out, fmt.Sprintf("contents[%d]: function response %q (id %q) answers no unanswered call of contents[%d]", i+1, r.Name, r.ID, i))
			continue
		}
		answered[k] = true
	}
	return out
}

// matchCall returns the call a response answers, chat's way: the
// unanswered call of its id, else the first unanswered call of its name;
// -1 for none.
func matchCall(calls []geminiFunc, answered []bool, r geminiFunc) int {
	if r.ID != "" {
		for k, c := range calls {
			if !answered[k] && c.ID == r.ID {
				return k
			}
		}
	}
	for k, c := range calls {
		if !answered[k] && c.Name == r.Name {
			return k
		}
	}
	return -1
}

// geminiFuncs returns a content's function calls and responses.
func geminiFuncs(c geminiContent) (calls, responses []geminiFunc) {
	for _, p := range c.Parts {
		var f geminiFunc
		switch {
		case geminiPart(p, "functionCall", &f):
			calls = append(calls, f)
		case geminiPart(p, "functionResponse", &f):
			responses = append(responses, f)
		}
	}
	return calls, responses
}

// firstCall returns a content's first functionCall part.
func firstCall(c geminiContent) map[string]json.RawMessage {
	for _, p := range c.Parts {
		if geminiPart(p, "functionCall", nil) {
			return p
		}
	}
	return nil
}

func roleName(r string) string {
	if r == "" {
		return "user"
	}
	return r
}
