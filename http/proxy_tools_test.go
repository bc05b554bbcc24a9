package http_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/swcmem/swc/chat"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/memory"
	"github.com/swcmem/swc/sleep"
	"github.com/swcmem/swc/strategy"
)

// TestToolTokensDeferred: X-SWC-Tool-Tokens counts the tool definitions
// the provider puts in the context up front: a definition marked
// "defer_loading": true (Claude Code's MCP tools, loaded by a tool
// search when needed) counts nothing, however large, and the others count
// as they are (their '<', '>' and '&' not escaped).
func TestToolTokensDeferred(t *testing.T) {
	e := newProxyEnv(t, noRecall)
	read := `{"name":"Read","description":"Read a file. <example>cat a && cat b > c</example>","input_schema":{"type":"object","properties":{"file_path":{"type":"string"}}}}`
	big := `{"name":"mcp__big__tool","description":"` + strings.Repeat("A tool with a long description. ", 200) + `","input_schema":{"type":"object"}`
	count := func(tools string) int {
		t.Helper()
		body := `{"model":"claude-sonnet-4-6","max_tokens":64,"tools":` + tools + `,"messages":[{"role":"user","content":"hello"}]}`
		resp := e.post(t, "/v1/messages", body, "anthropic-version: 2023-06-01", "X-SWC-Budget: 100000")
		readAll(t, resp)
		n, err := strconv.Atoi(resp.Header.Get(swchttp.HeaderToolTokens))
		if resp.StatusCode != 200 || err != nil {
			t.Fatalf("%d, X-SWC-Tool-Tokens %q", resp.StatusCode, resp.Header.Get(swchttp.HeaderToolTokens))
		}
		return n
	}
	alone := count(`[` + read + `]`)
	deferred := count(`[` + read + `,` + big + `,"defer_loading":true}]`)
	upfront := count(`[` + read + `,` + big + `}]`)
	if alone < 20 || deferred != alone || upfront < alone+1000 {
		t.Errorf("tool tokens: Read alone %d, with a deferred tool %d (want the same), with it up front %d (want 1,000 more)", alone, deferred, upfront)
	}
}

// TestProxyHoldBudgetTools: under ProxyConfig.HoldBudget the tool
// definitions take their part of the budget: the messages sent upstream
// fit the budget less X-SWC-Tool-Tokens; without it, the budget alone.
func TestProxyHoldBudgetTools(t *testing.T) {
	const budget = 2000
	tools := `[{"name":"Read","description":"` + strings.Repeat("Reads a file of the repository and returns its numbered lines. ", 60) + `","input_schema":{"type":"object","properties":{"file_path":{"type":"string"}}}}]`
	var msgs []string
	msgs = append(msgs, `{"role":"user","content":"Fix the crash in src/app/parser.py."}`)
	for i := range 4 {
		view := strings.Repeat(fmt.Sprintf("%d: def handler_%d(self, value): return self.table[value] + %d\\n", 100+i, i, i), 60)
		msgs = append(msgs,
			fmt.Sprintf(`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_%d","name":"Read","input":{"file_path":"src/app/mod_%d.py"}}]}`, i, i),
			fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":"%s"}]}`, i, view))
	}
	body := `{"model":"claude-sonnet-4-6","max_tokens":64,"system":"You are a coding agent.","tools":` + tools + `,"messages":[` + strings.Join(msgs, ",") + `]}`
	c, err := memory.New(memory.Options{Strategy: strategy.Default, Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	for _, hold := range []bool{false, true} {
		e := newProxyEnv(t, noRecall, func(s *swchttp.Server, _ *sleep.Service) { s.Proxy.HoldBudget = hold })
		resp := e.post(t, "/v1/messages", body, "anthropic-version: 2023-06-01", "X-SWC-Budget: "+strconv.Itoa(budget))
		readAll(t, resp)
		toolTokens, err := strconv.Atoi(resp.Header.Get(swchttp.HeaderToolTokens))
		if resp.StatusCode != 200 || err != nil || toolTokens < 500 {
			t.Fatalf("hold %v: %d, X-SWC-Tool-Tokens %q", hold, resp.StatusCode, resp.Header.Get(swchttp.HeaderToolTokens))
		}
		sent, _ := e.up.last(t)
		n, err := c.CountBody(sent, chat.Anthropic)
		if err != nil {
			t.Fatal(err)
		}
		room := budget
		if hold {
			room -= toolTokens
		}
		if n > room || !hold && n+toolTokens <= budget {
			t.Errorf("hold %v: %d tokens of messages sent, want at most %d (tools %d; without HoldBudget, with the tools over %d)", hold, n, room, toolTokens, budget)
		}
		if !hold {
			continue
		}
		// Tools over the budget alone: the request goes out, over it.
		resp = e.post(t, "/v1/messages", body, "anthropic-version: 2023-06-01", "X-SWC-Budget: 500")
		readAll(t, resp)
		if resp.StatusCode != 200 || resp.Header.Get("X-SWC-Over-Budget") == "" {
			t.Errorf("tools over the budget: %d, X-SWC-Over-Budget %q", resp.StatusCode, resp.Header.Get("X-SWC-Over-Budget"))
		}
	}
}
