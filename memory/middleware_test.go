package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/swcmem/swc/chat"
)

// capture is a MiddlewareNext that records the request body it is given.
type capture struct {
	body []byte
	path string
}

func (c *capture) next(r *http.Request) (*http.Response, error) {
	c.body, _ = io.ReadAll(r.Body)
	c.path = r.URL.Path
	if r.ContentLength != int64(len(c.body)) {
		return nil, io.ErrUnexpectedEOF
	}
	return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("{}"))}, nil
}

func post(t *testing.T, url string, body []byte) *http.Request {
	t.Helper()
	r, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func sampleBody(t *testing.T, extra string) []byte {
	msgs, err := chat.Sample()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(chat.OpenAIMessages(msgs))
	return []byte(`{"model":"gpt-4o","stream":true,` + extra + `"messages":` + string(b) + `}`)
}

func TestOpenAIMiddleware(t *testing.T) {
	o := DefaultOptions()
	o.Budget = 1500
	c := mustNew(t, o)
	var got *Result
	mw := OpenAIMiddleware(c, func(r *Result, err error) {
		if err != nil {
			t.Fatal(err)
		}
		got = r
	})
	body := sampleBody(t, `"tools":[{"type":"function","function":{"name":"weather"}}],`)
	var cp capture
	if _, err := mw(post(t, "https://api.openai.com/v1/chat/completions", body), cp.next); err != nil {
		t.Fatal(err)
	}
	in, err := chat.Parse(cp.body, chat.OpenAI)
	if err != nil {
		t.Fatalf("the compressed request does not parse: %v", err)
	}
	if err := chat.CheckOpenAI(chat.OpenAIMessages(in.Messages)); err != nil {
		t.Error(err)
	}
	// The memory written into the system message, the messages sent
	// count the per-message overhead fewer than the result's.
	if got == nil || got.Tokens > 1500 || c.CountMessages(in.Messages) != got.Tokens-MessageOverhead {
		t.Fatalf("result %+v; sent %d tokens", got, c.CountMessages(in.Messages))
	}
	if string(in.Body["stream"]) != "true" || !bytes.Contains(in.Body["tools"], []byte("weather")) || string(in.Body["model"]) != `"gpt-4o"` {
		t.Errorf("other fields lost: %s", cp.body[:200])
	}
	// Kept messages go out byte for byte.
	orig, _ := chat.Parse(body, chat.OpenAI)
	last := in.Raw[len(in.Raw)-1]
	if !bytes.Equal(last, orig.Raw[len(orig.Raw)-1]) {
		t.Errorf("last message changed:\n%s\n%s", last, orig.Raw[len(orig.Raw)-1])
	}

	// Other endpoints, and requests that fit, pass unchanged.
	for _, tc := range []struct{ url, body string }{
		{"https://api.openai.com/v1/embeddings", string(body)},
		{"https://api.openai.com/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`},
		{"https://api.openai.com/v1/chat/completions", `{"model":"m","messages":[{"role":"tool","content":"orphan"}]}`},
	} {
		cp = capture{}
		if _, err := OpenAIMiddleware(c, nil)(post(t, tc.url, []byte(tc.body)), cp.next); err != nil {
			t.Fatal(err)
		}
		if string(cp.body) != tc.body {
			t.Errorf("%s: body changed", tc.url)
		}
	}
}

func TestAnthropicMiddleware(t *testing.T) {
	msgs, _ := chat.Sample()
	req := chat.ToAnthropic(msgs)
	mb, _ := json.Marshal(req.Messages)
	for _, system := range []string{`"You are Sol."`, `[{"type":"text","text":"You are Sol.","cache_control":{"type":"ephemeral"}}]`} {
		body := []byte(`{"model":"claude-haiku-4-5","max_tokens":100,"system":` + system + `,"messages":` + string(mb) + `}`)
		for _, keep := range []int{0, 1, 2, 3, 5, 8, 13} {
			o := DefaultOptions()
			o.Budget, o.KeepRecent = 1500, keep
			res, cp := sendAnthropic(t, o, body)
			in, err := chat.Parse(cp.body, chat.Anthropic)
			if err != nil {
				t.Fatalf("keep %d: compressed request does not parse: %v", keep, err)
			}
			var roles struct {
				System   json.RawMessage
				Messages []struct{ Role string }
			}
			_ = json.Unmarshal(cp.body, &roles)
			for i, m := range roles.Messages {
				if want := []string{"user", "assistant"}[i%2]; m.Role != want {
					t.Fatalf("keep %d: messages[%d] is %s, want %s", keep, i, m.Role, want)
				}
			}
			if !bytes.Contains(roles.System, []byte("You are Sol.")) || !bytes.Contains(roles.System, []byte("[Session 1 — ")) {
				t.Errorf("keep %d: system %s", keep, roles.System[:min(100, len(roles.System))])
			}
			if strings.HasPrefix(system, "[") && !bytes.Contains(roles.System, []byte("cache_control")) {
				t.Errorf("cache_control lost")
			}
			if res.Tokens > 1500 || len(in.Messages) == 0 {
				t.Errorf("keep %d: %d tokens", keep, res.Tokens)
			}
		}
	}
}

func BenchmarkMiddlewareOverhead(b *testing.B) {
	o := DefaultOptions()
	o.Budget = 1500
	c, _ := New(o)
	msgs, _ := chat.Sample()
	mb, _ := json.Marshal(chat.OpenAIMessages(msgs))
	body := []byte(`{"model":"gpt-4o","messages":` + string(mb) + `}`)
	next := func(r *http.Request) (*http.Response, error) {
		_, _ = io.Copy(io.Discard, r.Body)
		return nil, nil
	}
	in, _ := chat.Parse(body, chat.OpenAI)
	b.Run("compress-only", func(b *testing.B) {
		defer reportCPU(b, cpuTime())
		for b.Loop() {
			if _, err := c.Compress(context.Background(), in.Messages); err != nil {
				b.Fatal(err)
			}
		}
	})
	// What the middleware adds to the compression: reading the body,
	// parsing it, splicing the result back and replacing the body.
	res, err := c.Compress(context.Background(), in.Messages)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("overhead-only", func(b *testing.B) {
		defer reportCPU(b, cpuTime())
		for b.Loop() {
			r, _ := http.NewRequest(http.MethodPost, "http://x/v1/chat/completions", bytes.NewReader(body))
			raw, _ := io.ReadAll(r.Body)
			pin, err := chat.Parse(raw, chat.OpenAI)
			if err != nil {
				b.Fatal(err)
			}
			nb, err := SpliceRequest(pin, res)
			if err != nil {
				b.Fatal(err)
			}
			setBody(r, nb)
		}
	})
	b.Run("middleware", func(b *testing.B) {
		mw := OpenAIMiddleware(c, nil)
		defer reportCPU(b, cpuTime())
		for b.Loop() {
			r, _ := http.NewRequest(http.MethodPost, "http://x/v1/chat/completions", bytes.NewReader(body))
			_, _ = mw(r, next)
		}
	})
}

// BenchmarkMiddlewareLargeBody: a tool loop's Messages request of 1 and 16
// MB (tool outputs of text) through AnthropicMiddleware at 16,000 tokens,
// the compressor warm (the next request of a loop): the bytes allocated
// per byte of the body (alloc/body-B), which the body's text copy and the
// compressed body bound. A splice sized by the input's length held a
// second body's worth until the provider answered.
func BenchmarkMiddlewareLargeBody(b *testing.B) {
	for _, mb := range []int{1, 16} {
		b.Run(fmt.Sprintf("%dMB", mb), func(b *testing.B) {
			body := largeLoopBody(mb << 20)
			o := DefaultOptions()
			o.Budget = 16000
			mw := AnthropicMiddleware(mustNew(b, o), nil)
			next := func(r *http.Request) (*http.Response, error) {
				_, _ = io.Copy(io.Discard, r.Body)
				return nil, nil
			}
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				r, _ := http.NewRequest(http.MethodPost, "http://x/v1/messages", bytes.NewReader(body))
				if _, err := mw(r, next); err != nil {
					b.Fatal(err)
				}
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(len(body)), "alloc/body-B")
		})
	}
}

// largeLoopBody is a Messages request of about size bytes: a task, then
// read_file calls each answered by 80 KB of code lines.
func largeLoopBody(size int) []byte {
	var b strings.Builder
	b.WriteString(`{"model":"claude-sonnet-4-6","max_tokens":1024,"system":"You are a coding agent.","messages":[{"role":"user","content":"Fix the crash in src/app/parser.py."}`)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, `,{"role":"assistant","content":[{"type":"tool_use","id":"c%d","name":"read_file","input":{"path":"src/app/mod_%d.py"}}]}`, i, i)
		fmt.Fprintf(&b, `,{"role":"user","content":[{"type":"tool_result","tool_use_id":"c%d","content":"`, i)
		for l, start := 0, b.Len(); b.Len()-start < 80_000; l++ {
			fmt.Fprintf(&b, "    def handler_%d_%d(self, value): return self.table[%d] + value  # src/app/mod_%d.py\\n", i, l, l, i)
		}
		b.WriteString(`"}]}`)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}
