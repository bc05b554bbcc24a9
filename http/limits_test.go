package http_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/sleep"
)

// TestProxyStoredLimits: the proxy applies --max-message to the messages
// it stores (a stored conversation took a 1,000,000-byte message while
// the append API's limit was 65,536); the instructions, which are not
// stored, and stateless requests are not bound by it. A proxied request
// over --max-messages is not compressed: it goes upstream as it came.
func TestProxyStoredLimits(t *testing.T) {
	e := newProxyEnv(t, func(s *swchttp.Server, _ *sleep.Service) { s.MaxMessage, s.MaxMessages = 1000, 30 })
	tenant, err := e.db.TenantByName(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 1001)
	msgs := []swc.Message{{Role: swc.RoleSystem, Content: "You are terse. " + big}, {Role: swc.RoleUser, Content: "hello"},
		{Role: swc.RoleAssistant, Content: "hi"}, {Role: swc.RoleUser, Content: big}}
	// Stored: not stored, and forwarded as it came, naming the message
	// and the flag.
	resp := e.post(t, "/v1/chat/completions", openAIBody(t, msgs, ""), swchttp.HeaderConversation+": c1")
	body := readAll(t, resp)
	if why := resp.Header.Get(swchttp.HeaderPassthrough); resp.StatusCode != http.StatusOK || !strings.Contains(why, "messages[3].content: 1001 bytes") || !strings.Contains(why, "--max-message") {
		t.Errorf("stored request with a message over --max-message: %d %s (%q)", resp.StatusCode, body, why)
	}
	if _, err := e.db.Conversation(context.Background(), tenant.ID, "c1"); swc.ErrorCode(err) != swc.ENOTFOUND {
		t.Errorf("the conversation was stored anyway (err %v)", err)
	}
	if n := e.up.count(); n != 1 {
		t.Errorf("the upstream got %d requests; want the one passed through", n)
	}
	// The same history without the big message: stored (the big
	// instruction is the client's, never stored).
	resp = e.post(t, "/v1/chat/completions", openAIBody(t, msgs[:3], ""), swchttp.HeaderConversation+": c1")
	if body := readAll(t, resp); resp.StatusCode != http.StatusOK {
		t.Errorf("stored request within the limits: %d %s", resp.StatusCode, body)
	}
	// Stateless: nothing stored, the limit does not apply.
	resp = e.post(t, "/v1/chat/completions", openAIBody(t, msgs, ""))
	if body := readAll(t, resp); resp.StatusCode != http.StatusOK {
		t.Errorf("stateless request with a large message: %d %s", resp.StatusCode, body)
	}
	// --max-messages.
	var many []swc.Message
	for i := range 31 {
		many = append(many, swc.Message{Role: []swc.Role{swc.RoleUser, swc.RoleAssistant}[i%2], Content: "m"})
	}
	resp = e.post(t, "/v1/chat/completions", openAIBody(t, many, ""))
	if body, why := readAll(t, resp), resp.Header.Get(swchttp.HeaderPassthrough); resp.StatusCode != http.StatusOK || !strings.Contains(why, "31 messages; swc compresses at most 30 (swc serve --max-messages)") {
		t.Errorf("31 messages over --max-messages 30: %d %s (%q)", resp.StatusCode, body, why)
	}
	resp = e.post(t, "/v1/chat/completions", openAIBody(t, many[:30], ""))
	if body := readAll(t, resp); resp.StatusCode != http.StatusOK {
		t.Errorf("30 messages: %d %s", resp.StatusCode, body)
	}
}

// TestRateBySize: with RateBytes a request counts one per RateBytes bytes
// of its body, so a key sending large bodies is held to what they cost;
// without it every request counts one.
func TestRateBySize(t *testing.T) {
	for _, c := range []struct {
		name      string
		rateBytes int64
		maxBody   int64 // 0: the default
		want      []int // statuses of: large, large, small
	}{
		{"by size", 4096, 0, []int{200, 429, 200}},
		{"by count", 0, 0, []int{200, 200, 200}},
		// A body over --max-proxy-body goes upstream unread past the
		// limit, and counts by its Content-Length all the same.
		{"by size, over --max-proxy-body", 4096, 8192, []int{200, 429, 200}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newProxyEnv(t, func(s *swchttp.Server, _ *sleep.Service) {
				s.Rate, s.Burst, s.RateBytes = 0.001, 6, c.rateBytes
				if c.maxBody > 0 {
					s.Proxy.MaxBody = c.maxBody
				}
			})
			msgs := []swc.Message{{Role: swc.RoleUser, Content: strings.Repeat("word ", 3000)}} // ~15 kB: 4 at 4 kB
			large, small := openAIBody(t, msgs, ""), openAIBody(t, []swc.Message{{Role: swc.RoleUser, Content: "hi"}}, "")
			for i, b := range []string{large, large, small} {
				resp := e.post(t, "/v1/chat/completions", b)
				body := readAll(t, resp)
				if resp.StatusCode != c.want[i] {
					t.Errorf("request %d: %d %s, want %d", i, resp.StatusCode, body, c.want[i])
				}
				if resp.StatusCode == 429 && resp.Header.Get("Retry-After") == "" {
					t.Errorf("request %d: 429 without Retry-After", i)
				}
				if over := c.maxBody > 0 && int64(len(b)) > c.maxBody; over && resp.StatusCode == 200 && resp.Header.Get(swchttp.HeaderMode) != "passthrough" {
					t.Errorf("request %d: X-SWC-Mode %q; want passthrough over --max-proxy-body", i, resp.Header.Get(swchttp.HeaderMode))
				}
			}
		})
	}
}

// TestCompressTimeoutOffline: --compress-timeout bounds the offline
// engines too (it had no effect without an LLM or a remote embedder):
// past it the truncation plan compresses the history, the answer says so
// (X-SWC-Fallback) and /metrics counts it.
func TestCompressTimeoutOffline(t *testing.T) {
	// A clock an hour behind puts the deadline in the past whatever the
	// load (a 1 µs timer raced the compression on a busy machine).
	e := newProxyEnv(t, func(s *swchttp.Server, _ *sleep.Service) {
		s.Proxy.CompressTimeout = time.Microsecond
		s.Now = func() time.Time { return time.Now().Add(-time.Hour) }
	})
	msgs := sessions(30, 20)
	start := time.Now()
	resp := e.post(t, "/v1/chat/completions", openAIBody(t, msgs, ""), swchttp.HeaderBudget+": 1500")
	body := readAll(t, resp)
	t.Logf("%d messages in %v: %s %s", len(msgs), time.Since(start), resp.Header.Get(swchttp.HeaderTokensBefore), resp.Header.Get(swchttp.HeaderTokensAfter))
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get(swchttp.HeaderFallback), "truncation") {
		t.Fatalf("%d %s; X-SWC-Fallback %q, want the truncation plan", resp.StatusCode, body, resp.Header.Get(swchttp.HeaderFallback))
	}
	sent, _ := e.up.last(t)
	if !strings.Contains(string(sent), "[Session 1 ") {
		t.Errorf("the forwarded request holds no truncated memory: %.400s", sent)
	}
	m, err := e.ts.Client().Get(e.ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, m); !strings.Contains(got, `swc_proxy_fallbacks_total{reason="truncation"} 1`) {
		t.Errorf("the truncation plan is not counted in /metrics")
	}
}
