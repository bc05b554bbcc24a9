package agents

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/swcmem/swc/observe"
)

// Recall: swc adds its own tool, swc_recall, to a request it compressed
// (one that holds a stub's or a dropped observation's handle) and answers
// the tool's calls itself. The upstream checks that the tools go out as
// the agent's with swc_recall's fixed definition appended, exactly when
// the request holds a handle, that the agent's own requests never hold
// swc_recall, and, once a run, calls swc_recall with the handle of a stub
// it received and checks that swc's answer carries that output's
// original bytes (the agent's, as the upstream knows them from the agent's
// request).

// RecallToolName is the name of swc's tool.
const RecallToolName = "swc_recall"

// stubHandle finds a handle swc wrote into a stub or a memory message.
var stubHandle = regexp.MustCompile(`\[swc:(h[0-9a-f]{10})`)

// toolResult is a tool result of a request: id is the call it answers
// (for a Gemini response without an id, "call:" and the call's name and
// arguments, which the upstream makes unique per step), text its text
// (text parts joined by newlines, as swc reads them), hid the id swc
// names its output by in a handle (observe.Handle): the call's id, or for
// a Gemini call without one swc's "gemini:i:j" (content i, part j of the
// request).
type toolResult struct{ id, text, hid string }

// recallAsk is the call of swc_recall the upstream makes: the handle,
// the original it must get back, and the conversation elements of the
// request it answered (swc sends them again, then its round).
type recallAsk struct {
	handle string
	want   string
	base   []json.RawMessage
}

// RecallStats is what the upstream saw of recall.
type RecallStats struct {
	Offered  int    // requests that went out with swc_recall among their tools
	Handle   string // the handle the upstream called swc_recall with ("" when it did not)
	Request  int    // the request it answered with that call
	Answered bool   // swc's answer came back, holding the original's bytes
}

// elements returns the array field of body as raw elements.
func elements(body []byte, field string) []json.RawMessage {
	var m map[string]json.RawMessage
	var arr []json.RawMessage
	if json.Unmarshal(body, &m) == nil {
		json.Unmarshal(m[field], &arr)
	}
	return arr
}

// partsText returns the text of a tool result's content as swc reads it
// (and a handle names it): a string, or its parts joined by newlines, a
// part without text as its type in brackets ("[image]").
func partsText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	json.Unmarshal(raw, &parts)
	var texts []string
	for _, p := range parts {
		switch {
		case p.Text != nil:
			texts = append(texts, *p.Text)
		case p.Type != "":
			texts = append(texts, "["+p.Type+"]") // an image, a tool_reference: its placeholder line
		default:
			texts = append(texts, "[untyped part]")
		}
	}
	return strings.Join(texts, "\n")
}

// toolResults returns the tool results of conversation elements in
// format ("anthropic", "openai", "responses", "gemini"), in order.
func toolResults(format string, elems []json.RawMessage) []toolResult {
	var out []toolResult
	for k, e := range elems {
		switch format {
		case "anthropic":
			var m antMessage
			if json.Unmarshal(e, &m) != nil {
				continue
			}
			bs, _ := blocks(m.Content)
			for _, b := range bs {
				if b.Type == "tool_result" {
					out = append(out, toolResult{b.ToolUseID, partsText(b.Content), b.ToolUseID})
				}
			}
		case "openai":
			var m chatMessage
			if json.Unmarshal(e, &m) == nil && m.Role == "tool" {
				out = append(out, toolResult{m.ToolCallID, partsText(m.Content), m.ToolCallID})
			}
		case "responses":
			var it struct {
				Type   string          `json:"type"`
				CallID string          `json:"call_id"`
				Output json.RawMessage `json:"output"`
			}
			if json.Unmarshal(e, &it) == nil && isOutput(it.Type) {
				out = append(out, toolResult{it.CallID, partsText(it.Output), it.CallID})
			}
		case "gemini":
			var c struct {
				Parts []struct {
					FunctionResponse *struct {
						ID       string          `json:"id"`
						Name     string          `json:"name"`
						Response json.RawMessage `json:"response"`
					} `json:"functionResponse"`
				} `json:"parts"`
			}
			json.Unmarshal(e, &c)
			var calls []geminiCall
			if k > 0 {
				calls = geminiCalls(elems[k-1])
			}
			for _, p := range c.Parts {
				fr := p.FunctionResponse
				if fr == nil {
					continue
				}
				r := toolResult{fr.ID, responseText(fr.Response), fr.ID}
				if fr.ID == "" {
					// The first call of the content before it of that name
					// and no id not answered yet.
					if i := slices.IndexFunc(calls, func(c geminiCall) bool { return c.ID == "" && c.Name == fr.Name }); i >= 0 {
						var args any // canonical: a clipped turn's call may be encoded anew
						json.Unmarshal(calls[i].Args, &args)
						b, _ := json.Marshal(args)
						r.id = "call:" + calls[i].Name + ":" + string(b)
						r.hid = fmt.Sprintf("gemini:%d:%d", k-1, calls[i].part)
						calls[i].Name = "" // answered
					}
				}
				out = append(out, r)
			}
		}
	}
	return out
}

// geminiCall is a functionCall part of a Gemini content, at part.
type geminiCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
	part int
}

// geminiCalls returns the function calls of a Gemini content.
func geminiCalls(e json.RawMessage) []geminiCall {
	var c struct {
		Parts []struct {
			FunctionCall *geminiCall `json:"functionCall"`
		} `json:"parts"`
	}
	json.Unmarshal(e, &c)
	var out []geminiCall
	for j, p := range c.Parts {
		if p.FunctionCall != nil {
			fc := *p.FunctionCall
			fc.part = j
			out = append(out, fc)
		}
	}
	return out
}

// responseText is a Gemini functionResponse's response as swc reads it:
// the string of {"output": text}, "[error] " and the string of
// {"error": text}, else the response's JSON.
func responseText(raw json.RawMessage) string {
	var m map[string]json.RawMessage
	var s string
	if json.Unmarshal(raw, &m) == nil && len(m) == 1 {
		if v, ok := m["output"]; ok && json.Unmarshal(v, &s) == nil {
			return s
		}
		if v, ok := m["error"]; ok && json.Unmarshal(v, &s) == nil {
			return "[error] " + s
		}
	}
	return string(bytes.TrimSpace(raw))
}

// withRecallTool returns the tools array orig (raw JSON) of format with
// def appended, as swc writes it: Gemini's to the functionDeclarations
// of its first entry that has them.
func withRecallTool(format string, orig json.RawMessage, def string) []byte {
	if format != "gemini" {
		return appendDef(orig, def)
	}
	for _, e := range spans(orig) {
		entry := orig[e[0]:e[1]]
		if v := member(entry, "functionDeclarations"); v != nil {
			fds := entry[v[0]:v[1]]
			var b bytes.Buffer
			b.Write(orig[:e[0]+v[0]])
			b.Write(appendDef(fds, def))
			b.Write(orig[e[0]+v[1]:])
			return b.Bytes()
		}
	}
	return nil
}

// spans returns the offsets of the elements of a JSON array.
func spans(arr []byte) [][2]int {
	dec := json.NewDecoder(bytes.NewReader(arr))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil
	}
	var out [][2]int
	for dec.More() {
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return nil
		}
		end := int(dec.InputOffset())
		out = append(out, [2]int{end - len(raw), end})
	}
	return out
}

// member returns the offsets of the value of a JSON object's member key.
func member(o []byte, key string) []int {
	dec := json.NewDecoder(bytes.NewReader(o))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil
		}
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return nil
		}
		if k == key {
			end := int(dec.InputOffset())
			return []int{end - len(raw), end}
		}
	}
	return nil
}

// appendDef returns the JSON array orig with def appended.
func appendDef(orig json.RawMessage, def string) []byte {
	arr := bytes.TrimSpace(orig)
	if len(arr) < 2 || arr[0] != '[' {
		return nil
	}
	inner := bytes.TrimSpace(arr[1 : len(arr)-1])
	var b bytes.Buffer
	b.WriteByte('[')
	b.Write(inner)
	if len(inner) > 0 {
		b.WriteByte(',')
	}
	b.WriteString(def)
	b.WriteByte(']')
	return b.Bytes()
}

// holdsHandle reports whether a forwarded body holds a handle anywhere but
// in its tools (whose swc_recall description shows an example).
func holdsHandle(body []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return false
	}
	for k, v := range m {
		if k != "tools" && stubHandle.Match(v) {
			return true
		}
	}
	return false
}

// checkForwarded checks one forwarded request of format (its
// conversation in field) as checkRecall does and, unless the request is
// swc's round after a call of swc_recall, that its last message and the
// agent's turns came through (sameLast, sameTurns). It returns the
// breaches and the call of swc_recall to make, when it is time for one.
func (u *Upstream) checkForwarded(format, field string, body, orig []byte, answered string) (breaches, *recallAsk) {
	bs, round, ask := u.checkRecall(format, field, body, orig, answered)
	if m := taskMessage(orig, field, u.Task); m != nil && !bytes.Contains(body, m) && !taskWithMemory(body, field, m) {
		bs.add("task-kept", "the agent's message holding its task goes out changed, folded into a memory or left out")
	}
	if !round {
		bs = append(bs, sameLast(body, orig, field)...)
		tbs, clipped, calls, bare := sameTurns(format, body, orig, field)
		bs = append(bs, tbs...)
		u.mu.Lock()
		u.st.Unreasoned = max(u.st.Unreasoned, bare)
		if u.clipped == nil {
			u.clipped = map[string]bool{}
		}
		for _, h := range clipped {
			u.clipped[h] = true
		}
		u.st.Clipped = len(u.clipped)
		if u.clippedCalls == nil {
			u.clippedCalls = map[string]bool{}
		}
		for _, h := range calls {
			u.clippedCalls[h] = true
		}
		u.st.ClippedCalls = len(u.clippedCalls)
		u.mu.Unlock()
	}
	return bs, ask
}

// taskWithMemory reports whether body's field holds the agent's task
// message m with text blocks of swc's memory after its own content (a
// tool loop's memory in Anthropic, Responses and Gemini form goes there): a message
// of m's role whose content blocks (parts) start with m's (a string
// content as its one text block; cache_control marks aside, which swc
// may add), every block after them a text block naming a handle; or, in
// Chat Completions form, m's string content followed by a blank line and
// text naming a handle.
func taskWithMemory(body []byte, field string, m []byte) bool {
	var want struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		Parts   json.RawMessage `json:"parts"`
	}
	if json.Unmarshal(m, &want) != nil {
		return false
	}
	own := contentBlocks(cmp.Or(string(want.Content), string(want.Parts)))
	var fm map[string]json.RawMessage
	var elems []json.RawMessage
	if own == nil || json.Unmarshal(body, &fm) != nil || json.Unmarshal(fm[field], &elems) != nil {
		return false
	}
	var wantText string
	wantString := json.Unmarshal(want.Content, &wantText) == nil
	for _, e := range elems {
		var got struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
			Parts   json.RawMessage `json:"parts"`
		}
		if json.Unmarshal(e, &got) != nil || got.Role != want.Role {
			continue
		}
		// A string task stays a string in Chat Completions form, the
		// memory after a blank line.
		var gotText string
		if wantString && json.Unmarshal(got.Content, &gotText) == nil {
			if rest, ok := strings.CutPrefix(gotText, wantText+"\n\n"); ok && memoryHandle.MatchString(rest) {
				return true
			}
			continue
		}
		blocks := contentBlocks(cmp.Or(string(got.Content), string(got.Parts)))
		if len(blocks) <= len(own) || !reflect.DeepEqual(blocks[:len(own)], own) {
			continue
		}
		memory := true
		for _, b := range blocks[len(own):] {
			text, _ := b["text"].(string)
			typ, typed := b["type"]
			memory = memory && (typ == "text" || typ == "input_text" || !typed && len(b) == 1) && memoryHandle.MatchString(text)
		}
		if memory {
			return true
		}
	}
	return false
}

// memoryHandle matches a handle as swc's memory lists them.
var memoryHandle = regexp.MustCompile(`\bh[0-9a-f]{10}\b`)

// contentBlocks returns a message content's blocks (a Gemini content's
// parts), decoded, without their cache_control members: a string's one
// text block, or a list's.
func contentBlocks(content string) []map[string]any {
	var s string
	if json.Unmarshal([]byte(content), &s) == nil {
		return []map[string]any{{"type": "text", "text": s}}
	}
	var blocks []map[string]any
	if json.Unmarshal([]byte(content), &blocks) != nil {
		return nil
	}
	for _, b := range blocks {
		delete(b, "cache_control")
	}
	return blocks
}

// taskMessage returns the first element of orig's field (its messages,
// input items or contents) that holds task, as the agent sent it; nil
// when none does or task is "".
func taskMessage(orig []byte, field, task string) []byte {
	if task == "" || !bytes.Contains(orig, []byte(task)) {
		return nil
	}
	var m map[string]json.RawMessage
	var elems []json.RawMessage
	if json.Unmarshal(orig, &m) != nil || json.Unmarshal(m[field], &elems) != nil {
		return nil
	}
	for _, e := range elems {
		if bytes.Contains(e, []byte(task)) {
			return e
		}
	}
	return nil
}

// checkRecall checks what swc did for recall with one forwarded request
// of format (its conversation in field): the tools, the agent's request
// free of swc_recall, and, when the request answers the upstream's call
// of swc_recall, swc's answer. It returns the breaches, whether the
// request is swc's round after that call (its own elements then follow
// the request it answered: the checks of the agent's turns do not apply),
// and the call of swc_recall to make, when it is time for one.
func (u *Upstream) checkRecall(format, field string, body, orig []byte, answered string) (bs breaches, round bool, ask *recallAsk) {
	if orig == nil {
		return nil, false, nil
	}
	if bytes.Contains(orig, []byte(RecallToolName)) {
		bs.add("recall-leaked", "the agent's own request holds %s (a call, a result or the tool): swc let it reach the client", RecallToolName)
	}
	var fm, om map[string]json.RawMessage
	json.Unmarshal(body, &fm)
	json.Unmarshal(orig, &om)
	def := u.RecallTools[format]
	compressed := holdsHandle(body)
	fwdTools, hasTools := fm["tools"]
	origTools, agentTools := om["tools"]
	offered := false
	switch {
	case !agentTools && hasTools:
		bs.add("field-added", "field \"tools\" is forwarded, the agent did not send it")
	case !agentTools:
	case !hasTools:
		bs.add("field-dropped", "the agent's field \"tools\" is not forwarded")
	case bytes.Equal(fwdTools, origTools):
		if compressed && def != "" && !bytes.Contains(origTools, []byte(RecallToolName)) {
			bs.add("recall-missing", "the request holds a handle and goes out without %s", RecallToolName)
		}
	case def != "" && bytes.Equal(fwdTools, withRecallTool(format, origTools, def)):
		offered = true
		if !compressed {
			bs.add("recall-uncompressed", "%s is offered on a request that holds no handle (nothing to recall)", RecallToolName)
		}
	default:
		bs.add("field-changed", "the agent's field \"tools\" is forwarded changed (%d bytes → %d), not as the agent's with %s's definition appended", len(origTools), len(fwdTools), RecallToolName)
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if offered {
		u.st.Recall.Offered++
	}
	elems := elements(body, field)
	if c, ok := u.out[answered]; ok && c.rec != nil {
		// swc's round: the request it answered, then the call and its result.
		base := c.rec.base
		switch {
		case len(elems) < len(base)+2:
			bs.add("recall-round", "swc's round after %s holds %d elements; the request it answers held %d", answered, len(elems), len(base))
			return bs, true, nil
		default:
			for i := range base {
				if !bytes.Equal(elems[i], base[i]) {
					bs.add("recall-round", "swc's round after %s: %s[%d] is not as in the request it answers", answered, field, i)
					return bs, true, nil
				}
			}
		}
		for _, r := range toolResults(format, elems[len(base):]) {
			if r.id != answered {
				bs.add("recall-round", "swc's round carries a result of %s, not of the upstream's %s call %s", r.id, RecallToolName, answered)
				continue
			}
			if r.text != c.rec.want {
				bs.add("recall-result", "swc's answer to %s(%s) is not the original's bytes (%d bytes, want %d): %.120q", RecallToolName, c.rec.handle, len(r.text), len(c.rec.want), r.text)
				continue
			}
			u.st.Recall.Answered = true
		}
		if !u.st.Recall.Answered {
			bs.add("recall-result", "swc's round holds no correct answer to %s", answered)
		}
		return bs, true, nil
	}
	if !offered || u.st.Recall.Handle != "" || answered == "" {
		return bs, false, nil
	}
	// The agent's outputs' handles by call id (an agent may use an id
	// again in a later turn: every output of the id counts) and the
	// outputs by handle: the upstream made the calls, the agent's request
	// holds the outputs whole.
	agent, byHandle := map[string][]string{}, map[string]string{}
	sent := map[string]bool{} // the outputs as the agent sent them, by id and text
	for _, r := range toolResults(format, elements(orig, field)) {
		h := observe.Handle(r.hid, r.text)
		agent[r.id] = append(agent[r.id], h)
		byHandle[h] = r.text
		sent[r.id+"\x00"+r.text] = true
	}
	for _, r := range toolResults(format, elems) { // stubs in place name their own output
		if sent[r.id+"\x00"+r.text] {
			continue // an output as it came, whatever it holds
		}
		m := stubHandle.FindStringSubmatch(r.text)
		if hs, known := agent[r.id]; m != nil && known && !slices.Contains(hs, m[1]) {
			bs.add("recall-handle", "the stub of %s shows handle %s; the originals of that call id have %v", r.id, m[1], hs)
		}
	}
	// The first handle shown, in a stub or a memory's list of earlier
	// calls (in the conversation, or in the system prompt or instructions).
	shown := slices.Clone(elems)
	for _, k := range slices.Sorted(maps.Keys(fm)) {
		if k != field && k != "tools" {
			shown = append(shown, fm[k])
		}
	}
	for _, e := range shown {
		for _, m := range stubHandle.FindAllSubmatch(e, -1) {
			if text, ok := byHandle[string(m[1])]; ok {
				return bs, false, &recallAsk{handle: string(m[1]), want: text, base: elems}
			}
		}
	}
	return bs, false, nil
}

// recallReply is the upstream's call of swc_recall for ask, answering
// request n; step is the script's step it interrupts.
func recallReply(ask *recallAsk, n, step int) reply {
	return reply{tool: Tool{Name: RecallToolName}, id: fmt.Sprintf("call_recall_%04d", n),
		args: `{"handle":"` + ask.handle + `"}`, step: step, rec: ask}
}
