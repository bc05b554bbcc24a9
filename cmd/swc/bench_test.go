package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/strategy"
)

// TestHelperBenchProcess is not a test: TestBenchResumeAfterKill runs the
// test binary with it to get a bench process that SIGKILLs itself midway.
func TestHelperBenchProcess(t *testing.T) {
	after, _ := strconv.Atoi(os.Getenv("SWC_TEST_KILL_AFTER"))
	if after == 0 {
		t.Skip("helper process only")
	}
	benchProgressHook = func(done, total int) {
		if done >= after {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
	args := []string{"bench", "--out", os.Getenv("SWC_TEST_OUT"), "--concurrency", "4"}
	args = append(args, strings.Fields(os.Getenv("SWC_TEST_BENCH_ARGS"))...) // more flags, if any
	_, _, err := run(t, nil, args...)
	t.Fatalf("bench was not killed: %v", err)
}

func readRows(t *testing.T, dir string) []bench.Row {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []bench.Row
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var r bench.Row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("bad line in results.jsonl: %v: %q", err, sc.Text())
		}
		rows = append(rows, r)
	}
	return rows
}

// TestBenchResumeAfterKill kills a bench run midway (SIGKILL), reruns it,
// and checks that no row is lost or duplicated and that the summary is
// byte-identical to an uninterrupted run's.
func TestBenchResumeAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the bench three times")
	}
	ref := t.TempDir()
	if _, _, err := run(t, nil, "bench", "--out", ref); err != nil {
		t.Fatal(err)
	}
	want := readRows(t, ref)
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperBenchProcess$")
	cmd.Env = append(os.Environ(), "SWC_TEST_KILL_AFTER=150", "SWC_TEST_OUT="+dir)
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("helper process was not killed: %v", err)
	}
	partial := readRows(t, dir)
	if len(partial) == 0 || len(partial) >= len(want) {
		t.Fatalf("killed run left %d of %d rows", len(partial), len(want))
	}
	_, stderr, err := run(t, nil, "bench", "--out", dir)
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
	a, _ := os.ReadFile(filepath.Join(ref, "summary.json"))
	b, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	if !bytes.Equal(a, b) {
		t.Error("summary.json of the resumed run differs from the uninterrupted run's")
	}
}

func TestBenchDeterministic(t *testing.T) {
	d1, d2 := t.TempDir(), t.TempDir()
	for _, d := range []string{d1, d2} {
		if _, _, err := run(t, nil, "bench", "--out", d, "--resamples", "500"); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := os.ReadFile(filepath.Join(d1, "summary.json"))
	b, _ := os.ReadFile(filepath.Join(d2, "summary.json"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatal("two identical runs gave different summary.json")
	}
	var s bench.Summary
	if err := json.Unmarshal(a, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Order) != len(strategy.List()) || !s.Settings.Offline {
		t.Errorf("summary order %v offline %v", s.Order, s.Settings.Offline)
	}
	for _, name := range s.Order {
		for key, ms := range s.Conditions[name].Categories {
			for m, st := range ms {
				if st.CI[0] > st.Mean || st.Mean > st.CI[1] {
					t.Errorf("%s %s %s: CI %v does not contain mean %v", name, key, m, st.CI, st.Mean)
				}
			}
		}
	}
}

// TestBenchSubsetRerun reruns into a directory holding more conditions:
// the summary covers only what this run asked for.
func TestBenchSubsetRerun(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := run(t, nil, "bench", "--out", dir, "--resamples", "20"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, nil, "bench", "--out", dir, "--conditions", "truncation", "--resamples", "20"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	var s bench.Summary
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if s.Matched.N != 58 || len(s.Conditions) != 1 || s.Conditions["truncation"].Rows != 58 {
		t.Errorf("matched %d, conditions %d", s.Matched.N, len(s.Conditions))
	}
}

func TestBenchSettingsMismatch(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := run(t, nil, "bench", "--out", dir, "--conditions", "truncation", "--resamples", "10"); err != nil {
		t.Fatal(err)
	}
	_, _, err := run(t, nil, "bench", "--out", dir, "--conditions", "truncation", "--budget", "2000", "--resamples", "10")
	if err == nil || !strings.Contains(err.Error(), "budget was 4000, now 2000") {
		t.Fatalf("rerun with another budget: %v", err)
	}
}

func TestBenchFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--offline", "--qa", "openai:x"}, "exclude each other"},
		{[]string{"bench", "--judge", "openai:x"}, "--judge needs --qa"},
		{[]string{"bench", "--conditions", "swc-bogus"}, `unknown strategy "swc-bogus"`},
		{[]string{"bench", "--resamples", "0"}, "--resamples"},
		{[]string{"bench", "--schedule", "weekly"}, "unknown schedule"},
		{[]string{"bench", "--weights", "1,2"}, "three numbers"},
	} {
		_, _, err := run(t, nil, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v, want %q", tt.args, err, tt.want)
		}
	}
}

// TestBenchLoCoMoOffline runs every condition on all ten conversations and
// checks the question counts of the paper's protocol.
func TestBenchLoCoMoOffline(t *testing.T) {
	s := locomoSummary(t)
	want := map[string]int{"1": 280, "2": 315, "3": 96, "4": 810, "1-4": 1501}
	if s.Matched.N != 1935 {
		t.Errorf("matched set %d, want 1935", s.Matched.N)
	}
	for _, name := range strategy.Names(strategy.All) {
		cs := s.Conditions[name]
		if cs == nil {
			t.Fatalf("no summary for %s", name)
		}
		for key, n := range want {
			if got := cs.Categories[key][bench.MetricAnswerTokenRecall].N; got != n {
				t.Errorf("%s category %s: n = %d, want %d", name, key, got, n)
			}
		}
		if got := cs.Categories["5"][bench.MetricEvidenceRetention].N; got != 434 {
			t.Errorf("%s: %d category-5 rows, want 434", name, got)
		}
		if name != "full" && cs.MaxContextTokens > 4000 {
			t.Errorf("%s: max context %d tokens over the budget", name, cs.MaxContextTokens)
		}
	}
	// The full context is the ceiling of answer-token recall.
	full := s.Conditions["full"].Categories["1-4"][bench.MetricAnswerTokenRecall].Mean
	for _, name := range strategy.Names(strategy.All)[1:] {
		if m := s.Conditions[name].Categories["1-4"][bench.MetricAnswerTokenRecall].Mean; m > full {
			t.Errorf("%s answer-token recall %.3f above the full context's %.3f", name, m, full)
		}
	}
}

// TestBenchLocksOut: a second bench on a directory another run holds fails
// at once with a clear message (exit 1) and writes nothing there.
func TestBenchLocksOut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	lock, err := bench.LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	_, _, err = run(t, nil, "bench", "--out", dir, "--conditions", "truncation", "--resamples", "10")
	if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "is in use by another run") {
		t.Fatalf("bench on a locked directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "results.jsonl")); !os.IsNotExist(err) {
		t.Errorf("the locked-out run wrote results.jsonl: %v", err)
	}
	lock.Close()
	if _, _, err := run(t, nil, "bench", "--out", dir, "--conditions", "truncation", "--resamples", "10"); err != nil {
		t.Errorf("after the lock is released: %v", err)
	}
}
