package main

import (
	"bytes"
	"context"
	swchttp "github.com/swcmem/swc/http"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swcmem/swc/embed"
	"github.com/swcmem/swc/internal/memo"
)

// syncBuffer is a bytes.Buffer safe for a server goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeProxy runs swc serve in-process with --upstream-openai pointed
// at a fake upstream: the upstream sees the server's OPENAI_API_KEY, never
// the client's swc key, and the client gets the answer and token headers.
func TestServeProxy(t *testing.T) {
	var gotAuth string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth = r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"cc-1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"hi"}}]}`)
	}))
	defer up.Close()
	db := filepath.Join(t.TempDir(), "swc.db")
	key, _, err := run(t, nil, "keys", "create", "--db", db, "--tenant", "acme")
	if err != nil {
		t.Fatal(err)
	}
	key = strings.TrimSpace(key)

	var out, errb syncBuffer
	env := NewEnv(strings.NewReader(""), &out, &errb, []string{"OPENAI_API_KEY=sk-server-own"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, env, []string{"serve", "--addr", "127.0.0.1:0", "--db", db, "--upstream-openai", up.URL + "/v1", "--budget", "2000", "--log-level", "warn"})
	}()
	defer func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(20 * time.Second):
			t.Error("serve did not stop")
		}
	}()
	addr := regexp.MustCompile(`listening on (http://\S+)`)
	var base string
	for deadline := time.Now().Add(20 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := addr.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
	}
	if base == "" {
		t.Fatalf("serve did not start: %s", errb.String())
	}
	var msgs []string
	for i := range 200 {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs = append(msgs, `{"role":"`+role+`","content":"Message `+strings.Repeat("about the Lisbon trip and Ana's new job ", 3)+`"}`)
	}
	body := `{"model":"gpt-4o","messages":[` + strings.Join(msgs, ",") + `]}`
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"hi"`) {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	if gotAuth != "Bearer sk-server-own" {
		t.Errorf("upstream Authorization %q; want the server's own key", gotAuth)
	}
	if a := resp.Header.Get("X-SWC-Tokens-After"); a == "" || resp.Header.Get("X-SWC-Tokens-Before") == "" {
		t.Errorf("no token headers: %v", resp.Header)
	}
}

func TestServeProxyFlags(t *testing.T) {
	_, _, err := run(t, nil, "serve", "--db", filepath.Join(t.TempDir(), "x.db"), "--upstream-openai", "api.openai.com")
	if err == nil || !strings.Contains(err.Error(), "--upstream-openai") {
		t.Errorf("got %v", err)
	}
}

// TestProxyConfigEmbedder: with the offline lexical embedder the proxy's
// compressors use their own (nil: memory's offline engines, not the
// service's batch memo); with a remote one, the service's.
func TestProxyConfigEmbedder(t *testing.T) {
	env := NewEnv(strings.NewReader(""), io.Discard, io.Discard, nil)
	pf := proxyFlags{compressTimeout: time.Second, keepRecent: 8, recallRounds: swchttp.DefaultRecallRounds}
	for _, tc := range []struct {
		flag string
		want bool
	}{{"lexical", false}, {"openai:text-embedding-3-small", true}} {
		eng := &engines{embedder: memo.NewEmbedder(embed.New(), vectorMemoBytes)}
		cfg, err := proxyConfig(env, pf, &engineFlags{embedder: tc.flag, budget: 4000}, eng)
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.Embedder != nil; got != tc.want {
			t.Errorf("--embedder %s: proxy embedder set = %v, want %v", tc.flag, got, tc.want)
		}
	}
}

// TestServeGC: swc serve raises the GC target unless GOGC is set.
func TestServeGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	if !serveGC(NewEnv(strings.NewReader(""), io.Discard, io.Discard, nil)) || debug.SetGCPercent(100) != serveGCPercent {
		t.Errorf("GOGC unset: the target was not set to %d", serveGCPercent)
	}
	if serveGC(NewEnv(strings.NewReader(""), io.Discard, io.Discard, []string{"GOGC=150"})) || debug.SetGCPercent(100) != 100 {
		t.Errorf("GOGC=150: the target was changed")
	}
}

// TestProxyConfigGemini: --upstream-gemini with GEMINI_API_KEY from the
// environment makes the Gemini upstream; a URL that is not http(s) is a
// usage error naming the flag.
func TestProxyConfigGemini(t *testing.T) {
	env := NewEnv(strings.NewReader(""), io.Discard, io.Discard, []string{"GEMINI_API_KEY=g-server-own"})
	pf := proxyFlags{compressTimeout: time.Second, keepRecent: 8, recallRounds: swchttp.DefaultRecallRounds, gemini: "https://generativelanguage.googleapis.com"}
	cfg, err := proxyConfig(env, pf, &engineFlags{embedder: "lexical", budget: 4000}, &engines{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Gemini.URL != pf.gemini || cfg.Gemini.Key != "g-server-own" {
		t.Errorf("gemini upstream %+v", cfg.Gemini)
	}
	pf.gemini = "generativelanguage.googleapis.com"
	if _, err := proxyConfig(env, pf, &engineFlags{embedder: "lexical", budget: 4000}, &engines{}); err == nil || !strings.Contains(err.Error(), "--upstream-gemini") {
		t.Errorf("bad URL: %v", err)
	}
}

// TestProxyConfigNumbers: --stub-tokens, --turn-tokens, --hold-budget and
// --max-proxy-body reach the proxy's settings, 0 their default (-1 for
// --turn-tokens keeps turns whole); a stub too small for its handle, call
// and outcome, fewer tokens than a sentence, and a negative body limit
// are usage errors naming the flag.
func TestProxyConfigNumbers(t *testing.T) {
	env := NewEnv(strings.NewReader(""), io.Discard, io.Discard, nil)
	for _, f := range []struct {
		flag  string
		set   func(*proxyFlags, int64)
		get   func(swchttp.ProxyConfig) int64
		cases [][2]int64 // flag, setting; -99 for a usage error
	}{
		{"--stub-tokens", func(p *proxyFlags, v int64) { p.stubTokens = int(v) }, func(c swchttp.ProxyConfig) int64 { return int64(c.StubTokens) },
			[][2]int64{{0, 0}, {80, 80}, {minStubTokens, minStubTokens}, {minStubTokens - 1, -99}, {-5, -99}}},
		{"--turn-tokens", func(p *proxyFlags, v int64) { p.turnTokens = int(v) }, func(c swchttp.ProxyConfig) int64 { return int64(c.TurnTokens) },
			[][2]int64{{0, 0}, {-1, -1}, {64, 64}, {minTurnTokens, minTurnTokens}, {minTurnTokens - 1, -99}, {-2, -99}}},
		{"--hold-budget", func(p *proxyFlags, v int64) { p.holdBudget = v == 1 }, func(c swchttp.ProxyConfig) int64 {
			if c.HoldBudget {
				return 1
			}
			return 0
		}, [][2]int64{{0, 0}, {1, 1}}},
		{"--max-proxy-body", func(p *proxyFlags, v int64) { p.maxBody = v }, func(c swchttp.ProxyConfig) int64 { return c.MaxBody },
			[][2]int64{{0, 0}, {swchttp.DefaultProxyMaxBody, swchttp.DefaultProxyMaxBody}, {1 << 20, 1 << 20}, {-1, -99}}},
	} {
		for _, c := range f.cases {
			pf := proxyFlags{compressTimeout: time.Second, keepRecent: 8, recallRounds: swchttp.DefaultRecallRounds}
			f.set(&pf, c[0])
			cfg, err := proxyConfig(env, pf, &engineFlags{embedder: "lexical", budget: 4000}, &engines{})
			if c[1] == -99 {
				if err == nil || !strings.Contains(err.Error(), f.flag) {
					t.Errorf("%s %d: %v, want an error naming the flag", f.flag, c[0], err)
				}
				continue
			}
			if got := f.get(cfg); err != nil || got != c[1] {
				t.Errorf("%s %d: setting %d, %v; want %d", f.flag, c[0], got, err, c[1])
			}
		}
	}
}
