package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/mock"
)

func baseRequest() swc.LLMRequest {
	return swc.LLMRequest{
		System:      "You are terse.",
		Messages:    []swc.Message{{Role: swc.RoleUser, Content: "When did Caroline go?"}},
		Temperature: 0,
		MaxTokens:   64,
		Stop:        []string{"\n\n"},
		Purpose:     "qa",
	}
}

func TestNewResponseKey(t *testing.T) {
	base, err := NewResponseKey("anthropic:claude-haiku-4-5-20251001", baseRequest())
	if err != nil {
		t.Fatal(err)
	}
	if base.Provider != "anthropic" || base.Model != "claude-haiku-4-5-20251001" {
		t.Fatalf("provider/model = %q/%q", base.Provider, base.Model)
	}
	for _, tc := range []struct {
		name   string
		llm    string
		change func(*swc.LLMRequest)
		same   bool
	}{
		{"purpose excluded", "anthropic:claude-haiku-4-5-20251001", func(r *swc.LLMRequest) { r.Purpose = "judge" }, true},
		{"identical", "anthropic:claude-haiku-4-5-20251001", func(*swc.LLMRequest) {}, true},
		{"system", "anthropic:claude-haiku-4-5-20251001", func(r *swc.LLMRequest) { r.System = "" }, false},
		{"message", "anthropic:claude-haiku-4-5-20251001", func(r *swc.LLMRequest) { r.Messages[0].Content += "?" }, false},
		{"role", "anthropic:claude-haiku-4-5-20251001", func(r *swc.LLMRequest) { r.Messages[0].Role = swc.RoleAssistant }, false},
		{"extra message", "anthropic:claude-haiku-4-5-20251001", func(r *swc.LLMRequest) {
			r.Messages = append(r.Messages, swc.Message{Role: swc.RoleAssistant, Content: ""})
		}, false},
		{"temperature", "anthropic:claude-haiku-4-5-20251001", func(r *swc.LLMRequest) { r.Temperature = 0.7 }, false},
		{"max tokens", "anthropic:claude-haiku-4-5-20251001", func(r *swc.LLMRequest) { r.MaxTokens = 65 }, false},
		{"stop", "anthropic:claude-haiku-4-5-20251001", func(r *swc.LLMRequest) { r.Stop = nil }, false},
		{"model", "anthropic:claude-sonnet-4-5", func(*swc.LLMRequest) {}, false},
		{"provider", "openai:claude-haiku-4-5-20251001", func(*swc.LLMRequest) {}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := baseRequest()
			r.Messages = append([]swc.Message(nil), r.Messages...)
			tc.change(&r)
			k, err := NewResponseKey(tc.llm, r)
			if err != nil {
				t.Fatal(err)
			}
			if (k == base) != tc.same {
				t.Fatalf("key equal to base = %v, want %v\nbase %+v\ngot  %+v", k == base, tc.same, base, k)
			}
		})
	}

	// nil and empty message and stop lists encode alike.
	a, _ := NewResponseKey("p:m", swc.LLMRequest{Messages: nil, Stop: nil})
	b, _ := NewResponseKey("p:m", swc.LLMRequest{Messages: []swc.Message{}, Stop: []string{}})
	if a != b {
		t.Fatalf("nil vs empty lists differ: %q vs %q", a.Request, b.Request)
	}
	// A name without a colon is all provider.
	if k, _ := NewResponseKey("ollama", swc.LLMRequest{}); k.Provider != "ollama" || k.Model != "" {
		t.Fatalf("no-colon key = %+v", k)
	}
}

func TestResponseRoundTrip(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	created := time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, time.UTC)
	for _, tc := range []struct {
		name string
		llm  string
		r    Response
	}{
		{"full", "anthropic:haiku", Response{Text: "7 May 2023", Model: "claude-haiku-4-5-20251001", StopReason: "end_turn",
			InputTokens: 120, OutputTokens: 5, Latency: 850 * time.Millisecond, CreatedAt: created}},
		{"empty text", "openai:gpt", Response{Text: "", Model: "gpt", InputTokens: 1, CreatedAt: created}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, err := NewResponseKey(tc.llm, baseRequest())
			if err != nil {
				t.Fatal(err)
			}
			if _, ok, err := db.Response(ctx, key); ok || err != nil {
				t.Fatalf("before put: ok=%v err=%v", ok, err)
			}
			if err := db.PutResponse(ctx, key, tc.r); err != nil {
				t.Fatal(err)
			}
			got, ok, err := db.Response(ctx, key)
			if err != nil || !ok {
				t.Fatalf("Response: ok=%v err=%v", ok, err)
			}
			if !got.CreatedAt.Equal(tc.r.CreatedAt) {
				t.Errorf("CreatedAt = %v, want %v", got.CreatedAt, tc.r.CreatedAt)
			}
			got.CreatedAt = tc.r.CreatedAt
			if got != tc.r {
				t.Errorf("Response = %+v, want %+v", got, tc.r)
			}
		})
	}
}

func TestCachedLLM(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	clock := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return clock }
	calls := 0
	inner := &mock.LLM{ID: "anthropic:haiku", CompleteFn: func(_ context.Context, req swc.LLMRequest) (swc.LLMResponse, error) {
		calls++
		clock = clock.Add(1234 * time.Millisecond) // the call takes 1.234 s
		return swc.LLMResponse{
			Text: "answer to " + req.Messages[0].Content, Model: "claude-haiku-4-5-20251001", StopReason: "end_turn",
			Usage: swc.Usage{InputTokens: 100, OutputTokens: 7, Calls: 1},
		}, nil
	}}
	l := CachedLLM(inner, db)
	if l.Name() != "anthropic:haiku" {
		t.Fatalf("Name = %q", l.Name())
	}
	req := baseRequest()
	miss, err := l.Complete(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if miss.Cached || miss.Usage != (swc.Usage{InputTokens: 100, OutputTokens: 7, Calls: 1}) {
		t.Fatalf("miss = %+v, want the inner response unchanged", miss)
	}
	req.Purpose = "judge" // Purpose is not part of the key
	hit, err := l.Complete(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	want := swc.LLMResponse{Text: miss.Text, Model: miss.Model, StopReason: miss.StopReason,
		Usage: swc.Usage{CacheHits: 1}, Cached: true}
	if hit != want || calls != 1 {
		t.Fatalf("hit = %+v (calls %d), want %+v (calls 1)", hit, calls, want)
	}
	key, _ := NewResponseKey("anthropic:haiku", req)
	entry, ok, err := db.Response(ctx, key)
	if err != nil || !ok {
		t.Fatalf("entry: ok=%v err=%v", ok, err)
	}
	if entry.Latency != 1234*time.Millisecond || entry.InputTokens != 100 || entry.OutputTokens != 7 ||
		!entry.CreatedAt.Equal(clock) {
		t.Fatalf("entry = %+v, want latency 1.234s, 100/7 tokens, created %v", entry, clock)
	}
	if s := db.Stats(); s.ResponseHits != 1 || s.ResponseMisses != 1 {
		t.Fatalf("stats = %+v", s)
	}
	// A different parameter misses.
	req.MaxTokens++
	if r, err := l.Complete(ctx, req); err != nil || r.Cached || calls != 2 {
		t.Fatalf("changed request: %+v, %v, calls %d; want a miss", r, err, calls)
	}
}

func TestCachedLLMDoesNotCacheErrors(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	fail := errors.New("anthropic: 529 overloaded after 5 attempts")
	calls := 0
	l := CachedLLM(&mock.LLM{ID: "anthropic:haiku", CompleteFn: func(context.Context, swc.LLMRequest) (swc.LLMResponse, error) {
		calls++
		if calls == 1 {
			return swc.LLMResponse{Text: "partial"}, fail
		}
		return swc.LLMResponse{Text: "fine"}, nil
	}}, db)
	if _, err := l.Complete(ctx, baseRequest()); !errors.Is(err, fail) {
		t.Fatalf("err = %v, want the inner error", err)
	}
	key, _ := NewResponseKey("anthropic:haiku", baseRequest())
	if _, ok, _ := db.Response(ctx, key); ok {
		t.Fatal("a failed call was cached")
	}
	r, err := l.Complete(ctx, baseRequest())
	if err != nil || r.Text != "fine" || r.Cached || calls != 2 {
		t.Fatalf("retry = %+v, %v, calls %d", r, err, calls)
	}
}

// TestCachedLLMCheck: a reply the request's Check rejects is not stored,
// a stored reply it rejects is not replayed, and the accepted reply that
// follows replaces it.
func TestCachedLLMCheck(t *testing.T) {
	db := openTest(t)
	reply := "Maybe"
	calls := 0
	l := CachedLLM(&mock.LLM{ID: "fake:judge", CompleteFn: func(ctx context.Context, req swc.LLMRequest) (swc.LLMResponse, error) {
		calls++
		return swc.LLMResponse{Text: reply}, nil
	}}, db)
	yesNo := func(r swc.LLMResponse) error {
		if r.Text != "YES" && r.Text != "NO" {
			return errors.New("neither YES nor NO")
		}
		return nil
	}
	req := baseRequest()
	req.Check = yesNo
	for i := range 2 {
		if r, err := l.Complete(t.Context(), req); err != nil || r.Text != "Maybe" || r.Cached {
			t.Fatalf("call %d: %+v, %v", i, r, err)
		}
	}
	if calls != 2 {
		t.Fatalf("rejected reply replayed: %d calls, want 2", calls)
	}
	// A reply stored without a Check (an older run) is bypassed when the
	// Check rejects it, and the accepted reply replaces it.
	plain := baseRequest()
	if _, err := l.Complete(t.Context(), plain); err != nil {
		t.Fatal(err)
	}
	reply = "YES"
	if r, err := l.Complete(t.Context(), req); err != nil || r.Text != "YES" || r.Cached || calls != 4 {
		t.Fatalf("after a stored Maybe: %+v, %v, %d calls", r, err, calls)
	}
	if r, err := l.Complete(t.Context(), req); err != nil || r.Text != "YES" || !r.Cached || calls != 4 {
		t.Fatalf("the accepted reply is not cached: %+v, %v, %d calls", r, err, calls)
	}
}
