package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/swcmem/swc/bench/evalfile"
)

type evalOutput struct {
	Rows    []map[string]any `json:"rows"`
	Summary evalfile.Summary `json:"summary"`
}

func scoreJSON(t *testing.T, vars map[string]string, args ...string) evalOutput {
	t.Helper()
	out, stderr, err := run(t, vars, append([]string{"score", "--json", "--resamples", "50"}, args...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var got evalOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestScoreEvalFormat: an evaluation file is scored (bench/evalfile
// checks the figures) and printed as a table with its notes on stderr, or
// as rows and summary with --json.
func TestScoreEvalFormat(t *testing.T) {
	file := filepath.Join("..", "..", "bench", "evalfile", "testdata", "evermemos.json")
	got := scoreJSON(t, nil, "--pred", file, "--data", goldData, "--audit", goldAudit)
	if s := got.Summary; s.Rows != 5 || s.Matched != 4 || len(got.Rows) != 5 || !near(s.Categories["1-4"]["f1"].Mean, 0.5) {
		t.Errorf("--json: %+v", got)
	}
	out, stderr, err := run(t, nil, "score", "--pred", file, "--data", goldData, "--audit", goldAudit, "--resamples", "50")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"file judge", "ceiling (original gold)", "1-4       4  0.500 ["} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{"swc: score: 1 of 5 rows", "swc: score: category 1-4: the file's own judge accuracy 0.583 exceeds the ceiling 0.500"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("notes lack %q:\n%s", want, stderr)
		}
	}
}

// TestScoreEvalJudge asks a fake judge (YES iff the answer equals the
// gold) under the corrected gold, and again under the original where the
// audit changed the answer.
func TestScoreEvalJudge(t *testing.T) {
	var judged atomic.Int64
	srv := fakeJudgeServer(t, &judged)
	defer srv.Close()
	vars := map[string]string{"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.URL}
	s := scoreJSON(t, vars, "--pred", filepath.Join("..", "..", "bench", "evalfile", "testdata", "evermemos.json"), "--data", goldData, "--audit", goldAudit,
		"--gold", "corrected", "--judge", "anthropic:claude-haiku-4-5-20251001", "--no-cache").Summary
	// Corrected: Rex=Rex, "the Boston marathon"≠, Maria=Maria, June=June.
	if g := s.Categories["1-4"]["judge"].Mean; !near(g, 0.75) {
		t.Errorf("judge %v, want 0.75", g)
	}
	if g := s.Categories["1-4"]["judge_original"].Mean; !near(g, 0.25) {
		t.Errorf("judge under the original gold %v, want 0.25", g)
	}
	if n := judged.Load(); n != 6 {
		t.Errorf("%d judge calls, want 4 + 2 for the changed answers", n)
	}
}

func TestScoreEvalErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rec := func(id, q, answer string) string {
		return `{"question_id":"` + id + `","question":"` + q + `","golden_answer":"x","generated_answer":` + answer + `,"category":"4"}`
	}
	wrap := func(recs ...string) string { return `{"detailed_results":{"u0":[` + strings.Join(recs, ",") + `]}}` }
	data, _ := os.ReadFile(goldData)
	noAudit := filepath.Join(dir, "data", "locomo", "locomo10.json")
	os.MkdirAll(filepath.Dir(noAudit), 0o755)
	os.WriteFile(noAudit, data, 0o644)
	evermemos := filepath.Join("..", "..", "bench", "evalfile", "testdata", "evermemos.json")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--pred", write("a.json", `{"results": {"x": 1}}`), "--data", goldData}, "unknown shape; accepted: JSONL rows"},
		{[]string{"--pred", write("b.json", `[{"question": "q"}]`)}, "detailed_results"},
		{[]string{"--pred", write("e.json", wrap(rec("locomo_0_qa0", "What is the dog's name?", `2022`))), "--data", goldData},
			`detailed_results["u0"][0].generated_answer: want a string answer, found number 2022`},
		{[]string{"--pred", write("g.jsonl", `{"question":"q","answer":"a","prediction":null,"category":2}`)}, "g.jsonl:1: prediction: want a string answer, found null"},
		{[]string{"--pred", evermemos}, "needs --data locomo10.json"},
		{[]string{"--pred", evermemos, "--data", noAudit, "--gold", "corrected"}, "expected at " + filepath.Join(dir, "data", "locomo-audit", "errors.json")},
		{[]string{"--pred", write("h.jsonl", `{"question":"q","answer":"a","prediction":"p","category":2}`), "--gold", "corrected"}, "needs rows mapped to LoCoMo's questions"},
	} {
		_, _, err := run(t, nil, append([]string{"score"}, tt.args...)...)
		if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v (exit %d), want exit 1 with %q", tt.args, err, exitCode(err), tt.want)
		}
	}
}
