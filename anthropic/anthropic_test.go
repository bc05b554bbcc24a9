package anthropic

import (
	"context"
	"encoding/json"
	"errors"
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

const testModel = "claude-haiku-4-5-20251001"

func okBody(text string) string {
	return fmt.Sprintf(`{"id":"msg_01","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":%q}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":11,"output_tokens":2}}`, testModel, text)
}

func errBody(typ, msg string) string {
	return fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":%q}}`, typ, msg)
}

// reply is one canned answer of the fake server.
type reply struct {
	status int
	body   string
	header map[string]string
	delay  time.Duration
	hijack bool // send a truncated body and close the connection
}

// fakeServer answers POST /v1/messages with replies in order, repeating the
// last one, and records the requests.
type fakeServer struct {
	*httptest.Server
	mu      sync.Mutex
	replies []reply
	calls   int
	bodies  []map[string]any
	headers []http.Header
}

func newFake(t *testing.T, replies ...reply) *fakeServer {
	f := &fakeServer{replies: replies}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		var body map[string]any
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &body); err != nil {
			http.Error(w, "bad json", http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		rep := f.replies[min(f.calls, len(f.replies)-1)]
		f.calls++
		f.bodies = append(f.bodies, body)
		f.headers = append(f.headers, r.Header.Clone())
		f.mu.Unlock()
		serve(w, r, rep)
	}))
	t.Cleanup(f.Close)
	return f
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
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	status := rep.status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	io.WriteString(w, rep.body)
}

func (f *fakeServer) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// sleeps records the backoff waits instead of sleeping.
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

func newTestLLM(t testing.TB, url string, edit func(*Config)) (*LLM, *sleeps) {
	t.Helper()
	s := &sleeps{}
	cfg := Config{BaseURL: url, Config: retry.Config{Sleep: s.sleep, Timeout: 5 * time.Second, Seed: 1}}
	if edit != nil {
		edit(&cfg)
	}
	l, err := New(testModel, "sk-test", cfg)
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
	f := newFake(t, reply{body: okBody("pong")})
	l, _ := newTestLLM(t, f.URL, nil)
	got, err := l.Complete(context.Background(), pingReq)
	if err != nil {
		t.Fatal(err)
	}
	want := swc.LLMResponse{Text: "pong", Model: testModel, StopReason: "end_turn", Usage: swc.Usage{InputTokens: 11, OutputTokens: 2, Calls: 1}}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if l.Name() != "anthropic:"+testModel {
		t.Errorf("Name = %q", l.Name())
	}
	h, body := f.headers[0], f.bodies[0]
	if h.Get("X-Api-Key") != "sk-test" {
		t.Errorf("x-api-key = %q", h.Get("X-Api-Key"))
	}
	if h.Get("Anthropic-Version") == "" {
		t.Error("no anthropic-version header")
	}
	if body["model"] != testModel || body["max_tokens"] != float64(16) {
		t.Errorf("model/max_tokens = %v/%v", body["model"], body["max_tokens"])
	}
	sys, _ := json.Marshal(body["system"])
	if string(sys) != `[{"text":"You are terse.","type":"text"}]` {
		t.Errorf("system = %s", sys)
	}
	msgs, _ := json.Marshal(body["messages"])
	if string(msgs) != `[{"content":[{"text":"Reply with the single word: pong","type":"text"}],"role":"user"}]` {
		t.Errorf("messages = %s", msgs)
	}
	if _, ok := body["temperature"]; ok {
		t.Error("temperature sent; API 2026-10-21 rejects it")
	}
}

func TestCompleteRetries(t *testing.T) {
	overloaded := reply{status: 529, body: errBody("overloaded_error", "Overloaded")}
	tests := []struct {
		name      string
		replies   []reply
		edit      func(*Config)
		wantCalls int
		wantCode  string // "" for success
		wantErr   string
		wantSleep []time.Duration // nil: not checked
	}{
		{name: "ok first time", replies: []reply{{body: okBody("a")}}, wantCalls: 1, wantSleep: []time.Duration{}},
		{name: "529 then ok", replies: []reply{overloaded, overloaded, {body: okBody("a")}}, wantCalls: 3},
		{
			name:      "429 honours Retry-After seconds",
			replies:   []reply{{status: 429, body: errBody("rate_limit_error", "slow down"), header: map[string]string{"Retry-After": "7"}}, {body: okBody("a")}},
			wantCalls: 2, wantSleep: []time.Duration{7 * time.Second},
		},
		{
			name:      "retry-after-ms",
			replies:   []reply{{status: 429, body: errBody("rate_limit_error", "slow down"), header: map[string]string{"retry-after-ms": "1200"}}, {body: okBody("a")}},
			wantCalls: 2, wantSleep: []time.Duration{1200 * time.Millisecond},
		},
		{
			name:      "529 exhausts attempts",
			replies:   []reply{overloaded},
			wantCalls: 5, wantCode: swc.EUNAVAILABLE,
			wantErr: "anthropic: claude-haiku-4-5-20251001: status 529 overloaded_error after 5 attempts: Overloaded",
		},
		{
			name:      "500 with MaxAttempts 2",
			replies:   []reply{{status: 500, body: errBody("api_error", "Internal server error")}},
			edit:      func(c *Config) { c.MaxAttempts = 2 },
			wantCalls: 2, wantCode: swc.EUNAVAILABLE, wantErr: "status 500 api_error after 2 attempts: Internal server error",
		},
		{
			name:      "400 is not retried",
			replies:   []reply{{status: 400, body: errBody("invalid_request_error", "max_tokens: must be positive")}},
			wantCalls: 1, wantCode: swc.EINVALID, wantErr: "status 400 invalid_request_error after 1 attempt: max_tokens: must be positive",
		},
		{
			name:      "401 is not retried",
			replies:   []reply{{status: 401, body: errBody("authentication_error", "invalid x-api-key")}},
			wantCalls: 1, wantCode: swc.EINVALID, wantErr: "status 401 authentication_error",
		},
		{
			name:      "502 html from a proxy",
			replies:   []reply{{status: 502, body: "<html>Bad Gateway</html>"}, {body: okBody("a")}},
			wantCalls: 2,
		},
		{name: "non-JSON 200 body", replies: []reply{{body: "not json at all"}, {body: okBody("a")}}, wantCalls: 2},
		{name: "truncated body", replies: []reply{{hijack: true, body: okBody("a")}, {body: okBody("a")}}, wantCalls: 2},
		{
			name:      "slower than the deadline",
			replies:   []reply{{delay: time.Second, body: okBody("a")}, {body: okBody("a")}},
			edit:      func(c *Config) { c.Timeout = 50 * time.Millisecond },
			wantCalls: 2,
		},
		{
			name:      "always slow",
			replies:   []reply{{delay: time.Second, body: okBody("a")}},
			edit:      func(c *Config) { c.Timeout = 30 * time.Millisecond; c.MaxAttempts = 3 },
			wantCalls: 3, wantCode: swc.EUNAVAILABLE, wantErr: "timeout after 3 attempts",
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
			} else {
				if got != (swc.LLMResponse{}) {
					t.Errorf("failed call returned %+v", got)
				}
				if swc.ErrorCode(err) != tt.wantCode || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v (code %s), want %s containing %q", err, swc.ErrorCode(err), tt.wantCode, tt.wantErr)
				}
			}
			if err != nil {
				t.Log(err)
			}
			if len(s.d) != f.count()-1 {
				t.Errorf("%d sleeps for %d calls", len(s.d), f.count())
			}
			if tt.wantSleep != nil && fmt.Sprint(s.d) != fmt.Sprint(tt.wantSleep) {
				t.Errorf("sleeps = %v, want %v", s.d, tt.wantSleep)
			}
		})
	}
}

func TestConnectionRefused(t *testing.T) {
	f := newFake(t, reply{body: okBody("a")})
	url := f.URL
	f.Close()
	l, s := newTestLLM(t, url, func(c *Config) { c.MaxAttempts = 3 })
	_, err := l.Complete(context.Background(), pingReq)
	if swc.ErrorCode(err) != swc.EUNAVAILABLE || !strings.Contains(err.Error(), "connection error after 3 attempts") {
		t.Fatalf("err = %v", err)
	}
	if len(s.d) != 2 {
		t.Errorf("sleeps = %v", s.d)
	}
	t.Log(err)
}

func TestCanceled(t *testing.T) {
	f := newFake(t, reply{delay: 5 * time.Second, body: okBody("a")})
	l, _ := newTestLLM(t, f.URL, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := l.Complete(ctx, pingReq)
	if !errors.Is(err, context.DeadlineExceeded) || swc.ErrorCode(err) != swc.EUNAVAILABLE {
		t.Fatalf("err = %v (code %s)", err, swc.ErrorCode(err))
	}
	if !strings.Contains(err.Error(), "interrupted after 1 attempt") {
		t.Errorf("err = %v", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("took %v", el)
	}
}

func TestMissingKey(t *testing.T) {
	_, err := New(testModel, "", Config{})
	if swc.ErrorCode(err) != swc.EINVALID || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Fatalf("err = %v", err)
	}
}

// TestRandomFaults runs many concurrent calls against a server that fails
// at random and checks that every call ends either with a reply or with a
// coded error, never with an empty answer.
func TestRandomFaults(t *testing.T) {
	var mu sync.Mutex
	rnd := rand.New(rand.NewPCG(7, 7))
	faults := []reply{
		{status: 529, body: errBody("overloaded_error", "Overloaded")},
		{status: 500, body: errBody("api_error", "boom")},
		{status: 429, body: errBody("rate_limit_error", "slow"), header: map[string]string{"Retry-After": "1"}},
		{status: 400, body: errBody("invalid_request_error", "bad")},
		{body: "{not json"},
		{hijack: true, body: okBody("x")},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		p := rnd.Float64()
		i := rnd.IntN(len(faults))
		mu.Unlock()
		if p < 0.4 {
			serve(w, r, faults[i])
			return
		}
		serve(w, r, reply{body: okBody("fine")})
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
	if got := ok.Load() + unavailable.Load() + invalid.Load(); got != n || other.Load() != 0 {
		t.Errorf("accounted for %d of %d calls", got, n)
	}
	if ok.Load() == 0 || invalid.Load() == 0 {
		t.Error("fault mix did not exercise both outcomes")
	}
}
