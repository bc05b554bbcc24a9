package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/retry"
)

func chatBody(text string) string {
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion","created":1733000000,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"message":{"role":"assistant","content":%q,"refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":1,"total_tokens":21}}`, text)
}

func errBody(typ, code, msg string) string {
	return fmt.Sprintf(`{"error":{"message":%q,"type":%q,"param":null,"code":%q}}`, msg, typ, code)
}

// embedBody answers an embeddings request with vector [len(text), i] per
// input, listed in reverse order to check the reordering.
func embedBody(inputs []string) string {
	var data []string
	for i := len(inputs) - 1; i >= 0; i-- {
		data = append(data, fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":[%d,%d]}`, i, len(inputs[i]), i))
	}
	return fmt.Sprintf(`{"object":"list","data":[%s],"model":"all-minilm","usage":{"prompt_tokens":%d,"total_tokens":%d}}`, strings.Join(data, ","), len(inputs), len(inputs))
}

type reply struct {
	status int
	body   string
	header map[string]string
	delay  time.Duration
	hijack bool
}

func serve(w http.ResponseWriter, r *http.Request, rep reply) {
	if rep.delay > 0 {
		select {
		case <-time.After(rep.delay):
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	if rep.hijack {
		w.Header().Set("Content-Length", "500")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, rep.body[:len(rep.body)/2])
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
		return
	}
	w.WriteHeader(max(rep.status, http.StatusOK))
	io.WriteString(w, rep.body)
}

// fakeServer answers POST /v1/chat/completions with replies in order
// (repeating the last) and POST /v1/embeddings with embedBody, recording
// what it is sent.
type fakeServer struct {
	*httptest.Server
	mu      sync.Mutex
	replies []reply
	calls   int
	bodies  []map[string]any
	headers []http.Header
}

func newFake(t testing.TB, replies ...reply) *fakeServer {
	f := &fakeServer{replies: replies}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		if r.Method != http.MethodPost || json.Unmarshal(b, &body) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		var rep reply // embeddings answer with embedBody
		if len(f.replies) > 0 {
			rep = f.replies[min(f.calls, len(f.replies)-1)]
		}
		f.calls++
		f.bodies = append(f.bodies, body)
		f.headers = append(f.headers, r.Header.Clone())
		f.mu.Unlock()
		switch r.URL.Path {
		case "/v1/chat/completions":
		case "/v1/embeddings":
			if rep.status == 0 && rep.body == "" {
				var in struct{ Input []string }
				json.Unmarshal(b, &in)
				rep.body = embedBody(in.Input)
			}
		default:
			rep = reply{status: 404, body: errBody("invalid_request_error", "unknown_url", r.URL.Path)}
		}
		serve(w, r, rep)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func testConfig(url string, s *sleeps, edit func(*Config)) Config {
	cfg := Config{BaseURL: url + "/v1", Config: retry.Config{Sleep: s.sleep, Timeout: 5 * time.Second, Seed: 1}}
	if edit != nil {
		edit(&cfg)
	}
	return cfg
}

func newTestLLM(t testing.TB, url string, edit func(*Config)) (*LLM, *sleeps) {
	t.Helper()
	s := &sleeps{}
	l, err := New("gpt-4o-mini", "sk-test", testConfig(url, s, edit))
	if err != nil {
		t.Fatal(err)
	}
	return l, s
}

var pingReq = swc.LLMRequest{
	System:    "You are terse.",
	Messages:  []swc.Message{{Role: swc.RoleUser, Content: "Reply with the single word: pong"}},
	MaxTokens: 16, Temperature: 0, Purpose: "qa",
}

func TestCompleteWire(t *testing.T) {
	// The SDK's own environment defaults must not leak to the server.
	t.Setenv("OPENAI_ORG_ID", "org-leak")
	t.Setenv("OPENAI_PROJECT_ID", "proj-leak")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-Leak: 1")
	t.Setenv("OPENAI_API_KEY", "sk-env")
	f := newFake(t, reply{body: chatBody("pong")})
	l, _ := newTestLLM(t, f.URL, nil)
	got, err := l.Complete(context.Background(), pingReq)
	if err != nil {
		t.Fatal(err)
	}
	want := swc.LLMResponse{Text: "pong", Model: "gpt-4o-mini-2024-07-18", StopReason: "stop", Usage: swc.Usage{InputTokens: 20, OutputTokens: 1, Calls: 1}}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if l.Name() != "openai:gpt-4o-mini" {
		t.Errorf("Name = %q", l.Name())
	}
	h, body := f.headers[0], f.bodies[0]
	if h.Get("Authorization") != "Bearer sk-test" {
		t.Errorf("Authorization = %q", h.Get("Authorization"))
	}
	for _, k := range []string{"OpenAI-Organization", "OpenAI-Project", "X-Leak"} {
		if v := h.Get(k); v != "" {
			t.Errorf("%s = %q leaked from the process environment", k, v)
		}
	}
	if temp, ok := body["temperature"]; !ok || temp != float64(0) {
		t.Errorf("temperature = %v (present %v), want 0", temp, ok)
	}
	if body["model"] != "gpt-4o-mini" || body["max_completion_tokens"] != float64(16) {
		t.Errorf("model/max_completion_tokens = %v/%v", body["model"], body["max_completion_tokens"])
	}
	if _, ok := body["max_tokens"]; ok {
		t.Error("max_tokens sent (deprecated by OpenAI; its reasoning models reject it)")
	}
	msgs, _ := json.Marshal(body["messages"])
	if want := `[{"content":"You are terse.","role":"system"},{"content":"Reply with the single word: pong","role":"user"}]`; string(msgs) != want {
		t.Errorf("messages = %s", msgs)
	}
}

func TestOllamaNoKey(t *testing.T) {
	f := newFake(t, reply{body: chatBody("pong")})
	s := &sleeps{}
	t.Setenv("OPENAI_API_KEY", "must-not-leak") // the SDK reads it in NewClient
	l, err := New("llama3.1", "", testConfig(f.URL, s, func(c *Config) { c.Provider = "ollama" }))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Complete(context.Background(), pingReq); err != nil {
		t.Fatal(err)
	}
	if l.Name() != "ollama:llama3.1" {
		t.Errorf("Name = %q", l.Name())
	}
	if a := f.headers[0].Get("Authorization"); a != "" {
		t.Errorf("Authorization = %q, want none", a)
	}
	if f.bodies[0]["max_tokens"] != float64(16) || f.bodies[0]["max_completion_tokens"] != nil {
		t.Errorf("Ollama reads only max_tokens; got max_tokens=%v max_completion_tokens=%v", f.bodies[0]["max_tokens"], f.bodies[0]["max_completion_tokens"])
	}
}

func TestCompleteRetries(t *testing.T) {
	tests := []struct {
		name      string
		replies   []reply
		edit      func(*Config)
		wantCalls int
		wantCode  string
		wantErr   string
		wantSleep []time.Duration
	}{
		{
			name:      "429 Retry-After http date",
			replies:   []reply{{status: 429, body: errBody("requests", "rate_limit_exceeded", "Rate limit reached"), header: map[string]string{"Retry-After": "Tue, 01 Dec 2026 06:00:03 GMT"}}, {body: chatBody("a")}},
			edit:      func(c *Config) { c.Now = func() time.Time { return time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC) } },
			wantCalls: 2, wantSleep: []time.Duration{3 * time.Second},
		},
		{
			name:      "500s exhaust",
			replies:   []reply{{status: 500, body: errBody("server_error", "", "The server had an error")}},
			wantCalls: 5, wantCode: swc.EUNAVAILABLE,
			wantErr: "openai: gpt-4o-mini: status 500 server_error after 5 attempts: The server had an error",
		},
		{
			name:      "404 unknown model is not retried",
			replies:   []reply{{status: 404, body: errBody("invalid_request_error", "model_not_found", "The model `gpt-9` does not exist")}},
			wantCalls: 1, wantCode: swc.EINVALID, wantErr: "status 404 invalid_request_error after 1 attempt: The model `gpt-9` does not exist",
		},
		{
			name:      "x-should-retry false stops a 500, the request id is in the error",
			replies:   []reply{{status: 500, body: errBody("server_error", "", "boom"), header: map[string]string{"X-Should-Retry": "false", "X-Request-Id": "req_abc"}}},
			wantCalls: 1, wantCode: swc.EUNAVAILABLE,
			wantErr: "openai: gpt-4o-mini: status 500 server_error after 1 attempt: boom (request id req_abc)",
		},
		{
			name:      "x-should-retry true retries a 400",
			replies:   []reply{{status: 400, body: errBody("invalid_request_error", "", "try again"), header: map[string]string{"X-Should-Retry": "true"}}, {body: chatBody("a")}},
			wantCalls: 2,
		},
		{
			name:      "request id of a 404",
			replies:   []reply{{status: 404, body: errBody("invalid_request_error", "model_not_found", "no such model"), header: map[string]string{"X-Request-Id": "req_404"}}},
			wantCalls: 1, wantCode: swc.EINVALID, wantErr: "no such model (request id req_404)",
		},
		{name: "503 then ok", replies: []reply{{status: 503, body: "upstream down"}, {body: chatBody("a")}}, wantCalls: 2},
		{name: "non-JSON body", replies: []reply{{body: "<<<"}, {body: chatBody("a")}}, wantCalls: 2},
		{name: "truncated body", replies: []reply{{hijack: true, body: chatBody("a")}, {body: chatBody("a")}}, wantCalls: 2},
		{
			name:      "slower than the deadline",
			replies:   []reply{{delay: time.Second, body: chatBody("a")}, {body: chatBody("a")}},
			edit:      func(c *Config) { c.Timeout = 50 * time.Millisecond },
			wantCalls: 2,
		},
		{
			name:      "empty content is an error, not an answer",
			replies:   []reply{{body: chatBody("")}},
			wantCalls: 1, wantCode: swc.EUNAVAILABLE, wantErr: "empty reply (finish_reason stop)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, tt.replies...)
			l, s := newTestLLM(t, f.URL, tt.edit)
			got, err := l.Complete(context.Background(), pingReq)
			if n := f.count(); n != tt.wantCalls {
				t.Errorf("server saw %d calls, want %d", n, tt.wantCalls)
			}
			if tt.wantCode == "" {
				if err != nil || got.Text != "a" {
					t.Fatalf("got %+v, %v; want text a", got, err)
				}
			} else if swc.ErrorCode(err) != tt.wantCode || !strings.Contains(err.Error(), tt.wantErr) || got != (swc.LLMResponse{}) {
				t.Fatalf("got %+v, err = %v (code %s), want %s containing %q", got, err, swc.ErrorCode(err), tt.wantCode, tt.wantErr)
			}
			if tt.wantSleep != nil && fmt.Sprint(s.d) != fmt.Sprint(tt.wantSleep) {
				t.Errorf("sleeps = %v, want %v", s.d, tt.wantSleep)
			}
		})
	}
}

func TestEmbed(t *testing.T) {
	f := newFake(t)
	s := &sleeps{}
	var used atomic.Int64
	e, err := NewEmbedder("all-minilm", "", testConfig(f.URL, s, func(c *Config) { c.BatchSize = 3; c.Provider = "ollama" }))
	if err != nil {
		t.Fatal(err)
	}
	e.OnUsage = func(u swc.Usage) { used.Add(int64(u.InputTokens)) }
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee", "ffffff", "g"}
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("%d vectors", len(vecs))
	}
	for i, v := range vecs {
		if int(v[0]) != len(texts[i]) || int(v[1]) != i%3 {
			t.Errorf("vector %d = %v, want [%d %d]", i, v, len(texts[i]), i%3)
		}
	}
	if f.count() != 3 {
		t.Errorf("%d requests, want 3 batches", f.count())
	}
	if used.Load() != 7 {
		t.Errorf("usage %d tokens, want 7", used.Load())
	}
	if e.Name() != "ollama:all-minilm" {
		t.Errorf("Name = %q", e.Name())
	}
	for _, b := range f.bodies {
		if b["model"] != "all-minilm" || b["encoding_format"] != "float" {
			t.Errorf("body %v", b)
		}
	}
	if v, err := e.Embed(context.Background(), nil); err != nil || len(v) != 0 {
		t.Errorf("empty input: %v, %v", v, err)
	}
}

func TestEmbedRetriesAndFails(t *testing.T) {
	f := newFake(t, reply{status: 429, body: errBody("requests", "rate_limit_exceeded", "slow"), header: map[string]string{"retry-after-ms": "10"}}, reply{})
	s := &sleeps{}
	e, _ := NewEmbedder("text-embedding-3-small", "sk", testConfig(f.URL, s, nil))
	if _, err := e.Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if f.count() != 2 || fmt.Sprint(s.d) != "[10ms]" {
		t.Errorf("%d calls, sleeps %v", f.count(), s.d)
	}

	g := newFake(t, reply{status: 400, body: errBody("invalid_request_error", "", "input cannot be empty")})
	e, _ = NewEmbedder("text-embedding-3-small", "sk", testConfig(g.URL, s, func(c *Config) { c.BatchSize = 1 }))
	vecs, err := e.Embed(context.Background(), []string{"", "y", "z"})
	if vecs != nil || swc.ErrorCode(err) != swc.EINVALID || !strings.Contains(err.Error(), "openai: text-embedding-3-small: status 400 invalid_request_error after 1 attempt: input cannot be empty") {
		t.Fatalf("vecs %v, err %v", vecs, err)
	}
}

// TestRandomFaults: many concurrent calls against a server failing at
// random each end with a reply or a coded error; none is lost or empty.
func TestRandomFaults(t *testing.T) {
	var mu sync.Mutex
	rnd := rand.New(rand.NewPCG(3, 3))
	faults := []reply{
		{status: 429, body: errBody("requests", "rate_limit_exceeded", "slow"), header: map[string]string{"Retry-After": "1"}},
		{status: 500, body: errBody("server_error", "", "boom")},
		{status: 502, body: "bad gateway"},
		{status: 400, body: errBody("invalid_request_error", "", "bad")},
		{body: "garbage"},
		{hijack: true, body: chatBody("x")},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		p, i := rnd.Float64(), rnd.IntN(len(faults))
		mu.Unlock()
		if p < 0.4 {
			serve(w, r, faults[i])
			return
		}
		serve(w, r, reply{body: chatBody("fine")})
	}))
	defer srv.Close()
	l, _ := newTestLLM(t, srv.URL, func(c *Config) { c.Concurrency = 16; c.MaxAttempts = 3 })
	const n = 300
	var ok, unavailable, invalid, other atomic.Int32
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			resp, err := l.Complete(context.Background(), pingReq)
			switch {
			case err == nil && resp.Text == "fine":
				ok.Add(1)
			case swc.ErrorCode(err) == swc.EUNAVAILABLE:
				unavailable.Add(1)
			case swc.ErrorCode(err) == swc.EINVALID:
				invalid.Add(1)
			default:
				other.Add(1)
				t.Errorf("unexpected outcome %+v, %v", resp, err)
			}
		})
	}
	wg.Wait()
	t.Logf("%d calls: %d ok, %d unavailable, %d invalid", n, ok.Load(), unavailable.Load(), invalid.Load())
	if ok.Load()+unavailable.Load()+invalid.Load() != n || other.Load() != 0 {
		t.Errorf("accounted for %d of %d calls", ok.Load()+unavailable.Load()+invalid.Load(), n)
	}
	if ok.Load() == 0 || invalid.Load() == 0 || unavailable.Load() == 0 {
		t.Error("fault mix did not exercise every outcome")
	}
}

// BenchmarkComplete measures the client stack (translation, SDK, retry
// wrapper, loopback HTTP) against a zero-latency server.
func BenchmarkComplete(b *testing.B) {
	body := chatBody("pong")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	defer srv.Close()
	l, _ := newTestLLM(b, srv.URL, nil)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := l.Complete(ctx, pingReq); err != nil {
			b.Fatal(err)
		}
	}
}
