package evalfile

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/mock"
)

// The hand-made LoCoMo file and audit of bench's gold tests: one
// conversation; q0 (cat 4) answer Max→Rex; q1 (cat 4) evidence only; q2
// (cat 1) untouched; q3 (cat 2) answer July→June; q4 cat 5.
var (
	goldData  = filepath.Join("..", "testdata", "gold", "locomo.json")
	goldAudit = filepath.Join("..", "testdata", "gold", "audit", "errors.json")
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// score parses file and scores it against the hand-made data under gold,
// with the audit when audit is true.
func score(t *testing.T, file, gold string, audit bool, o Options) (Summary, []*Row) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	rows, ok, err := Parse(data, file)
	if err != nil || !ok {
		t.Fatalf("Parse(%s) = %v, %v", file, ok, err)
	}
	all, _, err := locomo.LoadFile(goldData)
	if err != nil {
		t.Fatal(err)
	}
	setup := &bench.GoldSetup{Conversations: all}
	if audit {
		if setup, err = bench.LoadGold(bench.GoldOptions{Gold: gold, Data: goldData, Audit: goldAudit}, all); err != nil {
			t.Fatal(err)
		}
	}
	o.Gold, o.Option, o.Resamples, o.Seed = setup, gold, 50, 1
	sum, err := Score(context.Background(), rows, o)
	if err != nil {
		t.Fatal(err)
	}
	return sum, rows
}

func mean(t *testing.T, s Summary, key, metric string) float64 {
	t.Helper()
	st, ok := s.Categories[key][metric]
	if !ok {
		t.Fatalf("no %s on %s: %v", metric, key, s.Categories[key])
	}
	return st.Mean
}

// TestScoreEverMemOS scores testdata/evermemos.json (values worked out by
// hand): q0 "Rex" for gold Max (corrected Rex), q1 mislabelled 1 (LoCoMo
// 4), q2 matched by text, q3 "June" for gold July (corrected June), and
// one row that matches nothing.
func TestScoreEverMemOS(t *testing.T) {
	s, rows := score(t, "evermemos.json", bench.GoldOriginal, true, Options{})
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
	if rows[2].Fields["locomo_id"] != "g-1:q2" {
		t.Errorf("row matched by text: %v", rows[2].Fields)
	}
	notes := strings.Join(Notes(s, "f.json"), "\n")
	for _, want := range []string{`1 of 5 rows of f.json`, `"locomo_0_qa99"`, "differ from LoCoMo's on 1 of 4 matched rows (file label→LoCoMo category: 1→4 ×1)",
		"category 1-4: the file's own judge accuracy 0.583 exceeds the ceiling 0.500"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}

	// Corrected gold: q0 and q3 now right.
	c, _ := score(t, "evermemos.json", bench.GoldCorrected, true, Options{})
	for _, w := range []struct {
		key, metric string
		want        float64
	}{{"1-4", "f1", 1}, {"1-4", "f1_original", 0.5}, {"2", "f1", 1}} {
		if g := mean(t, c, w.key, w.metric); !near(g, w.want) {
			t.Errorf("corrected %s %s = %v, want %v", w.key, w.metric, g, w.want)
		}
	}
}

// TestScoreMemOSMap reads the bare per-user map with "response", numeric
// categories and CORRECT/WRONG verdicts.
func TestScoreMemOSMap(t *testing.T) {
	s, _ := score(t, "memos.json", bench.GoldOriginal, false, Options{})
	if s.Matched != 2 || s.LabelMismatch["3→4"] != 1 {
		t.Errorf("matched %d, labels %v", s.Matched, s.LabelMismatch)
	}
	if g := mean(t, s, "1-4", "file_judge"); !near(g, 0.75) {
		t.Errorf("file judge %v, want (1 + 0.5)/2", g)
	}
	if g := mean(t, s, "4", "f1"); !near(g, 1) {
		t.Errorf("f1 cat 4 %v", g)
	}
	if s.Ceiling != nil {
		t.Errorf("ceiling without an audit: %v", s.Ceiling)
	}
}

// TestScoreMem0 reads Mem0's evals.py output: one "llm_score" per record.
func TestScoreMem0(t *testing.T) {
	s, _ := score(t, "mem0.json", bench.GoldOriginal, false, Options{})
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

// TestScoreJudgeBothGolds asks a judge (YES iff the answer equals the
// gold) under the corrected gold, and again under the original where the
// audit changed the answer.
func TestScoreJudgeBothGolds(t *testing.T) {
	judge := &mock.LLM{ID: "fake:judge", CompleteFn: func(_ context.Context, req swc.LLMRequest) (swc.LLMResponse, error) {
		p := req.Messages[0].Content
		gold := between(p, "Gold answer: ", ". Model answer:")
		answer := between(p, "Model answer: ", ". ")
		if strings.EqualFold(strings.TrimSpace(gold), strings.TrimSpace(answer)) {
			return swc.LLMResponse{Text: "YES"}, nil
		}
		return swc.LLMResponse{Text: "NO"}, nil
	}}
	s, rows := score(t, "evermemos.json", bench.GoldCorrected, true, Options{Judge: judge, Prompt: bench.JudgePrompt, Concurrency: 2})
	// Corrected: Rex=Rex, "the Boston marathon"≠, Maria=Maria, June=June.
	if g := mean(t, s, "1-4", "judge"); !near(g, 0.75) {
		t.Errorf("judge %v, want 0.75", g)
	}
	if g := mean(t, s, "1-4", "judge_original"); !near(g, 0.25) {
		t.Errorf("judge under the original gold %v, want 0.25", g)
	}
	if n := judge.Calls.Load(); n != 6 {
		t.Errorf("%d judge calls, want 4 + 2 for the changed answers", n)
	}
	if rows[0].Fields["verdict"] != "YES" {
		t.Errorf("row 0 verdict %v", rows[0].Fields["verdict"])
	}
}

func between(s, a, b string) string {
	_, rest, _ := strings.Cut(s, a)
	v, _, _ := strings.Cut(rest, b)
	return v
}

func TestParseErrors(t *testing.T) {
	rec := func(id, q, answer string) string {
		return `{"question_id":"` + id + `","question":"` + q + `","golden_answer":"x","generated_answer":` + answer + `,"category":"4"}`
	}
	wrap := func(recs ...string) string { return `{"detailed_results":{"u0":[` + strings.Join(recs, ",") + `]}}` }
	for _, tt := range []struct{ body, want string }{
		{wrap(rec("locomo_0_qa0", "What is the dog's name?", `2022`)), `f.json: detailed_results["u0"][0].generated_answer: want a string answer, found number 2022`},
		{wrap(rec("locomo_0_qa0", "What is the dog's name?", `null`)), "generated_answer: want a string answer, found null"},
		{wrap(rec("locomo_0_qa0", "", `"a"`)), "question: want a non-empty string"},
		{`{"detailed_results": [1]}`, "detailed_results must be an object"},
		{`{"detailed_results": {"u0": 3}}`, `detailed_results["u0"]: want a list of records`},
		{`{"detailed_results": {}}`, "no records"},
		{`{"u0": [{"question": "q", "response": "a", "llm_judgments": {"j": "maybe"}}]}`, `["u0"][0].llm_judgments.j: want true/false`},
	} {
		_, ok, err := Parse([]byte(tt.body), "f.json")
		if !ok || err == nil || !strings.Contains(err.Error(), tt.want) || swc.ErrorCode(err) != swc.EINVALID {
			t.Errorf("%s: ok %v, %v; want %q", tt.body, ok, err, tt.want)
		}
	}
	for _, body := range []string{`{"question":"q","prediction":"p"}`, "not json", `{}`, `{"u0": [{"answer": "no question"}]}`} {
		if _, ok, err := Parse([]byte(body), "f.json"); ok || err != nil {
			t.Errorf("%s: ok %v, %v; want not an evaluation file", body, ok, err)
		}
	}
	if err := CheckShape([]byte(`{"results": {"x": 1}}`), "a.json"); err == nil || !strings.Contains(err.Error(), "a.json: unknown shape; accepted: JSONL rows") {
		t.Errorf("CheckShape: %v", err)
	}
}

// TestScoreMatchErrors: two rows with one question_id, or two that map to
// one question, are errors naming both.
func TestScoreMatchErrors(t *testing.T) {
	all, _, err := locomo.LoadFile(goldData)
	if err != nil {
		t.Fatal(err)
	}
	rec := func(id, q string) string {
		return `{"question_id":"` + id + `","question":"` + q + `","generated_answer":"Rex","category":"4"}`
	}
	for _, tt := range []struct{ a, b, want string }{
		{rec("locomo_0_qa0", "What is the dog's name?"), rec("locomo_0_qa0", "What is the dog's name?"), `duplicate question_id "locomo_0_qa0" at detailed_results["u0"][0] and detailed_results["u0"][1]`},
		{rec("a", "What is the dog's name?"), rec("b", "what is the dog's name?"), "both map to LoCoMo question g-1:q0"},
	} {
		rows, _, err := Parse([]byte(`{"detailed_results":{"u0":[`+tt.a+","+tt.b+`]}}`), "f.json")
		if err != nil {
			t.Fatal(err)
		}
		_, err = Score(context.Background(), rows, Options{Gold: &bench.GoldSetup{Conversations: all}, Option: bench.GoldOriginal, Resamples: 10})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v, want %q", err, tt.want)
		}
	}
}
