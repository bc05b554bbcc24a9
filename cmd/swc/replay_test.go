package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/swcmem/swc/loadtest"
)

// TestReplay replays the built-in LoCoMo sample as an agent's transcript
// in both protocols and both compactions: no request over the budget,
// and epochs keep more requests' prefixes and cost less than re-planning.
func TestReplay(t *testing.T) {
	out, _, err := run(t, nil, "replay", "--input", "../../locomo/sample.json", "--budget", "1500",
		"--protocol", "openai,anthropic", "--compaction", "epoch,replan", "--json")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	byRun := map[string]loadtest.ReplayResult{}
	for dec.More() {
		var r loadtest.ReplayResult
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		if r.Requests < 50 || r.Over != 0 || r.Questions == 0 || r.AnswerRecall <= 0 || r.AnswerRecall > 1 || r.RawTokens < 3*r.Budget {
			t.Errorf("%s %s %s: %d requests, %d over, %d questions, recall %.3f, %d tokens", r.Transcript, r.Protocol, r.Label, r.Requests, r.Over, r.Questions, r.AnswerRecall, r.RawTokens)
		}
		byRun[r.Protocol+"/"+r.Label] = r
	}
	if len(byRun) != 4 {
		t.Fatalf("%d runs", len(byRun))
	}
	for _, p := range []string{"openai", "anthropic"} {
		e, r := byRun[p+"/epoch"], byRun[p+"/replan"]
		t.Logf("%s: stable %.3f vs %.3f, cost (anthropic) %.3f vs %.3f, compactions/100 %.1f vs %.1f", p,
			e.PrefixStable, r.PrefixStable, e.CostRatio["anthropic"], r.CostRatio["anthropic"], e.CompactionsPer100, r.CompactionsPer100)
		if e.PrefixStable < 0.85 || e.PrefixStable <= r.PrefixStable || e.CostRatio["anthropic"] >= r.CostRatio["anthropic"] || e.CostRatio["anthropic"] > 1 {
			t.Errorf("%s: epochs do not keep the prefix or cost less", p)
		}
	}
}

func TestReplayBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"replay"},
		{"replay", "--input", "../../locomo/sample.json", "--protocol", "grpc"},
		{"replay", "--input", "../../locomo/sample.json", "--budget", "0"},
		{"replay", "--input", "../../locomo/sample.json", "--mode", "cached"},
		{"replay", "--input", "../../locomo/sample.json", "--conversation", "conv-99"},
	} {
		if _, _, err := run(t, nil, args...); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
