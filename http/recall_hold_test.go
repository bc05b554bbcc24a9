package http_test

import (
	"strings"
	"testing"

	"github.com/swcmem/swc/chat"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/memory"
	"github.com/swcmem/swc/sleep"
	"github.com/swcmem/swc/strategy"
)

// TestRecallHoldBudget: under ProxyConfig.HoldBudget the request of a
// recall round fits the budget too: an original longer than what the
// request leaves goes as its beginning and a line saying how much was
// left out; without it the original goes whole, over the budget.
func TestRecallHoldBudget(t *testing.T) {
	const budget = 1500
	c, err := memory.New(memory.Options{Strategy: strategy.Default, Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	for _, rc := range []recallCase{{"openai", false}, {"anthropic", false}, {"responses", true}} {
		for _, hold := range []bool{false, true} {
			e := newProxyEnv(t, func(s *swchttp.Server, _ *sleep.Service) { s.Proxy.HoldBudget = hold })
			msgs, originals := recallLoop("a", 14)
			script(e, rc, []recallReply{{}, {}}, func(b []byte) string { return firstHandle(t, b) })
			resp := e.post(t, rc.path(), rc.body(t, msgs), "X-SWC-Budget: 1500", "anthropic-version: 2023-06-01")
			got := readAll(t, resp)
			if resp.StatusCode != 200 || e.up.count() != 2 {
				t.Fatalf("%s hold %v: %d, %d upstream requests: %s", rc, hold, resp.StatusCode, e.up.count(), got)
			}
			e.up.mu.Lock()
			first, second := e.up.bodies[0], e.up.bodies[1]
			e.up.mu.Unlock()
			f := map[string]chat.Format{"openai": chat.OpenAI, "anthropic": chat.Anthropic, "responses": chat.Responses}[rc.proto]
			in, err := chat.Parse(second, f)
			if err != nil {
				t.Fatal(err)
			}
			n := c.CountMessages(in.Messages) + c.ToolTokens(in.Body["tools"])
			h := stubHandle.FindSubmatch(first)[1]
			results, _ := toolResults(t, rc.proto, second)
			if len(results) != 1 {
				t.Fatalf("%s hold %v: tool results %q", rc, hold, results)
			}
			orig := originals[string(h)]
			if !hold {
				if results[0] != orig || n <= budget {
					t.Errorf("%s without HoldBudget: the round's request %d tokens, the original whole %v", rc, n, results[0] == orig)
				}
				continue
			}
			cut, _, ok := strings.Cut(results[0], "\n[swc_recall: ")
			if n > budget || !ok || !strings.HasPrefix(orig, cut) || !strings.Contains(results[0], "tokens of this original left out to keep the request within its budget]") {
				t.Errorf("%s with HoldBudget: the round's request %d tokens of %d, answer %.200q", rc, n, budget, results[0])
			}
		}
	}
}
