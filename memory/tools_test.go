package memory

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/swcmem/swc/chat"
)

// TestToolTokensHeld: ToolTokens counts the definitions up front, not
// those deferred; Held takes them off the budget under HoldBudget only,
// never below 1.
func TestToolTokensHeld(t *testing.T) {
	read := `{"name":"Read","description":"Read a file.","input_schema":{"type":"object"}}`
	big := `{"name":"mcp__big","description":"` + strings.Repeat("A long description. ", 100) + `"`
	o := DefaultOptions()
	o.Budget = 1000
	c := mustNew(t, o)
	alone := c.ToolTokens([]byte(`[` + read + `]`))
	deferred := c.ToolTokens([]byte(`[` + read + `,` + big + `,"defer_loading":true}]`))
	upfront := c.ToolTokens([]byte(`[` + read + `,` + big + `}]`))
	if alone < 10 || deferred != alone || upfront < alone+300 || c.ToolTokens(nil) != 0 || c.ToolTokens([]byte(" [] ")) != 0 {
		t.Errorf("tool tokens: %d alone, %d with a deferred tool, %d with it up front", alone, deferred, upfront)
	}
	if got := c.Held(upfront).Options().Budget; got != 1000 {
		t.Errorf("without HoldBudget: budget %d, want 1000", got)
	}
	o.HoldBudget = true
	h := mustNew(t, o)
	for _, tc := range []struct{ tools, want int }{{0, 1000}, {upfront, 1000 - upfront}, {5000, 1}} {
		if got := h.Held(tc.tools).Options().Budget; got != tc.want {
			t.Errorf("HoldBudget, %d tool tokens: budget %d, want %d", tc.tools, got, tc.want)
		}
	}
}

// TestMiddlewareHoldBudgetTools: the SDK middleware under HoldBudget
// sends the messages within the budget less the tool definitions.
func TestMiddlewareHoldBudgetTools(t *testing.T) {
	tools := `[{"type":"function","function":{"name":"read_file","description":"` + strings.Repeat("Reads a file and returns its numbered lines. ", 100) + `","parameters":{"type":"object"}}}]`
	msgs := []string{`{"role":"system","content":"You are a coding agent."}`, `{"role":"user","content":"Fix the crash in src/app/parser.py."}`}
	for i := range 4 {
		view := strings.Repeat(fmt.Sprintf("%d: def handler_%d(self, value): return self.table[value] + %d\\n", 100+i, i, i), 60)
		msgs = append(msgs,
			fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_%d","type":"function","function":{"name":"read_file","arguments":"{}"}}]}`, i),
			fmt.Sprintf(`{"role":"tool","tool_call_id":"call_%d","content":"%s"}`, i, view))
	}
	body := `{"model":"gpt-5","tools":` + tools + `,"messages":[` + strings.Join(msgs, ",") + `]}`
	for _, hold := range []bool{false, true} {
		o := DefaultOptions()
		o.Budget, o.HoldBudget = 2000, hold
		c := mustNew(t, o)
		toolTokens := c.ToolTokens([]byte(tools))
		var sent []byte
		req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/v1/chat/completions", strings.NewReader(body))
		_, err := OpenAIMiddleware(c, nil)(req, func(r *http.Request) (*http.Response, error) {
			sent, _ = io.ReadAll(r.Body)
			return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		in, err := chat.Parse(bytes.TrimSpace(sent), chat.OpenAI)
		if err != nil {
			t.Fatal(err)
		}
		n := c.CountMessages(in.Messages)
		room := o.Budget
		if hold {
			room -= toolTokens
		}
		if n > room || !hold && n+toolTokens <= o.Budget {
			t.Errorf("hold %v: %d tokens of messages sent, want at most %d (tools %d)", hold, n, room, toolTokens)
		}
	}
}
