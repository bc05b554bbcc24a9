package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchTrajectories runs the trajectory bench on the hand-written
// trajectories of trajectory/testdata: every output is written, the table
// printed, and a rerun resumes without writing a row again.
func TestBenchTrajectories(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	args := []string{"bench", "--trajectories", "../../trajectory/testdata", "--out", dir, "--budgets", "50,100000", "--strategies", "swc-anchored"}
	stdout, stderr, err := run(t, nil, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, f := range []string{"results.jsonl", "summary.json", "summary.csv", "report.md", "report.html", "run.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	sum := readTrajectorySummary(t, dir)
	// tiny (openai, anthropic), tiny-text (openai), tiny_responses,
	// tiny_gemini: 4 formats × 2 budgets × 6 conditions
	if len(sum.Cells) != 48 {
		t.Errorf("%d cells, want 48", len(sum.Cells))
	}
	for _, c := range sum.Cells {
		if c.Breaches > 0 || c.Requests == 0 {
			t.Errorf("%s %s@%d: %d breaches in %d requests", c.Format, c.Condition, c.Budget, c.Breaches, c.Requests)
		}
	}
	for _, want := range []string{"mask-10", "swc-anchored", "anthropic", "responses", "gemini"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the table does not show %q:\n%s", want, stdout)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	for _, f := range []string{"openai", "gemini"} {
		if !strings.Contains(string(html), `id="chart-frr-`+f+`"`) {
			t.Errorf("report.html has no FRR chart for %s", f)
		}
	}
	rows, _ := os.ReadFile(filepath.Join(dir, "results.jsonl"))
	_, stderr, err = run(t, nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(filepath.Join(dir, "results.jsonl"))
	if string(again) != string(rows) || !strings.Contains(stderr, "resuming") {
		t.Errorf("the rerun changed results.jsonl or did not say it resumed:\n%s", stderr)
	}
	if _, _, err := run(t, nil, "bench", "--trajectories", "../../trajectory/testdata", "--qa", "anthropic:x"); err == nil || !strings.Contains(err.Error(), "--qa") {
		t.Errorf("--qa under --trajectories: %v, want a usage error naming it", err)
	}
	if _, _, err := run(t, nil, "bench", "--trajectories", "../../trajectory/testdata", "--conditions", "nope", "--out", dir); err == nil || !strings.Contains(err.Error(), "mask-5") {
		t.Errorf("unknown condition: %v, want an error listing the conditions", err)
	}
}

// TestParseWindow: --windows takes KEEP/EVERY, KEEP/EVERY/STUB_TOKENS
// and KEEP/EVERY/STUB_TOKENS/TURN_TOKENS; anything else, or a stub or a
// turn too small, is a usage error quoting it.
func TestParseWindow(t *testing.T) {
	for _, tc := range []struct {
		in                      string
		keep, every, stub, turn int
		err                     bool
	}{
		{in: "2/3", keep: 2, every: 3},
		{in: "0/3", keep: 0, every: 3},
		{in: "2/3/80", keep: 2, every: 3, stub: 80},
		{in: "2/3/0", keep: 2, every: 3},
		{in: "2/3/10", err: true},
		{in: "2", err: true},
		{in: "2/3/80/1", err: true},
		{in: "2/3/0/48", keep: 2, every: 3, turn: 48},
		{in: "2/3/80/-1", keep: 2, every: 3, stub: 80, turn: -1},
		{in: "2/3/0/-2", err: true},
		{in: "2/3/0/48/1", err: true},
		{in: "a/b", err: true},
	} {
		k, e, s, tu, err := parseWindow(tc.in)
		if tc.err {
			if err == nil || !strings.Contains(err.Error(), tc.in) {
				t.Errorf("%q: %v, want an error quoting it", tc.in, err)
			}
			continue
		}
		if err != nil || k != tc.keep || e != tc.every || s != tc.stub || tu != tc.turn {
			t.Errorf("%q: %d/%d/%d/%d %v, want %d/%d/%d/%d", tc.in, k, e, s, tu, err, tc.keep, tc.every, tc.stub, tc.turn)
		}
	}
}

// TestBenchTrajectoriesSkipsEmpty: a body with no assistant turn after its
// first message (a session that ended before the agent answered) is
// skipped with a warning naming it; the other runs are benched.
func TestBenchTrajectoriesSkipsEmpty(t *testing.T) {
	in := t.TempDir()
	data, err := os.ReadFile("../../trajectory/testdata/tiny_text.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in, "tiny_text.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	empty := `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"Fix the bug."}]}`
	if err := os.WriteFile(filepath.Join(in, "unanswered.json"), []byte(empty), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	_, stderr, err := run(t, nil, "bench", "--trajectories", in, "--out", dir, "--budgets", "100000", "--conditions", "truncation,swc")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "unanswered") || !strings.Contains(stderr, "nothing to replay; skipped") {
		t.Errorf("no warning naming the skipped body:\n%s", stderr)
	}
	if sum := readTrajectorySummary(t, dir); len(sum.Cells) != 2 {
		t.Errorf("%d cells, want 2 (tiny_text's, under two conditions)", len(sum.Cells))
	}
}
