package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/internal/skipnote"
)

// lmeSample is the shared LongMemEval sample, beside the checkout.
var lmeSample = filepath.Join("..", "..", "..", "shared", "data", "longmemeval", "longmemeval_s_sample14.json")

// TestREADMELongMemEval reruns the offline bench on the LongMemEval sample
// and holds the README's LongMemEval table to it (±0.002, Tok/Q ±1).
func TestREADMELongMemEval(t *testing.T) {
	if _, err := os.Stat(lmeSample); err != nil {
		abs, _ := filepath.Abs(lmeSample)
		skipnote.Skip(t, "LongMemEval sample", "not found at "+abs+", so the README's LongMemEval table is not checked")
	}
	if testing.Short() {
		t.Skip("runs the bench over 14 haystacks")
	}
	dir := t.TempDir()
	if _, stderr, err := run(t, nil, "bench", "--data", lmeSample, "--out", dir); err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	sum := readSummary(t, dir)
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(string(raw), "| condition | answer-token recall, all but abstention |")
	if at < 0 {
		t.Fatal("the README has no LongMemEval table")
	}
	rows := 0
	for _, line := range strings.Split(string(raw[at:]), "\n")[2:] {
		if !strings.HasPrefix(line, "| ") {
			break
		}
		rows++
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		name, _, _ := strings.Cut(cells[0], " (")
		cs := sum.Conditions[name]
		if cs == nil || len(cells) != 5 {
			t.Errorf("row %q: no such condition, or %d cells", line, len(cells))
			continue
		}
		m := find(t, cells[1], `^`+numRE+` \[`+numRE+`, `+numRE+`\]$`)
		st := cs.Categories[bench.KeyAll][bench.MetricAnswerTokenRecall]
		readmeNear(t, name+" recall", m[1], st.Mean)
		readmeNear(t, name+" recall CI low", m[2], st.CI[0])
		readmeNear(t, name+" recall CI high", m[3], st.CI[1])
		readmeNear(t, name+" support", cells[2], cs.Categories[bench.KeyAll][bench.MetricSupportRecall].Mean)
		readmeNear(t, name+" abstention evidence", cells[3], cs.Categories[bench.KeyAbstention][bench.MetricEvidenceRetention].Mean)
		if tok, err := strconv.Atoi(strings.ReplaceAll(cells[4], ",", "")); err != nil || tok < int(cs.TokPerQ)-1 || tok > int(cs.TokPerQ)+1 {
			t.Errorf("%s Tok/Q: README %s, measured %.0f", name, cells[4], cs.TokPerQ)
		}
	}
	if rows != len(sum.Order) {
		t.Errorf("the README's LongMemEval table has %d rows for %d conditions", rows, len(sum.Order))
	}
}
