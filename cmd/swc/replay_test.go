package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
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

// toolLoopFile writes a Chat Completions body of a coding agent's tool
// loop (a task, then n calls of bash, each with an output of 12 lines)
// and returns its path.
func toolLoopFile(t *testing.T, n int) string {
	t.Helper()
	msgs := []map[string]any{
		{"role": "system", "content": "You are a coding agent."},
		{"role": "user", "content": "Fix the failing test in pkg/a."},
	}
	for i := range n {
		id := fmt.Sprintf("call_%d", i)
		var out []string
		for k := range 12 {
			out = append(out, fmt.Sprintf("line %d of file%d.go: value_%d_%d := compute(%d)", k, i, i, k, k))
		}
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": nil, "tool_calls": []map[string]any{{"id": id, "type": "function",
				"function": map[string]any{"name": "bash", "arguments": fmt.Sprintf(`{"command":"cat pkg/a/file%d.go"}`, i)}}}},
			map[string]any{"role": "tool", "tool_call_id": id, "content": strings.Join(out, "\n")})
	}
	msgs = append(msgs, map[string]any{"role": "assistant", "content": "Found it."})
	b, err := json.Marshal(map[string]any{"model": "gpt-4o", "messages": msgs})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "loop.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReplayRecall replays a tool loop with its tools declared, a
// request after every tool result, the proxy's recall on and off: on, the
// compressed requests go with swc_recall, and the messages sent are the
// same (the same tokens but swc_recall's definition, the same prefix
// stability); off, none has it.
func TestReplayRecall(t *testing.T) {
	out, _, err := run(t, nil, "replay", "--input", toolLoopFile(t, 40), "--budget", "3000", "--tools", "--every-turn",
		"--recall", "on,off", "--protocol", "openai,anthropic", "--json")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	runs := map[string]loadtest.ReplayResult{}
	for dec.More() {
		var r loadtest.ReplayResult
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		runs[r.Protocol+"/"+r.Recall] = r
	}
	if len(runs) != 4 {
		t.Fatalf("%d runs: %v", len(runs), out)
	}
	for _, p := range []string{"openai", "anthropic"} {
		on, off := runs[p+"/on"], runs[p+"/off"]
		t.Logf("%s: offered %d of %d; cost (anthropic) %.3f on, %.3f off; stable %.3f, %.3f", p, on.RecallOffered, on.Requests,
			on.CostRatio["anthropic"], off.CostRatio["anthropic"], on.PrefixStable, off.PrefixStable)
		if on.Requests != 41 || off.Requests != 41 {
			t.Errorf("%s: %d and %d requests, want one after the task and one per tool result (41)", p, on.Requests, off.Requests)
		}
		if on.RecallOffered == 0 || on.RecallOffered == on.Requests || off.RecallOffered != 0 {
			t.Errorf("%s: swc_recall offered on %d (recall on) and %d (off) of %d requests; want the compressed ones, and none", p, on.RecallOffered, off.RecallOffered, on.Requests)
		}
		// The definition's tokens, shared by every request that carries
		// it, can carry a pair over stability's 90% line: 2 of 40 pairs.
		if math.Abs(on.PrefixStable-off.PrefixStable) > 0.05 || on.SentShare <= off.SentShare || on.CostRatio["anthropic"] <= off.CostRatio["anthropic"] {
			t.Errorf("%s: on %+v, off %+v: want the same stability (within 2 pairs), and swc_recall's definition counted on", p, on, off)
		}
	}
}
