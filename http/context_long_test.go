package http_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/client"
	swchttp "github.com/swcmem/swc/http"
)

// TestContextLongGET reads GET …/context (the default strategy, budget
// and format) of a stored conversation of 100,000 messages, never
// consolidated, through the server: each read uncached (a budget not read
// before), after one of a small conversation, and under a generous second
// for a loaded CI machine. The messages go in through the store's API,
// 1,000 at a time.
func TestContextLongGET(t *testing.T) {
	if testing.Short() {
		t.Skip("stores 100,000 messages")
	}
	const n = 100_000
	e := newEnv(t)
	ctx := context.Background()
	key, k, err := swchttp.CreateKey(ctx, e.db, "long")
	if err != nil {
		t.Fatal(err)
	}
	e.logs.secret("key", key)
	e.logs.secret("tenant id", k.TenantID)
	start := time.Now().Add(-n * time.Minute)
	var last string
	for off := 0; off < n; off += 1000 {
		msgs := make([]swc.Message, 0, 1000)
		for i := off; i < off+1000; i++ {
			role := swc.RoleUser
			if i%2 == 1 {
				role = swc.RoleAssistant
			}
			last = fmt.Sprintf("Note %d: the boiler in Porto, invoice %d, meeting on the %dth with Priya about the Atlas launch.", i, i*7%997, i%28+1)
			msgs = append(msgs, swc.Message{ID: fmt.Sprint("m", i), Role: role, Content: last, Time: start.Add(time.Duration(i) * time.Minute)})
		}
		now := msgs[len(msgs)-1].Time
		if _, err := e.db.AppendMessages(ctx, k.TenantID, "big", msgs, swc.AppendOptions{Rule: swc.DefaultSessionRule(), Now: func() time.Time { return now }}); err != nil {
			t.Fatal(err)
		}
	}
	// A first request warms what every process warms once (the key, the
	// tokenizer's tables, the statements), on a small conversation.
	if _, err := e.db.AppendMessages(ctx, k.TenantID, "small", []swc.Message{{Role: swc.RoleUser, Content: "hello"}}, swc.AppendOptions{Rule: swc.DefaultSessionRule()}); err != nil {
		t.Fatal(err)
	}
	c := client.New(e.ts.URL, key)
	c.HTTPClient = e.ts.Client()
	if _, err := c.Context(ctx, "small", client.ContextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int{0, 3999, 3998} { // 0: the default
		url := e.ts.URL + "/v1/conversations/big/context"
		if budget > 0 {
			url += fmt.Sprintf("?budget=%d", budget)
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		t0 := time.Now()
		resp, err := e.ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		took := time.Since(t0)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET context: %s, %v: %.200s", resp.Status, err, body)
		}
		t.Logf("budget %d: uncached GET context in %v (%d bytes)", budget, took, len(body))
		if took > time.Second {
			t.Errorf("budget %d: uncached GET context took %v, over 1s", budget, took)
		}
		if !strings.Contains(string(body), last[:20]) {
			t.Errorf("budget %d: the last message is not in the context", budget)
		}
	}
}
