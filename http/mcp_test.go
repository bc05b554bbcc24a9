package http_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/mcp"
)

// bearer adds a key to every request.
type bearer struct {
	key  string
	base http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.base.RoundTrip(r)
}

// mcpSession connects the SDK's streamable HTTP client to /mcp with key.
func (e *env) mcpSession(t *testing.T, key string) (*sdk.ClientSession, error) {
	t.Helper()
	hc := *e.ts.Client()
	hc.Transport = bearer{key: key, base: e.ts.Client().Transport}
	return sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(),
		&sdk.StreamableClientTransport{Endpoint: e.ts.URL + "/mcp", HTTPClient: &hc, MaxRetries: -1}, nil)
}

// toolText calls a tool and returns its text, failing on a tool error.
func toolText(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res.Content[0].(*sdk.TextContent).Text, res.IsError
}

// TestMCP: /mcp serves the memory's tools over streamable HTTP to the
// key's tenant: a note remembered there is found and recalled, stored as
// the API stores messages (GET /v1/conversations/{id} shows it, and its
// consolidation is enqueued), and another tenant's key sees none of it.
func TestMCP(t *testing.T) {
	e := newEnv(t)
	key, otherKey := e.newKey("acme"), e.newKey("other")
	cs, err := e.mcpSession(t, key)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != 4 {
		t.Fatalf("tools: %v %+v", err, tools)
	}

	text, isErr := toolText(t, cs, "remember", map[string]any{"conversation": "house", "text": "The spare key is under the blue flowerpot.", "speaker": "Maya"})
	var rem mcp.RememberOutput
	if isErr || json.Unmarshal([]byte(text), &rem) != nil || rem.Handle != "m1@house" {
		t.Fatalf("remember: %s", text)
	}
	text, isErr = toolText(t, cs, "search", map[string]any{"query": "where is the spare key?"})
	var found mcp.SearchOutput
	if isErr || json.Unmarshal([]byte(text), &found) != nil || len(found.Passages) != 1 || found.Passages[0].Handle != rem.Handle {
		t.Fatalf("search: %s", text)
	}
	text, isErr = toolText(t, cs, "recall", map[string]any{"handle": rem.Handle})
	if isErr || !strings.Contains(text, `"text":"The spare key is under the blue flowerpot."`) || !strings.Contains(text, `"speaker":"Maya"`) {
		t.Errorf("recall: %s", text)
	}
	if text, _ = toolText(t, cs, "conversations", nil); !strings.Contains(text, `"id":"house"`) || !strings.Contains(text, `"messages":1`) {
		t.Errorf("conversations: %s", text)
	}
	// Stored as the API stores messages, its consolidation enqueued.
	c := e.client("acme")
	d, err := c.Conversation(t.Context(), "house")
	if err != nil || d.Messages != 1 || d.MessageList[0].Name != "Maya" || len(d.PendingJobs) != 1 {
		t.Errorf("GET the conversation: %v %+v", err, d)
	}

	// Another tenant's key: nothing of it.
	os, err := e.mcpSession(t, otherKey)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Close()
	if text, isErr = toolText(t, os, "search", map[string]any{"query": "spare key flowerpot"}); isErr || !strings.Contains(text, `"passages":[]`) {
		t.Errorf("other tenant's search: %s", text)
	}
	if text, isErr = toolText(t, os, "recall", map[string]any{"handle": rem.Handle}); !isErr || strings.Contains(text, "flowerpot") {
		t.Errorf("other tenant's recall: %s", text)
	}
	if text, _ = toolText(t, os, "conversations", nil); !strings.Contains(text, `"conversations":[]`) {
		t.Errorf("other tenant's conversations: %s", text)
	}

	// Bad input: an error naming the field.
	if text, isErr = toolText(t, cs, "search", map[string]any{"query": "key", "limit": 500}); !isErr || text != "limit: 500; want 1 to 50" {
		t.Errorf("bad limit: %s", text)
	}

	// Without a key, or with a made-up one: refused before MCP.
	for _, k := range []string{"", "swc_made-up"} {
		if _, err := e.mcpSession(t, k); err == nil || !strings.Contains(err.Error(), "Unauthorized") && !strings.Contains(err.Error(), "401") {
			t.Errorf("key %q: %v, want 401", k, err)
		}
	}
	// GET and DELETE belong to sessions, which /mcp keeps none of.
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		req, _ := http.NewRequestWithContext(context.Background(), m, e.ts.URL+"/mcp", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := e.ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
			t.Errorf("%s /mcp: %d, Allow %q", m, resp.StatusCode, resp.Header.Get("Allow"))
		}
	}
}

// TestMCPConversationID: the MCP tools accept the conversation ids the
// API accepts.
func TestMCPConversationID(t *testing.T) {
	if mcp.ConversationID.String() != swchttp.ConversationID.String() {
		t.Errorf("mcp.ConversationID %s, the API's %s", mcp.ConversationID, swchttp.ConversationID)
	}
}
