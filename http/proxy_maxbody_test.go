package http_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/loadtest"
	"github.com/swcmem/swc/sleep"
)

// TestProxyOverMaxBody: a body over --max-proxy-body reaches the provider byte
// for byte on every proxied route, with or without a Content-Length (a
// client streaming it chunked), and the provider's answer comes back with
// X-SWC-Mode: passthrough and the limit named; swc's own API answers 413
// over --max-body.
func TestProxyOverMaxBody(t *testing.T) {
	const limit = 16 << 10
	e := newProxyEnv(t, func(s *swchttp.Server, _ *sleep.Service) { s.MaxBody, s.Proxy.MaxBody = limit, limit })
	e.up.handle = func(w http.ResponseWriter, r *http.Request, body []byte) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"seen":`+strconv.Itoa(len(body))+`}`)
	}
	hist := loadtest.AgentHistory(400, 0)
	geminiBig := `{"contents":[{"role":"user","parts":[{"text":"` + strings.Repeat("line of a long paste ", 2000) + `"}]}]}`
	cases := []struct{ name, path, body string }{
		{"chat completions", "/v1/chat/completions", openAIBody(t, hist, "")},
		{"messages", "/v1/messages", anthropicBody(t, hist, "")},
		{"count tokens", "/v1/messages/count_tokens", anthropicBody(t, hist, "")},
		{"responses", "/v1/responses", `{"model":"gpt-5","input":"` + strings.Repeat("a long task ", 3000) + `"}`},
		{"embeddings, relayed", "/v1/embeddings", `{"model":"text-embedding-3-small","input":"` + strings.Repeat("x", 20000) + `"}`},
		{"gemini generateContent", "/v1beta/models/gemini-2.5-flash:generateContent", geminiBig},
		{"gemini countTokens", "/v1beta/models/gemini-2.5-flash:countTokens", geminiBig},
	}
	for _, tc := range cases {
		if len(tc.body) <= limit {
			t.Fatalf("%s: body of %d bytes, want over %d", tc.name, len(tc.body), limit)
		}
		for _, chunked := range []bool{false, true} {
			name := tc.name
			if chunked {
				name += ", chunked"
			}
			t.Run(name, func(t *testing.T) {
				n := e.up.count()
				var rd io.Reader = strings.NewReader(tc.body)
				if chunked {
					rd = io.MultiReader(rd) // no length known: sent chunked
				}
				req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, e.ts.URL+tc.path, rd)
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Authorization", "Bearer "+e.key)
				req.Header.Set("Content-Type", "application/json")
				resp, err := e.ts.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				got := readAll(t, resp)
				if resp.StatusCode != 200 || got != `{"seen":`+strconv.Itoa(len(tc.body))+`}` {
					t.Fatalf("got %d %s; want the provider's answer to the whole body", resp.StatusCode, got)
				}
				if e.up.count() != n+1 {
					t.Fatalf("the upstream got %d requests; want 1", e.up.count()-n)
				}
				if sent, _ := e.up.last(t); string(sent) != tc.body {
					t.Errorf("the upstream got %d bytes; want the body byte for byte (%d)", len(sent), len(tc.body))
				}
				if m := resp.Header.Get(swchttp.HeaderMode); m != "passthrough" {
					t.Errorf("X-SWC-Mode %q; want passthrough", m)
				}
				if why := resp.Header.Get(swchttp.HeaderPassthrough); !strings.Contains(why, "max-proxy-body") || !strings.Contains(why, "16384") {
					t.Errorf("X-SWC-Passthrough %q; want the limit named", why)
				}
			})
		}
	}
	t.Run("own API", func(t *testing.T) {
		resp := e.post(t, "/v1/conversations/c1/messages", `{"messages":[{"role":"user","content":"`+strings.Repeat("x", limit)+`"}]}`)
		if got := readAll(t, resp); resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("got %d %s; want 413", resp.StatusCode, got)
		}
	})
}

// TestProxyLargeBodyCompressed: under the default limits a proxied body
// over swc's own --max-body (4 MiB), a long session, is compressed, not
// passed through.
func TestProxyLargeBodyCompressed(t *testing.T) {
	e := newProxyEnv(t)
	msgs := loadtest.AgentHistory(2000, 0)
	users := 0
	for _, m := range msgs {
		if m.Role == swc.RoleUser {
			users++
		}
	}
	pad := strings.Repeat(" and a long paste, line after line\n", 6<<20/36/users+1) // 6 MiB in all
	for i := range msgs {
		if msgs[i].Role == swc.RoleUser {
			msgs[i].Content += pad
		}
	}
	body := anthropicBody(t, msgs, "")
	if len(body) <= swchttp.DefaultMaxBody || len(body) > swchttp.DefaultProxyMaxBody {
		t.Fatalf("body of %d bytes; want between %d and %d", len(body), swchttp.DefaultMaxBody, swchttp.DefaultProxyMaxBody)
	}
	resp := e.post(t, "/v1/messages", body, swchttp.HeaderBudget+": 16000")
	got := readAll(t, resp)
	if resp.StatusCode != 200 || resp.Header.Get(swchttp.HeaderMode) == "passthrough" {
		t.Fatalf("got %d %s, X-SWC-Mode %q (%s); want it compressed", resp.StatusCode, got, resp.Header.Get(swchttp.HeaderMode), resp.Header.Get(swchttp.HeaderPassthrough))
	}
	if sent, _ := e.up.last(t); len(sent) >= len(body)/10 {
		t.Errorf("the upstream got %d of %d bytes", len(sent), len(body))
	}
}
