package gist

import (
	"context"
	"strings"
	"testing"

	swc "github.com/swcmem/swc"
	"github.com/swcmem/swc/mock"
)

// TestLLMGistTruncated: a gist cut off at the token limit (Anthropic's
// "max_tokens", OpenAI's "length") is an error, so no cache keeps it and a
// rerun asks again; the request's Check rejects it too.
func TestLLMGistTruncated(t *testing.T) {
	for _, stop := range []string{"max_tokens", "length"} {
		var checked error
		l := &mock.LLM{ID: "fake:m1", CompleteFn: func(_ context.Context, r swc.LLMRequest) (swc.LLMResponse, error) {
			resp := swc.LLMResponse{Text: "Caroline went to a support group on", StopReason: stop}
			if r.Check == nil {
				t.Error("gist request without a Check")
			} else {
				checked = r.Check(resp)
			}
			return resp, nil
		}}
		got, err := NewLLM(l).Gist(context.Background(), swc.GistRequest{Variant: swc.GistFull, Text: "Caroline: hi"})
		if err == nil || !strings.Contains(err.Error(), "cut off") || !strings.Contains(err.Error(), stop) {
			t.Errorf("stop %q: gist %q, error %v; want an error saying it was cut off", stop, got, err)
		}
		if checked == nil {
			t.Errorf("stop %q: Check accepts a truncated gist", stop)
		}
	}
	ok := &mock.LLM{ID: "fake:m1", CompleteFn: func(_ context.Context, r swc.LLMRequest) (swc.LLMResponse, error) {
		return swc.LLMResponse{Text: "Caroline went to a support group.", StopReason: "end_turn"}, nil
	}}
	if _, err := NewLLM(ok).Gist(context.Background(), swc.GistRequest{Variant: swc.GistFull, Text: "Caroline: hi"}); err != nil {
		t.Errorf("end_turn: %v", err)
	}
}

// TestLLMPromptHash: the REM key's prompt hash covers the system prompt,
// the user-message template and max_tokens.
func TestLLMPromptHash(t *testing.T) {
	l := &mock.LLM{ID: "fake:m1"}
	a, b := NewLLM(l), NewLLM(l)
	if a.PromptHash(swc.GistFull) != b.PromptHash(swc.GistFull) || a.PromptHash(swc.GistFull) == "" {
		t.Fatal("prompt hash not deterministic")
	}
	if a.PromptHash(swc.GistFull) == a.PromptHash(swc.GistTemporal) {
		t.Error("variants share a prompt hash")
	}
	b.MaxTokens = 256
	if a.PromptHash(swc.GistFull) == b.PromptHash(swc.GistFull) {
		t.Error("max_tokens is not part of the prompt hash")
	}
	// The template is hashed: the hash is not that of the system prompt
	// alone (what PromptHash hashed before the template was added).
	if a.PromptHash(swc.GistFull) == PromptHash(swc.GistFull) {
		t.Error("the user-message template is not part of the prompt hash")
	}
	if !strings.Contains(UserTemplate, "{date}") || !strings.Contains(UserTemplate, "{text}") {
		t.Errorf("UserTemplate %q", UserTemplate)
	}
}
