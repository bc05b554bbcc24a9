package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swcmem/swc/bench"
)

func TestBenchBudgetsAndContexts(t *testing.T) {
	dir := t.TempDir()
	args := []string{"bench", "--out", dir, "--resamples", "50", "--conditions", "truncation,swc-select,swc-recall",
		"--budgets", "2000,500", "--save-contexts"}
	out, _, err := run(t, nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "answer_token_recall, categories 1-4, by budget") {
		t.Errorf("no curve table on stdout:\n%s", out)
	}
	var c bench.Curves
	data, err := os.ReadFile(filepath.Join(dir, "curves.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Budgets) != 2 || c.Budgets[0] != 500 || c.Budgets[1] != 2000 {
		t.Errorf("budgets %v, want [500 2000]", c.Budgets)
	}
	pts := c.Points["swc-select"]["1-4"][bench.MetricSupportRecall]
	if len(pts) != 2 || pts[0].TokPerQ > 500 || pts[1].TokPerQ > 2000 || pts[0].Mean > pts[1].Mean {
		t.Errorf("swc-select support recall curve %+v", pts)
	}
	for _, f := range []string{"curves.md", "curves.html", "budget-500/summary.json", "budget-2000/report.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, "curves.html"))
	if strings.Count(string(html), "<svg") < 5 {
		t.Errorf("curves.html has %d charts", strings.Count(string(html), "<svg"))
	}

	// contexts.jsonl: agnostic conditions once per conversation, swc-recall
	// once per question, every context within its budget.
	f, err := os.Open(filepath.Join(dir, "budget-500", "contexts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	count := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r bench.ContextRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		count[r.Condition]++
		if r.Budget != 500 || r.Tokens > 500 || r.Text == "" || r.Conversation == "" {
			t.Errorf("record %+v", r)
		}
		if (r.QuestionID == "") != (r.Condition != "swc-recall") {
			t.Errorf("%s record with question id %q", r.Condition, r.QuestionID)
		}
	}
	if count["truncation"] != 1 || count["swc-select"] != 1 || count["swc-recall"] < 40 {
		t.Errorf("records per condition %v", count)
	}

	// A rerun resumes every budget.
	_, errOut, err := run(t, nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(errOut, "resuming") != 2 {
		t.Errorf("rerun did not resume both budgets:\n%s", errOut)
	}
	if _, _, err := run(t, nil, "bench", "--out", t.TempDir(), "--budgets", "1000,x"); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("--budgets 1000,x: err = %v", err)
	}
}
