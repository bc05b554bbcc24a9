package http_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/loadtest"
	"github.com/swcmem/swc/sleep"
)

// TestProxyBadInput: swc answers 4xx for its own concerns alone (a body
// that is no JSON object, its headers, its key); a request it cannot
// read, compress or hold (over --max-proxy-body) goes upstream byte for byte,
// with X-SWC-Mode: passthrough and the reason, and the provider answers
// it.
func TestProxyBadInput(t *testing.T) {
	big := openAIBody(t, loadtest.AgentHistory(400, 0), "")
	cases := []struct {
		name, path, body string
		headers          []string
		status           int
		want             string // in the error body, or in X-SWC-Passthrough
		upstream         bool   // the request reaches the upstream (byte for byte)
	}{
		{"malformed", "/v1/chat/completions", `{"model":"gpt-4o","messages":[`, nil, 400, "malformed JSON", false},
		{"not an object", "/v1/chat/completions", `[{"role":"user","content":"hi"}]`, nil, 400, "malformed JSON", false},
		{"missing messages", "/v1/chat/completions", `{"model":"gpt-4o"}`, nil, 404, `parse: request body has no "messages"`, true},
		{"messages not a list", "/v1/messages", `{"model":"claude-haiku-4-5","max_tokens":5,"messages":"hi"}`, nil, 404, "parse: messages: want an array", true},
		{"orphaned tool result", "/v1/chat/completions", `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_9","content":"21°C"}]}`, nil, 404, "call_9", true},
		{"orphaned anthropic tool_result", "/v1/messages", `{"model":"claude-haiku-4-5","max_tokens":5,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":"21°C"}]}]}`, nil, 404, "toolu_9", true},
		{"unknown role", "/v1/chat/completions", "{\"model\":\"gpt-4o\",\n \"messages\":[{\"role\":\"function\",\"name\":\"f\",\"content\":\"x\"}]}\n", nil, 404, `parse: messages[0].role: unknown role "function"`, true},
		{"over the body limit", "/v1/chat/completions", big, nil, 404, "max-proxy-body: request body over 16384 bytes", true},
		{"budget not a number", "/v1/chat/completions", `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}`, []string{"X-SWC-Budget: lots"}, 400, "X-SWC-Budget", false},
		{"bad conversation id", "/v1/chat/completions", `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}`, []string{"X-SWC-Conversation: a b/c"}, 400, "X-SWC-Conversation", false},
		{"no key", "/v1/chat/completions", `{"model":"gpt-4o","messages":[]}`, []string{"Authorization:"}, 401, "swc key", false},
		{"wrong key", "/v1/messages", `{"model":"x","messages":[]}`, []string{"Authorization:", "X-Api-Key: swc_wrong"}, 401, "swc key", false},
		{"unknown model passed through", "/v1/chat/completions", `{"model":"gpt-nonexistent","messages":[{"role":"user","content":"hi"}]}`, nil, 404, "model_not_found", true},
	}
	e := newProxyEnv(t, func(s *swchttp.Server, _ *sleep.Service) { s.Proxy.MaxBody = 16 << 10 })
	e.up.handle = func(w http.ResponseWriter, r *http.Request, body []byte) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"message":"The model does not exist","type":"invalid_request_error","code":"model_not_found"}}`)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := e.up.count()
			resp := e.post(t, tc.path, tc.body, tc.headers...)
			got := readAll(t, resp)
			reason := resp.Header.Get(swchttp.HeaderPassthrough)
			if resp.StatusCode != tc.status || !strings.Contains(got, tc.want) && !strings.Contains(reason, tc.want) {
				t.Errorf("got %d %s (X-SWC-Passthrough %q); want %d with %q", resp.StatusCode, got, reason, tc.status, tc.want)
			}
			reached := e.up.count() > n
			if reached != tc.upstream {
				t.Errorf("reached the upstream: %v; want %v", reached, tc.upstream)
			}
			if !reached {
				return
			}
			if sent, _ := e.up.last(t); string(sent) != tc.body {
				t.Errorf("the upstream got %q; want the body byte for byte", sent)
			}
			if reason != "" && resp.Header.Get(swchttp.HeaderMode) != "passthrough" {
				t.Errorf("X-SWC-Mode %q with a passthrough reason", resp.Header.Get(swchttp.HeaderMode))
			}
		})
	}
}

// TestProxyOverBudget: a request whose last messages alone exceed the
// budget goes upstream over it, with X-SWC-Over-Budget saying by how much.
func TestProxyOverBudget(t *testing.T) {
	e := newProxyEnv(t)
	body := openAIBody(t, loadtest.AgentHistory(400, 0), "")
	resp := e.post(t, "/v1/chat/completions", body, "X-SWC-Budget: 20")
	got := readAll(t, resp)
	if resp.StatusCode != 200 {
		t.Fatalf("got %d %s", resp.StatusCode, got)
	}
	over, err := strconv.Atoi(resp.Header.Get("X-SWC-Over-Budget"))
	after, _ := strconv.Atoi(resp.Header.Get("X-SWC-Tokens-After"))
	if err != nil || over <= 0 || after-20 != over {
		t.Errorf("X-SWC-Over-Budget %q, X-SWC-Tokens-After %d", resp.Header.Get("X-SWC-Over-Budget"), after)
	}
	if e.up.count() != 1 {
		t.Error("the request did not go upstream")
	}
	m, err := e.ts.Client().Get(e.ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, m); !strings.Contains(got, "swc_proxy_over_budget_total 1") {
		t.Error("swc_proxy_over_budget_total is not 1")
	}
}

func TestProxyUpstreamNotConfigured(t *testing.T) {
	e := newProxyEnv(t, func(s *swchttp.Server, _ *sleep.Service) { s.Proxy.Anthropic.URL = "" })
	resp := e.post(t, "/v1/messages", anthropicBody(t, loadtest.AgentHistory(4, 0), ""))
	if got := readAll(t, resp); resp.StatusCode != 501 || !strings.Contains(got, "--upstream-anthropic") {
		t.Errorf("got %d %s", resp.StatusCode, got)
	}
}

func TestProxyUpstreamUnreachable(t *testing.T) {
	e := newProxyEnv(t, func(s *swchttp.Server, _ *sleep.Service) { s.Proxy.OpenAI.URL = "http://127.0.0.1:1/v1" })
	resp := e.post(t, "/v1/chat/completions", openAIBody(t, loadtest.AgentHistory(4, 0), ""))
	got := readAll(t, resp)
	if resp.StatusCode != 502 || !strings.Contains(got, "upstream") {
		t.Errorf("got %d %s", resp.StatusCode, got)
	}
	// The body names no upstream URL, host or port (the log does).
	for _, leak := range []string{"127.0.0.1", ":1", "http://"} {
		if strings.Contains(got, leak) {
			t.Errorf("the 502 body shows %q: %s", leak, got)
		}
	}
}
