package main

import (
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeProvider speaks the Anthropic Messages and OpenAI chat/embeddings
// wire formats, answering status with the canned bodies, and records the
// request paths, headers and bodies.
type fakeProvider struct {
	*httptest.Server
	mu      sync.Mutex
	status  int
	paths   []string
	headers []http.Header
	bodies  []map[string]any
}

func newFakeProvider(t *testing.T, status int) *fakeProvider {
	f := &fakeProvider{status: status}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &body)
		f.mu.Lock()
		f.paths = append(f.paths, r.URL.Path)
		f.headers = append(f.headers, r.Header.Clone())
		f.bodies = append(f.bodies, body)
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if f.status != http.StatusOK {
			w.WriteHeader(f.status)
			io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
			return
		}
		switch r.URL.Path {
		case "/v1/messages":
			io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-4-5-20251001","content":[{"type":"text","text":"pong"}],"stop_reason":"end_turn","usage":{"input_tokens":14,"output_tokens":2}}`)
		case "/v1/chat/completions":
			io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"message":{"role":"assistant","content":"Pong."},"finish_reason":"stop"}],"usage":{"prompt_tokens":15,"completion_tokens":2,"total_tokens":17}}`)
		case "/v1/embeddings":
			io.WriteString(w, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.5,0.25]}],"model":"all-minilm","usage":{"prompt_tokens":1,"total_tokens":1}}`)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(f.Close)
	return f
}

func TestLLMPing(t *testing.T) {
	f := newFakeProvider(t, http.StatusOK)
	tests := []struct {
		name    string
		vars    map[string]string
		args    []string
		want    string
		path    string
		headers map[string]string
	}{
		{
			name: "anthropic via ANTHROPIC_BASE_URL",
			vars: map[string]string{"ANTHROPIC_BASE_URL": f.URL, "ANTHROPIC_API_KEY": "sk-ant"},
			args: []string{"anthropic:claude-haiku-4-5-20251001"},
			want: `anthropic:claude-haiku-4-5-20251001 (claude-haiku-4-5-20251001) replied "pong" in `,
			path: "/v1/messages", headers: map[string]string{"X-Api-Key": "sk-ant"},
		},
		{
			name: "anthropic base URL flag beats the variable",
			vars: map[string]string{"ANTHROPIC_BASE_URL": "http://127.0.0.1:1", "ANTHROPIC_API_KEY": "sk-ant"},
			args: []string{"--anthropic-base-url", f.URL, "anthropic:claude-haiku-4-5-20251001"},
			want: `replied "pong"`, path: "/v1/messages",
		},
		{
			name: "openai",
			vars: map[string]string{"OPENAI_BASE_URL": f.URL + "/v1", "OPENAI_API_KEY": "sk-oa"},
			args: []string{"openai:gpt-4o-mini"},
			want: `openai:gpt-4o-mini (gpt-4o-mini-2024-07-18) replied "Pong." in `,
			path: "/v1/chat/completions", headers: map[string]string{"Authorization": "Bearer sk-oa"},
		},
		{
			name: "ollama needs no key",
			vars: map[string]string{"OLLAMA_BASE_URL": f.URL + "/v1"},
			args: []string{"--timeout", "5s", "ollama:llama3.1:8b"},
			want: `ollama:llama3.1:8b (gpt-4o-mini-2024-07-18) replied "Pong."`,
			path: "/v1/chat/completions", headers: map[string]string{"Authorization": ""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.mu.Lock()
			before := len(f.paths)
			f.mu.Unlock()
			out, _, err := run(t, tt.vars, append([]string{"llm", "ping"}, tt.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("out = %q, want %q", out, tt.want)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if len(f.paths) != before+1 || f.paths[before] != tt.path {
				t.Fatalf("requests %v, want one to %s", f.paths[before:], tt.path)
			}
			for k, v := range tt.headers {
				if got := f.headers[before].Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			// OpenAI's chat completions take max_completion_tokens (max_tokens
			// is deprecated); Anthropic's and Ollama's max_tokens.
			field := "max_tokens"
			if tt.path == "/v1/chat/completions" && !strings.HasPrefix(tt.name, "ollama") {
				field = "max_completion_tokens"
			}
			if body := f.bodies[before]; body[field] != float64(16) {
				t.Errorf("%s = %v in %v", field, body[field], body)
			}
			if tt.path == "/v1/chat/completions" {
				if temp, ok := f.bodies[before]["temperature"]; !ok || temp != float64(0) {
					t.Errorf("temperature = %v (sent %v), want 0", temp, ok)
				}
			}
		})
	}
}

func TestLLMPingFails(t *testing.T) {
	f := newFakeProvider(t, 529)
	vars := map[string]string{"ANTHROPIC_BASE_URL": f.URL, "ANTHROPIC_API_KEY": "k"}
	_, _, err := run(t, vars, "llm", "ping", "--max-attempts", "1", "anthropic:claude-haiku-4-5-20251001")
	want := "anthropic: claude-haiku-4-5-20251001: status 529 overloaded_error after 1 attempt: Overloaded"
	if err == nil || !strings.Contains(err.Error(), want) || exitCode(err) != 1 {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

func TestProviderUsageErrors(t *testing.T) {
	tests := []struct {
		vars map[string]string
		args []string
		want string
	}{
		{nil, []string{"llm", "ping", "anthropic:claude-haiku-4-5-20251001"}, "set ANTHROPIC_API_KEY"},
		{nil, []string{"llm", "ping", "openai:gpt-4o-mini"}, "set OPENAI_API_KEY"},
		{nil, []string{"llm", "ping", "gemini:pro"}, `unknown provider "gemini" (want anthropic:MODEL, openai:MODEL or ollama:MODEL)`},
		{nil, []string{"llm", "ping", "gpt-4o-mini"}, `"gpt-4o-mini" is not PROVIDER:MODEL`},
		{nil, []string{"llm", "ping"}, "want one PROVIDER:MODEL argument"},
		{nil, []string{"llm", "pong"}, `want "swc llm ping`},
		{nil, []string{"llm", "ping", "--concurrency", "0", "ollama:x"}, "--concurrency must be at least 1"},
		{nil, []string{"llm", "ping", "--timeout", "soon", "ollama:x"}, "invalid value"},
	}
	for _, tt := range tests {
		_, _, err := run(t, tt.vars, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) || exitCode(err) != 2 {
			t.Errorf("%v: err = %v (exit %d), want usage error containing %q", tt.args, err, exitCode(err), tt.want)
		}
	}
}

func TestNewEmbedder(t *testing.T) {
	f := newFakeProvider(t, http.StatusOK)
	env := NewEnv(strings.NewReader(""), io.Discard, io.Discard, nil)
	env.Vars["OLLAMA_BASE_URL"] = f.URL + "/v1"
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	o := addProviderFlags(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	e, err := newEmbedder(env, "ollama:all-minilm", o)
	if err != nil {
		t.Fatal(err)
	}
	vecs, err := e.Embed(t.Context(), []string{"hello"})
	if err != nil || len(vecs) != 1 || vecs[0][0] != 0.5 || e.Name() != "ollama:all-minilm" {
		t.Fatalf("vecs %v, err %v, name %s", vecs, err, e.Name())
	}
	if f.paths[0] != "/v1/embeddings" {
		t.Errorf("path %s", f.paths[0])
	}
	for spec, want := range map[string]string{
		"anthropic:x":                   "Anthropic has no embeddings API",
		"cohere:embed-v4":               `unknown provider "cohere" (want openai:MODEL or ollama:MODEL)`,
		"openai:text-embedding-3-small": "set OPENAI_API_KEY",
	} {
		if _, err := newEmbedder(env, spec, o); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", spec, err, want)
		}
	}
}

// TestProvidersShareLimits: clients of one server share one set of limits;
// another server gets its own.
func TestProvidersShareLimits(t *testing.T) {
	env := &Env{Vars: map[string]string{"ANTHROPIC_API_KEY": "k"}}
	o := &providerOptions{concurrency: 2, timeout: time.Second, maxAttempts: 1}
	for _, spec := range []string{"anthropic:claude-sonnet-4-6", "anthropic:claude-haiku-4-5-20251001", "ollama:llama3.1", "ollama:all-minilm"} {
		if _, err := newLLM(env, spec, o); err != nil {
			t.Fatal(err)
		}
	}
	if len(o.limits) != 2 {
		t.Errorf("%d limit sets for two servers: %v", len(o.limits), o.limits)
	}
}
