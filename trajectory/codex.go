package trajectory

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Codex CLI's session rollouts (~/.codex/sessions/YYYY/MM/DD/
// rollout-….jsonl) hold a session as lines {"timestamp", "type",
// "payload"}: "session_meta" (payload.base_instructions.text, the
// instructions Codex sends as the request's first developer message),
// "turn_context" (payload.model), "response_item" (an item of the history
// as Codex sends it to the Responses API: message, reasoning,
// function_call, function_call_output, custom_tool_call, …), "compacted"
// (Codex compacted the history: payload.replacement_history is the
// history from there on; a rollout of an older Codex has only
// payload.message, the summary, which follows the user's messages), and
// events for its interface ("event_msg", "world_state", …) that no
// request holds. The bench reads such a file as the Responses body of the
// session's last request (codexBody): the instructions as a developer
// message, then the history since the last compaction. The rollout holds
// no tool definitions, so the body has none.

// eachLine calls f with each non-blank line of data, trimmed and numbered
// from 1 (a file's JSON lines), until f returns an error, which it
// returns.
func eachLine(data []byte, f func(n int, line []byte) error) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 256<<20)
	for n := 1; sc.Scan(); n++ {
		if b := bytes.TrimSpace(sc.Bytes()); len(b) > 0 {
			if err := f(n, b); err != nil {
				return err
			}
		}
	}
	return sc.Err()
}

// codexLine is one line of a rollout.
type codexLine struct {
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
}

// isCodex reports whether data is a Codex rollout: JSON lines, one of
// the first of them its session_meta or a response_item with a payload
// of a type.
func isCodex(data []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for n := 0; n < 20 && sc.Scan(); n++ {
		var l codexLine
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			return false
		}
		var p struct{ Type string }
		if len(l.Payload) == 0 || json.Unmarshal(l.Payload, &p) != nil {
			continue
		}
		if l.Type == "session_meta" || l.Type == "response_item" && p.Type != "" {
			return true
		}
	}
	return false
}

// codexBody returns the Responses body of a rollout's last request (see
// above): its model (the last turn_context's; "codex" when none says),
// and as input the instructions as a developer message and the history
// since the last compaction, each item as the rollout holds it without
// Codex's own members ("internal_…"); ghost snapshots, which Codex keeps
// for undo and never sends, are left out.
func codexBody(data []byte) ([]byte, error) {
	model, instructions := "codex", ""
	var history []json.RawMessage
	err := eachLine(data, func(n int, b []byte) error {
		var l codexLine
		if err := json.Unmarshal(b, &l); err != nil {
			return fmt.Errorf("line %d: %v", n, err)
		}
		switch l.Type {
		case "session_meta":
			var p struct {
				BaseInstructions *struct{ Text string } `json:"base_instructions"`
			}
			if err := json.Unmarshal(l.Payload, &p); err != nil {
				return fmt.Errorf("line %d: session_meta: %v", n, err)
			}
			if p.BaseInstructions != nil {
				instructions = p.BaseInstructions.Text
			}
		case "turn_context":
			var p struct{ Model string }
			if err := json.Unmarshal(l.Payload, &p); err != nil {
				return fmt.Errorf("line %d: turn_context: %v", n, err)
			}
			if p.Model != "" {
				model = p.Model
			}
		case "response_item":
			item, keep, err := codexItem(l.Payload)
			if err != nil {
				return fmt.Errorf("line %d: response_item: %v", n, err)
			}
			if keep {
				history = append(history, item)
			}
		case "compacted":
			var err error
			if history, err = codexCompacted(l.Payload, history); err != nil {
				return fmt.Errorf("line %d: compacted: %v", n, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(history) == 0 {
		return nil, fmt.Errorf("no response_item lines: nothing the model saw")
	}
	input := make([]json.RawMessage, 0, len(history)+1)
	if instructions != "" {
		dev, err := codexMessage("developer", instructions)
		if err != nil {
			return nil, err
		}
		input = append(input, dev)
	}
	input = append(input, history...)
	return json.Marshal(struct {
		Model string            `json:"model"`
		Input []json.RawMessage `json:"input"`
	}{model, input})
}

// codexItem returns a response_item's payload as a request holds it
// (without members whose names start with "internal_"), and whether a
// request holds it at all (not a ghost snapshot).
func codexItem(payload json.RawMessage) (json.RawMessage, bool, error) {
	var o map[string]json.RawMessage
	if err := json.Unmarshal(payload, &o); err != nil {
		return nil, false, err
	}
	var typ string
	if err := json.Unmarshal(o["type"], &typ); err != nil || typ == "" {
		return nil, false, fmt.Errorf("an item without a type")
	}
	if typ == "ghost_snapshot" {
		return nil, false, nil
	}
	own := false
	for k := range o {
		if strings.HasPrefix(k, "internal_") {
			delete(o, k)
			own = true
		}
	}
	if !own {
		return payload, true, nil
	}
	b, err := marshal(o)
	return b, err == nil, err
}

// codexCompacted returns the history after a compaction line: its
// replacement_history, or (an older Codex's line, the summary alone) the
// user messages of history followed by the summary as a user message.
func codexCompacted(payload json.RawMessage, history []json.RawMessage) ([]json.RawMessage, error) {
	var p struct {
		Message     string            `json:"message"`
		Replacement []json.RawMessage `json:"replacement_history"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		return nil, err
	}
	if p.Replacement != nil {
		out := make([]json.RawMessage, 0, len(p.Replacement))
		for _, raw := range p.Replacement {
			item, keep, err := codexItem(raw)
			if err != nil {
				return nil, err
			}
			if keep {
				out = append(out, item)
			}
		}
		return out, nil
	}
	var out []json.RawMessage
	for _, raw := range history {
		var m struct{ Type, Role string }
		if json.Unmarshal(raw, &m) == nil && m.Type == "message" && m.Role == "user" {
			out = append(out, raw)
		}
	}
	if p.Message == "" {
		return out, nil
	}
	summary, err := codexMessage("user", p.Message)
	if err != nil {
		return nil, err
	}
	return append(out, summary), nil
}

// codexMessage returns a message item of role holding text as one
// input_text part, as Codex writes its own.
func codexMessage(role, text string) (json.RawMessage, error) {
	type part struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	return json.Marshal(struct {
		Type    string `json:"type"`
		Role    string `json:"role"`
		Content []part `json:"content"`
	}{"message", role, []part{{"input_text", text}}})
}
