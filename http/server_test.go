package http_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/client"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/sleep"
)

func status(err error) int {
	var ce *client.Error
	if errors.As(err, &ce) {
		return ce.Status
	}
	return 0
}

func TestAppendConsolidateContext(t *testing.T) {
	e := newEnv(t)
	c := e.client("acme")
	ctx := context.Background()
	msgs := sessions(6, 6)
	msgs36 := msgs
	res, err := c.Append(ctx, "conv-1", msgs)
	if err != nil || res != (swc.AppendResult{Appended: 36, Sessions: 6}) {
		t.Fatalf("append = %+v, %v", res, err)
	}
	// A retry of the same messages stores nothing twice.
	res, err = c.Append(ctx, "conv-1", msgs[30:])
	if err != nil || res != (swc.AppendResult{Skipped: 6, Sessions: 6}) {
		t.Fatalf("retry = %+v, %v", res, err)
	}
	before, err := c.Context(ctx, "conv-1", client.ContextOptions{Budget: 1500})
	if err != nil {
		t.Fatal(err)
	}
	if before.ConsolidatedThrough != 0 || before.PendingSessions != 6 || before.Tokens > 1500 || before.Tokens == 0 {
		t.Fatalf("before consolidation: through %d pending %d tokens %d", before.ConsolidatedThrough, before.PendingSessions, before.Tokens)
	}
	if e.gister.Calls.Load() != 0 {
		t.Fatalf("the read path called the gister %d times", e.gister.Calls.Load())
	}
	// Idle schedule is 1h here: only the explicit request consolidates.
	if _, err := c.Consolidate(ctx, "conv-1"); err != nil {
		t.Fatal(err)
	}
	var after *client.Context
	waitFor(t, "consolidation", func() bool {
		after, err = c.Context(ctx, "conv-1", client.ContextOptions{Budget: 1500})
		return err == nil && after.ConsolidatedThrough == 6
	})
	if after.PendingSessions != 0 || after.Version == before.Version {
		t.Fatalf("after: pending %d, version %d (before %d)", after.PendingSessions, after.Version, before.Version)
	}
	made := e.gister.Calls.Load()
	detail, err := c.Conversation(ctx, "conv-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(detail.Gists) == 0 || made == 0 {
		t.Fatalf("consolidation stored %d gists with %d gister calls", len(detail.Gists), made)
	}
	gisted := 0
	for _, ch := range after.Chunks {
		if ch.Action == swc.ActionGist {
			gisted++
		}
	}
	if gisted == 0 {
		t.Errorf("no chunk is a gist after consolidation: %+v", after.Chunks)
	}
	// Reads at other budgets, strategies and formats never gist.
	for _, o := range []client.ContextOptions{{Budget: 200}, {Strategy: "swc-full"}, {Format: "openai", Budget: 600}, {Format: "anthropic", Budget: 600}} {
		got, err := c.Context(ctx, "conv-1", o)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		switch o.Format {
		case "openai":
			var msgs []chat.OpenAIMessage
			json.Unmarshal(got.Messages, &msgs)
			// The memory at the start of the first message kept (the
			// conversation has no system message, and swc adds none),
			// then the messages after the epoch's boundary unchanged.
			n := len(msgs)
			if n < 2 || msgs[0].Role != "user" || !strings.Contains(*msgs[0].Content, "[Session 1") ||
				!strings.HasSuffix(*msgs[0].Content, "\n\n"+msgs36[36-n].Content) ||
				*msgs[n-1].Content != msgs36[35].Content || *msgs[1].Content != msgs36[36-(n-1)].Content || got.Tokens > 600 {
				t.Errorf("openai format: %d messages, %d tokens: %.300s", len(msgs), got.Tokens, got.Messages)
			}
		case "anthropic":
			var msgs []chat.AnthropicMessage
			json.Unmarshal(got.Messages, &msgs)
			if !strings.Contains(got.System, "[Session 1") || len(msgs) == 0 || msgs[0].Role != "user" {
				t.Errorf("anthropic format: system %.100q, %d messages", got.System, len(msgs))
			}
		}
	}
	if e.gister.Calls.Load() != made {
		t.Errorf("reads called the consolidation gister: %d → %d", made, e.gister.Calls.Load())
	}
	// An append invalidates the cached context.
	next := swc.Message{ID: "late", Role: swc.RoleUser, Content: "One more thing about Rex.", Time: t0.Add(30 * 24 * time.Hour)}
	if _, err := c.Append(ctx, "conv-1", []swc.Message{next}); err != nil {
		t.Fatal(err)
	}
	fresh, err := c.Context(ctx, "conv-1", client.ContextOptions{Budget: 1500})
	if err != nil {
		t.Fatal(err)
	}
	if fresh.PendingSessions != 1 || fresh.Version == after.Version {
		t.Errorf("after append: pending %d version %d (was %d)", fresh.PendingSessions, fresh.Version, after.Version)
	}
	// A second consolidation reuses gists: none is stored twice.
	if _, err := c.Consolidate(ctx, "conv-1"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "second consolidation", func() bool {
		got, err := c.Context(ctx, "conv-1", client.ContextOptions{})
		if err == nil && got.ConsolidatedThrough != 7 {
			d, _ := c.Conversation(ctx, "conv-1")
			t.Logf("through %d, req %v at %v jobs %+v", got.ConsolidatedThrough, d.ConsolidationRequested, d.ConsolidatedAt, d.PendingJobs)
		}
		return err == nil && got.ConsolidatedThrough == 7
	})
	detail2, _ := c.Conversation(ctx, "conv-1")
	seen := map[string]bool{}
	for _, g := range detail2.Gists {
		k := itoa(g.Session) + g.ContentHash + string(g.Variant)
		if seen[k] {
			t.Errorf("duplicate gist for session %d", g.Session)
		}
		seen[k] = true
	}
}

func TestCachedContextServedUntilChange(t *testing.T) {
	e := newEnv(t)
	c := e.client("acme")
	ctx := context.Background()
	if _, err := c.Append(ctx, "c", sessions(3, 4)); err != nil {
		t.Fatal(err)
	}
	a, _ := c.Context(ctx, "c", client.ContextOptions{Budget: 500})
	b, _ := c.Context(ctx, "c", client.ContextOptions{Budget: 500})
	if a.Version != b.Version || a.Text != b.Text {
		t.Fatal("two reads without a change differ")
	}
	// A consolidation made behind the server's back (another replica)
	// is seen: the cache checks the stored version.
	if _, err := e.mem.Consolidate(ctx, mustTenant(t, e, "acme"), "c"); err != nil {
		t.Fatal(err)
	}
	d, _ := c.Context(ctx, "c", client.ContextOptions{Budget: 500})
	if d.Version == a.Version || d.ConsolidatedThrough != 3 {
		t.Fatalf("stale context after consolidation: version %d→%d through %d", a.Version, d.Version, d.ConsolidatedThrough)
	}
}

func mustTenant(t *testing.T, e *env, name string) string {
	tn, err := e.db.TenantByName(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return tn.ID
}

func TestJobRetriesWhenGisterFails(t *testing.T) {
	e := newEnv(t)
	e.fail.Store(1)
	c := e.client("acme")
	ctx := context.Background()
	if _, err := c.Append(ctx, "c", sessions(6, 4)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Consolidate(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	var sawError bool
	waitFor(t, "retried consolidation", func() bool {
		d, err := c.Conversation(ctx, "c")
		if err != nil {
			return false
		}
		for _, j := range d.PendingJobs {
			sawError = sawError || strings.Contains(j.LastError, "overloaded")
		}
		return d.ConsolidatedThrough == 6
	})
	if !sawError && e.gister.Calls.Load() < 2 {
		t.Errorf("the failing attempt left no trace (calls %d)", e.gister.Calls.Load())
	}
}

func TestDelete(t *testing.T) {
	e := newEnv(t)
	c := e.client("acme")
	ctx := context.Background()
	if _, err := c.Append(ctx, "c", sessions(4, 4)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.mem.Consolidate(ctx, mustTenant(t, e, "acme"), "c"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Context(ctx, "c", client.ContextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Context(ctx, "c", client.ContextOptions{}); status(err) != 404 {
		t.Fatalf("context after delete: %v", err)
	}
	if g, _ := e.db.Gists(ctx, mustTenant(t, e, "acme"), "c"); len(g) != 0 {
		t.Errorf("%d gists survive delete", len(g))
	}
	if list, _ := c.Conversations(ctx); len(list) != 0 {
		t.Errorf("list after delete: %+v", list)
	}
}

// TestTenantIsolation runs every /v1 route with no key, a bad key, a
// revoked key (401) and another tenant's key (404).
func TestTenantIsolation(t *testing.T) {
	e := newEnv(t)
	a, b := e.client("tenant-a"), e.client("tenant-b")
	ctx := context.Background()
	if _, err := b.Append(ctx, "b-conv", sessions(2, 2)); err != nil {
		t.Fatal(err)
	}
	revoked := e.client("tenant-c")
	keys, _ := e.db.Keys(ctx)
	if err := e.db.RevokeKey(ctx, keys[len(keys)-1].ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	body := `{"messages":[{"role":"user","content":"hi"}]}`
	routes := []struct {
		method, path, body string
		wantOther          int // status with tenant a's key on b's conversation
	}{
		{"GET", "/v1/conversations/b-conv/context", "", 404},
		{"GET", "/v1/conversations/b-conv", "", 404},
		{"DELETE", "/v1/conversations/b-conv", "", 404},
		{"POST", "/v1/conversations/b-conv/consolidate", "", 404},
		{"GET", "/v1/conversations", "", 200},
		{"POST", "/v1/conversations/b-conv/messages", body, 201}, // last: a's own new conversation of that id
	}
	auths := []struct {
		name, header string
		want         int
	}{
		{"none", "", 401},
		{"not bearer", "Basic " + a.Key, 401},
		{"bad key", "Bearer swc_not-a-key", 401},
		{"revoked", "Bearer " + revoked.Key, 401},
	}
	for _, r := range routes {
		for _, au := range auths {
			t.Run(r.method+" "+r.path+" "+au.name, func(t *testing.T) {
				got, _ := do(t, e, r.method, r.path, au.header, r.body)
				if got != au.want {
					t.Errorf("status %d, want %d", got, au.want)
				}
			})
		}
	}
	// The other tenant: reads and deletes of b's conversation are 404 and
	// leave it alone; a's append creates a's own conversation.
	for _, r := range routes {
		t.Run(r.method+" "+r.path+" other tenant", func(t *testing.T) {
			got, _ := do(t, e, r.method, r.path, "Bearer "+a.Key, r.body)
			if got != r.wantOther {
				t.Errorf("status %d, want %d", got, r.wantOther)
			}
		})
	}
	d, err := b.Conversation(ctx, "b-conv")
	if err != nil || d.Messages != 4 {
		t.Fatalf("b's conversation after a's attempts: %+v, %v", d, err)
	}
	list, _ := a.Conversations(ctx)
	if len(list) != 1 || list[0].Messages != 1 {
		t.Errorf("a's list: %+v", list)
	}
}

func do(t *testing.T, e *env, method, path, auth, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, e.ts.URL+path, rd)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestBadInput(t *testing.T) {
	e := newEnv(t, func(s *swchttp.Server, _ *sleep.Service) { s.MaxBody = 64 << 10; s.MaxMessage = 1000 })
	c := e.client("acme")
	auth := "Bearer " + c.Key
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	if _, err := c.Append(context.Background(), "ok", []swc.Message{{ID: "x", Role: "user", Content: "hi", Time: t0.Add(time.Hour)}}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path, body string
		want             int
		msg              string // in the error message
	}{
		{"malformed", "/v1/conversations/c/messages", `{"messages":[`, 400, "truncated"},
		{"not json", "/v1/conversations/c/messages", `hello`, 400, "malformed JSON"},
		{"wrong type", "/v1/conversations/c/messages", `{"messages":"hi"}`, 400, "messages"},
		{"unknown top field", "/v1/conversations/c/messages", `{"messages":[],"extra":1}`, 400, "unknown field"},
		{"no messages", "/v1/conversations/c/messages", `{}`, 400, "messages"},
		{"content number", "/v1/conversations/c/messages", `{"messages":[{"role":"user","content":5}]}`, 400, "messages[0].content"},
		{"bad role", "/v1/conversations/c/messages", `{"messages":[{"role":"robot","content":"x"}]}`, 400, "unknown role"},
		{"empty content", "/v1/conversations/c/messages", `{"messages":[{"role":"user","content":"  "}]}`, 400, "messages[0].content: empty"},
		{"no role or speaker", "/v1/conversations/c/messages", `{"messages":[{"content":"x"}]}`, 400, "cannot detect the format"},
		{"bad timestamp", "/v1/conversations/c/messages", `{"messages":[{"role":"user","content":"x","timestamp":"yesterday"}]}`, 400, "RFC 3339"},
		{"future", "/v1/conversations/c/messages", `{"messages":[{"role":"user","content":"x","timestamp":"` + future + `"}]}`, 400, "future"},
		{"backwards in batch", "/v1/conversations/c/messages", `{"messages":[{"role":"user","content":"a","timestamp":"2025-01-02T00:00:00Z"},{"role":"user","content":"b","timestamp":"2025-01-01T00:00:00Z"}]}`, 400, "before"},
		{"backwards vs stored", "/v1/conversations/ok/messages", `{"messages":[{"role":"user","content":"b","timestamp":"2024-01-01T00:00:00Z"}]}`, 400, "before"},
		{"odd id", "/v1/conversations/a%20b/messages", `{"messages":[{"role":"user","content":"x"}]}`, 400, "conversation id"},
		{"odd id unicode", "/v1/conversations/caf%C3%A9/context", ``, 400, "conversation id"},
		{"long id", "/v1/conversations/" + strings.Repeat("a", 129) + "/context", ``, 400, "conversation id"},
		{"huge message", "/v1/conversations/c/messages", `{"messages":[{"role":"user","content":"` + strings.Repeat("x", 2000) + `"}]}`, 400, "at most 1000 per message"},
		{"huge body", "/v1/conversations/c/messages", `{"messages":[{"role":"user","content":"` + strings.Repeat("x", 70<<10) + `"}]}`, 413, "request body over"},
		{"bad budget", "/v1/conversations/ok/context?budget=lots", ``, 400, "budget"},
		{"zero budget", "/v1/conversations/ok/context?budget=0", ``, 400, "budget"},
		{"bad format", "/v1/conversations/ok/context?format=xml", ``, 400, "format"},
		{"bad strategy", "/v1/conversations/ok/context?strategy=magic", ``, 400, "strategy"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			method := "POST"
			if strings.Contains(tc.path, "/context") {
				method = "GET"
			}
			got, body := do(t, e, method, tc.path, auth, tc.body)
			if got != tc.want || !strings.Contains(body, tc.msg) || !strings.Contains(body, `"error":{"code"`) {
				t.Errorf("status %d body %s; want %d with %q", got, body, tc.want, tc.msg)
			}
		})
	}
	// Nothing was stored half-way: only "ok" exists, with its one message.
	list, _ := c.Conversations(context.Background())
	if len(list) != 1 || list[0].ID != "ok" || list[0].Messages != 1 {
		t.Errorf("stored after bad input: %+v", list)
	}
}

func TestFormats(t *testing.T) {
	e := newEnv(t)
	c := e.client("acme")
	for i, body := range []string{`{"messages":[
		{"role":"system","content":"You are helpful."},
		{"role":"user","content":[{"type":"text","text":"Look"},{"type":"image_url","image_url":{"url":"x"}}],"created_at":1714554000},
		{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"lookup","arguments":"{\"q\":1}"}}],"created_at":"2024-05-01T09:01:00Z"},
		{"role":"tool","tool_call_id":"c1","content":"42","unknown_field":true}]}`,
		`{"messages":[{"speaker":"Maya","text":"jsonl form","time":"2024-05-01T09:03:00Z","session":"s1"}]}`,
		`{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}],"timestamp":"2024-05-01T09:04:00Z"},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"anthropic result"}]}]}]}`,
	} {
		code, out := do(t, e, "POST", "/v1/conversations/f/messages", "Bearer "+c.Key, body)
		if code != 201 {
			t.Fatalf("body %d: status %d: %s", i, code, out)
		}
	}
	d, err := c.Conversation(context.Background(), "f")
	if err != nil {
		t.Fatal(err)
	}
	m := d.MessageList
	if m[1].Content != "Look\n[image_url]" || m[2].ToolCalls[0].Name != "lookup" || m[3].ToolCallID != "c1" ||
		m[4].Name != "Maya" || m[4].Session != "s1" || m[5].ToolCalls[0].Name != "f" || m[6].Content != "anthropic result" || m[6].ToolCallID != "t" {
		t.Errorf("decoded: %+v", m)
	}
	if !m[1].Time.Equal(time.Unix(1714554000, 0)) {
		t.Errorf("created_at seconds: %v", m[1].Time)
	}
	ctx, err := c.Context(context.Background(), "f", client.ContextOptions{Format: "openai"})
	if err != nil {
		t.Fatal(err)
	}
	var out []chat.OpenAIMessage
	if err := json.Unmarshal(ctx.Messages, &out); err != nil {
		t.Fatal(err)
	}
	// Everything fits: the messages come back as they were, system first,
	// the tool call and its result together.
	if *out[0].Content != "You are helpful." || out[2].ToolCalls[0].Function.Name != "lookup" || out[3].ToolCallID != "c1" {
		t.Errorf("openai context: %s", ctx.Messages)
	}
	text, err := c.Context(context.Background(), "f", client.ContextOptions{})
	if err != nil || !strings.Contains(text.Text, "Maya: jsonl form") {
		t.Errorf("text context: %v %.300s", err, text.Text)
	}
}

func TestRateLimit(t *testing.T) {
	e := newEnv(t, func(s *swchttp.Server, _ *sleep.Service) { s.Rate, s.Burst = 1, 3 })
	c := e.client("acme")
	other := e.client("other")
	var limited *client.Error
	for range 10 {
		_, err := c.Conversations(context.Background())
		if errors.As(err, &limited) {
			break
		}
	}
	if limited == nil || limited.Status != 429 || limited.RetryAfter < time.Second {
		t.Fatalf("no 429 with Retry-After: %+v", limited)
	}
	if _, err := other.Conversations(context.Background()); err != nil {
		t.Errorf("another key is limited too: %v", err)
	}
}

func TestHealthAndMetrics(t *testing.T) {
	e := newEnv(t)
	c := e.client("acme")
	if err := c.Health(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.Conversations(context.Background())
	code, body := do(t, e, "GET", "/metrics", "", "")
	if code != 200 || !strings.Contains(body, `swc_http_request_duration_seconds_count{code="200",route="GET /v1/conversations"} 1`) {
		t.Errorf("metrics %d: %.2000s", code, body)
	}
	if code, body := do(t, e, "GET", "/nope", "", ""); code != 404 || !strings.Contains(body, `"not_found"`) {
		t.Errorf("unknown route: %d %s", code, body)
	}
}

// TestRevokedKeyStops: a key revoked while cached stops working once the
// cache entry expires.
func TestRevokedKeyStops(t *testing.T) {
	e := newEnv(t, func(s *swchttp.Server, _ *sleep.Service) { s.KeyCacheTTL = 200 * time.Millisecond })
	c := e.client("acme")
	ctx := context.Background()
	if _, err := c.Conversations(ctx); err != nil {
		t.Fatal(err)
	}
	keys, _ := e.db.Keys(ctx)
	if err := e.db.RevokeKey(ctx, keys[0].ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := c.Conversations(ctx); status(err) != 401 {
		t.Fatalf("revoked key after the cache TTL: %v", err)
	}
}
