package trajectory

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/swcmem/swc/chat"
)

// TestSWEAgentTrajectory: a SWE-agent trajectory file (testdata/tiny.traj,
// hand-written in its shape: calls as JSON and as Python's repr, a call
// answered only after a user's note, an observation of an unknown call,
// list content with an image part, the last call unanswered) is read as a Chat Completions and a
// Messages body, both within the providers' rules, each replayed request
// by request; Load finds *.traj files beside *.json ones.
func TestSWEAgentTrajectory(t *testing.T) {
	data, err := os.ReadFile("testdata/tiny.traj")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := parseFile("tiny", data)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Agent != "SWE-agent" || len(tr.Bodies) != 2 || tr.Bodies[0].Format != chat.OpenAI || tr.Bodies[1].Format != chat.Anthropic {
		t.Fatalf("agent %q, %d bodies", tr.Agent, len(tr.Bodies))
	}
	var oa struct {
		Messages []struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []any `json:"tools"`
	}
	if err := json.Unmarshal(tr.Bodies[0].Data, &oa); err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range oa.Messages {
		r := m.Role
		if m.ToolCallID != "" {
			r += ":" + m.ToolCallID
		}
		for _, c := range m.ToolCalls {
			r += ">" + c.ID
		}
		roles = append(roles, r)
	}
	want := "system user assistant>call_search_1 tool:call_search_1 assistant>call_open_1 tool:call_open_1 assistant>call_bash_1 tool:call_bash_1 user user assistant user assistant>call_bash_2 tool:call_bash_2 assistant>call_submit tool:call_submit"
	if got := strings.Join(roles, " "); got != want {
		t.Errorf("Chat Completions messages:\n got %s\nwant %s", got, want)
	}
	if len(oa.Tools) != 4 { // search_dir, open, bash, submit
		t.Errorf("%d tools declared, want 4", len(oa.Tools))
	}
	for _, b := range tr.Bodies {
		rp, err := NewReplay(tr.Name, b)
		if err != nil {
			t.Fatal(err)
		}
		if got := rp.Breaches(b.Data); len(got) > 0 {
			t.Errorf("%s: breaches %q", b.Format, got)
		}
		if rp.Len() != 6 { // one cut before each assistant turn
			t.Errorf("%s: %d requests, want 6", b.Format, rp.Len())
		}
		for i := range rp.Len() {
			q, err := rp.Request(i)
			if err != nil {
				t.Fatal(err)
			}
			if got := rp.Breaches(q.Body); len(got) > 0 {
				t.Errorf("%s request %d: breaches %q", b.Format, q.Index, got)
			}
		}
	}
	if !strings.Contains(string(tr.Bodies[1].Data), `"path":"src/marshmallow/fields.py"`) {
		t.Errorf("the Python-repr call's arguments are not the tool_use's input:\n%s", tr.Bodies[1].Data)
	}

	dir := t.TempDir()
	os.WriteFile(dir+"/run.traj", data, 0o644)
	tiny, _ := os.ReadFile("testdata/tiny.json")
	os.WriteFile(dir+"/other.json", tiny, 0o644)
	all, _, err := Load(dir)
	if err != nil || len(all) != 2 || all[1].Name != "run" {
		t.Fatalf("Load: %d trajectories (%v), %v", len(all), all, err)
	}
}

// TestSWEAgentBadHistory: a history SWE-agent would not write is an error
// naming the message.
func TestSWEAgentBadHistory(t *testing.T) {
	for _, tc := range []struct{ history, want string }{
		{`[{"role":"critic","content":"x"}]`, `history[0].role: "critic"`},
		{`[{"role":"user","content":"x"},{"role":"assistant","content":"a","tool_calls":"[{'id': 'c1'}]"}]`, "history[1].tool_calls: call 0 has no id or no function name"},
		{`[{"role":"user","content":"x"},{"role":"assistant","content":"a","tool_calls":"[{'id': 'c1',"}]`, "history[1].tool_calls: python literal"},
		{`[{"role":"user","content":{"a":1}}]`, "history[0].content: want a string or a list of parts"},
	} {
		_, err := parseFile("bad", []byte(`{"trajectory":[],"history":`+tc.history+`}`))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.history, err, tc.want)
		}
	}
}

func TestPyLiteral(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want any
	}{
		{`[{'function': {'arguments': '{"command":"ls -F"}', 'name': 'bash'}, 'id': 'call_9', 'type': 'function'}]`,
			[]any{map[string]any{"function": map[string]any{"arguments": `{"command":"ls -F"}`, "name": "bash"}, "id": "call_9", "type": "function"}}},
		{`['call_1', "it's", 'a\'b', 'tab\there', '\u00e9\x41']`, []any{"call_1", "it's", "a'b", "tab\there", "éA"}},
		{`(1, -2.5, True, False, None, {})`, []any{1.0, -2.5, true, false, nil, map[string]any{}}},
		{`['naïve ✓']`, []any{"naïve ✓"}},
	} {
		got, err := pyLiteral(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("pyLiteral(%s) = %#v, %v; want %#v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{`[1, 2`, `{1: 'a'}`, `'open`, `[1] x`, `nothing`, `'\x4'`} {
		if _, err := pyLiteral(bad); err == nil {
			t.Errorf("pyLiteral(%s): no error", bad)
		}
	}
}
