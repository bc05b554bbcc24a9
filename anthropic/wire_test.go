package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/swcmem/swc"
)

func TestToParams(t *testing.T) {
	const model = "claude-haiku-4-5-20251001"
	tests := []struct {
		name    string
		req     swc.LLMRequest
		want    string // JSON the SDK serialises
		wantErr string
	}{
		{
			name: "system and user",
			req:  swc.LLMRequest{System: "be brief", Messages: []swc.Message{{Role: swc.RoleUser, Content: "hi"}}, Temperature: 0, MaxTokens: 16},
			want: `{"max_tokens":16,"messages":[{"content":[{"text":"hi","type":"text"}],"role":"user"}],"model":"claude-haiku-4-5-20251001","system":[{"text":"be brief","type":"text"}]}`,
		},
		{
			name: "default max tokens, stop, dialogue",
			req: swc.LLMRequest{Messages: []swc.Message{
				{Role: swc.RoleUser, Content: "a"}, {Role: swc.RoleAssistant, Content: "b"}, {Role: swc.RoleUser, Content: "c"},
			}, Stop: []string{"\n\n"}, Temperature: 0.7},
			want: `{"max_tokens":1024,"messages":[{"content":[{"text":"a","type":"text"}],"role":"user"},{"content":[{"text":"b","type":"text"}],"role":"assistant"},{"content":[{"text":"c","type":"text"}],"role":"user"}],"model":"claude-haiku-4-5-20251001","stop_sequences":["\n\n"]}`,
		},
		{name: "no messages", req: swc.LLMRequest{System: "x"}, wantErr: "no messages"},
		{name: "bad role", req: swc.LLMRequest{Messages: []swc.Message{{Role: "system", Content: "x"}}}, wantErr: `role "system"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := toParams(tt.req, model, 1024)
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
			if strings.Contains(string(got), "temperature") {
				t.Errorf("temperature sent; API 2026-10-21 rejects it: %s", got)
			}
		})
	}
}

func TestFromMessage(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    swc.LLMResponse
		wantErr string
	}{
		{
			name: "text blocks joined",
			body: `{"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-4-5-20251001","content":[{"type":"text","text":"po"},{"type":"thinking","thinking":"x","signature":"s"},{"type":"text","text":"ng"}],"stop_reason":"end_turn","usage":{"input_tokens":12,"output_tokens":3}}`,
			want: swc.LLMResponse{Text: "pong", Model: "claude-haiku-4-5-20251001", StopReason: "end_turn", Usage: swc.Usage{InputTokens: 12, OutputTokens: 3, Calls: 1}},
		},
		{
			name: "model falls back to the requested one",
			body: `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"ok"}],"stop_reason":"max_tokens","usage":{"input_tokens":1,"output_tokens":1}}`,
			want: swc.LLMResponse{Text: "ok", Model: "m", StopReason: "max_tokens", Usage: swc.Usage{InputTokens: 1, OutputTokens: 1, Calls: 1}},
		},
		{name: "no content", body: `{"id":"msg_1","type":"message","role":"assistant","content":[],"stop_reason":"refusal","usage":{"input_tokens":1,"output_tokens":0}}`, wantErr: `empty reply (stop_reason "refusal")`},
		{name: "blank text", body: `{"content":[{"type":"text","text":"  "}],"stop_reason":"end_turn"}`, wantErr: "empty reply"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var msg anthropic.Message
			if err := json.Unmarshal([]byte(tt.body), &msg); err != nil {
				t.Fatal(err)
			}
			got, err := fromMessage(&msg, "m")
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
