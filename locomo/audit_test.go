package locomo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/internal/skipnote"
)

// auditPath is where the shared audit file lives relative to this package.
var auditPath = filepath.Join("..", "..", "shared", "data", "locomo-audit", "errors.json")

// TestApplyCorrectionsByHand applies two hand-made corrections to
// testdata/mini.json: one that faults the answer, one only the citation.
func TestApplyCorrectionsByHand(t *testing.T) {
	convs, _, err := LoadFile("testdata/mini.json")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := ParseCorrections([]byte(`[
	 {"question_id":"locomo_0_qa0","question":"When did Ben run a race?","golden_answer":"The Sunday before 3 March 2024",
	  "correct_answer":"25 February 2024","cited_evidence":["D2:1"],"correct_evidence":["D2:1","D1:2"],"category":2,"error_type":"TEMPORAL_ERROR"},
	 {"question_id":"locomo_0_qa1","question":"When did Ana start pottery?","golden_answer":"2023",
	  "correct_answer":"2023 (answer is correct, citation is wrong)","cited_evidence":["D1:1"],"correct_evidence":["D1:2","D77:1"],"category":2,"error_type":"WRONG_CITATION"}
	]`), "hand.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ApplyCorrections(convs, cs)
	if err != nil {
		t.Fatal(err)
	}
	q := got.Conversations[0].Questions
	if q[0].Answer != "25 February 2024" || strings.Join(q[0].Evidence, ",") != "D2:1,D1:2" {
		t.Errorf("answer-fault question: %q %v", q[0].Answer, q[0].Evidence)
	}
	if q[1].Answer != "2023" || strings.Join(q[1].Evidence, ",") != "D1:2" {
		t.Errorf("citation-only question: answer %q (must stay), evidence %v", q[1].Answer, q[1].Evidence)
	}
	if q[2].Answer != convs[0].Questions[2].Answer {
		t.Errorf("uncorrected question changed: %q", q[2].Answer)
	}
	if convs[0].Questions[0].Answer != "The Sunday before 3 March 2024" {
		t.Errorf("input modified: %q", convs[0].Questions[0].Answer)
	}
	if got.Answers != 1 || got.Evidence != 2 || len(got.Fixes) != 2 {
		t.Errorf("answers %d evidence %d fixes %d, want 1 2 2", got.Answers, got.Evidence, len(got.Fixes))
	}
	if _, ok := got.Fixes["mini-1:q0"]; !ok {
		t.Errorf("fixes keyed by %v, want the loader's question ids", got.Fixes)
	}
	if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0].String(), `"D77:1"`) {
		t.Errorf("warnings %v, want the unknown turn D77:1", got.Warnings)
	}
}

func TestCorrectionErrors(t *testing.T) {
	convs, _, err := LoadFile("testdata/mini.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ body, want string }{
		{`{}`, "top level must be a JSON list"},
		{`[{"question_id":"q1","error_type":"HALLUCINATION","correct_answer":"x"}]`, `entry 0: question_id "q1" is not locomo_`},
		{`[{"question_id":"locomo_0_qa0","error_type":"HALLUCINATION"}]`, "without a correct_answer"},
		{`[{"question_id":"locomo_0_qa0","error_type":"WRONG_CITATION"},{"question_id":"locomo_0_qa0","error_type":"WRONG_CITATION"}]`, "entry 1: question_id locomo_0_qa0 repeats entry 0"},
		{`[{"question_id":"locomo_0_qa0","error_type":"WRONG_CITATION","category":"two"}]`, `field "category"`},
	} {
		if _, err := ParseCorrections([]byte(tt.body), "e.json"); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.body, err, tt.want)
		}
	}
	for _, tt := range []struct{ body, want string }{
		{`[{"question_id":"locomo_1_qa0","error_type":"WRONG_CITATION"}]`, "locomo_1_qa0: no such question"},
		{`[{"question_id":"locomo_0_qa9","error_type":"WRONG_CITATION"}]`, "locomo_0_qa9: no such question"},
		{`[{"question_id":"locomo_0_qa0","question":"Who?","error_type":"WRONG_CITATION"}]`, `question "Who?" differs`},
	} {
		cs, err := ParseCorrections([]byte(tt.body), "e.json")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ApplyCorrections(convs, cs); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.body, err, tt.want)
		}
	}
	missing := filepath.Join(t.TempDir(), "errors.json")
	_, err = LoadCorrections(missing)
	if err == nil || swc.ErrorCode(err) != swc.ENOTFOUND || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: %v, want not_found naming %s", err, missing)
	}
	if got := DefaultAuditPath("/d/data/locomo/locomo10.json"); got != "/d/data/locomo-audit/errors.json" {
		t.Errorf("DefaultAuditPath = %s", got)
	}
}

// TestAuditOnLoCoMo applies the whole audit to locomo10.json.
func TestAuditOnLoCoMo(t *testing.T) {
	path := needLoCoMo(t)
	if _, err := os.Stat(auditPath); err != nil {
		skipnote.Skip(t, "LoCoMo audit", "not found at "+auditPath+", so its test skips; get errors.json from https://github.com/dial481/locomo-audit")
	}
	convs, _, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := LoadCorrections(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ApplyCorrections(convs, cs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Fixes) != 156 || got.Evidence != 156 || got.Answers != 99 {
		t.Errorf("matched %d, evidence replaced %d, answers replaced %d; want 156, 156, 99", len(got.Fixes), got.Evidence, got.Answers)
	}
	if len(got.Warnings) != 0 {
		t.Errorf("warnings: %v", got.Warnings)
	}
	// The file's breakdown: entries per category, and answer faults
	// per category; every entry's category is the data's.
	entries, answers := map[swc.Category]int{}, map[swc.Category]int{}
	byID := map[string]swc.Question{}
	for _, c := range convs {
		for _, q := range c.Questions {
			byID[q.ID] = q
		}
	}
	for id, fix := range got.Fixes {
		q := byID[id]
		if int(q.Category) != fix.Category {
			t.Errorf("%s: file category %d, data %d", fix.QuestionID, fix.Category, q.Category)
		}
		entries[q.Category]++
		if fix.AnswerWrong() {
			answers[q.Category]++
		}
	}
	wantEntries := map[swc.Category]int{1: 53, 2: 36, 3: 10, 4: 57}
	wantAnswers := map[swc.Category]int{1: 28, 2: 26, 3: 9, 4: 36}
	for _, cat := range []swc.Category{1, 2, 3, 4, 5} {
		if entries[cat] != wantEntries[cat] || answers[cat] != wantAnswers[cat] {
			t.Errorf("category %d: %d entries, %d answers; want %d, %d", cat, entries[cat], answers[cat], wantEntries[cat], wantAnswers[cat])
		}
	}
	// Two entries checked by hand against the file.
	hike := got.Conversations[3].Questions[68]
	if hike.Answer != "At least five (D7:6, D8:4, D11:3, D14:19, D28:22)" || len(hike.Evidence) != 5 {
		t.Errorf("locomo_3_qa68: %q %v", hike.Answer, hike.Evidence)
	}
	sunrise := got.Conversations[0].Questions[1]
	if sunrise.Answer != "2022" || strings.Join(sunrise.Evidence, ",") != "D1:14" {
		t.Errorf("locomo_0_qa1: %q %v", sunrise.Answer, sunrise.Evidence)
	}
}
