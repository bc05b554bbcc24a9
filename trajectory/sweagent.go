package trajectory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// SWE-agent's own trajectory files (*.traj: {"trajectory", "history",
// "info", …}) hold the run's chat as "history": the messages SWE-agent
// sent its model, each {"role", "content", …}; an assistant's native
// calls in "tool_calls", an observation answering them with role "tool"
// and "tool_call_ids". A run that acts in text (SWE-agent's classic
// interface) has no calls: its commands are in the assistant's text, its
// observations are user messages. The bench reads such a file as a Chat
// Completions body and, built from the same history, a Messages body
// (sweAgentBodies). Some published files (SWE-agent's demonstrations) hold
// tool_calls and tool_call_ids as Python's repr of the list rather than
// JSON: both are read (pyLiteral).

// isSWEAgent reports whether o is a SWE-agent trajectory file: a
// "history" list whose first item has a "role" (beside "trajectory",
// "info" and the like, or alone), and no request body's message list.
func isSWEAgent(o object) bool {
	for _, k := range []string{"messages", "input", "contents"} {
		if _, ok := o[k]; ok {
			return false
		}
	}
	var head []struct {
		Role *string `json:"role"`
	}
	h := bytes.TrimSpace(o["history"])
	if len(h) == 0 || h[0] != '[' || json.Unmarshal(h, &head) != nil {
		return false
	}
	return len(head) > 0 && head[0].Role != nil
}

// sweStep is one message of a SWE-agent history.
type sweStep struct {
	Role        string          `json:"role"`
	Content     json.RawMessage `json:"content"`
	ToolCalls   json.RawMessage `json:"tool_calls"`
	ToolCallIDs json.RawMessage `json:"tool_call_ids"`
}

// sweCall is a native call of an assistant's step.
type sweCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// sweAgentBodies returns the Chat Completions and Messages bodies of a
// SWE-agent trajectory file's history. Every call is answered in both: an
// observation naming an id no earlier call has becomes a user message,
// and a call no observation answers before the next assistant step gets
// "(no output)". Only text content is read (an image part is left out).
func sweAgentBodies(o object) (openai, anthropic []byte, err error) {
	var steps []sweStep
	if err := json.Unmarshal(o["history"], &steps); err != nil {
		return nil, nil, fmt.Errorf("history: %v", err)
	}
	if len(steps) == 0 {
		return nil, nil, fmt.Errorf("history: no messages")
	}
	w := &sweWriter{tools: map[string]bool{}}
	for i, s := range steps {
		text, err := sweText(s.Content)
		if err != nil {
			return nil, nil, fmt.Errorf("history[%d].content: %v", i, err)
		}
		switch s.Role {
		case "system":
			if i == 0 {
				w.system = text
				continue
			}
			w.user(text)
		case "user":
			w.user(text)
		case "assistant":
			calls, err := sweCalls(s.ToolCalls)
			if err != nil {
				return nil, nil, fmt.Errorf("history[%d].tool_calls: %v", i, err)
			}
			w.assistant(text, calls)
		case "tool":
			ids, err := sweIDs(s.ToolCallIDs)
			if err != nil {
				return nil, nil, fmt.Errorf("history[%d].tool_call_ids: %v", i, err)
			}
			w.observation(text, ids)
		default:
			return nil, nil, fmt.Errorf("history[%d].role: %q is not system, user, assistant or tool", i, s.Role)
		}
	}
	w.answerPending()
	return w.bodies()
}

// sweWriter builds the two bodies message by message.
type sweWriter struct {
	system  string
	oa      []map[string]any // Chat Completions messages
	an      []map[string]any // Messages messages
	pending []string         // ids of the last assistant step not yet answered
	tools   map[string]bool
	order   []string // tool names, first use first
}

func (w *sweWriter) user(text string) {
	w.answerPending()
	if text == "" {
		text = "(empty)"
	}
	w.oa = append(w.oa, map[string]any{"role": "user", "content": text})
	w.anthropicUser(map[string]any{"type": "text", "text": text})
}

// anthropicUser adds block to the last message when it is a user's (the
// Messages API takes no two user messages apart), else as a new one.
func (w *sweWriter) anthropicUser(block map[string]any) {
	if n := len(w.an); n > 0 && w.an[n-1]["role"] == "user" {
		w.an[n-1]["content"] = append(w.an[n-1]["content"].([]any), block)
		return
	}
	w.an = append(w.an, map[string]any{"role": "user", "content": []any{block}})
}

func (w *sweWriter) assistant(text string, calls []sweCall) {
	w.answerPending()
	if len(w.an) == 0 { // the Messages API wants a user's message first
		w.anthropicUser(map[string]any{"type": "text", "text": "(start)"})
	}
	m := map[string]any{"role": "assistant"}
	var blocks []any
	if strings.TrimSpace(text) != "" {
		m["content"] = text
		blocks = append(blocks, map[string]any{"type": "text", "text": text})
	} else {
		m["content"] = nil
	}
	var oc []any
	for _, c := range calls {
		if !w.tools[c.Function.Name] {
			w.tools[c.Function.Name] = true
			w.order = append(w.order, c.Function.Name)
		}
		oc = append(oc, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Function.Name, "arguments": c.Function.Arguments}})
		var input any
		if json.Unmarshal([]byte(c.Function.Arguments), &input) != nil {
			input = map[string]any{"arguments": c.Function.Arguments}
		}
		if _, ok := input.(map[string]any); !ok {
			input = map[string]any{"arguments": input}
		}
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Function.Name, "input": input})
		w.pending = append(w.pending, c.ID)
	}
	if len(oc) > 0 {
		m["tool_calls"] = oc
	}
	if len(blocks) == 0 {
		m["content"] = "(empty)"
		blocks = append(blocks, map[string]any{"type": "text", "text": "(empty)"})
	}
	w.oa = append(w.oa, m)
	w.an = append(w.an, map[string]any{"role": "assistant", "content": blocks})
}

// observation adds a tool step: its output answers each of ids the last
// assistant step called and has not had answered; with none, it is a
// user's message.
func (w *sweWriter) observation(text string, ids []string) {
	answered := false
	for _, id := range ids {
		k := slices.Index(w.pending, id)
		if k < 0 {
			continue
		}
		w.pending = append(w.pending[:k], w.pending[k+1:]...)
		w.result(id, text)
		answered = true
	}
	if !answered {
		w.user(text)
	}
}

func (w *sweWriter) result(id, text string) {
	if text == "" {
		text = "(no output)"
	}
	w.oa = append(w.oa, map[string]any{"role": "tool", "tool_call_id": id, "content": text})
	block := map[string]any{"type": "tool_result", "tool_use_id": id, "content": text}
	// tool_result blocks come first in their message.
	if n := len(w.an); n > 0 && w.an[n-1]["role"] == "user" {
		w.an[n-1]["content"] = append(w.an[n-1]["content"].([]any), block)
		return
	}
	w.an = append(w.an, map[string]any{"role": "user", "content": []any{block}})
}

// answerPending answers the calls of the last assistant step no
// observation answered.
func (w *sweWriter) answerPending() {
	for _, id := range w.pending {
		w.result(id, "(no output)")
	}
	w.pending = nil
}

func (w *sweWriter) bodies() (openai, anthropic []byte, err error) {
	oa := map[string]any{"model": "swe-agent"}
	msgs := w.oa
	if w.system != "" {
		msgs = append([]map[string]any{{"role": "system", "content": w.system}}, msgs...)
	}
	oa["messages"] = msgs
	an := map[string]any{"model": "swe-agent", "max_tokens": 4096, "messages": w.an}
	if w.system != "" {
		an["system"] = w.system
	}
	if len(w.order) > 0 {
		var ot, at []any
		for _, n := range w.order {
			ot = append(ot, map[string]any{"type": "function", "function": map[string]any{"name": n, "parameters": map[string]any{"type": "object"}}})
			at = append(at, map[string]any{"name": n, "input_schema": map[string]any{"type": "object"}})
		}
		oa["tools"], an["tools"] = ot, at
	}
	if openai, err = json.Marshal(oa); err != nil {
		return nil, nil, err
	}
	if anthropic, err = json.Marshal(an); err != nil {
		return nil, nil, err
	}
	return openai, anthropic, nil
}

// sweText returns a step's content: a string, or the text of a list of
// parts ({"type": "text", "text"}; others left out), joined by newlines.
func sweText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("want a string or a list of parts")
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}

// sweCalls reads tool_calls: a JSON list, or a string holding one (as JSON
// or as Python's repr of it).
func sweCalls(raw json.RawMessage) ([]sweCall, error) {
	raw, err := sweList(raw)
	if err != nil || raw == nil {
		return nil, err
	}
	var calls []sweCall
	if err := json.Unmarshal(raw, &calls); err != nil {
		return nil, err
	}
	for i, c := range calls {
		if c.ID == "" || c.Function.Name == "" {
			return nil, fmt.Errorf("call %d has no id or no function name", i)
		}
	}
	return calls, nil
}

// sweIDs reads tool_call_ids the same way.
func sweIDs(raw json.RawMessage) ([]string, error) {
	raw, err := sweList(raw)
	if err != nil || raw == nil {
		return nil, err
	}
	var ids []string
	return ids, json.Unmarshal(raw, &ids)
}

// sweList returns raw as a JSON list: itself, or the list a string holds
// as JSON or as Python's repr; nil for none.
func sweList(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return raw, nil
	}
	s = strings.TrimSpace(s)
	if s == "" || s == "None" || s == "[]" {
		return nil, nil
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s), nil
	}
	v, err := pyLiteral(s)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}
