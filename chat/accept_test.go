package chat

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/swcmem/swc"
)

// TestAcceptClaudeCode: a Messages request as Claude Code sends it parses
// (on the fast path): the mid-conversation system messages are history in
// their place (InPlace, not instructions), every block swc does not read
// stands as a placeholder naming its type, and the raw messages are the
// request's bytes.
func TestAcceptClaudeCode(t *testing.T) {
	if parseFast([]byte(claudeCodeBody), Anthropic, false) == nil {
		t.Error("the fast path left a Claude Code request to the general parser")
	}
	in, err := Parse([]byte(claudeCodeBody), Anthropic)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		role    swc.Role
		inPlace bool
		where   string
		content string
	}{
		{swc.RoleSystem, false, "system", "You are Claude Code."},
		{swc.RoleUser, false, "messages[0]", "fix the failing test"},
		{swc.RoleSystem, true, "messages[1]", "<system-reminder>todo list is empty</system-reminder>"},
		{swc.RoleAssistant, false, "messages[2]", "[thinking]\n[redacted_thinking]\nRunning the tests."},
		{swc.RoleTool, false, "messages[3].content[0]", "[error] FAIL x_test.go:12\n[image]"},
		{swc.RoleUser, false, "messages[3]", "<system-reminder>file changed</system-reminder>"},
		{swc.RoleSystem, true, "messages[4]", "Plan mode is off."},
		{swc.RoleAssistant, false, "messages[5]", "[server_tool_use]\n[web_search_tool_result]\n[mcp_tool_use]\n[mcp_tool_result]\nFound it."},
		{swc.RoleUser, false, "messages[6]", "[container_upload]\n[document]\n[search_result]\ngo on"},
	}
	if len(in.Messages) != len(want) {
		t.Fatalf("%d messages; want %d: %+v", len(in.Messages), len(want), in.Messages)
	}
	for i, w := range want {
		m := in.Messages[i]
		if m.Role != w.role || m.InPlace != w.inPlace || in.Where[i] != w.where || m.Content != w.content {
			t.Errorf("message %d: %s in place %v at %s %q; want %s %v %s %q", i, m.Role, m.InPlace, in.Where[i], m.Content, w.role, w.inPlace, w.where, w.content)
		}
		if IsInstruction(m) != (i == 0) {
			t.Errorf("message %d: IsInstruction %v", i, IsInstruction(m))
		}
	}
	for _, k := range []string{"tools", "thinking", "context_management", "stream", "model", "max_tokens"} {
		if _, ok := in.Body[k]; !ok {
			t.Errorf("body field %q not kept", k)
		}
	}
}

// TestToolResultBlocks: WithoutToolResults keeps what is beside a
// message's tool_result blocks, OnlyToolResults the blocks alone, each
// byte for byte; neither when one side would be empty.
func TestToolResultBlocks(t *testing.T) {
	for _, tc := range []struct {
		name     string
		f        func(json.RawMessage) (json.RawMessage, bool)
		in, want string
	}{
		{"without", WithoutToolResults, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"r"},{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}, {"type":"image","source":{}}],"x":1}`,
			`{"role":"user","content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},{"type":"image","source":{}}],"x":1}`},
		{"without", WithoutToolResults, `{"content" : [ {"type":"tool_result","tool_use_id":"t"} , {"Type":"text","text":"b"} ] ,"role":"user"}`,
			`{"content" : [{"Type":"text","text":"b"}] ,"role":"user"}`},
		{"only", OnlyToolResults, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"ts","content":[{"type":"tool_reference","tool_name":"x"}]},{"type":"tool_result","tool_use_id":"u","content":"r","cache_control":{"type":"ephemeral"}},{"type":"text","text":"Tool loaded."}],"x":1}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"ts","content":[{"type":"tool_reference","tool_name":"x"}]},{"type":"tool_result","tool_use_id":"u","content":"r","cache_control":{"type":"ephemeral"}}],"x":1}`},
		{"only", OnlyToolResults, `{"content" : [ {"type":"tool_result","tool_use_id":"t"} , {"type":"text","text":"b"} ] ,"role":"user"}`,
			`{"content" : [{"type":"tool_result","tool_use_id":"t"}] ,"role":"user"}`},
	} {
		got, ok := tc.f([]byte(tc.in))
		if !ok || string(got) != tc.want {
			t.Errorf("%s(%s) = %s, %v; want %s", tc.name, tc.in, got, ok, tc.want)
		}
	}
	for _, in := range []string{`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t"}]}`, `{"role":"user","content":[{"type":"text","text":"a"}]}`, `{"role":"user","content":"a"}`, `[1]`} {
		a, okA := WithoutToolResults([]byte(in))
		b, okB := OnlyToolResults([]byte(in))
		if okA || okB {
			t.Errorf("%s: without %s %v, only %s %v; want neither", in, a, okA, b, okB)
		}
	}
}

// TestLoadsTools: a tool result that loads deferred tools is marked
// (swc.Message.LoadsTools) by the fast and the general reader alike: an
// Anthropic tool_result holding tool_reference blocks, beside text or
// alone, and a Responses tool_search_output; another result is not. A
// tool search the API ran marks the assistant message that holds it.
func TestLoadsTools(t *testing.T) {
	const anthropic = `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"task"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"ts","name":"ToolSearch","input":{}},{"type":"tool_use","id":"x","name":"Read","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"ts","content":[{"type":"text","text":"found"},{"type":"tool_reference","tool_name":"notes_add"}]},` +
		`{"type":"tool_result","tool_use_id":"x","content":[{"type":"text","text":"[tool_reference]"}]},{"type":"text","text":"Tool loaded."}]}]}`
	if !sameParse(t, "tool_reference", []byte(anthropic), Anthropic) {
		t.Error("the fast path did not take the body")
	}
	in, err := Parse([]byte(anthropic), Anthropic)
	if err != nil {
		t.Fatal(err)
	}
	loads := map[string]bool{}
	for _, m := range in.Messages {
		if m.Role == "tool" {
			loads[m.ToolCallID] = m.LoadsTools
		}
	}
	if !loads["ts"] || loads["x"] {
		t.Errorf("Anthropic: loads %v; want ts only (x's text only looks like a placeholder)", loads)
	}
	const responses = `{"model":"m","input":[{"role":"user","content":"task"},{"type":"tool_search_call","call_id":"ts","arguments":{}},` +
		`{"type":"tool_search_output","call_id":"ts","tools":[{"type":"function","name":"notes_add"}]},{"type":"function_call","call_id":"x","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"x","output":"[tool_search_output]"}]}`
	in, err = Parse([]byte(responses), Responses)
	if err != nil {
		t.Fatal(err)
	}
	loads = map[string]bool{}
	for _, m := range in.Messages {
		if m.Role == "tool" {
			loads[m.ToolCallID] = m.LoadsTools
		}
	}
	if !loads["ts"] || loads["x"] {
		t.Errorf("Responses: loads %v; want ts only", loads)
	}

	// A search the API ran: Anthropic's server_tool_use and
	// tool_search_tool_result blocks in the assistant's turn, a Responses
	// tool_search_call and tool_search_output without a call id. The
	// assistant message holding it loads tools, and nothing else does.
	for _, tc := range []struct {
		name   string
		format Format
		body   string
	}{
		{"anthropic, server-run", Anthropic, `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"task"},` +
			`{"role":"assistant","content":[{"type":"text","text":"Searching."},{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_regex","input":{"query":"crm"}},` +
			`{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"crm_lookup"}]}},` +
			`{"type":"tool_use","id":"c0","name":"crm_lookup","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"c0","content":"customer 7"}]},` +
			`{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_2","name":"web_search","input":{"query":"x"}},{"type":"web_search_tool_result","tool_use_id":"srvtoolu_2","content":[]},{"type":"text","text":"Done."}]}]}`},
		{"responses, server-run", Responses, `{"model":"m","input":[{"role":"user","content":"task"},` +
			`{"type":"tool_search_call","call_id":null,"arguments":{"query":"crm"},"execution":"server","status":"completed"},` +
			`{"type":"tool_search_output","call_id":null,"execution":"server","status":"completed","tools":[{"type":"function","name":"crm_lookup","parameters":{"type":"object"}}]},` +
			`{"type":"function_call","call_id":"c0","name":"crm_lookup","arguments":"{}"},{"type":"function_call_output","call_id":"c0","output":"customer 7"},` +
			`{"type":"web_search_call","id":"ws","status":"completed","action":{"type":"search","query":"x"}},{"role":"assistant","content":"Done."}]}`},
		{"responses, an output no call goes before", Responses, `{"model":"m","input":[{"role":"user","content":"task"},` +
			`{"type":"tool_search_call","call_id":null,"arguments":{"query":"crm"},"execution":"server","status":"completed"},` +
			`{"type":"tool_search_output","call_id":null,"execution":"server","status":"completed","tools":[]},` +
			`{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"big"},` +
			`{"type":"tool_search_output","call_id":null,"execution":"server","status":"completed","tools":[]}]}`},
	} {
		if tc.format == Anthropic && !sameParse(t, tc.name, []byte(tc.body), tc.format) {
			t.Errorf("%s: the fast path did not take the body", tc.name)
		}
		in, err := Parse([]byte(tc.body), tc.format)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got []string
		for i, m := range in.Messages {
			if m.LoadsTools {
				got = append(got, fmt.Sprintf("%d %s %q", i, m.Role, m.Content))
			}
		}
		if len(got) != 1 || !strings.Contains(got[0], "assistant") || !strings.Contains(got[0], "[tool_search") {
			t.Errorf("%s: LoadsTools on %q; want the assistant message of the tool search alone", tc.name, got)
		}
	}
	// A search that failed loads nothing.
	failed := `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"task"},` +
		`{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_regex","input":{"query":"("}},` +
		`{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"tool_search_tool_result_error","error_code":"invalid_pattern"}},{"type":"text","text":"No tool."}]}]}`
	if !sameParse(t, "failed search", []byte(failed), Anthropic) {
		t.Error("failed search: the fast path did not take the body")
	}
	if in, err := Parse([]byte(failed), Anthropic); err != nil || in.Messages[len(in.Messages)-1].LoadsTools {
		t.Errorf("a failed tool search loads tools (%v)", err)
	}
}
