package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

type evalOutput struct {
	Rows    []map[string]any `json:"rows"`
	Summary evalSummary      `json:"summary"`
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

func mean(t *testing.T, s evalSummary, key, metric string) float64 {
	t.Helper()
	st, ok := s.Categories[key][metric]
	if !ok {
		t.Fatalf("no %s on %s: %v", metric, key, s.Categories[key])
	}
	return st.Mean
}

// TestScoreEvalFormat scores testdata/score/evermemos.json against the
// hand-made LoCoMo file of the gold tests (values worked out by hand):
// q0 "Rex" for gold Max (corrected Rex), q1 mislabelled 1 (LoCoMo 4), q2
// matched by text, q3 "June" for gold July (corrected June), and one row
// that matches nothing.
func TestScoreEvalFormat(t *testing.T) {
	file := filepath.Join("testdata", "score", "evermemos.json")
	got := scoreJSON(t, nil, "--pred", file, "--data", goldData, "--audit", goldAudit)
	s := got.Summary
	if s.Rows != 5 || s.Matched != 4 || len(s.Unmatched) != 1 || s.Unmatched[0] != "locomo_0_qa99" {
		t.Errorf("rows %d matched %d unmatched %v", s.Rows, s.Matched, s.Unmatched)
	}
	if s.LabelMismatch["1→4"] != 1 || len(s.LabelMismatch) != 1 {
		t.Errorf("label mismatch %v, want 1→4 once", s.LabelMismatch)
	}
	for _, c := range []struct {
		key, metric string
		want        float64
	}{
		{"1-4", "f1", 0.5}, {"4", "f1", 0.5}, {"1", "f1", 1}, {"2", "f1", 0},
		{"1-4", "file_judge", (1.0/3 + 1 + 1 + 0) / 4}, {"4", "file_judge", (1.0/3 + 1) / 2},
	} {
		if g := mean(t, s, c.key, c.metric); !near(g, c.want) {
			t.Errorf("%s %s = %v, want %v", c.key, c.metric, g, c.want)
		}
	}
	if s.Categories["4"]["f1"].N != 2 || s.Categories["1"]["f1"].N != 1 {
		t.Errorf("categories by question: %v", s.Categories)
	}
	if !near(s.Ceiling["1-4"], 0.5) || !near(s.Ceiling["4"], 0.5) || !near(s.Ceiling["2"], 0) || !near(s.Ceiling["1"], 1) {
		t.Errorf("ceilings %v", s.Ceiling)
	}
	if got.Rows[2]["locomo_id"] != "g-1:q2" {
		t.Errorf("row matched by text: %v", got.Rows[2])
	}

	// Corrected gold: q0 and q3 now right.
	c := scoreJSON(t, nil, "--pred", file, "--data", goldData, "--audit", goldAudit, "--gold", "corrected").Summary
	for _, w := range []struct {
		key, metric string
		want        float64
	}{{"1-4", "f1", 1}, {"1-4", "f1_original", 0.5}, {"2", "f1", 1}} {
		if g := mean(t, c, w.key, w.metric); !near(g, w.want) {
			t.Errorf("corrected %s %s = %v, want %v", w.key, w.metric, g, w.want)
		}
	}

	// The table and notes.
	out, stderr, err := run(t, nil, "score", "--pred", file, "--data", goldData, "--audit", goldAudit, "--resamples", "50")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"file judge", "ceiling (original gold)"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{`1 of 5 rows`, `"locomo_0_qa99"`, "differ from LoCoMo's on 1 of 4 matched rows (file label→LoCoMo category: 1→4 ×1)",
		"category 1-4: the file's own judge accuracy 0.583 exceeds the ceiling 0.500"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("notes lack %q:\n%s", want, stderr)
		}
	}
}

// TestScoreMemOSMap reads the bare per-user map with "response", numeric
// categories and CORRECT/WRONG verdicts.
func TestScoreMemOSMap(t *testing.T) {
	s := scoreJSON(t, nil, "--pred", filepath.Join("testdata", "score", "memos.json"), "--data", goldData).Summary
	if s.Matched != 2 || s.LabelMismatch["3→4"] != 1 {
		t.Errorf("matched %d, labels %v", s.Matched, s.LabelMismatch)
	}
	if g := mean(t, s, "1-4", "file_judge"); !near(g, 0.75) {
		t.Errorf("file judge %v, want (1 + 0.5)/2", g)
	}
	if g := mean(t, s, "4", "f1"); !near(g, 1) {
		t.Errorf("f1 cat 4 %v", g)
	}
}

// TestScoreMem0 reads Mem0's evals.py output: one "llm_score" per record.
func TestScoreMem0(t *testing.T) {
	s := scoreJSON(t, nil, "--pred", filepath.Join("testdata", "score", "mem0.json"), "--data", goldData).Summary
	if s.Matched != 2 || len(s.LabelMismatch) != 0 {
		t.Errorf("matched %d, labels %v", s.Matched, s.LabelMismatch)
	}
	if g := mean(t, s, "1-4", "file_judge"); !near(g, 0.5) {
		t.Errorf("file judge %v, want (1 + 0)/2", g)
	}
	// Category 1 F1 "Her sister Maria" vs "Maria": P 1/3, R 1 → 0.5.
	if g := mean(t, s, "1", "f1"); !near(g, 0.5) {
		t.Errorf("f1 cat 1 %v, want 0.5", g)
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
	s := scoreJSON(t, vars, "--pred", filepath.Join("testdata", "score", "evermemos.json"), "--data", goldData, "--audit", goldAudit,
		"--gold", "corrected", "--judge", "anthropic:claude-haiku-4-5-20251001", "--no-cache").Summary
	// Corrected: Rex=Rex, "the Boston marathon"≠, Maria=Maria, June=June.
	if g := mean(t, s, "1-4", "judge"); !near(g, 0.75) {
		t.Errorf("judge %v, want 0.75", g)
	}
	if g := mean(t, s, "1-4", "judge_original"); !near(g, 0.25) {
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
	evermemos := filepath.Join("testdata", "score", "evermemos.json")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--pred", write("a.json", `{"results": {"x": 1}}`), "--data", goldData}, "unknown shape; accepted: JSONL rows"},
		{[]string{"--pred", write("b.json", `[{"question": "q"}]`)}, "detailed_results"},
		{[]string{"--pred", write("c.json", wrap(rec("locomo_0_qa0", "What is the dog's name?", `"Rex"`), rec("locomo_0_qa0", "What is the dog's name?", `"Rex"`))), "--data", goldData},
			`duplicate question_id "locomo_0_qa0" at detailed_results["u0"][0] and detailed_results["u0"][1]`},
		{[]string{"--pred", write("d.json", wrap(rec("a", "What is the dog's name?", `"Rex"`), rec("b", "what is the dog's name?", `"Rex"`))), "--data", goldData},
			"both map to LoCoMo question g-1:q0"},
		{[]string{"--pred", write("e.json", wrap(rec("locomo_0_qa0", "What is the dog's name?", `2022`))), "--data", goldData},
			`detailed_results["u0"][0].generated_answer: want a string answer, found number 2022`},
		{[]string{"--pred", write("f.json", wrap(rec("locomo_0_qa0", "What is the dog's name?", `null`))), "--data", goldData},
			"generated_answer: want a string answer, found null"},
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
