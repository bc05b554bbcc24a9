package http_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/swcmem/swc/loadtest"
)

// TestProxyHopByHopHeaders: hop-by-hop headers (RFC 9110 §7.6.1), and
// those a Connection header names, are not forwarded in either direction;
// end-to-end ones are.
func TestProxyHopByHopHeaders(t *testing.T) {
	e := newProxyEnv(t)
	e.up.handle = func(w http.ResponseWriter, r *http.Request, body []byte) {
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Connection", "X-Upstream-Hop, Keep-Alive")
		h.Set("X-Upstream-Hop", "for the proxy only")
		h.Set("Keep-Alive", "timeout=5")
		h.Set("Proxy-Authenticate", "Basic")
		h.Set("X-Request-Id", "req_1")
		io.WriteString(w, `{"id":"cc-1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}]}`)
	}
	req := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(openAIBody(t, loadtest.AgentHistory(4, 0), "")))
	req.Header.Set("Authorization", "Bearer "+e.key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Connection", "X-Client-Hop, x-other-hop")
	req.Header.Set("X-Client-Hop", "for swc only")
	req.Header.Set("X-Other-Hop", "for swc only")
	req.Header.Set("Keep-Alive", "timeout=5")
	req.Header.Set("Te", "trailers")
	req.Header.Set("Upgrade", "h2c")
	req.Header.Set("Proxy-Authorization", "Basic c2VjcmV0")
	req.Header.Set("OpenAI-Organization", "org-1")
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	_, sent := e.up.last(t)
	for _, h := range []string{"Connection", "X-Client-Hop", "X-Other-Hop", "Keep-Alive", "Te", "Upgrade", "Proxy-Authorization"} {
		if v := sent.Get(h); v != "" {
			t.Errorf("forwarded upstream: %s: %s", h, v)
		}
	}
	if sent.Get("Openai-Organization") != "org-1" {
		t.Errorf("an end-to-end header was dropped: %v", sent)
	}
	got := rec.Header()
	for _, h := range []string{"Connection", "X-Upstream-Hop", "Keep-Alive", "Proxy-Authenticate"} {
		if v := got.Get(h); v != "" {
			t.Errorf("passed back to the client: %s: %s", h, v)
		}
	}
	if got.Get("X-Request-Id") != "req_1" {
		t.Errorf("an end-to-end response header was dropped: %v", got)
	}
}
