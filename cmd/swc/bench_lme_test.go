package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/swcmem/swc/bench"
)

// tinyLME is a LongMemEval-shaped file of three questions written for the
// tests (one single-session-user, one temporal-reasoning, one abstention).
var tinyLME = filepath.Join("..", "..", "longmemeval", "testdata", "tiny.json")

// TestBenchLongMemEval runs one condition over the tiny file: bench tells
// it from LoCoMo by shape and breaks results down by question type.
func TestBenchLongMemEval(t *testing.T) {
	dir := t.TempDir()
	out, stderr, err := run(t, nil, "bench", "--data", tinyLME, "--conditions", "truncation", "--out", dir, "--resamples", "200")
	if err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	s := readSummary(t, dir)
	if len(s.Types) != 6 {
		t.Errorf("summary types %v", s.Types)
	}
	cats := s.Conditions["truncation"].Categories
	for _, key := range []string{"single-session-user", "temporal-reasoning", bench.KeyAll, bench.KeyAbstention} {
		if len(cats[key]) == 0 {
			t.Errorf("no row for %s in %v", key, cats)
		}
	}
	if s.Matched.ByCategory[bench.KeyAbstention] != 1 || s.Matched.N != 3 {
		t.Errorf("matched %+v", s.Matched)
	}
	for _, want := range []string{"every type but abstention", "single-session-user", "temporal-reasoning"} {
		if !strings.Contains(out, want) {
			t.Errorf("table does not mention %q:\n%s", want, out)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## By type", "| single-session-user |", "| All but abstention |", "## Abstention questions, reported separately"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	for _, flag := range []string{"--judge-audit=5", "--judge-prompt=strict", "--gold=corrected"} {
		if _, _, err := run(t, nil, "bench", "--data", tinyLME, flag, "--out", t.TempDir()); err == nil {
			t.Errorf("%s on LongMemEval data: no error", flag)
		}
	}
}

// TestBenchLongMemEvalResume kills a LongMemEval run midway (SIGKILL) and
// reruns it: no row is lost or repeated, no conversation whose questions
// were done is compressed again (context_stats.jsonl gains one line per
// condition and conversation), and the summary is the uninterrupted run's.
func TestBenchLongMemEvalResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the bench three times")
	}
	args := []string{"--data", tinyLME, "--conditions", "truncation,sliding,rag-bm25,swc-temporal", "--parallel", "1", "--resamples", "200"}
	ref := t.TempDir()
	if _, _, err := run(t, nil, append([]string{"bench", "--out", ref}, args...)...); err != nil {
		t.Fatal(err)
	}
	want := readRows(t, ref)
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperBenchProcess$")
	cmd.Env = append(os.Environ(), "SWC_TEST_KILL_AFTER=5", "SWC_TEST_OUT="+dir, "SWC_TEST_BENCH_ARGS="+strings.Join(args, " "))
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("helper process was not killed: %v", err)
	}
	partial := readRows(t, dir)
	if len(partial) == 0 || len(partial) >= len(want) {
		t.Fatalf("killed run left %d of %d rows", len(partial), len(want))
	}
	_, stderr, err := run(t, nil, append([]string{"bench", "--out", dir}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "resuming") {
		t.Errorf("rerun did not say it resumed: %q", stderr)
	}
	got := readRows(t, dir)
	seen := map[string]bool{}
	for _, r := range got {
		k := r.Condition + "|" + r.QuestionID
		if seen[k] {
			t.Errorf("duplicate row %s", k)
		}
		seen[k] = true
	}
	if len(got) != len(want) {
		t.Errorf("resumed run has %d rows, uninterrupted %d", len(got), len(want))
	}
	// One question per conversation, one conversation at a time, killed
	// right after a row: every context made was made once.
	if n := countLines(t, filepath.Join(dir, "context_stats.jsonl")); n != len(want) {
		t.Errorf("context_stats.jsonl has %d lines, want %d (one per condition and conversation)", n, len(want))
	}
	a, _ := os.ReadFile(filepath.Join(ref, "summary.json"))
	b, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	if !bytes.Equal(a, b) {
		t.Error("summary.json of the resumed run differs from the uninterrupted run's")
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
	}
	return n
}

// TestStatsLongMemEval: swc stats counts a LongMemEval file by question
// type, abstention apart, without LoCoMo's categories.
func TestStatsLongMemEval(t *testing.T) {
	out, _, err := run(t, nil, "stats", "--data", tinyLME)
	if err != nil {
		t.Fatal(err)
	}
	if want := "questions by type: single-session-user 1, temporal-reasoning 1, and 1 abstention questions apart"; !strings.Contains(out, want) {
		t.Errorf("stats output lacks %q:\n%s", want, out)
	}
	if strings.Contains(out, "cat1") || strings.Contains(out, "categories 1–4") {
		t.Errorf("stats of LongMemEval data speaks of LoCoMo categories:\n%s", out)
	}
}
