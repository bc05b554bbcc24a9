package loadtest

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// FakeUpstream is a zero-latency provider on loopback: OpenAI Chat
// Completions (a fixed answer, or for stream:true a first SSE event at once
// and the rest 20 ms later), OpenAI Responses and Anthropic Messages (a
// fixed answer).
type FakeUpstream struct {
	URL string // http://127.0.0.1:PORT, without /v1
	srv *http.Server
	rec atomic.Pointer[func(*http.Request, []byte)]
}

// Close stops the server.
func (f *FakeUpstream) Close() { f.srv.Close() }

// Record makes the upstream call f with every request and its body before
// answering it (nil stops that).
func (f *FakeUpstream) Record(fn func(r *http.Request, body []byte)) {
	if fn == nil {
		f.rec.Store(nil)
		return
	}
	f.rec.Store(&fn)
}

// StartFakeUpstream starts a FakeUpstream on a free loopback port; it
// returns the listener's error.
func StartFakeUpstream() (*FakeUpstream, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	const answer = `{"id":"cc-1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}]}`
	const responsesAnswer = `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-5-codex","output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"ok","annotations":[]}]}],"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}`
	const anthropicAnswer = `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`
	chunk := `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":null}]}` + "\n\n"
	f := &FakeUpstream{URL: "http://" + ln.Addr().String()}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if fn := f.rec.Load(); fn != nil {
			(*fn)(r, body)
		}
		if strings.HasSuffix(r.URL.Path, "/messages") {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, anthropicAnswer)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/responses") {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, responsesAnswer)
			return
		}
		if bytes.Contains(body, []byte(`"stream":true`)) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, chunk)
			w.(http.Flusher).Flush()
			time.Sleep(20 * time.Millisecond)
			io.WriteString(w, chunk+"data: [DONE]\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, answer)
	})
	f.srv = &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go f.srv.Serve(ln)
	return f, nil
}
