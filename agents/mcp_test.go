package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestClaudeCodeMCP: swc serve's /mcp registered in the pinned Claude Code
// with `claude mcp add --transport http` (a HOME and CLAUDE_CONFIG_DIR of
// the test's own: the user's configuration is never read or written),
// listed as connected by `claude mcp list`, then used in a run: the
// scripted upstream (behind swc's proxy, as a user would run it) calls
// mcp__swc__remember with a note, then mcp__swc__search for it, and the
// search result Claude Code sends back must hold the note and the handle
// remember gave it; the note must be in swc's store, in the key's
// tenant's conversation.
func TestClaudeCodeMCP(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real Claude Code (seconds); not with -short")
	}
	bin := npmBin(t, ".bin/claude")
	nodeDir := filepath.Dir(npmBin(t, ".bin/node"))
	t.Parallel()
	// At 100,000 tokens the requests fit; at 2,000 swc compresses every
	// one of them (Claude Code's instructions alone are over), and must
	// keep ToolSearch's result, which loaded the MCP tools.
	for _, budget := range []int{100_000, 2_000} {
		t.Run(strconv.Itoa(budget), func(t *testing.T) { claudeCodeMCP(t, bin, nodeDir, budget) })
	}
}

func claudeCodeMCP(t *testing.T, bin, nodeDir string, budget int) {
	script := StartMCPScript()
	defer script.Close()
	px := startProxy(t, every(&Upstream{URL: script.URL}), budget)
	work, home := t.TempDir(), t.TempDir()
	config := filepath.Join(home, ".claude")
	env := []string{
		"HOME=" + home, "CLAUDE_CONFIG_DIR=" + config, "PATH=" + nodeDir + ":/usr/local/bin:/usr/bin:/bin", "TMPDIR=" + os.TempDir(),
		"LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1", "CI=true",
		"ANTHROPIC_BASE_URL=" + px.URL, "ANTHROPIC_API_KEY=" + px.Key,
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	}
	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), runTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir, cmd.Env, cmd.WaitDelay = work, env, 5*time.Second
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("claude %s: %v\n%s", strings.Join(args[:min(2, len(args))], " "), err, tail(out.String(), 2000))
		}
		return out.String()
	}
	mcpURL := px.URL + "/mcp"
	run("mcp", "add", "--scope", "user", "--transport", "http", "swc", mcpURL, "--header", "Authorization: Bearer "+px.Key)
	cfg, err := os.ReadFile(filepath.Join(config, ".claude.json"))
	if err != nil || !bytes.Contains(cfg, []byte(mcpURL)) {
		t.Fatalf("claude mcp add wrote no server with %s to %s: %v\n%s", mcpURL, config, err, cfg)
	}
	if out := run("mcp", "list"); !strings.Contains(out, "swc") || !strings.Contains(out, "Connected") {
		t.Errorf("claude mcp list does not show swc connected:\n%s", out)
	}
	out := run("-p", "Store the note about the Lisbon flight in swc's memory, then search for it.",
		"--model", "claude-sonnet-4-6", "--allowedTools", mcpRemember+","+mcpSearch, "--output-format", "text", "--max-turns", "10")
	res := script.Results()
	t.Logf("Claude Code with swc's MCP tools: %d model calls declaring them; remember → %.200s; search → %.300s", res.Requests, res.Remembered, res.Found)
	for _, e := range res.Errors {
		t.Error(e)
	}
	var remembered struct {
		Handle string `json:"handle"`
	}
	if err := json.Unmarshal([]byte(res.Remembered), &remembered); err != nil || !strings.HasSuffix(remembered.Handle, "@"+MCPConversation) {
		t.Errorf("remember's result is not swc's answer with the note's handle (%v): %q", err, res.Remembered)
	}
	if !strings.Contains(res.Found, Note) || remembered.Handle == "" || !strings.Contains(res.Found, `"handle":"`+remembered.Handle+`"`) {
		t.Errorf("search's result does not hold the note and its handle %q: %q", remembered.Handle, res.Found)
	}
	if !res.Done || !strings.Contains(out, MCPDone) {
		t.Errorf("the run did not finish (the final answer %s):\n%s", MCPDone, tail(out, 2000))
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, px.URL+"/v1/conversations/"+MCPConversation, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+px.Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(stored, []byte(Note)) {
		t.Errorf("the note is not in swc's store (GET /v1/conversations/%s: %d): %.300s", MCPConversation, resp.StatusCode, stored)
	}
}

// TestToolsLoaded: the MCP script's check that a request calling swc's
// MCP tools still holds the ToolSearch result that loaded them.
func TestToolsLoaded(t *testing.T) {
	const (
		search = `{"role":"assistant","content":[{"type":"tool_use","id":"` + toolSearchID + `","name":"ToolSearch","input":{}}]}`
		loaded = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + toolSearchID + `","content":[{"type":"tool_reference","tool_name":"` + mcpRemember + `"}]}]}`
		stub   = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + toolSearchID + `","content":"[swc:h0123456789 ToolSearch() → ok]"}]}`
		call   = `{"role":"assistant","content":[{"type":"tool_use","id":"r","name":"` + mcpRemember + `","input":{}}]}`
	)
	for _, tc := range []struct {
		name           string
		msgs           string
		called, loaded bool
	}{
		{"loaded, then called", search + `,` + loaded + `,` + call, true, true},
		{"loaded, not called yet", search + `,` + loaded, false, true},
		{"called, the loading dropped", call, true, false},
		{"called, the loading stubbed", search + `,` + stub + `,` + call, true, false},
	} {
		var msgs []antMessage
		if err := json.Unmarshal([]byte(`[`+tc.msgs+`]`), &msgs); err != nil {
			t.Fatal(err)
		}
		if called, loaded := toolsLoaded(msgs); called != tc.called || loaded != tc.loaded {
			t.Errorf("%s: called %v, loaded %v; want %v, %v", tc.name, called, loaded, tc.called, tc.loaded)
		}
	}
}
