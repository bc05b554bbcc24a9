package http_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/sleep"
)

// upstream is a fake provider API speaking the OpenAI Chat Completions
// and Anthropic Messages protocols on loopback. It records every request;
// handle, when set, answers instead of the default reply.
type upstream struct {
	ts     *httptest.Server
	mu     sync.Mutex
	bodies [][]byte
	heads  []http.Header
	paths  []string
	handle func(w http.ResponseWriter, r *http.Request, body []byte)
}

func newUpstream(t *testing.T) *upstream {
	u := &upstream{}
	u.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.bodies = append(u.bodies, body)
		u.heads = append(u.heads, r.Header.Clone())
		u.paths = append(u.paths, r.URL.Path)
		h := u.handle
		u.mu.Unlock()
		if h != nil {
			h(w, r, body)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req_123")
		if strings.HasSuffix(r.URL.Path, "/v1/messages") {
			w.Header().Set("Request-Id", "req_ant_1")
			io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"text","text":"Casa do Rio."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":3}}`)
			return
		}
		io.WriteString(w, `{"id":"cc-1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Casa do Rio."}}]}`)
	}))
	t.Cleanup(u.ts.Close)
	return u
}

func (u *upstream) last(t *testing.T) ([]byte, http.Header) {
	t.Helper()
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.bodies) == 0 {
		t.Fatal("the upstream got no request")
	}
	return u.bodies[len(u.bodies)-1], u.heads[len(u.heads)-1]
}

func (u *upstream) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.bodies)
}

// proxyEnv is a service with its proxy pointed at a fake upstream, and a
// key of tenant "acme".
type proxyEnv struct {
	*env
	up  *upstream
	key string
}

func newProxyEnv(t *testing.T, opts ...option) *proxyEnv {
	up := newUpstream(t)
	all := append([]option{func(s *swchttp.Server, _ *sleep.Service) {
		s.Proxy.OpenAI = swchttp.Upstream{URL: up.ts.URL + "/v1", Key: "sk-upstream-openai"}
		s.Proxy.Anthropic = swchttp.Upstream{URL: up.ts.URL, Key: "sk-upstream-anthropic"}
		s.Proxy.Gemini = swchttp.Upstream{URL: up.ts.URL, Key: "gemini-upstream-key"}
		s.Rate = -1
	}}, opts...)
	e := newEnv(t, all...)
	return &proxyEnv{env: e, up: up, key: e.newKey("acme")}
}

// post sends body to path with the swc key as a Bearer token and extra
// headers ("Name: value").
func (e *proxyEnv) post(t *testing.T, path, body string, headers ...string) *http.Response {
	t.Helper()
	return e.send(t, http.MethodPost, path, body, headers...)
}

// send sends body to path with method, as post does.
func (e *proxyEnv) send(t *testing.T, method, path, body string, headers ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, e.ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.key)
	req.Header.Set("Content-Type", "application/json")
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, strings.TrimSpace(v))
	}
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func readAll(t *testing.T, r *http.Response) string {
	t.Helper()
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// openAIBody returns a Chat Completions request body holding msgs.
func openAIBody(t *testing.T, msgs []swc.Message, extra string) string {
	t.Helper()
	b, err := json.Marshal(chat.OpenAIMessages(msgs))
	if err != nil {
		t.Fatal(err)
	}
	return `{"model":"gpt-4o",` + extra + `"messages":` + string(b) + `}`
}

// anthropicBody returns a Messages request body holding msgs.
func anthropicBody(t *testing.T, msgs []swc.Message, extra string) string {
	t.Helper()
	req := chat.ToAnthropic(msgs)
	b, err := json.Marshal(req.Messages)
	if err != nil {
		t.Fatal(err)
	}
	sys, _ := json.Marshal(req.System)
	return `{"model":"claude-haiku-4-5","max_tokens":256,` + extra + `"system":` + string(sys) + `,"messages":` + string(b) + `}`
}

// fields returns a JSON object's top-level fields.
func fields(t *testing.T, body []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("not a JSON object: %v: %.200s", err, body)
	}
	return m
}
