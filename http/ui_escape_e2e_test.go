package http_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestUIServesHostileMessagesEscaped stores messages whose text and
// speaker name are markup, and checks that the conversation page served
// with the login cookie shows them escaped and never shows the key.
func TestUIServesHostileMessagesEscaped(t *testing.T) {
	e := newEnv(t)
	c := e.client("acme")
	msgs := sessions(3, 4)
	payloads := []string{`"><script>alert(1)</script>`, `' onmouseover=x '`}
	for i := range msgs {
		msgs[i].Content = payloads[i%2] + " " + msgs[i].Content
		msgs[i].Name = payloads[(i+1)%2]
	}
	ctx := context.Background()
	if _, err := c.Append(ctx, "conv-x", msgs); err != nil {
		t.Fatal(err)
	}
	if _, err := e.mem.Consolidate(ctx, mustTenant(t, e, "acme"), "conv-x"); err != nil {
		t.Fatal(err)
	}
	session := uiLogin(t, e, c.Key, "127.0.0.1:5000", "")
	for _, path := range []string{"/ui", "/ui/conversations/conv-x?budget=100000"} {
		req, _ := http.NewRequest("GET", e.ts.URL+path, nil)
		req.AddCookie(session)
		resp, err := e.ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		page := string(b)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %.300s", path, resp.StatusCode, page)
		}
		for _, bad := range append(payloads, "<script", c.Key) {
			if strings.Contains(page, bad) {
				t.Errorf("%s carries %q", path, bad)
			}
		}
		if strings.Contains(path, "conv-x") && !strings.Contains(page, "&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("%s does not show the message text escaped: %.2000s", path, page)
		}
	}
}
