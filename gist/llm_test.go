package gist

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	swc "github.com/swcmem/swc"
	"github.com/swcmem/swc/mock"
)

// The paper's prompts, copied here independently of the constants.
const (
	paperFull = "Preserve: factual information about the speakers, causal relationships, decisions and their rationale, open commitments or plans. Discard: small talk, repeated information, emotional reactions without factual content. Output a concise paragraph of 3–5 sentences maximum."
	paperTemp = "You MUST preserve verbatim: all specific dates, times, durations, ages, and temporal expressions (e.g. '7 May', 'last Tuesday', 'at 9pm'). "
)

func TestLLMGist(t *testing.T) {
	tests := []struct {
		variant swc.GistVariant
		prompt  string
	}{
		{swc.GistFull, paperFull},
		{swc.GistTemporal, paperTemp + paperFull},
		{swc.GistSummary, PromptSummary},
		{swc.GistSummaryTemporal, paperTemp + PromptSummary},
	}
	text := "Caroline: I went to a support group yesterday."
	for _, tt := range tests {
		t.Run(string(tt.variant), func(t *testing.T) {
			calls := 0
			l := &mock.LLM{ID: "fake:m1", CompleteFn: func(_ context.Context, r swc.LLMRequest) (swc.LLMResponse, error) {
				calls++
				if r.System != tt.prompt {
					t.Errorf("system prompt =\n%q\nwant\n%q", r.System, tt.prompt)
				}
				if r.Temperature != 0 || r.MaxTokens != DefaultMaxTokens || r.Purpose != "gist" {
					t.Errorf("temperature %v, max tokens %d, purpose %q", r.Temperature, r.MaxTokens, r.Purpose)
				}
				if len(r.Messages) != 1 || r.Messages[0].Role != swc.RoleUser ||
					r.Messages[0].Content != "Session date: 8 May 2023\n\n"+text {
					t.Errorf("messages = %+v", r.Messages)
				}
				return swc.LLMResponse{Text: "  Caroline attended a support group on 7 May 2023.\n"}, nil
			}}
			g := NewLLM(l)
			got, err := g.Gist(context.Background(), swc.GistRequest{Variant: tt.variant, Date: "8 May 2023", Text: text})
			if err != nil {
				t.Fatal(err)
			}
			if got != "Caroline attended a support group on 7 May 2023." || calls != 1 {
				t.Errorf("gist = %q after %d calls", got, calls)
			}
		})
	}
}

func TestLLMSummaryPromptPhrase(t *testing.T) {
	if !strings.Contains(strings.ToLower(PromptSummary), "retain key facts, events, and decisions") {
		t.Errorf("summary prompt lacks the sliding-window phrase: %q", PromptSummary)
	}
}

func TestLLMErrors(t *testing.T) {
	ctx := context.Background()
	req := swc.GistRequest{Variant: swc.GistFull, Date: "8 May 2023", Text: "A: something happened."}
	for _, reply := range []string{"", " \n\t "} {
		g := NewLLM(&mock.LLM{ID: "fake:m", CompleteFn: func(context.Context, swc.LLMRequest) (swc.LLMResponse, error) {
			return swc.LLMResponse{Text: reply, StopReason: "end_turn"}, nil
		}})
		if out, err := g.Gist(ctx, req); err == nil || out != "" {
			t.Errorf("reply %q: gist %q, err %v; want an error", reply, out, err)
		}
	}
	boom := errors.New("boom")
	g := NewLLM(&mock.LLM{ID: "fake:m", CompleteFn: func(context.Context, swc.LLMRequest) (swc.LLMResponse, error) {
		return swc.LLMResponse{}, boom
	}})
	// swc.LLM errors name the provider and model already: a second prefix
	// would repeat them ("gist: llm:ollama:x: ollama: x: …").
	if _, err := g.Gist(ctx, req); !errors.Is(err, boom) || err.Error() != "boom" {
		t.Errorf("model error = %v; want the LLM's error unchanged", err)
	}
	if _, err := g.Gist(ctx, swc.GistRequest{Variant: "bogus", Text: "A: x"}); swc.ErrorCode(err) != swc.EINVALID {
		t.Errorf("unknown variant: %v", err)
	}
	if out, err := g.Gist(ctx, swc.GistRequest{Variant: swc.GistFull, Text: "  "}); out != "" || err != nil {
		t.Errorf("empty input = %q, %v; want no call, no error", out, err)
	}
}

func TestLLMSettings(t *testing.T) {
	var got swc.LLMRequest
	g := NewLLM(&mock.LLM{ID: "anthropic:claude-haiku-4-5-20251001", CompleteFn: func(_ context.Context, r swc.LLMRequest) (swc.LLMResponse, error) {
		got = r
		return swc.LLMResponse{Text: "ok"}, nil
	}})
	g.MaxTokens = 200
	if _, err := g.Gist(context.Background(), swc.GistRequest{Variant: swc.GistFull, Text: "A: b c d."}); err != nil {
		t.Fatal(err)
	}
	if got.MaxTokens != 200 || got.Messages[0].Content != "A: b c d." {
		t.Errorf("request = %+v", got)
	}
	if n := g.Name(); n != "llm:anthropic:claude-haiku-4-5-20251001" {
		t.Errorf("Name = %q", n)
	}
}

func TestPromptHash(t *testing.T) {
	sum := sha256.Sum256([]byte(paperTemp + paperFull))
	if got, want := PromptHash(swc.GistTemporal), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("PromptHash(temporal) = %s, want %s", got, want)
	}
	seen := map[string]swc.GistVariant{}
	for _, v := range []swc.GistVariant{swc.GistFull, swc.GistTemporal, swc.GistSummary, swc.GistSummaryTemporal} {
		h := PromptHash(v)
		if len(h) != 64 {
			t.Errorf("PromptHash(%s) = %q", v, h)
		}
		if w, dup := seen[h]; dup {
			t.Errorf("variants %s and %s share a prompt hash", v, w)
		}
		seen[h] = v
	}
	if PromptHash("bogus") != "" {
		t.Error("PromptHash of an unknown variant is not empty")
	}
}
