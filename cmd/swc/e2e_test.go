package main

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/swcmem/swc/bench"
)

// fakeAnthropic speaks the Messages API: gists for system prompts that
// carry the gist instructions, YES/NO for judge prompts, a short answer
// otherwise. Every 7th request gets a 429 and every 11th a 500.
type fakeAnthropic struct {
	requests atomic.Int64
	mu       sync.Mutex
	verdicts map[string]string // question → YES/NO the judge gave
	kinds    map[string]int
}

func (f *fakeAnthropic) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.requests.Add(1)
	if r.URL.Path != "/v1/messages" || r.Header.Get("x-api-key") != "test-key" || r.Header.Get("anthropic-version") == "" {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad request"}}`, 400)
		return
	}
	if n%7 == 0 {
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(429)
		io.WriteString(w, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`)
		return
	}
	if n%11 == 0 {
		w.WriteHeader(500)
		io.WriteString(w, `{"type":"error","error":{"type":"api_error","message":"boom"}}`)
		return
	}
	var req struct {
		Model    string `json:"model"`
		System   any    `json:"system"`
		Messages []struct {
			Content any `json:"content"`
		} `json:"messages"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		http.Error(w, "bad json", 400)
		return
	}
	system := fmt.Sprint(req.System)
	user := string(body)
	var reply, kind string
	switch {
	case strings.Contains(system, "Preserve:") || strings.Contains(system, "running summary"):
		kind, reply = "gist", "Maya adopted Biscuit on 6 January 2024 and Jonas builds a canoe."
	case strings.Contains(user, "Gold answer:"):
		kind = "judge"
		q := between(user, "Question: ", ". Gold answer:")
		h := fnv.New32a()
		h.Write([]byte(q))
		reply = "NO"
		if h.Sum32()%2 == 0 {
			reply = "YES"
		}
		f.mu.Lock()
		f.verdicts[q] = reply
		f.mu.Unlock()
	default:
		kind, reply = "qa", "6 January 2024"
	}
	f.mu.Lock()
	f.kinds[kind]++
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"msg_%d","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":%q}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":5}}`, n, req.Model, reply, len(body)/4)
}

func between(s, a, b string) string {
	i := strings.Index(s, a)
	if i < 0 {
		return ""
	}
	s = s[i+len(a):]
	if j := strings.Index(s, b); j >= 0 {
		return s[:j]
	}
	return s
}

// TestBenchLLMEndToEnd runs gist + QA + judge against a fake Anthropic
// server with injected 429 and 500 faults.
func TestBenchLLMEndToEnd(t *testing.T) {
	providerSleepHook = func(ctx context.Context, d time.Duration) error { return ctx.Err() }
	defer func() { providerSleepHook = nil }()
	fake := &fakeAnthropic{verdicts: map[string]string{}, kinds: map[string]int{}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	vars := map[string]string{"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.URL}
	dir := t.TempDir()
	args := []string{"bench", "--out", dir, "--conditions", "truncation,swc-full,swc-temporal",
		"--gister", "anthropic:claude-haiku-4-5-20251001", "--qa", "anthropic:claude-sonnet-4-6",
		"--cache", filepath.Join(dir, "cache.db"), "--resamples", "100", "--concurrency", "4", "--judge-audit", "5"}
	_, stderr, err := run(t, vars, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	rows := readRows(t, dir)
	if len(rows) != 3*58 {
		t.Fatalf("%d rows, want %d", len(rows), 3*58)
	}
	for _, r := range rows {
		if r.Error != "" {
			t.Errorf("%s %s: %s", r.Condition, r.QuestionID, r.Error)
			continue
		}
		want, ok := fake.verdicts[strings.TrimSpace(r.Question)]
		if !ok || r.Verdict != want {
			t.Errorf("%s: verdict %q, the fake judge said %q", r.QuestionID, r.Verdict, want)
		}
		wantJudge := 0.0
		if want == "YES" {
			wantJudge = 1
		}
		if r.Metrics[bench.MetricJudge] != wantJudge {
			t.Errorf("%s: judge metric %v for verdict %q", r.QuestionID, r.Metrics[bench.MetricJudge], r.Verdict)
		}
		if _, ok := r.Metrics[bench.MetricF1]; !ok || r.Answer != "6 January 2024" || r.Tokens.Prompt <= r.Tokens.Context {
			t.Errorf("%s: answer %q metrics %v tokens %+v", r.QuestionID, r.Answer, r.Metrics, r.Tokens)
		}
	}
	if fake.kinds["gist"] == 0 {
		t.Error("no gist requests reached the fake")
	}
	if !strings.Contains(stderr, "LLM usage") {
		t.Errorf("no usage table on stderr:\n%s", stderr)
	}
	var sum bench.Summary
	data, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	if a := sum.JudgeAudit; a == nil || a.Questions != 5 || a.Kinds[bench.AuditVague].Asked != 5 {
		t.Errorf("judge audit %+v", sum.JudgeAudit)
	}
	if sum.Usage.Total.Calls == 0 || sum.Settings.QA != "anthropic:claude-sonnet-4-6" || sum.Settings.Judge != "anthropic:claude-haiku-4-5-20251001" {
		t.Errorf("usage %+v, settings %+v", sum.Usage.Total, sum.Settings)
	}
	// A rerun with the warm caches sends nothing.
	before := fake.requests.Load()
	dir2 := t.TempDir()
	args2 := append([]string(nil), args...)
	args2[2] = dir2
	if _, _, err := run(t, vars, args2...); err != nil {
		t.Fatal(err)
	}
	if sent := fake.requests.Load() - before; sent != 0 {
		t.Errorf("rerun with a warm cache sent %d requests", sent)
	}
}

// TestCompressLLMGister runs swc compress with the Anthropic gister against
// the fake server, then again with a warm REM cache.
func TestCompressLLMGister(t *testing.T) {
	providerSleepHook = func(ctx context.Context, d time.Duration) error { return ctx.Err() }
	defer func() { providerSleepHook = nil }()
	fake := &fakeAnthropic{verdicts: map[string]string{}, kinds: map[string]int{}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	vars := map[string]string{"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.URL}
	cache := filepath.Join(t.TempDir(), "cache.db")
	args := []string{"compress", "--strategy", "swc-temporal", "--gister", "anthropic:claude-haiku-4-5-20251001", "--cache", cache, "--json"}
	out, stderr, err := run(t, vars, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var x struct {
		Chunks []struct {
			Action string `json:"action"`
			Gist   string `json:"gist"`
		} `json:"chunks"`
	}
	if err := json.Unmarshal([]byte(out), &x); err != nil {
		t.Fatal(err)
	}
	gists := 0
	for _, ch := range x.Chunks {
		if ch.Action == "gist" {
			gists++
			if !strings.Contains(ch.Gist, "Biscuit") {
				t.Errorf("gist %q is not the fake's", ch.Gist)
			}
		}
	}
	if gists == 0 || fake.kinds["gist"] == 0 || !strings.Contains(stderr, "gist") {
		t.Errorf("gists %d, fake saw %v, stderr %q", gists, fake.kinds, stderr)
	}
	before := fake.requests.Load()
	out2, _, err := run(t, vars, args...)
	if err != nil {
		t.Fatal(err)
	}
	if fake.requests.Load() != before || out2 != out {
		t.Errorf("warm rerun sent %d requests; same output: %v", fake.requests.Load()-before, out2 == out)
	}
	// A missing key is an error naming the variable.
	_, _, err = run(t, map[string]string{"ANTHROPIC_BASE_URL": srv.URL}, args...)
	if err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Errorf("missing key: %v", err)
	}
}

// fakeOpenAI speaks chat completions and embeddings.
func fakeOpenAI(t *testing.T, embedCalls *atomic.Int64) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/embeddings":
			embedCalls.Add(1)
			var req struct {
				Input []string `json:"input"`
				Model string   `json:"model"`
			}
			if err := json.Unmarshal(body, &req); err != nil || req.Model != "all-minilm" {
				http.Error(w, "bad embeddings request", 400)
				return
			}
			var data []string
			for i, in := range req.Input {
				h := fnv.New32a()
				h.Write([]byte(in))
				v := h.Sum32()
				data = append(data, fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":[%d,%d,%d,1]}`, i, v%7, v%5, v%3))
			}
			fmt.Fprintf(w, `{"object":"list","model":"all-minilm","data":[%s],"usage":{"prompt_tokens":%d,"total_tokens":%d}}`, strings.Join(data, ","), len(req.Input), len(req.Input))
		case "/v1/chat/completions":
			if !strings.Contains(string(body), `"temperature":0`) {
				t.Errorf("chat request without temperature 0: %s", body)
			}
			fmt.Fprint(w, `{"id":"c1","object":"chat.completion","created":1,"model":"llama3.1","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Maya adopted Biscuit."}}],"usage":{"prompt_tokens":100,"completion_tokens":5,"total_tokens":105}}`)
		default:
			http.Error(w, "not found", 404)
		}
	}))
}

// TestCompressOllama uses an Ollama-style OpenAI-compatible server for both
// the gister and the embedder.
func TestCompressOllama(t *testing.T) {
	var embeds atomic.Int64
	srv := fakeOpenAI(t, &embeds)
	defer srv.Close()
	cache := filepath.Join(t.TempDir(), "cache.db")
	args := []string{"compress", "--strategy", "swc-full", "--gister", "ollama:llama3.1", "--embedder", "ollama:all-minilm",
		"--ollama-base-url", srv.URL + "/v1", "--cache", cache, "--json"}
	out, stderr, err := run(t, nil, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(out, "Maya adopted Biscuit.") || embeds.Load() == 0 {
		t.Errorf("no remote gists or embeddings used (embedding calls %d)", embeds.Load())
	}
	before := embeds.Load()
	if _, _, err := run(t, nil, args...); err != nil {
		t.Fatal(err)
	}
	if embeds.Load() != before {
		t.Errorf("a warm run embedded again (%d calls)", embeds.Load()-before)
	}
	_, _, err = run(t, nil, "compress", "--embedder", "anthropic:x", "--no-cache")
	if err == nil || !strings.Contains(err.Error(), "no embeddings API") {
		t.Errorf("anthropic embedder: %v", err)
	}
}
