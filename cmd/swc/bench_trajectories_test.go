package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/trajectory"
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

// TestBenchTrajectoriesSkipsUnreadable: a file the bench cannot read (a
// session cut short while being written) is skipped with a warning
// naming it and why, the others are benched, and summary.json and the
// report list it.
func TestBenchTrajectoriesSkipsUnreadable(t *testing.T) {
	in := t.TempDir()
	data, err := os.ReadFile("../../trajectory/testdata/tiny_text.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in, "tiny_text.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in, "partial.json"), data[:len(data)/3], 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	_, stderr, err := run(t, nil, "bench", "--trajectories", in, "--out", dir, "--budgets", "100000", "--conditions", "truncation")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "warning: "+filepath.Join(in, "partial.json")) || !strings.Contains(stderr, "; skipped") {
		t.Errorf("no warning naming the unreadable file:\n%s", stderr)
	}
	sum := readTrajectorySummary(t, dir)
	if len(sum.Cells) != 1 || len(sum.Settings.Skipped) != 1 || !strings.Contains(sum.Settings.Skipped[0], "partial.json") {
		t.Errorf("%d cells, skipped %q: want tiny_text's cell and partial.json skipped", len(sum.Cells), sum.Settings.Skipped)
	}
	if md, _ := os.ReadFile(filepath.Join(dir, "report.md")); !strings.Contains(string(md), "Skipped, unreadable (1 file): ") {
		t.Errorf("report.md does not list the skipped file")
	}
}

// TestBenchTrajectoriesSaveContexts: --conversations picks trajectories
// by name or position, and --save-contexts writes every request as each
// condition sent it, one line per row (a refusal with its reason), the
// body the request the row measured; a rerun that resumes adds none, and
// an unknown name is an error naming the trajectories there are.
func TestBenchTrajectoriesSaveContexts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	args := []string{"bench", "--trajectories", "../../trajectory/testdata", "--out", dir, "--budgets", "50,100000",
		"--conditions", "mask-5,swc", "--conversations", "tiny-cline,0,tiny-cline", "--save-contexts"}
	if _, stderr, err := run(t, nil, args...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	rows := readJSONL[trajectory.Row](t, filepath.Join(dir, trajectory.ResultsFile))
	sent := readJSONL[trajectory.SentBody](t, filepath.Join(dir, trajectory.BodiesFile))
	if len(rows) == 0 || len(sent) != len(rows) {
		t.Fatalf("%d rows, %d bodies: want one body per row", len(rows), len(sent))
	}
	names := map[string]bool{}
	refused := 0
	for i, r := range rows {
		names[r.Trajectory] = true
		s := sent[i]
		if s.Trajectory != r.Trajectory || s.Format != r.Format || s.Budget != r.Budget || s.Condition != r.Condition || s.Request != r.Request || s.Refused != r.Refused {
			t.Fatalf("line %d: body of %+v for row %+v", i+1, s, r)
		}
		if r.Refused != "" {
			refused++
			if len(s.Body) != 0 {
				t.Errorf("line %d: a refusal with a body", i+1)
			}
			continue
		}
		var body struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(s.Body, &body); err != nil || len(body.Messages) == 0 {
			t.Errorf("line %d: the body is no request with messages: %v", i+1, err)
		}
	}
	if len(names) != 2 || !names["tiny-cline"] {
		t.Errorf("trajectories %v, want tiny-cline and the first", names)
	}
	if refused == len(rows) {
		t.Errorf("every request refused")
	}
	before, _ := os.ReadFile(filepath.Join(dir, trajectory.BodiesFile))
	if _, stderr, err := run(t, nil, args...); err != nil || !strings.Contains(stderr, "resuming") || !strings.Contains(stderr, "get none from it") {
		t.Fatalf("rerun: %v, want it to resume and warn that the rows done get no bodies\n%s", err, stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, trajectory.BodiesFile)); string(after) != string(before) {
		t.Errorf("the rerun changed %s", trajectory.BodiesFile)
	}
	_, _, err := run(t, nil, "bench", "--trajectories", "../../trajectory/testdata", "--out", dir, "--conversations", "nope")
	if err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "tiny-cline") {
		t.Errorf("an unknown trajectory: %v, want an error naming it and those there are", err)
	}
}

// readJSONL reads a JSON-lines file into values of T.
func readJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []T
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var v T
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("%s line %d: %v", path, i+1, err)
		}
		out = append(out, v)
	}
	return out
}

// TestBenchTrajectoriesProfiles: --cpuprofile and --memprofile apply to
// the trajectory bench (pprof files written), a LoCoMo-only flag is
// still refused by name.
func TestBenchTrajectoriesProfiles(t *testing.T) {
	tmp := t.TempDir()
	cpu, mem := filepath.Join(tmp, "cpu.prof"), filepath.Join(tmp, "mem.prof")
	_, stderr, err := run(t, nil, "bench", "--trajectories", "../../trajectory/testdata", "--out", filepath.Join(tmp, "out"),
		"--budgets", "100000", "--conditions", "truncation", "--conversations", "0", "--cpuprofile", cpu, "--memprofile", mem, "--memory-limit", "off")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, p := range []string{cpu, mem} {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Errorf("%s: no profile written (%v)", filepath.Base(p), err)
		}
	}
	_, _, err = run(t, nil, "bench", "--trajectories", "../../trajectory/testdata", "--out", filepath.Join(tmp, "out2"), "--offline")
	if err == nil || !strings.Contains(err.Error(), "--offline do not apply under --trajectories") {
		t.Errorf("--offline under --trajectories: %v", err)
	}
}

// TestBenchTrajectoriesHold: --conditions swc-hold runs swc holding the
// budget (not run unless named): where swc sends a request whose newest
// output overflows the budget over it, swc-hold sends it within, never
// more tokens than swc.
func TestBenchTrajectoriesHold(t *testing.T) {
	in := t.TempDir()
	if err := os.WriteFile(filepath.Join(in, "loop.json"), requestLoop(chat.OpenAI, 3), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if _, stderr, err := run(t, nil, "bench", "--trajectories", in, "--out", dir, "--budgets", "600", "--conditions", "swc,swc-hold"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	rows := readJSONL[trajectory.Row](t, filepath.Join(dir, trajectory.ResultsFile))
	sent := map[int]trajectory.Row{}
	for _, r := range rows {
		if r.Condition == "swc" {
			sent[r.Request] = r
		}
	}
	held := 0
	for _, r := range rows {
		if r.Condition != "swc-hold" {
			continue
		}
		s := sent[r.Request]
		if r.SentTokens > s.SentTokens || len(r.Breaches) > 0 {
			t.Errorf("request %d: swc-hold sent %d tokens (breaches %v), swc %d", r.Request, r.SentTokens, r.Breaches, s.SentTokens)
		}
		if s.OverBudget && !r.OverBudget {
			held++
		}
	}
	if held == 0 {
		t.Errorf("swc-hold held the budget in no request swc sent over it: %+v", rows)
	}
}
