package chat

import (
	"bytes"
	"encoding/json"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/internal/rawjson"
)

// geminiCodec is the Gemini API's format (gemini.go reads it).
type geminiCodec struct{}

func (geminiCodec) Format() Format                                { return Gemini }
func (geminiCodec) AlignUser() bool                               { return false }
func (geminiCodec) parse(data []byte, rd reading) (*Input, error) { return parseGemini(data, rd) }

// Splice writes a Gemini request body with out's messages: kept
// contents byte for byte; a content only partly kept (its function
// responses went into the memory, or its text did) or holding a message
// of rewritten, from its parts as they came, the kept ones only, a
// rewritten function response's "response" written {"output": text} (its
// name, id and other fields kept), a rewritten user text as one text part,
// a rewritten model turn's text in its first text part (geminiPartly);
// the memory appended to systemInstruction as a text part (never one
// created: without one, or when the body names a cachedContent, whose
// instruction the request must not set, the first text part of the first
// content), or to the task's content when it follows it (a
// tool loop's, withMemoryPart), or, when the kept contents start with a
// model content, the first content, of role user (the API wants a user turn
// before a model's function calls; without a memory, StartText
// stands there when earlier contents were left out); every other field as
// it came. A countTokens body
// holding a generateContentRequest is written with the request inside it.
func (geminiCodec) Splice(in *Input, out Output) ([]byte, error) {
	rewritten := out.Rewritten
	req, nested, err := GeminiRequest(in.Body)
	if err != nil {
		return nil, err
	}
	byOrigin, kept := originMessages(in, out)
	var contents []json.RawMessage
	memOrigin, memIn := memoryOrigin(in, out), false
	for _, o := range keptOrigins(in, out) {
		whole := keptWhole(byOrigin[o], kept, rewritten)
		if whole && o == memOrigin {
			// A tool loop's memory after its task: a text part of the
			// task's content, so what comes before it (the system
			// instruction, the task) stays a cached prefix when the
			// memory changes.
			if c, ok := withMemoryPart(in.Raw[o], out.Memory); ok {
				contents, memIn = append(contents, c), true
				continue
			}
		}
		c := in.Raw[o]
		if !whole {
			if c, err = geminiPartly(in, byOrigin[o], in.Raw[o], kept, rewritten); err != nil {
				return nil, err
			}
		}
		if c, err = rewriteCalls(in, out, o, c, func(raw []byte, args map[string]string) ([]byte, error) {
			return geminiCalls(raw, in.Raw[o], o, args)
		}); err != nil {
			return nil, err
		}
		contents = append(contents, c)
	}
	fields := map[string]json.RawMessage{}
	first, model := firstKept(in, out)
	if model && (out.Memory != "" || first > 0) {
		// A model's turn (its function calls) must follow a user turn:
		// the memory is that turn (StartText when there is none and
		// earlier contents were left out).
		text := out.Memory
		if text == "" {
			text = StartText
		}
		b, err := json.Marshal(map[string]any{"role": "user", "parts": []map[string]string{{"text": text}}})
		if err != nil {
			return nil, err
		}
		contents = append([]json.RawMessage{b}, contents...)
	} else if out.Memory != "" && !memIn {
		sys, key := GeminiField(req, "systemInstruction")
		if t := bytes.TrimSpace(sys); len(t) == 0 || string(t) == "null" || usesCache(req) {
			// A request without a system instruction may be for a model
			// that takes none (Gemma: "Developer instruction is not
			// enabled", 400), and one naming a cachedContent must not set
			// it (it belongs to the cache, 400): the memory opens the
			// first content instead, a user's.
			contents = withLeadingMemory(contents, out.Memory)
		} else if fields[key], err = appendInstruction(sys, out.Memory); err != nil {
			return nil, err
		}
	}
	fields["contents"] = joinArray(contents)
	b := writeObject(req, fields)
	if !nested {
		return b, nil
	}
	_, key := GeminiField(in.Body, "generateContentRequest")
	return writeObject(in.Body, map[string]json.RawMessage{key: b}), nil
}

// firstKept returns the content the first kept conversation message came
// from (-1 for none) and whether it is a model content.
func firstKept(in *Input, out Output) (origin int, model bool) {
	for _, src := range out.Source {
		if src >= 0 && in.Origin[src] >= 0 {
			return in.Origin[src], in.Messages[src].Role == swc.RoleAssistant
		}
	}
	return -1, false
}

// geminiPartly rewrites content raw whose messages are msgs (its function
// responses' tool messages, in part order, then the message of its other
// parts): the parts of kept messages as they came, rewritten ones
// replaced: a rewritten user text as one text part; a rewritten model
// turn's text in its first text part (geminiTurnText), its other text
// parts removed, its function calls and every other part as they came.
func geminiPartly(in *Input, msgs []int, raw json.RawMessage, kept map[int]bool, rewritten map[int]string) (json.RawMessage, error) {
	var c map[string]json.RawMessage
	if err := decodeMap(raw, &c); err != nil {
		return nil, swc.Errorf(swc.EINVALID, "gemini content: %v", err)
	}
	var parts []json.RawMessage
	if p, ok := c["parts"]; ok && string(p) != "null" {
		var err error
		if parts, err = rawjson.Array(p); err != nil {
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
	model := main >= 0 && in.Messages[main].Role == swc.RoleAssistant
	var out []json.RawMessage
	mainDone := false
	for _, rp := range parts {
		var p map[string]json.RawMessage
		if err := decodeMap(rp, &p); err != nil {
			return nil, swc.Errorf(swc.EINVALID, "gemini part: %v", err)
		}
		if fr, key := GeminiField(p, "functionResponse"); fr != nil {
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
			if err := decodeMap(fr, &f); err != nil {
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
		if fc, _ := GeminiField(p, "functionCall"); !rw || fc != nil { // a call stays, whatever its text became
			out = append(out, rp)
			continue
		}
		if model {
			// A model turn: its first text part holds the text, its
			// other text parts go, its thought parts too unless the text
			// still holds their placeholder or they carry a signature,
			// every other part stays.
			if !geminiText(p) {
				if !geminiDroppedThought(p, text) {
					out = append(out, rp)
				}
			} else if !mainDone && text != "" {
				out = append(out, geminiTurnText(p, text))
				mainDone = true
			}
			continue
		}
		if !mainDone {
			b, _ := json.Marshal(map[string]string{"text": text})
			out = append(out, b)
		}
		mainDone = true
	}
	if text, rw := rewritten[main]; model && rw && kept[main] && !mainDone && text != "" {
		b, _ := json.Marshal(map[string]string{"text": text})
		out = append([]json.RawMessage{b}, out...)
	}
	return writeObject(c, map[string]json.RawMessage{"parts": joinArray(out)}), nil
}

// geminiDroppedThought reports whether part p of an old model turn
// rewritten to text goes: a thought part (StripReasoning) without a
// thoughtSignature, when text holds no "[thought]" line.
func geminiDroppedThought(p map[string]json.RawMessage, text string) bool {
	var thought bool
	if v, _ := GeminiField(p, "thought"); v == nil || json.Unmarshal(v, &thought) != nil || !thought {
		return false
	}
	if sig, _ := GeminiField(p, "thoughtSignature"); sig != nil {
		return false
	}
	return !holdsReasoning(text)
}

// geminiText reports whether part p is a text part of the reply (its
// "text" not a thought).
func geminiText(p map[string]json.RawMessage) bool {
	if v, _ := GeminiField(p, "text"); v == nil {
		return false
	}
	var thought bool
	if v, _ := GeminiField(p, "thought"); v != nil {
		_ = json.Unmarshal(v, &thought)
	}
	return !thought
}

// geminiTurnText returns text part p of a model turn holding text instead,
// its other members kept but its thought signature. The Gemini API docs
// (https://ai.google.dev/gemini-api/docs/thought-signatures) ask for a
// signature to be sent back as it was received, but validate only those
// of the current turn's functionCall parts ("we don't validate previous
// turns"; a text part's signature is not required): the functionCall
// parts, and their signatures, stay byte for byte, while a text part
// whose text changed goes without the signature minted for the old text,
// which the docs never say is accepted on a text it was not made for.
func geminiTurnText(p map[string]json.RawMessage, text string) json.RawMessage {
	return writeObject(p, map[string]json.RawMessage{"text": jsonString(text), "thoughtSignature": nil, "thought_signature": nil})
}

// withMemoryPart returns the content raw with the memory appended to its
// parts as a text part, every other byte as it came; false when it has no
// parts array.
func withMemoryPart(raw json.RawMessage, memory string) (json.RawMessage, bool) {
	start, end, err := valueSpan(raw, "parts")
	if err != nil {
		return nil, false
	}
	var parts []json.RawMessage
	if json.Unmarshal(raw[start:end], &parts) != nil || len(parts) == 0 {
		return nil, false
	}
	part, err := json.Marshal(map[string]string{"text": memory})
	if err != nil {
		return nil, false
	}
	// The new part goes in before the array's closing bracket.
	close := end - 1
	for close > start && raw[close] != ']' {
		close--
	}
	next := make([]byte, 0, len(raw)+len(part)+1)
	next = append(next, raw[:close]...)
	next = append(next, ',')
	next = append(next, part...)
	next = append(next, raw[close:]...)
	return next, true
}

// usesCache reports whether a generateContent request names a cached
// content ("cachedContent", or "cached_content"), whose system
// instruction, tools and tool config the request must not set.
func usesCache(req map[string]json.RawMessage) bool {
	v, _ := GeminiField(req, "cachedContent")
	v = bytes.TrimSpace(v)
	return len(v) > 0 && string(v) != "null" && string(v) != `""`
}

// withLeadingMemory returns contents with memory as the first text part
// of the first (a user's, its other parts after it as they came), or, when
// there is none or it has no parts array, as a user content of its own
// before them.
func withLeadingMemory(contents []json.RawMessage, memory string) []json.RawMessage {
	part, _ := json.Marshal(map[string]string{"text": memory})
	if len(contents) > 0 {
		if start, end, err := valueSpan(contents[0], "parts"); err == nil {
			raw := contents[0]
			open := bytes.IndexByte(raw[start:end], '[')
			if open >= 0 {
				open += start + 1
				sep := []byte(",")
				if len(bytes.TrimSpace(raw[open:end-1])) == 0 {
					sep = nil // an empty array
				}
				next := make([]byte, 0, len(raw)+len(part)+1)
				next = append(next, raw[:open]...)
				next = append(next, part...)
				next = append(next, sep...)
				next = append(next, raw[open:]...)
				return append([]json.RawMessage{next}, contents[1:]...)
			}
		}
	}
	c, _ := json.Marshal(map[string]any{"role": "user", "parts": []json.RawMessage{part}})
	return append([]json.RawMessage{c}, contents...)
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
