package agents

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/swcmem/swc/chat"
)

// interactions answers POST /v1beta/interactions, the Gemini Interactions
// API, as the API does for a stateless interaction (its history in its
// input, as steps): the script's call as a thought step (its signature
// the upstream's) and a function_call step, or the final text as a
// model_output step. The request must read as the API reads it: every
// function_result answering a function_call sent before it in the input
// (chat.Interactions refuses one that does not), every thought's
// signature one the upstream sent, a continued interaction
// (previous_interaction_id) having no place in a stateless script.
func (u *Upstream) interactions(w http.ResponseWriter, n int, body, orig []byte) {
	var req struct {
		Model    string `json:"model"`
		Previous string `json:"previous_interaction_id"`
		Stream   bool   `json:"stream"`
		Tools    []struct {
			Type       string          `json:"type"`
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"tools"`
		Input []struct {
			Type      string `json:"type"`
			CallID    string `json:"call_id"`
			Signature string `json:"signature"`
		} `json:"input"`
	}
	var bs breaches
	if err := json.Unmarshal(body, &req); err != nil {
		u.breach(n, breaches{{Rule: "json", Detail: err.Error()}})
		http.Error(w, `{"error":{"code":400,"message":"invalid JSON","status":"INVALID_ARGUMENT"}}`, http.StatusBadRequest)
		return
	}
	if _, err := chat.Parse(body, chat.Interactions); err != nil {
		bs.add("interactions-input", "the input does not read as the API reads it: %v", err)
	}
	if req.Previous != "" || req.Stream {
		bs.add("interactions-stateless", "the script answers stateless, unstreamed interactions (previous_interaction_id %q, stream %v)", req.Previous, req.Stream)
	}
	answered := ""
	for i, s := range req.Input {
		if s.Type == "thought" && s.Signature != "" && u.signed(s.Signature) == "" {
			bs.add("thought-signature", "input[%d]: a thought whose signature the upstream never sent", i)
		}
		answered = ""
		if s.Type == "function_result" {
			answered = s.CallID
		}
	}
	bs = append(bs, sameFields(body, orig, "input", "system_instruction")...)
	rbs, _ := u.checkForwarded("interactions", "input", body, orig, answered)
	bs = append(bs, rbs...)
	u.breach(n, bs)
	t := turn{format: "interactions", n: n, answered: answered}
	for _, tl := range req.Tools {
		if tl.Type == "function" {
			t.tools = append(t.tools, Tool{Name: tl.Name, Schema: tl.Parameters})
		}
	}
	rep := u.next(t, len(body))
	text := func(s string) map[string]any {
		return map[string]any{"type": "model_output", "content": []any{map[string]any{"type": "text", "text": s}}}
	}
	var steps []any
	status := "completed"
	if rep.text != "" {
		steps = append(steps, text(rep.text))
	} else {
		steps = append(steps, map[string]any{"type": "thought", "signature": sign(rep.id),
			"summary": []any{map[string]any{"type": "text", "text": fmt.Sprintf("Step %d: print the next step file.", rep.step)}}})
		if rep.prose != "" {
			steps = append(steps, text(rep.prose))
		}
		steps = append(steps, map[string]any{"type": "function_call", "id": rep.id, "name": rep.tool.Name, "arguments": json.RawMessage(rep.args)})
		u.remember(rep.id, call{step: rep.step, rec: rep.rec})
		status = "requires_action"
	}
	b, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("v1_%04d", n), "object": "interaction", "model": req.Model, "status": status,
		"steps": steps, "created": "2026-12-05T00:00:00Z", "updated": "2026-12-05T00:00:00Z",
		"usage": map[string]any{"total_input_tokens": len(body) / 4, "total_output_tokens": 40, "total_tokens": len(body)/4 + 40}})
	writeJSON(w, string(b))
}
