package openai

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/swcmem/swc"
)

func TestToChatParams(t *testing.T) {
	tests := []struct {
		name    string
		req     swc.LLMRequest
		legacy  bool
		want    string
		wantErr string
	}{
		{
			name: "system first, temperature 0 sent",
			req:  swc.LLMRequest{System: "be brief", Messages: []swc.Message{{Role: swc.RoleUser, Content: "hi"}}, Temperature: 0, MaxTokens: 16},
			want: `{"messages":[{"content":"be brief","role":"system"},{"content":"hi","role":"user"}],"model":"gpt-4o-mini","max_completion_tokens":16,"temperature":0}`,
		},
		{
			name: "dialogue, stop, default max tokens",
			req: swc.LLMRequest{Messages: []swc.Message{
				{Role: swc.RoleUser, Content: "a"}, {Role: swc.RoleAssistant, Content: "b"}, {Role: swc.RoleUser, Content: "c"},
			}, Stop: []string{"\n"}, Temperature: 0.5},
			want: `{"messages":[{"content":"a","role":"user"},{"content":"b","role":"assistant"},{"content":"c","role":"user"}],"model":"gpt-4o-mini","max_completion_tokens":1024,"temperature":0.5,"stop":["\n"]}`,
		},
		{
			name:   "legacy max_tokens",
			req:    swc.LLMRequest{Messages: []swc.Message{{Role: swc.RoleUser, Content: "hi"}}, MaxTokens: 16},
			legacy: true,
			want:   `{"messages":[{"content":"hi","role":"user"}],"model":"gpt-4o-mini","max_tokens":16,"temperature":0}`,
		},
		{name: "no messages", req: swc.LLMRequest{}, wantErr: "ollama: gpt-4o-mini: request has no messages"},
		{name: "bad role", req: swc.LLMRequest{Messages: []swc.Message{{Role: "tool", Content: "x"}}}, wantErr: `role "tool"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := toChatParams(tt.req, "ollama", "gpt-4o-mini", 1024, tt.legacy)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || swc.ErrorCode(err) != swc.EINVALID {
					t.Fatalf("err = %v, want EINVALID containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("JSON\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestFromChat(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    swc.LLMResponse
		wantErr string
	}{
		{
			name: "first choice",
			body: `{"id":"c1","object":"chat.completion","created":1,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"message":{"role":"assistant","content":"pong"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}}`,
			want: swc.LLMResponse{Text: "pong", Model: "gpt-4o-mini-2024-07-18", StopReason: "stop", Usage: swc.Usage{InputTokens: 9, OutputTokens: 1, Calls: 1}},
		},
		{
			name: "no usage, no model (some local servers)",
			body: `{"choices":[{"message":{"role":"assistant","content":"ok"},"finish_reason":"length"}]}`,
			want: swc.LLMResponse{Text: "ok", Model: "m", StopReason: "length", Usage: swc.Usage{Calls: 1}},
		},
		{name: "no choices", body: `{"choices":[]}`, wantErr: "reply has no choices"},
		{name: "refusal", body: `{"choices":[{"message":{"role":"assistant","content":null,"refusal":"I can't"},"finish_reason":"stop"}]}`, wantErr: "empty reply (refusal: I can't)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c chatCompletion
			if err := json.Unmarshal([]byte(tt.body), &c); err != nil {
				t.Fatal(err)
			}
			got, err := fromChat(&c, "openai", "m")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || swc.ErrorCode(err) != swc.EUNAVAILABLE {
					t.Fatalf("err = %v, want EUNAVAILABLE containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestEmbeddingWire(t *testing.T) {
	got, err := json.Marshal(toEmbeddingParams([]string{"a", "b"}, "all-minilm"))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"input":["a","b"],"model":"all-minilm","encoding_format":"float"}`; string(got) != want {
		t.Errorf("JSON\n got %s\nwant %s", got, want)
	}
	tests := []struct {
		name    string
		body    string
		n       int
		want    string
		wantErr string
	}{
		{name: "reordered by index", body: `{"object":"list","data":[{"object":"embedding","index":1,"embedding":[3,4]},{"object":"embedding","index":0,"embedding":[1,2.5]}],"model":"m","usage":{"prompt_tokens":4,"total_tokens":4}}`, n: 2, want: "[[1 2.5] [3 4]]"},
		{name: "count mismatch", body: `{"data":[{"index":0,"embedding":[1]}]}`, n: 2, wantErr: "1 embeddings for 2 texts"},
		{name: "repeated index", body: `{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}]}`, n: 2, wantErr: "indices"},
		{name: "ragged", body: `{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1]}]}`, n: 2, wantErr: "1 dimensions, want 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r embeddingResponse
			if err := json.Unmarshal([]byte(tt.body), &r); err != nil {
				t.Fatal(err)
			}
			vecs, u, err := fromEmbeddings(&r, tt.n, "openai", "m")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := fmt.Sprint(vecs); s != tt.want {
				t.Errorf("vectors %s, want %s", s, tt.want)
			}
			if u != (swc.Usage{InputTokens: 4, Calls: 1}) {
				t.Errorf("usage %+v", u)
			}
		})
	}
}
