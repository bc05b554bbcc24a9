package report

import (
	"bytes"
	goldenfile "github.com/swcmem/swc/internal/golden"
	"io"
	"path/filepath"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/preserve"
	"github.com/swcmem/swc/usage"
)

// st returns a Stat with a CI of ±w around m.
func st(m, w float64, n int) bench.Stat {
	return bench.Stat{Mean: m, CI: [2]float64{max(0, m-w), min(1, m+w)}, N: n}
}

// counts returns preservation counts; a value rate is given for the
// temporal type only.
func counts(found, preserved int, rate float64, valueRate ...float64) *preserve.Counts {
	c := &preserve.Counts{Found: found, Preserved: preserved, Rate: rate}
	if len(valueRate) > 0 {
		c.ValueRate = &valueRate[0]
	}
	return c
}

// testSummary builds a summary of three conditions on three conversations,
// with judge, F1 and answer-token recall, paired differences, tiers,
// usage with costs, preservation and a judge audit.
func testSummary() *bench.Summary {
	conds := []string{"swc-temporal", "swc-full", "truncation"}
	judgeCost, qaCost := 0.0418, 4.635
	cost := judgeCost + qaCost
	convs := []string{"conv-26", "conv-30", "conv-41"}
	s := &bench.Summary{
		Settings: bench.Settings{
			Data: "../shared/data/locomo/locomo10.json", Conversations: convs, Conditions: conds,
			Budget: 4000, QA: "claude-sonnet-4-6", Judge: "claude-haiku-4-5-20251001",
			Gister: "anthropic:claude-haiku-4-5-20251001", Embedder: "hash-256", Schedule: "eager",
			Calibration: "default", Seed: 42, Resamples: 2000, Tokenizer: "cl100k_base",
			QAPrompt: "locomo-short", Version: "test",
		},
		Order:           conds,
		Conditions:      map[string]*bench.ConditionSummary{},
		Matched:         bench.Matched{N: 120, ByCategory: map[string]int{"1": 30, "2": 25, "3": 10, "4": 35, "5": 20, "1-4": 100}},
		PerConversation: map[string]map[string]*bench.ConvSummary{},
		Usage: usage.Summary{
			Total: usage.Line{Key: "total", Usage: swc.Usage{InputTokens: 1660000, OutputTokens: 39360, Calls: 1120, CacheHits: 12}, Errors: 1, CostUSD: &cost, Unpriced: 400},
			ByRole: []usage.Line{
				{Key: "gist", Usage: swc.Usage{InputTokens: 120000, OutputTokens: 30000, Calls: 400, CacheHits: 12}, Unpriced: 400},
				{Key: "judge", Usage: swc.Usage{InputTokens: 40000, OutputTokens: 360, Calls: 360}, CostUSD: &judgeCost},
				{Key: "qa", Usage: swc.Usage{InputTokens: 1500000, OutputTokens: 9000, Calls: 360}, Errors: 1, CostUSD: &qaCost},
			},
			ByModel: []usage.Line{
				{Key: "claude-haiku-4-5-20251001", Usage: swc.Usage{InputTokens: 40000, OutputTokens: 360, Calls: 360}, CostUSD: &judgeCost},
				{Key: "claude-sonnet-4-6", Usage: swc.Usage{InputTokens: 1500000, OutputTokens: 9000, Calls: 360}, Errors: 1, CostUSD: &qaCost},
				{Key: "ollama:llama3", Usage: swc.Usage{InputTokens: 120000, OutputTokens: 30000, Calls: 400, CacheHits: 12}, Unpriced: 400},
			},
		},
		JudgeAudit: &bench.JudgeAudit{Questions: 20, Kinds: map[string]bench.AuditCount{
			"vague": {Asked: 20, Accepted: 3, Rate: 0.15}, "wrong-entity": {Asked: 20, Accepted: 1, Rate: 0.05},
		}},
		Preservation: &preserve.Report{Types: map[string]*preserve.TypeReport{
			preserve.Temporal: {Variants: map[string]*preserve.Counts{
				"swc-full":     counts(952, 29, 0.0305, 0.041),
				"swc-temporal": counts(952, 594, 0.6239, 0.70),
			}},
			preserve.Entity: {Variants: map[string]*preserve.Counts{
				"swc-full":     counts(7559, 607, 0.0803),
				"swc-temporal": counts(7559, 621, 0.0822),
			}},
			preserve.Event: {Variants: map[string]*preserve.Counts{
				"swc-full":     counts(7072, 356, 0.0503),
				"swc-temporal": counts(7072, 397, 0.0561),
			}},
		}},
	}
	ns := map[string]int{"1": 30, "2": 25, "3": 10, "4": 35, "5": 20, "1-4": 100}
	for ci, c := range conds {
		cs := &bench.ConditionSummary{
			Categories:        map[string]map[string]bench.Stat{},
			TokPerQ:           4257 - 150*float64(ci),
			MeanContextTokens: 3900 - 120*float64(ci),
			MaxContextTokens:  4000,
			Actions:           map[string]int{"keep": 300 - 20*ci, "drop": 100 + 10*ci},
			Rows:              120,
		}
		if ci < 2 {
			cs.Actions["gist"] = 80
			cs.Tiers = map[string]int{"high": 90 + ci, "mid": 240, "low": 120 - ci}
		}
		for ki, k := range bench.CategoryKeys {
			base := 0.47 - 0.09*float64(ci) - 0.02*float64(ki)
			if k == "2" && c == "swc-full" {
				base = 0.156
			}
			cs.Categories[k] = map[string]bench.Stat{
				bench.MetricJudge:             st(base, 0.05, ns[k]),
				bench.MetricF1:                st(base*0.8, 0.04, ns[k]),
				bench.MetricAnswerTokenRecall: st(0.9-0.1*float64(ci), 0.03, ns[k]),
			}
		}
		s.Conditions[c] = cs
		for vi, conv := range convs {
			if s.PerConversation[conv] == nil {
				s.PerConversation[conv] = map[string]*bench.ConvSummary{}
			}
			m := 0.6 - 0.15*float64(ci) - 0.1*float64(vi)
			v := &bench.ConvSummary{
				Categories: map[string]map[string]bench.Stat{
					"2": {bench.MetricJudge: st(m, 0.1, 8+vi), bench.MetricF1: st(m/2, 0.1, 8+vi)},
				},
				ContextTokens: 3800 + 50*vi - 100*ci,
				Actions:       map[string]int{"keep": 100},
			}
			if ci < 2 {
				v.Tiers = map[string]int{"high": 30 + vi, "mid": 80 - 5*vi, "low": 40 + ci}
			}
			s.PerConversation[conv][c] = v
		}
	}
	s.Paired = []bench.Paired{
		{A: "swc-temporal", B: "swc-full", Category: "2", Metric: bench.MetricJudge, Diff: bench.Stat{Mean: 0.314, CI: [2]float64{0.254, 0.375}, N: 25},
			PerConversation: map[string]float64{"conv-26": 0.433, "conv-30": 0.16, "conv-41": -0.0001}},
		{A: "swc-temporal", B: "truncation", Category: "1-4", Metric: bench.MetricJudge, Diff: bench.Stat{Mean: 0.298, CI: [2]float64{0.25, 0.34}, N: 100},
			PerConversation: map[string]float64{"conv-26": 0.3, "conv-30": 0.28, "conv-41": 0.31}},
	}
	return s
}

// minimalSummary is an offline run of one baseline: no judge, paired
// differences, tiers, usage or preservation.
func minimalSummary() *bench.Summary {
	return &bench.Summary{
		Settings: bench.Settings{Data: "locomo10.json", Conversations: []string{"conv-26"}, Conditions: []string{"truncation"}, Budget: 2000, Offline: true, Seed: 42, Resamples: 200, Tokenizer: "cl100k_base"},
		Order:    []string{"truncation"},
		Conditions: map[string]*bench.ConditionSummary{"truncation": {
			Categories: map[string]map[string]bench.Stat{
				"2":   {bench.MetricAnswerTokenRecall: st(0.5, 0.1, 10), bench.MetricAnswerRetention: st(0.2, 0.1, 10)},
				"1-4": {bench.MetricAnswerTokenRecall: st(0.6, 0.05, 40)},
			},
			TokPerQ: 1990, MeanContextTokens: 1990, MaxContextTokens: 2000, Rows: 40,
		}},
		PerConversation: map[string]map[string]*bench.ConvSummary{"conv-26": {"truncation": {
			Categories: map[string]map[string]bench.Stat{"2": {bench.MetricAnswerTokenRecall: st(0.5, 0.1, 10)}}, ContextTokens: 1990,
		}}},
	}
}

// golden compares got with testdata/name (go test -update rewrites it).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

// rendered returns what fn writes for s, failing the test on error.
func rendered(t *testing.T, fn func(io.Writer, *bench.Summary) error, s *bench.Summary) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := fn(&buf, s); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
