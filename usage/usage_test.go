package usage_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"sync"
	"testing"

	"github.com/swcmem/swc"
	goldenfile "github.com/swcmem/swc/internal/golden"
	"github.com/swcmem/swc/mock"
	"github.com/swcmem/swc/usage"
)

func TestPriceOf(t *testing.T) {
	tests := []struct {
		model string
		want  usage.Price
		ok    bool
	}{
		{"claude-haiku-4-5-20251001", usage.Price{1, 5}, true},
		{"anthropic:claude-haiku-4-5-20251001", usage.Price{1, 5}, true},
		{"claude-sonnet-4-6", usage.Price{3, 15}, true},
		{"openai:gpt-4o-mini", usage.Price{0.15, 0.60}, true},
		{"gpt-4o-mini-2024-07-18", usage.Price{0.15, 0.60}, true},
		{"gpt-4o-2024-08-06", usage.Price{2.50, 10}, true},
		{"ollama:llama3.1", usage.Price{}, false},
		{"claude-opus-4-1", usage.Price{}, false},
	}
	for _, tt := range tests {
		got, ok := usage.PriceOf(tt.model)
		if got != tt.want || ok != tt.ok {
			t.Errorf("PriceOf(%q) = %v, %v; want %v, %v", tt.model, got, ok, tt.want, tt.ok)
		}
	}
	if c := (usage.Price{1, 5}).Cost(swc.Usage{InputTokens: 2_000_000, OutputTokens: 100_000}); math.Abs(c-2.5) > 1e-12 {
		t.Errorf("cost = %v, want 2.5", c)
	}
}

func meteredRun(t *testing.T) *usage.Meter {
	t.Helper()
	m := &usage.Meter{}
	haiku := usage.Metered(&mock.LLM{ID: "anthropic:claude-haiku-4-5-20251001", CompleteFn: func(_ context.Context, r swc.LLMRequest) (swc.LLMResponse, error) {
		switch r.Messages[0].Content {
		case "fail":
			return swc.LLMResponse{}, errors.New("boom")
		case "cached":
			return swc.LLMResponse{Text: "c", Cached: true, Usage: swc.Usage{InputTokens: 1000, OutputTokens: 10, Calls: 1}}, nil
		}
		return swc.LLMResponse{Text: "ok", Usage: swc.Usage{InputTokens: 1000, OutputTokens: 100, Calls: 1}}, nil
	}}, m)
	local := usage.Metered(&mock.LLM{ID: "ollama:llama3.1", CompleteFn: func(context.Context, swc.LLMRequest) (swc.LLMResponse, error) {
		return swc.LLMResponse{Text: "ok", Usage: swc.Usage{InputTokens: 50, OutputTokens: 5}}, nil // Calls unset
	}}, m)
	var wg sync.WaitGroup
	call := func(l swc.LLM, purpose, content string) {
		wg.Go(func() {
			l.Complete(context.Background(), swc.LLMRequest{Purpose: purpose, Messages: []swc.Message{{Role: swc.RoleUser, Content: content}}})
		})
	}
	for range 100 {
		call(haiku, "gist", "x")
	}
	for range 10 {
		call(haiku, "qa", "cached")
		call(haiku, "qa", "fail")
		call(local, "judge", "x")
	}
	wg.Wait()
	m.Record("embed", "openai:text-embedding-3-small", swc.Usage{InputTokens: 1_000_000, Calls: 2}, false)
	return m
}

func TestMeter(t *testing.T) {
	s := meteredRun(t).Summary()
	wantTotal := swc.Usage{InputTokens: 100*1000 + 10*50 + 1_000_000, OutputTokens: 100*100 + 10*5, Calls: 100 + 10 + 2, CacheHits: 10}
	if s.Total.Usage != wantTotal || s.Total.Errors != 10 || s.Total.Unpriced != 10 {
		t.Errorf("total %+v", s.Total)
	}
	// 100 gist calls: 100k in at $1/M + 10k out at $5/M = $0.15; embed $0.02.
	if s.Total.CostUSD == nil || math.Abs(*s.Total.CostUSD-0.17) > 1e-9 {
		t.Errorf("total cost %v, want 0.17", s.Total.CostUSD)
	}
	byRole := map[string]usage.Line{}
	for _, l := range s.ByRole {
		byRole[l.Key] = l
	}
	if qa := byRole["qa"]; qa.CacheHits != 10 || qa.Errors != 10 || qa.Calls != 0 || qa.InputTokens != 0 || qa.CostUSD != nil {
		t.Errorf("qa %+v: cache hits must cost nothing", qa)
	}
	if j := byRole["judge"]; j.Calls != 10 || j.CostUSD != nil || j.Unpriced != 10 {
		t.Errorf("judge %+v: an unknown model's cost is omitted", j)
	}
	if len(s.ByModel) != 3 {
		t.Errorf("by model %+v", s.ByModel)
	}
}

func TestMeterSummaryGolden(t *testing.T) {
	s := meteredRun(t).Summary()
	js, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got := s.String() + "\n" + string(js) + "\n"
	goldenfile.Check(t, filepath.Join("testdata", "usage_summary.golden"), []byte(got))
}

func TestMeterZeroValue(t *testing.T) {
	var m usage.Meter
	s := m.Summary()
	if s.Total.Calls != 0 || len(s.ByRole) != 0 || s.Total.CostUSD != nil {
		t.Errorf("zero meter %+v", s)
	}
}

// TestMeterPrices: a Meter prices calls with its own table; the default
// table is a fresh copy each time (no global to change).
func TestMeterPrices(t *testing.T) {
	d := usage.DefaultPrices()
	d["claude-haiku-4-5"] = usage.Price{Input: 1000}
	if p, _ := usage.PriceOf("anthropic:claude-haiku-4-5-20251001"); p.Input != 1 {
		t.Errorf("changing one DefaultPrices table changed PriceOf: %+v", p)
	}
	m := &usage.Meter{Prices: usage.PriceTable{"local": {Input: 2, Output: 4}}}
	m.Record("qa", "ollama:local-7b", swc.Usage{InputTokens: 1e6, OutputTokens: 1e6, Calls: 1}, false)
	m.Record("qa", "anthropic:claude-haiku-4-5", swc.Usage{InputTokens: 1e6, Calls: 1}, false)
	s := m.Summary()
	if c := s.Total.CostUSD; c == nil || *c != 6 || s.Total.Unpriced != 1 {
		t.Errorf("total cost %v, unpriced %d; want 6 from the Meter's own table and 1 unpriced", c, s.Total.Unpriced)
	}
}
