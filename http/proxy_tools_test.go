package http_test

import (
	"strconv"
	"strings"
	"testing"

	swchttp "github.com/swcmem/swc/http"
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
