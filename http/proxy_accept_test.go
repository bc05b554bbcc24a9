package http_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/swcmem/swc/chat"
	swchttp "github.com/swcmem/swc/http"
)

// claudeCodeTools are tool definitions of the size an agent sends.
const claudeCodeTools = `[{"name":"Bash","description":"Executes a given bash command in a persistent shell session with optional timeout, ensuring proper handling and security measures.","input_schema":{"type":"object","properties":{"command":{"type":"string","description":"The command to execute"},"timeout":{"type":"number"}},"required":["command"]}},{"name":"Read","description":"Reads a file from the local filesystem.","input_schema":{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}}]`

// claudeCodeRequest returns a Messages request as Claude Code sends it
// after n turns: mid-conversation system messages, thinking blocks with
// signatures, redacted thinking, tool calls whose results carry images,
// text after the results with cache_control marks, server tool blocks and
// a block of a type not yet invented; fields outside the messages that
// swc does not know.
func claudeCodeRequest(n int) string {
	var msgs []string
	for i := range n {
		msgs = append(msgs, fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":"Step %d: look at pkg/x%d, the flaky test there failed again on night %d; find out why and fix it without touching the cache."}]}`, i, i, i))
		if i%4 == 1 {
			msgs = append(msgs, fmt.Sprintf(`{"role":"system","content":"<system-reminder>The todo list has %d items.</system-reminder>"}`, i))
		}
		msgs = append(msgs, fmt.Sprintf(`{"role":"assistant","content":[{"type":"thinking","thinking":"The test in pkg/x%d reads the clock twice.","signature":"EqQBCkYIBxgCKkD%d"},{"type":"redacted_thinking","data":"EmwKAhgBEgy%d"},{"type":"text","text":"Running the tests of pkg/x%d."},{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"go test ./pkg/x%d"}}]}`, i, i, i, i, i, i))
		msgs = append(msgs, fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":[{"type":"text","text":"--- FAIL: TestClock (0.01s)\n    clock_test.go:%d: got 2, want 1\nFAIL pkg/x%d"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAAAAADhZOFXAAAAEklEQVR4nGJigAIKGYAAAAD//wLQABEmOnSlAAAAAElFTkSuQmCC"}}],"is_error":true},{"type":"text","text":"<system-reminder>pkg/x%d/clock.go changed</system-reminder>","cache_control":{"type":"ephemeral"}}]}`, i, i, i, i))
		msgs = append(msgs, fmt.Sprintf(`{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_%d","name":"web_search","input":{"query":"go clock"}},{"type":"web_search_tool_result","tool_use_id":"srvtoolu_%d","content":[{"type":"web_search_result","url":"https://go.dev","title":"Go","encrypted_content":"Eq"}]},{"type":"hologram","payload":{"x":[1,2]}},{"type":"text","text":"The clock is read twice in pkg/x%d; fixed."}]}`, i, i, i))
	}
	msgs = append(msgs, `{"role":"user","content":"go on"}`)
	return `{"model":"claude-opus-4-8","max_tokens":32000,"stream":false,"thinking":{"type":"enabled","budget_tokens":16000},"context_management":{"edits":[{"type":"clear_tool_uses_20250919"}]},"future_field":{"a":1},` +
		`"system":[{"type":"text","text":"You are Claude Code.","cache_control":{"type":"ephemeral"}}],"tools":` + claudeCodeTools + `,"messages":[` + strings.Join(msgs, ",") + `]}`
}

// TestProxyClaudeCode: a Claude Code request (mid-conversation system
// messages, thinking with signatures, blocks of any type) is forwarded —
// as it came when it fits, compressed when it does not — never refused;
// every message sent is one of the request's own, byte for byte, and the
// tool definitions are counted.
func TestProxyClaudeCode(t *testing.T) {
	e := newProxyEnv(t, noRecall)
	body := claudeCodeRequest(30)
	in, err := chat.Parse([]byte(body), chat.Anthropic)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		budget string
		mode   string
	}{{"1000000", "fits"}, {"2500", "stateless"}} {
		resp := e.post(t, "/v1/messages", body, "anthropic-version: 2023-06-01", "X-SWC-Budget: "+tc.budget)
		got := readAll(t, resp)
		if resp.StatusCode != 200 || resp.Header.Get(swchttp.HeaderMode) != tc.mode {
			t.Fatalf("budget %s: %d %s, mode %q (%s)", tc.budget, resp.StatusCode, got, resp.Header.Get(swchttp.HeaderMode), resp.Header.Get(swchttp.HeaderPassthrough))
		}
		tools, err := strconv.Atoi(resp.Header.Get(swchttp.HeaderToolTokens))
		if err != nil || tools < 60 || tools > 200 {
			t.Errorf("budget %s: X-SWC-Tool-Tokens %q", tc.budget, resp.Header.Get(swchttp.HeaderToolTokens))
		}
		sent, _ := e.up.last(t)
		if tc.mode == "fits" {
			if string(sent) != body {
				t.Errorf("a request that fits was changed")
			}
			continue
		}
		sameFields(t, []byte(body), sent, "messages", "system")
		// claude-opus-4-8 runs no preserved-thinking prefix check: its
		// thinking field goes as sent, though thinking blocks are kept.
		if !bytes.Contains(sent, []byte(`"type":"thinking"`)) || bytes.Contains(sent, []byte(`block_binding`)) {
			t.Errorf("budget %s: no thinking block kept, or block_binding set for a model that does not check prefixes", tc.budget)
		}
		withinBudget(t, sent, chat.Anthropic, 2500)
		var out struct{ Messages []json.RawMessage }
		json.Unmarshal(sent, &out)
		next, inPlace := 0, 0
		for _, m := range out.Messages {
			found := false
			for ; next < len(in.Raw) && !found; next++ {
				w, ok := chat.WithoutToolResults(in.Raw[next])
				found = bytes.Equal(m, in.Raw[next]) || ok && bytes.Equal(m, w)
			}
			if !found {
				t.Fatalf("sent a message that is not the request's: %.300s", m)
			}
			if bytes.HasPrefix(m, []byte(`{"role":"system"`)) {
				inPlace++
			}
		}
		if inPlace == 0 || len(out.Messages) >= len(in.Raw) {
			t.Errorf("sent %d of %d messages, %d mid-conversation system messages among them", len(out.Messages), len(in.Raw), inPlace)
		}
	}
	// With a conversation id: stored, and compressed the same way.
	stateless, _ := e.up.last(t)
	for range 2 {
		resp := e.post(t, "/v1/messages", body, "X-SWC-Budget: 2500", swchttp.HeaderConversation+": cc-1")
		if got := readAll(t, resp); resp.StatusCode != 200 || resp.Header.Get(swchttp.HeaderMode) != "stored" {
			t.Fatalf("stored: %d %s, mode %q (%s)", resp.StatusCode, got, resp.Header.Get(swchttp.HeaderMode), resp.Header.Get(swchttp.HeaderPassthrough))
		}
		if sent, _ := e.up.last(t); !bytes.Equal(sent, stateless) {
			t.Errorf("stored: sent other bytes than the stateless request")
		}
	}
	metrics := getMetrics(t, e)
	if !strings.Contains(metrics, `swc_proxy_tokens_total{stage="tools"}`) {
		t.Errorf("tool tokens not counted: %s", grepLines(metrics, "swc_proxy_tokens_total"))
	}
}

// TestProxyPassthrough: a request swc cannot read goes upstream byte for
// byte with X-SWC-Mode: passthrough and the reason; the provider's answer
// (here a 400 of its own) is the client's; /metrics counts it.
func TestProxyPassthrough(t *testing.T) {
	e := newProxyEnv(t)
	for _, tc := range []struct{ path, body, reason string }{
		// a tool_use block in a user message: the provider's to refuse
		{"/v1/messages", "{\"model\":\"claude-opus-4-8\",\"max_tokens\":5,\n\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{}}]}]}  ", "parse: messages[0].content[0]: a tool_use block in a user message"},
		// a deprecated function message
		{"/v1/chat/completions", `{"model":"gpt-4o","tools":[{"type":"function","function":{"name":"f"}}],"messages":[{"role":"user","content":"q"},{"role":"function","name":"f","content":"r"}]}`, `parse: messages[1].role: unknown role "function"`},
	} {
		resp := e.post(t, tc.path, tc.body)
		got := readAll(t, resp)
		if resp.StatusCode != 200 || resp.Header.Get(swchttp.HeaderMode) != "passthrough" || !strings.HasPrefix(resp.Header.Get(swchttp.HeaderPassthrough), tc.reason) {
			t.Errorf("%s: %d %s, mode %q, reason %q; want %q", tc.path, resp.StatusCode, got, resp.Header.Get(swchttp.HeaderMode), resp.Header.Get(swchttp.HeaderPassthrough), tc.reason)
		}
		if resp.Header.Get(swchttp.HeaderTokensBefore) != "" {
			t.Errorf("%s: token counts on a request not compressed", tc.path)
		}
		if sent, _ := e.up.last(t); string(sent) != tc.body {
			t.Errorf("%s: sent %q; want the body byte for byte", tc.path, sent)
		}
	}
	metrics := getMetrics(t, e)
	for _, p := range []string{"anthropic", "openai"} {
		if !strings.Contains(metrics, `swc_proxy_requests_total{mode="passthrough",protocol="`+p+`"} 1`) {
			t.Errorf("passthrough not counted: %s", grepLines(metrics, "swc_proxy_requests_total"))
		}
	}
}

func getMetrics(t *testing.T, e *proxyEnv) string {
	t.Helper()
	resp, err := e.ts.Client().Get(e.ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	return readAll(t, resp)
}
