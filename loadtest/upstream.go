package loadtest

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"time"
)

// FakeUpstream is a zero-latency OpenAI Chat Completions server on
// loopback: a fixed answer, or for stream:true a first SSE event at once
// and the rest 20 ms later.
type FakeUpstream struct {
	URL string // http://127.0.0.1:PORT, without /v1
	srv *http.Server
}

// Close stops the server.
func (f *FakeUpstream) Close() { f.srv.Close() }

// StartFakeUpstream starts a FakeUpstream on a free loopback port; it
// returns the listener's error.
func StartFakeUpstream() (*FakeUpstream, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	const answer = `{"id":"cc-1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}]}`
	chunk := `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":null}]}` + "\n\n"
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
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
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	return &FakeUpstream{URL: "http://" + ln.Addr().String(), srv: srv}, nil
}
