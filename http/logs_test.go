package http_test

import (
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/client"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/loadtest"
	"github.com/swcmem/swc/sleep"
)

// TestLogsShowNoSecrets drives the paths that log (failed jobs, the
// proxy's memory past its deadline, the offline fallback, an unreachable
// upstream) with the server at debug level; newEnv's check fails the test
// when a key, tenant id or conversation id is in the log.
func TestLogsShowNoSecrets(t *testing.T) {
	e := newProxyEnv(t, func(s *swchttp.Server, m *sleep.Service) { m.Gister = markGister() })
	ctx := t.Context()
	c := client.New(e.ts.URL, e.key)
	e.fail.Store(2) // the first consolidation attempts fail: River retries, and logs
	if _, err := c.Append(ctx, "secret-conversation-1", sessions(3, 4)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Consolidate(ctx, "secret-conversation-1"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "consolidation after retries", func() bool {
		d, err := c.Conversation(ctx, "secret-conversation-1")
		return err == nil && d.ConsolidatedThrough == 3
	})
	if _, err := c.Context(ctx, "secret-conversation-1", client.ContextOptions{Budget: 300}); err != nil {
		t.Fatal(err)
	}
	hist := loadtest.AgentHistory(400, 0)
	send := func() {
		t.Helper()
		resp := e.post(t, "/v1/chat/completions", openAIBody(t, hist, ""), "X-SWC-Conversation: secret-agent-2", "X-SWC-Budget: 3000")
		if got := readAll(t, resp); resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, got)
		}
	}
	send()
	if _, err := e.mem.Consolidate(ctx, e.tenant(t), "secret-agent-2"); err != nil {
		t.Fatal(err)
	}
	hist = append(hist, swc.Message{Role: swc.RoleUser, Content: "One more question about the Atlas budget."})
	e.srv.Proxy.CompressTimeout = time.Nanosecond // the memory and the request past their deadline
	send()
	e.srv.Proxy.OpenAI.URL = "http://127.0.0.1:1/v1"
	resp := e.post(t, "/v1/chat/completions", openAIBody(t, hist, ""), "X-SWC-Conversation: secret-agent-2")
	readAll(t, resp)
	if resp.StatusCode != 502 {
		t.Errorf("unreachable upstream: %d", resp.StatusCode)
	}
	e.logs.mu.Lock()
	log := e.logs.buf.String()
	e.logs.mu.Unlock()
	for _, want := range []string{"level=DEBUG msg=request", "proxy: upstream"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log has no %q line: the test does not reach what it checks\n%s", want, log)
		}
	}
}
