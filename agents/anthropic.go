package agents

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

type antRequest struct {
	Model     string          `json:"model"`
	MaxTokens int             `json:"max_tokens"`
	Stream    bool            `json:"stream"`
	System    json.RawMessage `json:"system"`
	Messages  []antMessage    `json:"messages"`
	Tools     []struct {
		Name         string          `json:"name"`
		Type         string          `json:"type"`
		InputSchema  json.RawMessage `json:"input_schema"`
		CacheControl json.RawMessage `json:"cache_control"`
		DeferLoading bool            `json:"defer_loading"`
	} `json:"tools"`
	Thinking *struct {
		Type string `json:"type"`
	} `json:"thinking"`
}

type antMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type antBlock struct {
	Type         string          `json:"type"`
	Text         *string         `json:"text"`
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	ToolUseID    string          `json:"tool_use_id"`
	Thinking     string          `json:"thinking"`
	Signature    string          `json:"signature"`
	CacheControl json.RawMessage `json:"cache_control"`
	Content      json.RawMessage `json:"content"`
	ToolName     string          `json:"tool_name"` // a tool_reference's
}

// blocks returns a content's blocks (a string is one text block), or
// false when it is neither.
func blocks(c json.RawMessage) ([]antBlock, bool) {
	var s string
	if json.Unmarshal(c, &s) == nil {
		return []antBlock{{Type: "text", Text: &s}}, true
	}
	var bs []antBlock
	if json.Unmarshal(c, &bs) != nil {
		return nil, false
	}
	return bs, true
}

func (u *Upstream) anthropic(w http.ResponseWriter, r *http.Request, n int, body, orig []byte) {
	var req antRequest
	if err := json.Unmarshal(body, &req); err != nil {
		u.breach(n, breaches{{Rule: "json", Detail: err.Error()}})
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"invalid JSON"}}`, http.StatusBadRequest)
		return
	}
	bs, t := checkAnthropic(req, r.Header.Get("Anthropic-Beta"), u.sent)
	bs = append(bs, sameFields(body, orig, "messages", "system", "tools")...)
	rbs, ask := u.checkForwarded("anthropic", "messages", body, orig, t.answered)
	bs = append(bs, rbs...)
	u.breach(n, bs)
	t.format, t.n, t.ask = "anthropic", n, ask
	rep := u.next(t, len(body))
	var content []map[string]any
	var th []thinking
	if rep.text == "" && t.thinking {
		text := fmt.Sprintf("Step %d of %d: print the next step file with %s.", rep.step, u.Steps, rep.tool.Name)
		th = append(th, thinking{text, sign(text)})
		content = append(content, map[string]any{"type": "thinking", "thinking": text, "signature": sign(text)})
	}
	if search, deferred := deferredTools(req); rep.text == "" && search != "" && deferred[rep.tool.Name] && !t.loaded[rep.tool.Name] {
		content = append(content, searchBlocks(search, rep.tool.Name, n)...)
		u.searched()
	}
	if rep.text != "" {
		content = append(content, map[string]any{"type": "text", "text": rep.text})
	} else {
		text := rep.prose
		if text == "" { // a call of swc_recall
			text = fmt.Sprintf("Reading step %d.", rep.step)
		}
		content = append(content, map[string]any{"type": "text", "text": text})
		content = append(content, map[string]any{"type": "tool_use", "id": rep.id, "name": rep.tool.Name, "input": json.RawMessage(rep.args)})
		u.remember(rep.id, call{step: rep.step, thinking: th, rec: rep.rec})
	}
	stop := "end_turn"
	if rep.text == "" {
		stop = "tool_use"
	}
	model := req.Model
	if model == "" {
		model = "claude-sonnet-4-6"
	}
	id := fmt.Sprintf("msg_%04d", n)
	usage := map[string]any{"input_tokens": len(body) / 4, "output_tokens": 40, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !req.Stream {
		msg := map[string]any{"id": id, "type": "message", "role": "assistant", "model": model, "content": content,
			"stop_reason": stop, "stop_sequence": nil, "usage": usage}
		b, _ := json.Marshal(msg)
		writeJSON(w, string(b))
		return
	}
	s := newSSE(w)
	s.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": id, "type": "message", "role": "assistant",
		"model": model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": len(body) / 4, "output_tokens": 1}}})
	for i, c := range content {
		switch c["type"] {
		case "thinking":
			s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
			text := c["thinking"].(string)
			for _, part := range split(text, 3) {
				s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "thinking_delta", "thinking": part}})
			}
			s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "signature_delta", "signature": c["signature"]}})
		case "text":
			s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			for _, part := range split(c["text"].(string), 2) {
				s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": part}})
			}
		case "tool_search_tool_result":
			s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": c})
		case "tool_use", "server_tool_use":
			s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": c["type"], "id": c["id"], "name": c["name"], "input": map[string]any{}}})
			for _, part := range split(string(c["input"].(json.RawMessage)), 3) {
				s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
			}
		}
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	s.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 40}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
}

// split cuts s into at most n pieces (streams send deltas).
func split(s string, n int) []string {
	if len(s) < n*4 {
		return []string{s}
	}
	var out []string
	size := (len(s) + n - 1) / n
	for len(s) > size {
		cut := size
		for cut < len(s) && (s[cut]&0xC0) == 0x80 { // not inside a UTF-8 rune
			cut++
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return append(out, s)
}

// checkAnthropic checks a Messages request against the API's rules and
// returns the breaches and the turn it asks for. sent returns what the
// upstream sent with a call id.
func checkAnthropic(req antRequest, beta string, sent func(string) (call, bool)) (breaches, turn) {
	var bs breaches
	t := turn{stream: req.Stream, thinking: req.Thinking != nil && req.Thinking.Type != "" && req.Thinking.Type != "disabled"}
	for _, tl := range req.Tools {
		if tl.Name != "" && tl.Type == "" || tl.Type == "custom" {
			t.tools = append(t.tools, Tool{Name: tl.Name, Schema: tl.InputSchema})
		}
	}
	if req.Model == "" {
		bs.add("model", "no model")
	}
	if req.MaxTokens <= 0 {
		bs.add("max-tokens", "max_tokens is %d", req.MaxTokens)
	}
	if len(req.Messages) == 0 {
		bs.add("messages", "no messages")
		return bs, t
	}
	midSystem := strings.Contains(beta, "mid-conversation-system")
	breakpoints := 0
	if sys, ok := blocks(req.System); ok && len(req.System) > 0 && req.System[0] == '[' {
		for _, b := range sys {
			if len(b.CacheControl) > 0 {
				breakpoints++
			}
		}
	}
	for _, tl := range req.Tools {
		if len(tl.CacheControl) > 0 {
			breakpoints++
		}
	}
	if req.Messages[0].Role != "user" {
		bs.add("first-message", "the first message is a %q message, not a user message", req.Messages[0].Role)
	}
	msgs := make([][]antBlock, len(req.Messages))
	for i, m := range req.Messages {
		switch m.Role {
		case "user", "assistant":
		case "system":
			if !midSystem {
				bs.add("role", "message %d has role system without the mid-conversation-system beta", i)
			}
		default:
			bs.add("role", "message %d has role %q", i, m.Role)
		}
		b, ok := blocks(m.Content)
		if !ok {
			bs.add("content", "message %d: content is neither a string nor blocks", i)
			continue
		}
		msgs[i] = b
		if len(b) == 0 && !(i == len(req.Messages)-1 && m.Role == "assistant") {
			bs.add("empty-content", "message %d (%s) has no content", i, m.Role)
		}
		for _, blk := range b {
			if len(blk.CacheControl) > 0 {
				breakpoints++
			}
			if blk.Type == "tool_result" && len(blk.Content) > 0 && blk.Content[0] == '[' {
				inner, _ := blocks(blk.Content)
				for _, ib := range inner {
					if len(ib.CacheControl) > 0 {
						breakpoints++
					}
				}
			}
			if blk.Type == "text" && blk.Text != nil && *blk.Text == "" && (len(b) > 1 || m.Role != "assistant") {
				bs.add("empty-text", "message %d (%s) has an empty text block", i, m.Role)
			}
			if blk.Type == "thinking" && sign(blk.Thinking) != blk.Signature {
				bs.add("thinking-signature", "message %d: a thinking block's signature does not match its text", i)
			}
		}
		if i > 0 && m.Role == "assistant" && req.Messages[i-1].Role == "assistant" {
			bs.add("alternation", "messages %d and %d are both assistant messages", i-1, i)
		}
	}
	if breakpoints > 4 {
		bs.add("cache-breakpoints", "%d cache_control breakpoints (at most 4)", breakpoints)
	}
	checkLoaded(&bs, req, msgs)
	t.loaded = loadedTools(msgs)
	// Tool calls and results.
	for i, b := range msgs {
		role := req.Messages[i].Role
		var uses []string
		for _, blk := range b {
			if blk.Type == "tool_use" {
				uses = append(uses, blk.ID)
			}
		}
		if role == "assistant" && len(uses) > 0 {
			if i+1 >= len(msgs) {
				bs.add("tool-result-missing", "message %d (the last) calls %s and no result follows", i, strings.Join(uses, ", "))
				continue
			}
			next := msgs[i+1]
			if req.Messages[i+1].Role != "user" {
				bs.add("tool-result-missing", "message %d calls %s, message %d is a %s message", i, strings.Join(uses, ", "), i+1, req.Messages[i+1].Role)
				continue
			}
			got := map[string]int{}
			seenOther := false
			for _, blk := range next {
				if blk.Type == "tool_result" {
					got[blk.ToolUseID]++
					if seenOther {
						bs.add("tool-result-not-first", "message %d: the result of %s comes after other content", i+1, blk.ToolUseID)
					}
				} else {
					seenOther = true
				}
			}
			for _, id := range uses {
				switch got[id] {
				case 0:
					bs.add("tool-result-missing", "message %d calls %s, message %d holds no result of it", i, id, i+1)
				case 1:
				default:
					bs.add("tool-result-duplicate", "message %d holds %d results of %s", i+1, got[id], id)
				}
			}
		}
		if role == "user" {
			for _, blk := range b {
				if blk.Type != "tool_result" {
					continue
				}
				prev := -1
				if i > 0 && req.Messages[i-1].Role == "assistant" {
					prev = i - 1
				}
				found := false
				if prev >= 0 {
					for _, pb := range msgs[prev] {
						found = found || pb.Type == "tool_use" && pb.ID == blk.ToolUseID
					}
				}
				if !found {
					bs.add("tool-result-orphan", "message %d holds a result of %s, which the message before it does not call", i, blk.ToolUseID)
				}
			}
		}
	}
	// The turn being answered: its thinking kept as the upstream sent it.
	last := len(msgs) - 1
	if req.Messages[last].Role == "user" {
		var ids []string
		for _, blk := range msgs[last] {
			if blk.Type == "tool_result" {
				ids = append(ids, blk.ToolUseID)
			}
		}
		if len(ids) > 0 {
			t.answered = ids[len(ids)-1]
			if last > 0 && req.Messages[last-1].Role == "assistant" {
				checkThinkingKept(&bs, last-1, msgs[last-1], ids, t.thinking, sent)
			}
		}
	}
	return bs, t
}

// checkThinkingKept reports the thinking blocks the upstream sent with the
// calls ids that message i (their assistant turn) no longer holds as sent,
// in order, before its tool calls.
func checkThinkingKept(bs *breaches, i int, msg []antBlock, ids []string, enabled bool, sent func(string) (call, bool)) {
	var want []thinking
	for _, id := range ids {
		if c, ok := sent(id); ok && len(c.thinking) > 0 {
			want = c.thinking
			break
		}
	}
	calls := false
	for _, b := range msg {
		calls = calls || b.Type == "tool_use" && slices.Contains(ids, b.ID)
	}
	if len(want) == 0 || !enabled || !calls { // an orphan result is reported as such
		return
	}
	var have []thinking
	for _, b := range msg {
		if b.Type == "thinking" {
			have = append(have, thinking{b.Thinking, b.Signature})
		}
		if b.Type == "tool_use" {
			break
		}
	}
	if len(have) < len(want) {
		bs.add("thinking-dropped", "message %d answers calls %s without the %d thinking block(s) sent with them", i, strings.Join(ids, ", "), len(want))
		return
	}
	for k, w := range want {
		if have[k] != w {
			bs.add("thinking-changed", "message %d: thinking block %d is not the one sent", i, k)
		}
	}
}
