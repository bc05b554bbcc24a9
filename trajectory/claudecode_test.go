package trajectory

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/swcmem/swc/chat"
)

// TestClaudeCodeTranscript: a Claude Code session transcript
// (testdata/tiny_claude_code.jsonl, hand-written in its shape: an answer
// written a block a line, parallel results a line each, an edited
// prompt's abandoned branch, a subagent's line, a system line in the
// chain, an empty text block) is read as the Messages body of the chain
// back from its last message, within the API's rules, each request of it
// too.
func TestClaudeCodeTranscript(t *testing.T) {
	data, err := os.ReadFile("testdata/tiny_claude_code.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := parseFile("cc", data)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Agent != "Claude Code" || len(tr.Bodies) != 1 || tr.Bodies[0].Format != chat.Anthropic {
		t.Fatalf("agent %q, %d bodies", tr.Agent, len(tr.Bodies))
	}
	body := string(tr.Bodies[0].Data)
	for _, gone := range []string{"ABANDONED BRANCH", "SUBAGENT TEXT", `"text":""`} {
		if strings.Contains(body, gone) {
			t.Errorf("the body holds %s", gone)
		}
	}
	var b struct {
		Model string `json:"model"`
	}
	if err := json.Unmarshal(tr.Bodies[0].Data, &b); err != nil {
		t.Fatal(err)
	}
	shape := messagesShape(t, tr.Bodies[0].Data)
	want := "user(text) assistant(thinking,text,tool_use,tool_use) user(tool_result,tool_result) assistant(text,tool_use) user(tool_result) assistant(text)"
	if got := shape; got != want || b.Model != "claude-sonnet-4-6" {
		t.Errorf("messages:\n got %s (model %q)\nwant %s", got, b.Model, want)
	}
	if !strings.Contains(body, "Run pytest first.") {
		t.Error("the edited prompt is not the one kept")
	}
	replaysClean(t, tr.Name, tr.Bodies[0], 3)
	if _, err := parseFile("bad", []byte("{\"type\":\"user\",\"uuid\":\"u\",\"parentUuid\":null,\"message\":{\"role\":\"user\",\"content\":\"x\"}}\n{not json\n")); err == nil || !strings.Contains(err.Error(), "a Claude Code transcript: line 2") {
		t.Errorf("a broken line: %v", err)
	}
}

// TestClaudeCodeCompaction: after a compaction (a compact_boundary line
// with no parent, the summary a user message under it) the conversation
// is the summary and what follows it.
func TestClaudeCodeCompaction(t *testing.T) {
	lines := []string{
		`{"type":"user","uuid":"u1","parentUuid":null,"isSidechain":false,"message":{"role":"user","content":"BEFORE THE COMPACTION"}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","isSidechain":false,"message":{"id":"m1","role":"assistant","model":"claude-opus-4-6","content":[{"type":"text","text":"old answer"}]}}`,
		`{"type":"system","subtype":"compact_boundary","uuid":"b1","parentUuid":null,"logicalParentUuid":"a1","isSidechain":false,"content":"Conversation compacted"}`,
		`{"type":"user","uuid":"s1","parentUuid":"b1","isSidechain":false,"isCompactSummary":true,"message":{"role":"user","content":"This session is being continued from a previous conversation. Summary: fixing parse_date."}}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"s1","isSidechain":false,"message":{"id":"m2","role":"assistant","model":"claude-opus-4-6","content":[{"type":"text","text":"Continuing."}]}}`,
	}
	tr, err := parseFile("cc", []byte(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	body := string(tr.Bodies[0].Data)
	if strings.Contains(body, "BEFORE THE COMPACTION") || !strings.Contains(body, "Summary: fixing parse_date.") || strings.Count(body, `"role"`) != 2 {
		t.Errorf("the body after a compaction:\n%s", body)
	}
}

// replaysClean checks that body replays as want requests, none breaking
// its API's rules.
// messagesShape returns a Messages body's messages as "role(type,…)"
// each, space-separated: "user(text) assistant(text,tool_use)".
func messagesShape(t *testing.T, body []byte) string {
	t.Helper()
	var b struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type string `json:"type"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	var shape []string
	for _, m := range b.Messages {
		var types []string
		for _, c := range m.Content {
			types = append(types, c.Type)
		}
		shape = append(shape, m.Role+"("+strings.Join(types, ",")+")")
	}
	return strings.Join(shape, " ")
}

func replaysClean(t *testing.T, name string, body Body, want int) {
	t.Helper()
	rp, err := NewReplay(name, body)
	if err != nil {
		t.Fatal(err)
	}
	if rp.Len() != want {
		t.Errorf("%d requests, want %d", rp.Len(), want)
	}
	for i := range rp.Len() {
		q, err := rp.Request(i)
		if err != nil {
			t.Fatal(err)
		}
		if got := rp.Breaches(q.Body); len(got) > 0 {
			t.Errorf("request %d: breaches %q", i, got)
		}
	}
}

// TestClaudeCodeSubagentTranscript: a file of a subagent's lines alone
// (agent-ID.jsonl, every line isSidechain) is the subagent's own
// conversation: its task, its calls and results, its report.
func TestClaudeCodeSubagentTranscript(t *testing.T) {
	data, err := os.ReadFile("testdata/tiny_claude_code_agent.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := parseFile("agent-a7f3", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Bodies) != 1 || tr.Bodies[0].Format != chat.Anthropic {
		t.Fatalf("%d bodies", len(tr.Bodies))
	}
	want := "user(text) assistant(tool_use) user(tool_result) assistant(text)"
	if got := messagesShape(t, tr.Bodies[0].Data); got != want {
		t.Errorf("messages:\n got %s\nwant %s", got, want)
	}
	replaysClean(t, tr.Name, tr.Bodies[0], 2)
}

// TestClaudeCodeNoMessages: a transcript of summary lines alone (what
// Claude Code leaves beside a compacted session) has nothing to replay:
// the bench skips it with a warning and goes on with the others.
func TestClaudeCodeNoMessages(t *testing.T) {
	data := []byte(`{"type": "summary", "summary": "Fix the date parser", "leafUuid": "a4"}` + "\n" +
		`{"isSidechain": false, "type": "system", "uuid": "y1", "parentUuid": null, "sessionId": "s-2", "content": "compacted"}` + "\n")
	tr, err := parseFile("summary-only", data)
	if err != nil {
		t.Fatalf("a transcript of summary lines: %v", err)
	}
	good, err := os.ReadFile("testdata/tiny_claude_code_agent.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	other, err := parseFile("agent-a7f3", good)
	if err != nil {
		t.Fatal(err)
	}
	var skipped []error
	var rows int
	r := &Runner{Trajectories: []Trajectory{tr, other}, Conditions: []Condition{Truncation{}}, Budgets: []int{100000},
		Write:   func(Row) error { rows++; return nil },
		Skipped: func(err error) { skipped = append(skipped, err) }}
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(skipped) != 1 || !strings.Contains(skipped[0].Error(), "summary-only") || rows != 2 {
		t.Errorf("skipped %v, %d rows; want the summary-only transcript skipped and the other's 2 requests", skipped, rows)
	}
}
