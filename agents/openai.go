package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// item is a Responses input item (the fields the checks read).
type item struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Role             string          `json:"role"`
	CallID           string          `json:"call_id"`
	Name             string          `json:"name"`
	EncryptedContent *string         `json:"encrypted_content"`
	Content          json.RawMessage `json:"content"`
	Execution        string          `json:"execution"`
	Tools            []struct {
		Name string `json:"name"`
	} `json:"tools"` // a tool_search_output's
}

type responsesRequest struct {
	Model     string            `json:"model"`
	Stream    bool              `json:"stream"`
	Input     json.RawMessage   `json:"input"`
	Reasoning json.RawMessage   `json:"reasoning"`
	Include   []string          `json:"include"`
	Tools     []json.RawMessage `json:"tools"`
}

// rTool is the part of a Responses tool definition the script reads.
type rTool struct {
	Type         string          `json:"type"`
	Name         string          `json:"name"`
	Parameters   json.RawMessage `json:"parameters"`
	DeferLoading bool            `json:"defer_loading"`
}

func (u *Upstream) responses(w http.ResponseWriter, n int, body, orig []byte) {
	// The API reads an item_reference as the item it names: so are both
	// bodies checked (what swc forwarded may hold references, as the
	// agent sent them, when it forwards a request as it came).
	size := len(body)
	body = u.resolveRefs(body)
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		u.breach(n, breaches{{Rule: "json", Detail: err.Error()}})
		http.Error(w, `{"error":{"message":"invalid JSON","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	orig = u.resolveRefs(orig)
	var items []item
	if len(req.Input) > 0 && req.Input[0] == '[' {
		if err := json.Unmarshal(req.Input, &items); err != nil {
			u.breach(n, breaches{{Rule: "input", Detail: err.Error()}})
		}
	}
	bs, answered := checkResponses(items, u.sent, u.reasoningSent)
	bs = append(bs, sameFields(body, orig, "input", "instructions", "tools")...)
	rbs, ask := u.checkForwarded("responses", "input", body, orig, answered)
	bs = append(bs, rbs...)
	t := turn{format: "responses", n: n, stream: req.Stream, answered: answered, ask: ask}
	search, deferred := false, map[string]json.RawMessage{}
	for _, raw := range req.Tools {
		var tl rTool
		json.Unmarshal(raw, &tl)
		if tl.Type == "function" {
			t.tools = append(t.tools, Tool{Name: tl.Name, Schema: tl.Parameters})
		}
		if tl.DeferLoading {
			deferred[tl.Name] = raw
		}
		search = search || tl.Type == "tool_search"
	}
	loaded := checkLoadedResponses(&bs, items, deferred)
	u.breach(n, bs)
	rep := u.next(t, size)
	reasoning := len(req.Reasoning) > 0 && string(req.Reasoning) != "null" || strings.Contains(strings.Join(req.Include, ","), "reasoning.encrypted_content")
	var output []map[string]any
	if reasoning {
		id := fmt.Sprintf("rs_%04d", n)
		enc := "enc_" + sign(id)
		output = append(output, map[string]any{"id": id, "type": "reasoning", "encrypted_content": enc,
			"summary": []any{map[string]any{"type": "summary_text", "text": "**Next step**\n\nPrint the next step file."}}})
		u.mu.Lock()
		u.rs[id] = enc
		u.mu.Unlock()
	}
	if rep.text != "" {
		output = append(output, map[string]any{"id": fmt.Sprintf("msg_%04d", n), "type": "message", "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": rep.text, "annotations": []any{}}}})
	} else {
		c := call{step: rep.step, item: fmt.Sprintf("fc_%04d", n), rec: rep.rec}
		if reasoning {
			c.reasoning = output[0]["id"].(string)
		}
		if def, ok := deferred[rep.tool.Name]; ok && search && !loaded[rep.tool.Name] {
			output = append(output, serverSearch(n, def)...)
			u.searched()
		}
		if rep.prose != "" {
			output = append(output, map[string]any{"id": fmt.Sprintf("msg_%04d", n), "type": "message", "status": "completed", "role": "assistant",
				"content": []any{map[string]any{"type": "output_text", "text": rep.prose, "annotations": []any{}}}})
		}
		output = append(output, map[string]any{"id": c.item, "type": "function_call", "status": "completed",
			"call_id": rep.id, "name": rep.tool.Name, "arguments": rep.args})
		u.remember(rep.id, c)
	}
	u.keepItems(output)
	model := req.Model
	resp := map[string]any{"id": fmt.Sprintf("resp_%04d", n), "object": "response", "created_at": 1767225600, "status": "completed",
		"model": model, "output": output, "parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{},
		"usage": map[string]any{"input_tokens": len(body) / 4, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 40, "output_tokens_details": map[string]any{"reasoning_tokens": 10}, "total_tokens": len(body)/4 + 40}}
	if !req.Stream {
		b, _ := json.Marshal(resp)
		writeJSON(w, string(b))
		return
	}
	s := newSSE(w)
	seq := 0
	ev := func(typ string, fields map[string]any) {
		fields["type"], fields["sequence_number"] = typ, seq
		seq++
		s.event(typ, fields)
	}
	pending := map[string]any{}
	for k, v := range resp {
		pending[k] = v
	}
	pending["status"], pending["output"], pending["usage"] = "in_progress", []any{}, nil
	ev("response.created", map[string]any{"response": pending})
	ev("response.in_progress", map[string]any{"response": pending})
	for i, it := range output {
		id := it["id"].(string)
		switch it["type"] {
		case "reasoning":
			ev("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{"id": id, "type": "reasoning", "summary": []any{}}})
			text := it["summary"].([]any)[0].(map[string]any)["text"].(string)
			ev("response.reasoning_summary_part.added", map[string]any{"item_id": id, "output_index": i, "summary_index": 0, "part": map[string]any{"type": "summary_text", "text": ""}})
			ev("response.reasoning_summary_text.delta", map[string]any{"item_id": id, "output_index": i, "summary_index": 0, "delta": text})
			ev("response.reasoning_summary_text.done", map[string]any{"item_id": id, "output_index": i, "summary_index": 0, "text": text})
			ev("response.reasoning_summary_part.done", map[string]any{"item_id": id, "output_index": i, "summary_index": 0, "part": map[string]any{"type": "summary_text", "text": text}})
		case "function_call":
			ev("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{"id": id, "type": "function_call", "status": "in_progress",
				"call_id": it["call_id"], "name": it["name"], "arguments": ""}})
			for _, part := range split(it["arguments"].(string), 3) {
				ev("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": i, "delta": part})
			}
			ev("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": i, "arguments": it["arguments"]})
		case "tool_search_call", "tool_search_output":
			ev("response.output_item.added", map[string]any{"output_index": i, "item": it})
		case "message":
			text := it["content"].([]any)[0].(map[string]any)["text"].(string)
			ev("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}})
			ev("response.content_part.added", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
			for _, part := range split(text, 2) {
				ev("response.output_text.delta", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "delta": part, "logprobs": []any{}})
			}
			ev("response.output_text.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "text": text, "logprobs": []any{}})
			ev("response.content_part.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "part": map[string]any{"type": "output_text", "text": text, "annotations": []any{}}})
		}
		ev("response.output_item.done", map[string]any{"output_index": i, "item": it})
	}
	ev("response.completed", map[string]any{"response": resp})
}

// reasoningSent returns the encrypted content of a reasoning item the
// upstream sent, by id.
func (u *Upstream) reasoningSent(id string) (string, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	e, ok := u.rs[id]
	return e, ok
}

// isCall and isOutput tell a Responses call item from its output item
// (function_call, custom_tool_call, local_shell_call, …).
func isCall(typ string) bool   { return strings.HasSuffix(typ, "_call") }
func isOutput(typ string) bool { return strings.HasSuffix(typ, "_call_output") }

// checkResponses checks a Responses input against the API's rules and
// returns the breaches and the call id its last output answers ("" when it
// does not end with one).
func checkResponses(items []item, sent func(string) (call, bool), rsSent func(string) (string, bool)) (breaches, string) {
	var bs breaches
	calls := map[string]int{}   // call id → index
	outputs := map[string]int{} // call id → outputs
	for i, it := range items {
		typ := it.Type
		if typ == "" && it.Role != "" {
			typ = "message"
		}
		switch {
		case typ == "message":
			switch it.Role {
			case "user", "assistant", "system", "developer":
			default:
				bs.add("role", "item %d is a message with role %q", i, it.Role)
			}
		case isOutput(typ):
			if _, ok := calls[it.CallID]; !ok {
				bs.add("tool-result-orphan", "item %d is the output of %s, which no earlier item calls", i, it.CallID)
			}
			outputs[it.CallID]++
			if outputs[it.CallID] == 2 {
				bs.add("tool-result-duplicate", "item %d is a second output of %s", i, it.CallID)
			}
		case isCall(typ) && it.CallID == "" && it.Execution == "server": // the API ran it; its output has no call id either
		case isCall(typ):
			if _, ok := calls[it.CallID]; ok {
				bs.add("tool-call-duplicate", "item %d calls %s again", i, it.CallID)
			}
			calls[it.CallID] = i
			c, ours := sent(it.CallID)
			if ours && c.reasoning != "" && it.ID != "" && !precededBy(items, i, c.reasoning) {
				bs.add("reasoning-dropped", "item %d (function_call %s, id %s) comes without its reasoning item %s", i, it.CallID, it.ID, c.reasoning)
			}
		case typ == "reasoning":
			if enc, ok := rsSent(it.ID); ok && (it.EncryptedContent == nil || *it.EncryptedContent != enc) {
				bs.add("reasoning-changed", "item %d: reasoning %s does not carry the encrypted content sent", i, it.ID)
			}
			if _, ok := rsSent(it.ID); ok {
				if i+1 >= len(items) || !(isCall(items[i+1].Type) || (items[i+1].Type == "message" || items[i+1].Type == "") && items[i+1].Role == "assistant" || items[i+1].Type == "reasoning") {
					bs.add("reasoning-alone", "item %d: reasoning %s is not followed by the item it came with", i, it.ID)
				}
			}
		}
	}
	for id, i := range calls {
		if outputs[id] == 0 {
			bs.add("tool-result-missing", "item %d calls %s and no output of it follows", i, id)
		}
	}
	answered := ""
	if n := len(items); n > 0 && isOutput(items[n-1].Type) {
		answered = items[n-1].CallID
		// The turn being answered keeps its reasoning.
		if ci, ok := calls[answered]; ok {
			if c, ours := sent(answered); ours && c.reasoning != "" && !precededBy(items, ci, c.reasoning) {
				bs.add("reasoning-dropped", "the call being answered (%s) comes without its reasoning item %s", answered, c.reasoning)
			}
		}
	}
	return bs, answered
}

// serverRun reports whether it is the output of a tool the API ran (a
// tool_search_output without a call id): an item of the response that
// ran it.
func serverRun(it item) bool { return it.Type == "tool_search_output" && it.CallID == "" }

// precededBy reports whether reasoning item id stands before item i, with
// only calls, the outputs of tools the API ran and assistant messages
// between them (the other items of the same response).
func precededBy(items []item, i int, id string) bool {
	for j := i - 1; j >= 0; j-- {
		if items[j].Type == "reasoning" {
			return items[j].ID == id
		}
		if !isCall(items[j].Type) && !(items[j].Role == "assistant" && (items[j].Type == "message" || items[j].Type == "")) && !serverRun(items[j]) {
			return false
		}
	}
	return false
}

type chatRequest struct {
	Model         string        `json:"model"`
	Stream        bool          `json:"stream"`
	Messages      []chatMessage `json:"messages"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID string `json:"id"`
	} `json:"tool_calls"`
}

func (u *Upstream) chat(w http.ResponseWriter, n int, body, orig []byte) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		u.breach(n, breaches{{Rule: "json", Detail: err.Error()}})
		http.Error(w, `{"error":{"message":"invalid JSON","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	bs, answered := checkChat(req.Messages)
	bs = append(bs, sameFields(body, orig, "messages", "tools")...)
	rbs, ask := u.checkForwarded("openai", "messages", body, orig, answered)
	bs = append(bs, rbs...)
	u.breach(n, bs)
	t := turn{format: "openai", n: n, stream: req.Stream, answered: answered, ask: ask}
	for _, tl := range req.Tools {
		if tl.Type == "function" {
			t.tools = append(t.tools, Tool{Name: tl.Function.Name, Schema: tl.Function.Parameters})
		}
	}
	rep := u.next(t, len(body))
	id := fmt.Sprintf("chatcmpl-%04d", n)
	usage := map[string]any{"prompt_tokens": len(body) / 4, "completion_tokens": 40, "total_tokens": len(body)/4 + 40}
	msg := map[string]any{"role": "assistant", "content": nil}
	finish := "stop"
	if rep.text != "" {
		msg["content"] = rep.text
	} else {
		finish = "tool_calls"
		if rep.prose != "" {
			msg["content"] = rep.prose
		}
		msg["tool_calls"] = []any{map[string]any{"id": rep.id, "type": "function", "function": map[string]any{"name": rep.tool.Name, "arguments": rep.args}}}
		u.remember(rep.id, call{step: rep.step, rec: rep.rec})
	}
	if !req.Stream {
		b, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion", "created": 1767225600, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}}, "usage": usage})
		writeJSON(w, string(b))
		return
	}
	s := newSSE(w)
	chunk := func(delta map[string]any, finish any) {
		s.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1767225600, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}}})
	}
	if rep.text != "" {
		chunk(map[string]any{"role": "assistant", "content": ""}, nil)
		for _, part := range split(rep.text, 2) {
			chunk(map[string]any{"content": part}, nil)
		}
	} else {
		first := map[string]any{"role": "assistant", "content": nil}
		if rep.prose != "" { // the reasoning's deltas, then the call's
			chunk(map[string]any{"role": "assistant", "content": ""}, nil)
			for _, part := range split(rep.prose, 3) {
				chunk(map[string]any{"content": part}, nil)
			}
			first = map[string]any{}
		}
		first["tool_calls"] = []any{map[string]any{"index": 0, "id": rep.id, "type": "function",
			"function": map[string]any{"name": rep.tool.Name, "arguments": ""}}}
		chunk(first, nil)
		for _, part := range split(rep.args, 3) {
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": part}}}}, nil)
		}
	}
	chunk(map[string]any{}, finish)
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		s.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1767225600, "model": req.Model, "choices": []any{}, "usage": usage})
	}
	s.event("", "[DONE]")
}

// checkChat checks Chat Completions messages against the API's rules and
// returns the breaches and the call id the last tool message answers.
func checkChat(msgs []chatMessage) (breaches, string) {
	var bs breaches
	if len(msgs) == 0 {
		bs.add("messages", "no messages")
		return bs, ""
	}
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		switch m.Role {
		case "system", "developer", "user", "assistant", "tool":
		default:
			bs.add("role", "message %d has role %q", i, m.Role)
		}
		if m.Role == "tool" {
			bs.add("tool-result-orphan", "message %d answers %s, and no assistant message just before calls it", i, m.ToolCallID)
			continue
		}
		if m.Role == "assistant" && len(m.ToolCalls) == 0 && (len(m.Content) == 0 || string(m.Content) == "null") {
			bs.add("empty-content", "message %d: an assistant message with neither content nor tool calls", i)
		}
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			continue
		}
		want := map[string]int{}
		for _, c := range m.ToolCalls {
			want[c.ID] = 0
		}
		j := i + 1
		for ; j < len(msgs) && msgs[j].Role == "tool"; j++ {
			id := msgs[j].ToolCallID
			if _, ok := want[id]; !ok {
				bs.add("tool-result-orphan", "message %d answers %s, which message %d does not call", j, id, i)
				continue
			}
			want[id]++
			if want[id] == 2 {
				bs.add("tool-result-duplicate", "message %d answers %s a second time", j, id)
			}
		}
		for _, c := range m.ToolCalls {
			if want[c.ID] == 0 {
				bs.add("tool-result-missing", "message %d calls %s and no tool message right after answers it", i, c.ID)
			}
		}
		i = j - 1
	}
	answered := ""
	last := len(msgs) - 1
	for last > 0 && msgs[last].Role == "user" && attachedMedia(msgs[last].Content) {
		last-- // Qwen Code sends a picture a tool read as a user message after the result
	}
	if msgs[last].Role == "tool" {
		answered = msgs[last].ToolCallID
	}
	return bs, answered
}

// attachedMedia reports whether a user message's content is a list of
// parts holding a picture, a sound or a file: media a client attaches
// after a tool result, since a tool message holds text alone.
func attachedMedia(content json.RawMessage) bool {
	var parts []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(content, &parts) != nil {
		return false
	}
	for _, p := range parts {
		switch p.Type {
		case "image_url", "input_audio", "file":
			return true
		}
	}
	return false
}

// keepItems notes the output items sent, by id, as the API stores them.
func (u *Upstream) keepItems(output []map[string]any) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.items == nil {
		u.items = map[string]json.RawMessage{}
	}
	for _, it := range output {
		if b, err := json.Marshal(it); err == nil {
			u.items[it["id"].(string)] = b
		}
	}
}

// resolveRefs returns a request body orig with each item_reference of its
// input replaced by the item the upstream sent under that id, as the API
// reads it, so that what swc forwarded is checked against the items the
// references name; orig as it came when it names none, or an item the
// upstream did not send.
func (u *Upstream) resolveRefs(orig []byte) []byte {
	if !bytes.Contains(orig, []byte(`"item_reference"`)) {
		return orig
	}
	var m map[string]json.RawMessage
	var input []json.RawMessage
	if json.Unmarshal(orig, &m) != nil || json.Unmarshal(m["input"], &input) != nil {
		return orig
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	for i, raw := range input {
		var ref struct{ Type, ID string }
		if json.Unmarshal(raw, &ref) != nil || ref.Type != "item_reference" {
			continue
		}
		it, ok := u.items[ref.ID]
		if !ok {
			return orig
		}
		input[i] = it
	}
	b, err := marshalRaw(input)
	if err != nil {
		return orig
	}
	m["input"] = b
	out, err := marshalRaw(m)
	if err != nil {
		return orig
	}
	return out
}

// marshalRaw is json.Marshal without escaping <, > and &: an agent's
// items (JSON.stringify's, compact) come out as they went in, so the
// byte-for-byte checks compare what the agent sent.
func marshalRaw(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
