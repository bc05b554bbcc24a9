package agents

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

// The model's own turns: swc forwards each of them as the agent sent it,
// byte for byte, or, once the observations of its exchange are stubbed,
// clipped: its text cut to its first sentences followed by a handle
// ("[swc:hXXXXXXXXXX …]", what swc_recall gives the whole turn back for),
// fenced code blocks kept; its calls and every block or part that is not
// text (thinking and its signature, reasoning items, functionCall and its
// thoughtSignature) exactly the agent's.

// clipMark is the handle a clipped turn's text shows.
var clipMark = regexp.MustCompile(`\[swc:(h[0-9a-f]{10}) …\]`)

// ownTurn reports whether a conversation element is the model's own: an
// assistant message, a model content, a reasoning or call item.
func ownTurn(e json.RawMessage) (own bool, role, typ string) {
	var head struct{ Role, Type string }
	json.Unmarshal(e, &head)
	return head.Role == "assistant" || head.Role == "model" || head.Type == "reasoning" || isCall(head.Type), head.Role, head.Type
}

// turnText splits an element of format into its text (the text blocks,
// content or non-thought text parts, joined by newlines) and the
// canonical JSON of what remains with the text removed: the element's
// other fields and its other blocks or parts, in order. ok is false when
// the element is not JSON.
func turnText(format string, e json.RawMessage) (text, rest string, ok bool) {
	return turnTextOf(format, e, false)
}

// reasoningPart reports whether a block or part of format is reasoning
// an old turn may go without: an Anthropic thinking or redacted_thinking
// block, a Gemini thought part that carries no signature.
func reasoningPart(format string, b map[string]json.RawMessage) bool {
	switch format {
	case "anthropic":
		var t string
		json.Unmarshal(b["type"], &t)
		return t == "thinking" || t == "redacted_thinking"
	case "gemini":
		var thought bool
		json.Unmarshal(b["thought"], &thought)
		_, signed := b["thoughtSignature"]
		return thought && !signed
	}
	return false
}

// turnTextOf is turnText; with noReasoning, an element's reasoning
// parts (reasoningPart) are left out of what remains.
func turnTextOf(format string, e json.RawMessage, noReasoning bool) (text, rest string, ok bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(e, &m) != nil {
		return "", "", false
	}
	var texts []string
	var kept []json.RawMessage
	// split sorts the blocks or parts of raw into texts and kept: isText
	// says which are text and returns their text.
	split := func(raw json.RawMessage, isText func(map[string]json.RawMessage) (string, bool)) {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			texts = append(texts, s)
			return
		}
		var arr []json.RawMessage
		json.Unmarshal(raw, &arr)
		for _, b := range arr {
			var bm map[string]json.RawMessage
			json.Unmarshal(b, &bm)
			if t, yes := isText(bm); yes {
				texts = append(texts, t)
				continue
			}
			if noReasoning && reasoningPart(format, bm) {
				continue
			}
			kept = append(kept, b)
		}
	}
	str := func(raw json.RawMessage) string {
		var s string
		json.Unmarshal(raw, &s)
		return s
	}
	textBlock := func(types ...string) func(map[string]json.RawMessage) (string, bool) {
		return func(b map[string]json.RawMessage) (string, bool) {
			for _, t := range types {
				if str(b["type"]) == t {
					return str(b["text"]), true
				}
			}
			return "", false
		}
	}
	field := ""
	switch format {
	case "anthropic", "openai":
		field = "content"
		split(m[field], textBlock("text"))
	case "responses":
		if t := str(m["type"]); (t == "message" || t == "") && str(m["role"]) == "assistant" {
			field = "content"
			split(m[field], textBlock("output_text", "text", "input_text"))
		}
	case "gemini":
		field = "parts"
		split(m[field], func(p map[string]json.RawMessage) (string, bool) {
			var thought bool
			json.Unmarshal(p["thought"], &thought)
			if t, has := p["text"]; has && !thought {
				return str(t), true
			}
			return "", false
		})
	}
	if field != "" {
		delete(m, field)
	}
	b, err := json.Marshal(struct {
		Fields map[string]any
		Kept   []any
	}{canonical(m), canonicalAll(kept)})
	if err != nil {
		return "", "", false
	}
	return strings.Join(texts, "\n"), string(b), true
}

// canonical decodes JSON values for a comparison by value: numbers as
// written, keys sorted when marshalled again.
func canonical(m map[string]json.RawMessage) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = decodeValue(v)
	}
	return out
}

func canonicalAll(raws []json.RawMessage) []any {
	out := []any{}
	for _, r := range raws {
		out = append(out, decodeValue(r))
	}
	return out
}

func decodeValue(raw json.RawMessage) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return string(raw)
	}
	return v
}

// clippedFrom reports whether fwd is a clipped form of one of the
// agent's turns, given by their text-less remainder (turnText): its text
// shows a handle, the text before the handle begins the original's text
// (spaces trimmed), and all but the text is the original's. It returns
// the handle.
func clippedFrom(format string, fwd json.RawMessage, agent map[string][]string) (string, bool) {
	text, rest, ok := turnText(format, fwd)
	if !ok {
		return "", false
	}
	for _, orig := range agent[rest] {
		if h, ok := clippedText(text, orig); ok {
			return h, true
		}
	}
	return "", false
}

// clippedText reports whether text is the clipped form of a turn's text
// orig: it shows a handle, the text before the handle begins orig's prose
// (spaces trimmed) and orig's fenced blocks follow it. It returns the
// handle.
func clippedText(text, orig string) (string, bool) {
	loc := clipMark.FindStringSubmatchIndex(text)
	if loc == nil {
		return "", false
	}
	head, tail := strings.TrimSpace(text[:loc[0]]), text[loc[1]:]
	prose, blocks := fenced(orig)
	if strings.HasPrefix(strings.TrimSpace(prose), head) && tail == blocks {
		return text[loc[2]:loc[3]], true
	}
	return "", false
}

// argClip is the mark that ends a string argument of an old call swc
// clipped: its leading lines (or words), then the turn's handle and what
// was left out.
var argClip = regexp.MustCompile(`\[swc:(h[0-9a-f]{10}) … (?:\d+ more lines, )?\d+ tokens left out\]$`)

// agentTurn is one of the agent's turns as sameTurns compares them: its
// text, and the canonical JSON of what remains (turnText) with and
// without its reasoning parts.
type agentTurn struct{ text, rest, bare string }

// clippedCallsFrom reports whether fwd is one of the agent's turns with
// some of its calls' string arguments clipped (clippedArgs), its text the
// original's or a clipped form of it (clippedText), its reasoning parts
// kept or gone. It returns the handle.
func clippedCallsFrom(format string, fwd json.RawMessage, agent []agentTurn) (string, bool) {
	text, rest, ok := turnText(format, fwd)
	if !ok || !strings.Contains(rest, "tokens left out]") {
		return "", false
	}
	f := decodeValue(json.RawMessage(rest))
	for _, a := range agent {
		for _, r := range []string{a.rest, a.bare} {
			var hs []string
			if !clippedArgs(f, decodeValue(json.RawMessage(r)), &hs) || len(hs) == 0 {
				continue
			}
			if text != a.text {
				h, ok := clippedText(text, a.text)
				if !ok || h != hs[0] {
					continue
				}
			}
			same := true
			for _, h := range hs {
				same = same && h == hs[0]
			}
			if same {
				return hs[0], true
			}
		}
	}
	return "", false
}

// clippedArgs reports whether fwd is orig (decoded JSON values) but for
// strings that end in argClip and whose text before the mark begins
// orig's (trailing spaces trimmed), looking inside strings that hold a
// JSON object (Chat Completions' and Responses' arguments); it adds the
// handles of those strings to hs.
func clippedArgs(fwd, orig any, hs *[]string) bool {
	switch f := fwd.(type) {
	case map[string]any:
		o, ok := orig.(map[string]any)
		if !ok || len(o) != len(f) {
			return false
		}
		for k, v := range f {
			ov, ok := o[k]
			if !ok || !clippedArgs(v, ov, hs) {
				return false
			}
		}
		return true
	case []any:
		o, ok := orig.([]any)
		if !ok || len(o) != len(f) {
			return false
		}
		for k := range f {
			if !clippedArgs(f[k], o[k], hs) {
				return false
			}
		}
		return true
	case string:
		o, ok := orig.(string)
		if !ok {
			return false
		}
		if f == o {
			return true
		}
		if loc := argClip.FindStringSubmatchIndex(f); loc != nil {
			if strings.HasPrefix(o, strings.TrimRight(f[:loc[0]], " ")) && len(o) > len(f)-(loc[1]-loc[0]) {
				*hs = append(*hs, f[loc[2]:loc[3]])
				return true
			}
			return false
		}
		if strings.HasPrefix(strings.TrimSpace(f), "{") && strings.HasPrefix(strings.TrimSpace(o), "{") {
			return clippedArgs(decodeValue(json.RawMessage(f)), decodeValue(json.RawMessage(o)), hs)
		}
		return false
	default:
		b1, e1 := json.Marshal(fwd)
		b2, e2 := json.Marshal(orig)
		return e1 == nil && e2 == nil && bytes.Equal(b1, b2)
	}
}

// fenced splits a turn's text into its prose (the text outside fenced
// code blocks, joined by newlines) and its blocks as a clipped turn
// shows them after its handle: each block, fences included, after a
// blank line. A block opens at a line starting with ``` and closes at a
// line of nothing but at least as many backticks.
func fenced(text string) (prose, blocks string) {
	var p, b, cur strings.Builder
	open := 0
	for line := range strings.SplitAfterSeq(text, "\n") {
		t := strings.TrimSpace(line)
		n := len(t) - len(strings.TrimLeft(t, "`"))
		switch {
		case open == 0 && n >= 3:
			open = n
			cur.Reset()
			cur.WriteString(line)
		case open > 0 && n >= open && n == len(t):
			cur.WriteString(line)
			b.WriteString("\n\n" + strings.TrimRight(cur.String(), "\n"))
			open = 0
		case open > 0:
			cur.WriteString(line)
		default:
			p.WriteString(line)
		}
	}
	return p.String(), b.String()
}

// sameTurns reports the model's own turns (assistant messages, model
// contents, reasoning and call items) of the forwarded array field of
// format that are neither byte for byte one of the agent's nor a clipped
// form of one (clippedFrom): swc may drop a turn or clip an old turn's
// prose, and an old turn may go without its reasoning (reasoningPart;
// its text then whole or clipped), never
// otherwise rewrite it (its calls, signatures and unknown blocks go out
// as the agent sent them; the turn being answered keeps its thinking:
// checkThinkingKept). It returns the handles of the clipped turns, those
// of the turns whose calls came with long arguments clipped
// (clippedCallsFrom; a turn whose prose came clipped too is in both), and
// how many turns went without their reasoning blocks.
func sameTurns(format string, fwd, orig []byte, field string) (breaches, []string, []string, int) {
	if orig == nil {
		return nil, nil, nil, 0
	}
	sent := map[string]bool{}
	agent := map[string][]string{} // the agent's own turns' texts, by what remains without them
	bare := map[string]bool{}      // an agent's turn without its reasoning blocks: what remains, then its text
	var turns []agentTurn          // the agent's own turns, for clippedCallsFrom
	for _, e := range elements(orig, field) {
		sent[string(e)] = true
		if own, _, _ := ownTurn(e); own {
			text, rest, ok := turnText(format, e)
			if !ok {
				continue
			}
			agent[rest] = append(agent[rest], text)
			_, r, _ := turnTextOf(format, e, true)
			if r != rest {
				agent[r] = append(agent[r], text)
				bare[r+"\x00"+text] = true
			}
			turns = append(turns, agentTurn{text: text, rest: rest, bare: r})
		}
	}
	var bs breaches
	var clipped, calls []string
	dropped := 0
	for i, e := range elements(fwd, field) {
		own, role, typ := ownTurn(e)
		if !own || sent[string(e)] {
			continue
		}
		if h, ok := clippedFrom(format, e, agent); ok {
			clipped = append(clipped, h)
			continue
		}
		if text, rest, ok := turnText(format, e); ok && bare[rest+"\x00"+text] {
			dropped++
			continue
		}
		if h, ok := clippedCallsFrom(format, e, turns); ok {
			calls = append(calls, h)
			if text, _, _ := turnText(format, e); clipMark.MatchString(text) {
				clipped = append(clipped, h)
			}
			continue
		}
		bs.add("turn-changed", "%s[%d] (%s%s) is neither one of the agent's, byte for byte, nor a clipped form of one (its text's head and a handle, all else as the agent's, but reasoning an old turn may go without)", field, i, role, typ)
	}
	return bs, clipped, calls, dropped
}
