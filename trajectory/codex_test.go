package trajectory

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/swcmem/swc/chat"
)

// TestCodexRollout: a Codex CLI session rollout (testdata/tiny_codex.jsonl,
// hand-written in the shape Codex 0.171 writes: session_meta with its base
// instructions, interface events, turn contexts, response items with
// Codex's own members, a ghost snapshot, a compaction with its
// replacement history) is read as the Responses body of its last request:
// the instructions as a developer message, then the history since the
// compaction as Codex sends it; each request of it within the API's
// rules.
func TestCodexRollout(t *testing.T) {
	data, err := os.ReadFile("testdata/tiny_codex.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if isClaudeCode(data) {
		t.Fatal("a Codex rollout taken for a Claude Code transcript")
	}
	tr, err := parseFile("codex", data)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Agent != "Codex" || len(tr.Bodies) != 1 || tr.Bodies[0].Format != chat.Responses {
		t.Fatalf("agent %q, %d bodies", tr.Agent, len(tr.Bodies))
	}
	body := string(tr.Bodies[0].Data)
	for _, gone := range []string{"OLD TASK", "internal_", "ghost_snapshot", "task_started", "enc_AAAA"} {
		if strings.Contains(body, gone) {
			t.Errorf("the body holds %s", gone)
		}
	}
	var b struct {
		Model string `json:"model"`
		Input []struct {
			Type string `json:"type"`
			Role string `json:"role"`
		} `json:"input"`
	}
	if err := json.Unmarshal(tr.Bodies[0].Data, &b); err != nil {
		t.Fatal(err)
	}
	var shape []string
	for _, it := range b.Input {
		s := it.Type
		if it.Role != "" {
			s = it.Role
		}
		shape = append(shape, s)
	}
	want := "developer user user user reasoning function_call function_call_output assistant custom_tool_call custom_tool_call_output function_call function_call_output assistant"
	if got := strings.Join(shape, " "); got != want || b.Model != "gpt-5.5" {
		t.Errorf("input:\n got %s (model %q)\nwant %s", got, b.Model, want)
	}
	if !strings.Contains(body, "You are a coding agent. Keep changes small") {
		t.Error("the base instructions are not the first developer message")
	}
	replaysClean(t, tr.Name, tr.Bodies[0], 4)
}

// TestCodexRolloutOlder: an older Codex's compaction line holds only the
// summary; the history after it is the user's messages before it and the
// summary as a user message. Bad lines and a rollout with no history are
// errors naming the problem.
func TestCodexRolloutOlder(t *testing.T) {
	lines := []string{
		`{"type":"session_meta","payload":{"id":"s","base_instructions":{"text":"Be brief."}}}`,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Rename foo to bar."}]}}`,
		`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"SAID BEFORE"}]}}`,
		`{"type":"compacted","payload":{"message":"SUMMARY: foo is renamed in a.py."}}`,
		`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}}`,
	}
	tr, err := parseFile("old", []byte(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	body := string(tr.Bodies[0].Data)
	if strings.Contains(body, "SAID BEFORE") || !strings.Contains(body, "Rename foo to bar.") || !strings.Contains(body, "SUMMARY: foo") || !strings.Contains(body, `"model":"codex"`) {
		t.Errorf("body %s", body)
	}
	for _, c := range []struct{ data, want string }{
		{lines[0] + "\n{not json\n", "a Codex rollout: line 2"},
		{lines[0] + "\n", "a Codex rollout: no response_item lines"},
		{lines[0] + "\n" + `{"type":"response_item","payload":{"role":"user"}}` + "\n" + lines[1], "a Codex rollout: line 2: response_item: an item without a type"},
	} {
		if _, err := parseFile("bad", []byte(c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.data, err, c.want)
		}
	}
}
