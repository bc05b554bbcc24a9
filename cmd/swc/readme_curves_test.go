package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swcmem/swc/bench"
)

// curveConditions are the docs curve rows TestREADMECurves measures: the
// retrieval baselines and the two strategies that face them.
var curveConditions = []string{"rag-bm25", "rag-bm25-anchored", "swc-select", "swc-recall"}

// TestREADMECurves pins the README's curves to a measurement on LoCoMo at
// 1,000–8,000 tokens: the rows of the retrieval baselines, swc-select and
// swc-recall (answer-token recall and support_recall@5, categories 1–4),
// and the paired differences of swc-recall against the baselines, each
// within ±0.002.
func TestREADMECurves(t *testing.T) {
	path := needLoCoMo(t)
	if testing.Short() {
		t.Skip("full LoCoMo run at four budgets")
	}
	budgets := []int{1000, 2000, 4000, 8000}
	dir := t.TempDir()
	if _, _, err := run(t, nil, "bench", "--data", path, "--out", dir, "--no-cache",
		"--conditions", strings.Join(curveConditions, ","), "--budgets", "1000,2000,4000,8000"); err != nil {
		t.Fatal(err)
	}
	var curves bench.Curves
	readJSON(t, filepath.Join(dir, "curves.json"), &curves)
	sums := map[int]*bench.Summary{}
	for _, b := range budgets {
		sums[b] = &bench.Summary{}
		readJSON(t, filepath.Join(dir, fmt.Sprintf("budget-%d", b), "summary.json"), sums[b])
	}
	raw, text := readmeText(t)

	// The curve rows.
	at := strings.Index(raw, "## Curves: accuracy versus tokens")
	if at < 0 {
		t.Fatal("the heading of the curves not found in the README or docs/")
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(raw[at:], "\n") {
		if strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| condition") {
			cells := strings.Split(strings.Trim(line, "| "), " | ")
			name, _, _ := strings.Cut(cells[0], " (") // "swc-recall (question-aware)"
			rows[name] = cells[1:]
		}
		if strings.HasPrefix(line, "![") {
			break
		}
	}
	for _, c := range curveConditions {
		cells := rows[c]
		if len(cells) != 2*len(budgets) {
			t.Errorf("docs curve row %s: %d cells, want %d", c, len(cells), 2*len(budgets))
			continue
		}
		for m, metric := range []string{bench.MetricAnswerTokenRecall, bench.MetricSupportRecall} {
			pts := curves.Points[c]["1-4"][metric]
			if len(pts) != len(budgets) {
				t.Fatalf("%s %s: %d curve points", c, metric, len(pts))
			}
			for i, p := range pts {
				readmeNear(t, fmt.Sprintf("curve %s %s at %d", c, metric, p.Budget), cells[m*len(budgets)+i], p.Mean)
			}
		}
	}

	// swc-recall − rag-bm25-anchored with CIs, and the leads over rag-bm25.
	diff := func(b int, base, metric string) bench.Stat {
		return pairedStat(t, sums[b], "swc-recall", base, "1-4", metric)
	}
	withCI := `\+` + numRE + ` \[` + numRE + `, ` + numRE + `\]`
	four := withCI + ` / ` + withCI + ` / ` + withCI + ` / ` + withCI
	m := find(t, text, `swc-recall − rag-bm25-anchored at 1,000 / 2,000 / 4,000 / 8,000 tokens: answer-token recall `+four+`, support_recall@5 `+four+`;`)
	for j, metric := range []string{bench.MetricAnswerTokenRecall, bench.MetricSupportRecall} {
		for i, b := range budgets {
			d := diff(b, "rag-bm25-anchored", metric)
			k := 1 + j*12 + i*3
			what := fmt.Sprintf("swc-recall − rag-bm25-anchored %s at %d", metric, b)
			readmeNear(t, what, m[k], d.Mean)
			readmeNear(t, what+" CI low", m[k+1], d.CI[0])
			readmeNear(t, what+" CI high", m[k+2], d.CI[1])
		}
	}
	lead := `\+` + numRE + ` / \+` + numRE + ` / \+` + numRE + ` / \+` + numRE
	m = find(t, text, `against rag-bm25 the leads are `+lead+` and `+lead)
	for j, metric := range []string{bench.MetricAnswerTokenRecall, bench.MetricSupportRecall} {
		for i, b := range budgets {
			readmeNear(t, fmt.Sprintf("swc-recall − rag-bm25 %s at %d", metric, b), m[1+j*4+i], diff(b, "rag-bm25", metric).Mean)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
