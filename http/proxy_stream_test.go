package http_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	oaoption "github.com/openai/openai-go/v3/option"

	"github.com/swcmem/swc/chat"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/loadtest"
)

// chunked returns an upstream handler writing events one at a time: the
// first, then (after release is closed) the rest. done is set when the
// handler returns.
func chunked(events []string, release <-chan struct{}, done *atomic.Bool) func(w http.ResponseWriter, r *http.Request, body []byte) {
	return func(w http.ResponseWriter, r *http.Request, body []byte) {
		defer done.Store(true)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Request-Id", "req_stream")
		w.WriteHeader(http.StatusOK)
		for i, ev := range events {
			io.WriteString(w, ev)
			w.(http.Flusher).Flush()
			if i == 0 {
				select {
				case <-release:
				case <-time.After(10 * time.Second):
				case <-r.Context().Done():
					return
				}
			}
		}
	}
}

func TestProxyStreamOpenAI(t *testing.T) {
	e := newProxyEnv(t)
	release := make(chan struct{})
	var done atomic.Bool
	chunk := func(content string, finish string) string {
		fr := "null"
		if finish != "" {
			fr = `"` + finish + `"`
		}
		return fmt.Sprintf(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":%q},"finish_reason":%s}]}`+"\n\n", content, fr)
	}
	e.up.handle = chunked([]string{chunk("Casa", ""), chunk(" do Rio.", ""), chunk("", "stop"), "data: [DONE]\n\n"}, release, &done)

	var msgs []openai.ChatCompletionMessageParamUnion
	b, _ := json.Marshal(chat.OpenAIMessages(loadtest.AgentHistory(400, 0)))
	json.Unmarshal(b, &msgs)
	client := openai.NewClient(oaoption.WithBaseURL(e.ts.URL+"/v1"), oaoption.WithAPIKey(e.key), oaoption.WithMaxRetries(0),
		oaoption.WithHeader(swchttp.HeaderBudget, "3000"))
	stream := client.Chat.Completions.NewStreaming(t.Context(), openai.ChatCompletionNewParams{Model: "gpt-4o", Messages: msgs})
	if !stream.Next() {
		t.Fatalf("no first event: %v", stream.Err())
	}
	if done.Load() {
		t.Fatal("the first event reached the client only after the upstream finished")
	}
	text := stream.Current().Choices[0].Delta.Content
	close(release)
	for stream.Next() {
		if c := stream.Current(); len(c.Choices) > 0 {
			text += c.Choices[0].Delta.Content
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if text != "Casa do Rio." {
		t.Errorf("streamed %q", text)
	}
	got, _ := e.up.last(t)
	if string(fields(t, got)["stream"]) != "true" {
		t.Error("stream:true did not reach the upstream")
	}
	withinBudget(t, got, chat.OpenAI, 3000)
}

func TestProxyStreamAnthropic(t *testing.T) {
	e := newProxyEnv(t)
	release := make(chan struct{})
	var done atomic.Bool
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	e.up.handle = chunked([]string{
		ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}`),
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Casa do Rio."}}`),
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`),
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":4}}`),
		ev("message_stop", `{"type":"message_stop"}`),
	}, release, &done)

	req := chat.ToAnthropic(loadtest.AgentHistory(400, 0))
	b, _ := json.Marshal(req.Messages)
	var params anthropic.MessageNewParams
	json.Unmarshal(b, &params.Messages)
	params.Model, params.MaxTokens = "claude-haiku-4-5", 256
	params.System = []anthropic.TextBlockParam{{Text: req.System}}
	client := anthropic.NewClient(anthropicoption.WithoutEnvironmentDefaults(), anthropicoption.WithBaseURL(e.ts.URL),
		anthropicoption.WithAPIKey(e.key), anthropicoption.WithMaxRetries(0), anthropicoption.WithHeader(swchttp.HeaderBudget, "2500"))
	stream := client.Messages.NewStreaming(t.Context(), params)
	if !stream.Next() {
		t.Fatalf("no first event: %v", stream.Err())
	}
	if done.Load() {
		t.Fatal("the first event reached the client only after the upstream finished")
	}
	if typ := stream.Current().Type; typ != "message_start" {
		t.Errorf("first event %q", typ)
	}
	close(release)
	var msg anthropic.Message
	msg.Accumulate(stream.Current())
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 1 || msg.Content[0].Text != "Casa do Rio." {
		t.Errorf("streamed %+v", msg.Content)
	}
	got, _ := e.up.last(t)
	if string(fields(t, got)["stream"]) != "true" {
		t.Error("stream:true did not reach the upstream")
	}
	withinBudget(t, got, chat.Anthropic, 2500)
}

func TestProxyUpstreamErrors(t *testing.T) {
	cases := []struct {
		name    string
		status  int
		headers map[string]string
		body    string
	}{
		{"429", http.StatusTooManyRequests, map[string]string{"Retry-After": "7", "X-Ratelimit-Remaining-Requests": "0", "X-Ratelimit-Reset-Requests": "7s", "X-Request-Id": "req_429"},
			`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`},
		{"500", http.StatusInternalServerError, map[string]string{"X-Request-Id": "req_500"},
			`{"error":{"message":"The server had an error","type":"server_error"}}`},
		{"529 anthropic overloaded", 529, map[string]string{"Request-Id": "req_529", "Retry-After": "3", "Anthropic-Ratelimit-Requests-Remaining": "0"},
			`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newProxyEnv(t)
			e.up.handle = func(w http.ResponseWriter, r *http.Request, body []byte) {
				for k, v := range tc.headers {
					w.Header().Set(k, v)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}
			path, body := "/v1/chat/completions", openAIBody(t, loadtest.AgentHistory(20, 0), "")
			if strings.HasPrefix(tc.name, "529") {
				path, body = "/v1/messages", anthropicBody(t, loadtest.AgentHistory(20, 0), "")
			}
			resp := e.post(t, path, body)
			got := readAll(t, resp)
			if resp.StatusCode != tc.status || got != tc.body {
				t.Errorf("got %d %s; want %d %s", resp.StatusCode, got, tc.status, tc.body)
			}
			for k, v := range tc.headers {
				if resp.Header.Get(k) != v {
					t.Errorf("header %s = %q; want %q", k, resp.Header.Get(k), v)
				}
			}
			if n := e.up.count(); n != 1 {
				t.Errorf("upstream called %d times; want 1 (no silent retries)", n)
			}
		})
	}
}

func TestProxyClientDeadlineCancelsUpstream(t *testing.T) {
	e := newProxyEnv(t)
	cancelled := make(chan struct{})
	e.up.handle = func(w http.ResponseWriter, r *http.Request, body []byte) {
		select {
		case <-r.Context().Done():
			close(cancelled)
		case <-time.After(30 * time.Second):
		}
	}
	client := openai.NewClient(oaoption.WithBaseURL(e.ts.URL+"/v1"), oaoption.WithAPIKey(e.key), oaoption.WithMaxRetries(0))
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	var msgs []openai.ChatCompletionMessageParamUnion
	b, _ := json.Marshal(chat.OpenAIMessages(loadtest.AgentHistory(10, 0)))
	json.Unmarshal(b, &msgs)
	start := time.Now()
	_, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "gpt-4o", Messages: msgs})
	if err == nil {
		t.Fatal("a hanging upstream answered")
	}
	select {
	case <-cancelled:
		t.Logf("upstream cancelled %v after the request started", time.Since(start).Round(time.Millisecond))
	case <-time.After(5 * time.Second):
		t.Fatalf("the client's deadline did not cancel the upstream request (upstream calls %d, client error %v)", e.up.count(), err)
	}
}
