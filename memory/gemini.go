package memory

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sort"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// GeminiMiddleware is OpenAIMiddleware for the Gemini API (POST
// …:generateContent and …:streamGenerateContent): the memory is appended
// to systemInstruction as a text part, or is the first content (of role
// user) when the kept contents start with a model content, since the API
// wants a user turn first.
func GeminiMiddleware(c *Compressor, report func(*Result, error)) Middleware {
	cc := *c
	splice := func(in *chat.Input, res *Result) ([]byte, error) { return spliceGemini(in, res, res.Rewritten) }
	gen := middleware(&cc, report, ":generateContent", chat.Gemini, splice)
	stream := middleware(&cc, report, ":streamGenerateContent", chat.Gemini, splice)
	return func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		if strings.HasSuffix(req.URL.Path, ":streamGenerateContent") {
			return stream(req, next)
		}
		return gen(req, next)
	}
}

// spliceGemini writes a Gemini request body with res's messages: kept
// contents byte for byte; a content only partly kept (its function
// responses went into the memory, or its text did) or holding a message
// of rewritten, from its parts as they came, the kept ones only, a
// rewritten function response's "response" written {"output": text} (its
// name, id and other fields kept), a rewritten user text as one text part;
// the memory appended to systemInstruction as a text part (created when
// the body has none), or, when the kept contents start with a model
// content, the first content, of role user (the API wants a user turn
// before a model's function calls; without a memory, chat.StartText
// stands there when earlier contents were left out); every other field as
// it came. A countTokens body
// holding a generateContentRequest is written with the request inside it.
func spliceGemini(in *chat.Input, res *Result, rewritten map[int]string) ([]byte, error) {
	req, nested, err := chat.GeminiRequest(in.Body)
	if err != nil {
		return nil, err
	}
	byOrigin := map[int][]int{} // origin → its messages, in order
	for i, o := range in.Origin {
		if o >= 0 {
			byOrigin[o] = append(byOrigin[o], i)
		}
	}
	kept := map[int]bool{}
	for _, src := range res.Source {
		if src >= 0 {
			kept[src] = true
		}
	}
	var contents []json.RawMessage
	done := map[int]bool{}
	for _, src := range res.Source {
		if src < 0 || in.Origin[src] < 0 || done[in.Origin[src]] {
			continue
		}
		o := in.Origin[src]
		done[o] = true
		whole := true
		for _, i := range byOrigin[o] {
			if _, rw := rewritten[i]; !kept[i] || rw {
				whole = false
			}
		}
		if whole {
			contents = append(contents, in.Raw[o])
			continue
		}
		c, err := geminiPartly(in, byOrigin[o], in.Raw[o], kept, rewritten)
		if err != nil {
			return nil, err
		}
		contents = append(contents, c)
	}
	fields := map[string]json.RawMessage{}
	first, model := firstKept(in, res)
	if model && (res.Memory != "" || first > 0) {
		// A model's turn (its function calls) must follow a user turn:
		// the memory is that turn (chat.StartText when there is none and
		// earlier contents were left out).
		text := res.Memory
		if text == "" {
			text = chat.StartText
		}
		b, err := json.Marshal(map[string]any{"role": "user", "parts": []map[string]string{{"text": text}}})
		if err != nil {
			return nil, err
		}
		contents = append([]json.RawMessage{b}, contents...)
	} else if res.Memory != "" {
		sys, key := chat.GeminiField(req, "systemInstruction")
		if key == "" {
			key = "systemInstruction"
		}
		if fields[key], err = appendInstruction(sys, res.Memory); err != nil {
			return nil, err
		}
	}
	fields["contents"] = joinArray(contents)
	out := writeObject(req, fields)
	if !nested {
		return out, nil
	}
	_, key := chat.GeminiField(in.Body, "generateContentRequest")
	return writeObject(in.Body, map[string]json.RawMessage{key: out}), nil
}

// firstKept returns the content the first kept conversation message came
// from (-1 for none) and whether it is a model content.
func firstKept(in *chat.Input, res *Result) (origin int, model bool) {
	for _, src := range res.Source {
		if src >= 0 && in.Origin[src] >= 0 {
			return in.Origin[src], in.Messages[src].Role == swc.RoleAssistant
		}
	}
	return -1, false
}

// geminiPartly rewrites content raw whose messages are msgs (its function
// responses' tool messages, in part order, then the message of its other
// parts): the parts of kept messages as they came, rewritten ones
// replaced (a model content's function calls stay).
func geminiPartly(in *chat.Input, msgs []int, raw json.RawMessage, kept map[int]bool, rewritten map[int]string) (json.RawMessage, error) {
	var c map[string]json.RawMessage
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, swc.Errorf(swc.EINVALID, "gemini content: %v", err)
	}
	var parts []json.RawMessage
	if p, ok := c["parts"]; ok && string(p) != "null" {
		if err := json.Unmarshal(p, &parts); err != nil {
			return nil, swc.Errorf(swc.EINVALID, "gemini content parts: %v", err)
		}
	}
	main := -1 // the message of the content's other parts
	var tools []int
	for _, i := range msgs {
		if in.Messages[i].Role == swc.RoleTool {
			tools = append(tools, i)
		} else {
			main = i
		}
	}
	var out []json.RawMessage
	mainDone := false
	for _, rp := range parts {
		var p map[string]json.RawMessage
		if err := json.Unmarshal(rp, &p); err != nil {
			return nil, swc.Errorf(swc.EINVALID, "gemini part: %v", err)
		}
		if fr, key := chat.GeminiField(p, "functionResponse"); fr != nil {
			if len(tools) == 0 {
				return nil, swc.Errorf(swc.EINVALID, "gemini content: more functionResponse parts than its parsed tool messages")
			}
			i := tools[0]
			tools = tools[1:]
			if !kept[i] {
				continue
			}
			text, rw := rewritten[i]
			if !rw {
				out = append(out, rp)
				continue
			}
			var f map[string]json.RawMessage
			if err := json.Unmarshal(fr, &f); err != nil {
				return nil, swc.Errorf(swc.EINVALID, "gemini functionResponse: %v", err)
			}
			resp, _ := json.Marshal(map[string]string{"output": text})
			delete(f, "parts") // media of the output the stub stands for
			f["response"] = resp
			p[key] = writeObject(f, nil)
			out = append(out, writeObject(p, nil))
			continue
		}
		if main < 0 || !kept[main] {
			continue
		}
		text, rw := rewritten[main]
		if fc, _ := chat.GeminiField(p, "functionCall"); !rw || fc != nil { // a call stays, whatever its text became
			out = append(out, rp)
			continue
		}
		if !mainDone {
			b, _ := json.Marshal(map[string]string{"text": text})
			out = append(out, b)
		}
		mainDone = true
	}
	return writeObject(c, map[string]json.RawMessage{"parts": joinArray(out)}), nil
}

// appendInstruction returns systemInstruction with a text part of memory
// appended: a content's parts grown by one (its other fields kept), a
// content made of a string or of nothing.
func appendInstruction(sys json.RawMessage, memory string) (json.RawMessage, error) {
	part, _ := json.Marshal(map[string]string{"text": memory})
	sys = bytes.TrimSpace(sys)
	var s string
	switch {
	case len(sys) == 0 || string(sys) == "null":
		return writeObject(nil, map[string]json.RawMessage{"parts": joinArray([]json.RawMessage{part})}), nil
	case json.Unmarshal(sys, &s) == nil:
		first, _ := json.Marshal(map[string]string{"text": s})
		return writeObject(nil, map[string]json.RawMessage{"parts": joinArray([]json.RawMessage{first, part})}), nil
	}
	var c map[string]json.RawMessage
	if err := json.Unmarshal(sys, &c); err != nil || c == nil {
		return nil, swc.Errorf(swc.EINVALID, "systemInstruction: want a content object")
	}
	var parts []json.RawMessage
	if p, ok := c["parts"]; ok && string(p) != "null" {
		if err := json.Unmarshal(p, &parts); err != nil {
			return nil, swc.Errorf(swc.EINVALID, "systemInstruction.parts: want an array")
		}
	}
	return writeObject(c, map[string]json.RawMessage{"parts": joinArray(append(parts, part))}), nil
}

func joinArray(elems []json.RawMessage) json.RawMessage {
	n := 2
	for _, e := range elems {
		n += len(e) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for i, e := range elems {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	return append(out, ']')
}

// writeObject returns the JSON object of obj's fields with set's replacing
// them (a nil value in set drops the field), the values written as they
// are, keys in name order.
func writeObject(obj, set map[string]json.RawMessage) json.RawMessage {
	keys := make([]string, 0, len(obj)+len(set))
	for k := range obj {
		if _, ok := set[k]; !ok {
			keys = append(keys, k)
		}
	}
	for k, v := range set {
		if v != nil {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := []byte{'{'}
	for i, k := range keys {
		if i > 0 {
			out = append(out, ',')
		}
		kb, _ := json.Marshal(k)
		out = append(out, kb...)
		out = append(out, ':')
		if v, ok := set[k]; ok {
			out = append(out, v...)
		} else {
			out = append(out, obj[k]...)
		}
	}
	return append(out, '}')
}
