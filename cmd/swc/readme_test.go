package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/preserve"
	"github.com/swcmem/swc/strategy"
)

// offlineRuns caches the offline LoCoMo summaries the tests share, by the
// extra bench arguments.
var offlineRuns sync.Map // string → *offlineRun

type offlineRun struct {
	once sync.Once
	sum  *bench.Summary
	err  error
}

// locomoSummary runs the offline bench on all of LoCoMo (default settings,
// 2,000 resamples, plus extra) once per test binary and returns summary.json.
func locomoSummary(t *testing.T, extra ...string) *bench.Summary {
	t.Helper()
	path := needLoCoMo(t)
	if testing.Short() {
		t.Skip("full LoCoMo run")
	}
	r, _ := offlineRuns.LoadOrStore(strings.Join(extra, " "), &offlineRun{})
	run1 := r.(*offlineRun)
	run1.once.Do(func() {
		dir, err := os.MkdirTemp("", "swc-locomo-")
		if err != nil {
			run1.err = err
			return
		}
		defer os.RemoveAll(dir)
		args := append([]string{"bench", "--data", path, "--out", dir}, extra...)
		if _, _, err := run(t, nil, args...); err != nil {
			run1.err = err
			return
		}
		data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
		if err != nil {
			run1.err = err
			return
		}
		run1.sum = &bench.Summary{}
		run1.err = json.Unmarshal(data, run1.sum)
	})
	if run1.err != nil {
		t.Fatal(run1.err)
	}
	return run1.sum
}

// readmeText returns the README followed by the docs/*.md files (the
// figures live in both), raw and with every run of white space folded to
// one space, so that sentences match whatever their line breaks.
func readmeText(t *testing.T) (raw, folded string) {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, name := range append([]string{filepath.Join("..", "..", "README.md")}, docs...) {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
		all.WriteString("\n")
	}
	raw = all.String()
	return raw, strings.Join(strings.Fields(raw), " ")
}

// num reads a number of the README or docs: "3,860", "−0.010", "+0.156", "49.0%" (as 0.490).
func num(t *testing.T, s string) float64 {
	t.Helper()
	s = strings.NewReplacer(",", "", "−", "-", "+", "").Replace(s)
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil {
		t.Fatalf("README number %q: %v", s, err)
	}
	if pct {
		v /= 100
	}
	return v
}

// readmeNear checks a README/docs figure against the measured value (±0.002;
// the figures are rounded to 3 decimals or to 0.1%).
func readmeNear(t *testing.T, what, readme string, measured float64) {
	t.Helper()
	if got := num(t, readme); math.Abs(got-measured) > 0.002 {
		t.Errorf("README/docs %s says %s, measured %.4f: rerun the bench and change the docs and this test together", what, readme, measured)
	}
}

// find returns the submatches of re in the folded README and docs,
// failing when the sentence is gone.
func find(t *testing.T, text, re string) []string {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("sentence not found in the README or docs/ (pattern %q): keep this test in step with them", re)
	}
	return m
}

const numRE = `([−+-]?[\d,]*\.?\d+%?)`

// TestREADMENumbers pins the LoCoMo figures of the README and docs/ to a
// measurement: the README's results table, docs/benchmark.md's offline
// tables, the category-2 answer retention and its paired differences, the
// tier counts under both calibrations (docs/method.md) and the
// preservation rates, each within ±0.002 (counts exactly).
func TestREADMENumbers(t *testing.T) {
	sum := locomoSummary(t)
	raw, text := readmeText(t)

	// The tables: every row and column shown.
	if all := strategy.Names(strategy.All); checkTable(t, sum, raw, "## Results") != len(all) {
		t.Errorf("the README's results table does not have one row per condition (%d)", len(all))
	}
	if n := checkTable(t, sum, raw, "## Offline results on LoCoMo"); n < 7 {
		t.Errorf("docs/benchmark.md's offline table has %d rows, want the 7 paper-style conditions", n)
	}
	if n := checkTable(t, sum, raw, "### Beyond the paper: selecting turns"); n < 6 {
		t.Errorf("docs/benchmark.md's table of selection and retrieval results has %d rows, want full, swc-anchored, swc-select, both retrieval baselines and swc-recall", n)
	}

	// Category-2 answer retention and the paired differences.
	ret := func(c string) float64 { return sum.Conditions[c].Categories["2"][bench.MetricAnswerRetention].Mean }
	m := find(t, text, `Answer retention on category 2 \(the gold as a token sequence\): full `+numRE+`, swc-full `+numRE+`, swc-temporal `+numRE+`, swc-anchored `+numRE+` \(paired difference swc-anchored − swc-temporal `+numRE+` \[`+numRE+`, `+numRE+`\], n = 315\)`)
	for i, c := range []string{"full", "swc-full", "swc-temporal", "swc-anchored"} {
		readmeNear(t, "category-2 retention of "+c, m[1+i], ret(c))
	}
	paired := func(a, b string) bench.Stat {
		for _, p := range sum.Paired {
			if p.A == a && p.B == b && p.Category == "2" && p.Metric == bench.MetricAnswerRetention {
				return p.Diff
			}
		}
		t.Fatalf("no paired difference %s − %s", a, b)
		return bench.Stat{}
	}
	d := paired("swc-anchored", "swc-temporal")
	readmeNear(t, "swc-anchored − swc-temporal", m[5], d.Mean)
	readmeNear(t, "swc-anchored − swc-temporal CI low", m[6], d.CI[0])
	readmeNear(t, "swc-anchored − swc-temporal CI high", m[7], d.CI[1])
	m = find(t, text, `\(swc-temporal − swc-full `+numRE+` \[`+numRE+`, `+numRE+`\]\)`)
	d = paired("swc-temporal", "swc-full")
	readmeNear(t, "swc-temporal − swc-full", m[1], d.Mean)
	readmeNear(t, "swc-temporal − swc-full CI low", m[2], d.CI[0])
	readmeNear(t, "swc-temporal − swc-full CI high", m[3], d.CI[1])

	// The paired differences of selection, recall and retrieval at 4,000
	// tokens: answer-token recall and support_recall@5 (categories 1–4),
	// then category-2 answer retention when the sentence gives it.
	est := `(?:[a-z0-9@_ -]+ )?` + numRE + ` \[` + numRE + `, ` + numRE + `\]`
	for _, p := range [][2]string{
		{"swc-select", "swc-anchored"}, {"swc-recall", "swc-anchored"}, {"swc-recall", "full"},
		{"rag-bm25-anchored", "rag-bm25"}, {"swc-recall", "rag-bm25"}, {"swc-recall", "rag-bm25-anchored"},
		{"swc-select", "rag-bm25-anchored"},
	} {
		m := find(t, text, regexp.QuoteMeta(p[0]+" − "+p[1])+`:? `+est+`, `+est+`(?:, `+est+`)?`)
		for i, km := range [][2]string{{"1-4", bench.MetricAnswerTokenRecall}, {"1-4", bench.MetricSupportRecall}, {"2", bench.MetricAnswerRetention}} {
			if m[1+3*i] == "" {
				break
			}
			d := pairedStat(t, sum, p[0], p[1], km[0], km[1])
			what := fmt.Sprintf("%s − %s %s (%s)", p[0], p[1], km[1], km[0])
			readmeNear(t, what, m[1+3*i], d.Mean)
			readmeNear(t, what+" CI low", m[2+3*i], d.CI[0])
			readmeNear(t, what+" CI high", m[3+3*i], d.CI[1])
		}
	}

	// Tier counts (the three SWC conditions share them) and, with
	// --calibration minmax, the tiers and the answer retention it costs.
	tiers := func(s *bench.Summary) map[string]int { return s.Conditions["swc-full"].Tiers }
	m = find(t, text, `few unpinned chunks pass 0\.6: (\d+) high, (\d+) mid, (\d+) low of (\d+) sessions`)
	checkTiers(t, "absolute", m[1:5], tiers(sum))
	mm := locomoSummary(t, "--conditions", "swc-full", "--calibration", "minmax")
	m = find(t, text, `to \[0, 1\] first \((\d+) high, (\d+) mid, (\d+) low\)`)
	checkTiers(t, "minmax", append(m[1:4], "272"), tiers(mm))
	m = find(t, text, `answer retention falls \(categories 1–4, swc-full: `+numRE+` against `+numRE+`\)`)
	readmeNear(t, "minmax answer retention", m[1], mm.Conditions["swc-full"].Categories["1-4"][bench.MetricAnswerRetention].Mean)
	readmeNear(t, "absolute answer retention", m[2], sum.Conditions["swc-full"].Categories["1-4"][bench.MetricAnswerRetention].Mean)

	// Preservation.
	p := sum.Preservation
	if p == nil {
		t.Fatal("no preservation in summary.json")
	}
	c := func(typ, v string) *preserve.Counts {
		x := p.Counts(typ, v)
		if x == nil {
			t.Fatalf("no %s counts for %s", typ, v)
		}
		return x
	}
	m = find(t, text, `temporal (\d+)/(\d+) = `+numRE+` \(swc-full\) → (\d+)/(\d+) = `+numRE+` \(swc-temporal\), ×`+numRE+` \(by value `+numRE+` → `+numRE+`\); entities `+numRE+` → `+numRE+` \(×`+numRE+`\); events `+numRE+` → `+numRE+` \(×`+numRE+`\); sliding `+numRE+` → sliding-temporal `+numRE+` \(×`+numRE+`\)`)
	full, temp := c(preserve.Temporal, "swc-full"), c(preserve.Temporal, "swc-temporal")
	exact(t, "temporal preserved (swc-full)", m[1], full.Preserved)
	exact(t, "temporal found (swc-full)", m[2], full.Found)
	readmeNear(t, "temporal rate (swc-full)", m[3], full.Rate)
	exact(t, "temporal preserved (swc-temporal)", m[4], temp.Preserved)
	exact(t, "temporal found (swc-temporal)", m[5], temp.Found)
	readmeNear(t, "temporal rate (swc-temporal)", m[6], temp.Rate)
	ratio(t, "temporal ×", m[7], temp.Rate, full.Rate)
	readmeNear(t, "temporal value rate (swc-full)", m[8], *full.ValueRate)
	readmeNear(t, "temporal value rate (swc-temporal)", m[9], *temp.ValueRate)
	ef, et := c(preserve.Entity, "swc-full"), c(preserve.Entity, "swc-temporal")
	readmeNear(t, "entity rate (swc-full)", m[10], ef.Rate)
	readmeNear(t, "entity rate (swc-temporal)", m[11], et.Rate)
	ratio(t, "entity ×", m[12], et.Rate, ef.Rate)
	vf, vt := c(preserve.Event, "swc-full"), c(preserve.Event, "swc-temporal")
	readmeNear(t, "event rate (swc-full)", m[13], vf.Rate)
	readmeNear(t, "event rate (swc-temporal)", m[14], vt.Rate)
	ratio(t, "event ×", m[15], vt.Rate, vf.Rate)
	sl, st := c(preserve.Temporal, "sliding"), c(preserve.Temporal, "sliding-temporal")
	readmeNear(t, "temporal rate (sliding)", m[16], sl.Rate)
	readmeNear(t, "temporal rate (sliding-temporal)", m[17], st.Rate)
	ratio(t, "sliding ×", m[18], st.Rate, sl.Rate)
	m = find(t, text, `swc-temporal and swc-anchored: ([\d,]+) / ([\d,]+) / ([\d,]+); both sliding variants: ([\d,]+) / ([\d,]+) / ([\d,]+)\)`)
	for i, v := range []string{"swc-full", "sliding"} {
		for j, typ := range []string{preserve.Temporal, preserve.Entity, preserve.Event} {
			exact(t, typ+" found ("+v+")", m[1+3*i+j], c(typ, v).Found)
		}
	}
}

func exact(t *testing.T, what, readme string, measured int) {
	t.Helper()
	if int(num(t, readme)) != measured {
		t.Errorf("README/docs %s says %s, measured %d", what, readme, measured)
	}
}

// ratio checks a README "×1.99" against a ratio of rates (to its 2 decimals).
func ratio(t *testing.T, what, readme string, a, b float64) {
	t.Helper()
	if got := num(t, readme); math.Abs(got-a/b) > 0.005+1e-9 {
		t.Errorf("README/docs %s%s, measured ×%.3f", what, readme, a/b)
	}
}

func checkTiers(t *testing.T, name string, readme []string, got map[string]int) {
	t.Helper()
	for i, tier := range []string{"high", "mid", "low"} {
		exact(t, name+" "+tier+" tier", readme[i], got[tier])
	}
	exact(t, name+" sessions", readme[3], got["high"]+got["mid"]+got["low"])
}

// checkTable checks the first table after the heading title (in the
// README or docs/) against sum, column by column, and returns its number
// of rows. A condition cell may carry a label in parentheses.
func checkTable(t *testing.T, sum *bench.Summary, raw, title string) int {
	t.Helper()
	at := strings.Index("\n"+raw, "\n"+title) // a heading starts a line
	if at < 0 {
		t.Fatalf("heading %q not found in the README or docs/", title)
	}
	var header []string
	rows := 0
	for _, line := range strings.Split(raw[at:], "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		switch {
		case header == nil && strings.HasPrefix(line, "| condition |"):
			header = cells
			continue
		case header == nil || strings.HasPrefix(line, "|---"):
			continue
		case !strings.HasPrefix(line, "| "):
			return rows
		}
		rows++
		name, _, _ := strings.Cut(cells[0], " (") // "swc-recall (question-aware)"
		cs := sum.Conditions[name]
		if cs == nil || len(cells) != len(header) {
			t.Errorf("table row %q after %q: no such condition measured, or %d cells for %d columns", name, title, len(cells), len(header))
			continue
		}
		stat := func(key, metric string) bench.Stat { return cs.Categories[key][metric] }
		for i, col := range header[1:] {
			cell := cells[i+1]
			what := name + " " + col
			switch col {
			case "cats 1–4", "answer-token recall":
				m := find(t, cell, `^`+numRE+` \[`+numRE+`, `+numRE+`\]$`)
				st := stat("1-4", bench.MetricAnswerTokenRecall)
				readmeNear(t, what, m[1], st.Mean)
				readmeNear(t, what+" CI low", m[2], st.CI[0])
				readmeNear(t, what+" CI high", m[3], st.CI[1])
			case "cat 1", "cat 2", "cat 3", "cat 4":
				readmeNear(t, what, cell, stat(strings.TrimPrefix(col, "cat "), bench.MetricAnswerTokenRecall).Mean)
			case "support@5, cats 1–4", "support_recall@5":
				readmeNear(t, what, cell, stat("1-4", bench.MetricSupportRecall).Mean)
			case "cat-2 answer retention":
				readmeNear(t, what, cell, stat("2", bench.MetricAnswerRetention).Mean)
			case "evidence retention":
				readmeNear(t, what, cell, stat("1-4", bench.MetricEvidenceRetention).Mean)
			case "Tok/Q":
				if got := num(t, cell); math.Abs(got-cs.TokPerQ) > 0.5 {
					t.Errorf("README/docs %s: %s, measured %.1f", what, cell, cs.TokPerQ)
				}
			default:
				t.Errorf("table column %q after %q: this test does not know it; teach it", col, title)
			}
		}
	}
	return rows
}

// TestREADMEExample keeps the README's Go example equal to the body of
// memory's Example_readme between its markers (which go test compiles and
// runs against its Output), and the output the README quotes equal to the
// example's.
func TestREADMEExample(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "memory", "example_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	between := func(s, from, to, what string) string {
		_, after, ok := strings.Cut(s, from)
		if !ok {
			t.Fatalf("%s: %q not found", what, from)
		}
		in, _, ok := strings.Cut(after, to)
		if !ok {
			t.Fatalf("%s: %q not found after %q", what, to, from)
		}
		return in
	}
	block := between(between(string(readme), "## Use it from Go", "\n## ", "README"), "```go\n", "```", "README's Go block")
	ex := between(string(src), "func Example_readme() {", "\n}\n", "memory/example_test.go")
	body := between(ex, "// README example begins\n", "\t// README example ends", "Example_readme")
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "\t")
	}
	if got := strings.Join(lines, "\n"); got != block {
		t.Errorf("the README's Go example is not Example_readme's code (memory/example_test.go); README:\n%s\nexample:\n%s", block, got)
	}
	out := strings.TrimSpace(between(ex+"\n", "// Output:\n", "\n", "Example_readme's output"))
	out = strings.TrimSpace(strings.TrimPrefix(out, "//"))
	if !strings.Contains(string(readme), "It prints `"+out+"`") {
		t.Errorf("the README does not quote Example_readme's output %q", out)
	}
}

// pairedStat returns the paired difference a − b of metric over category
// key in sum.
func pairedStat(t *testing.T, sum *bench.Summary, a, b, key, metric string) bench.Stat {
	t.Helper()
	for _, p := range sum.Paired {
		if p.A == a && p.B == b && p.Category == key && p.Metric == metric {
			return p.Diff
		}
	}
	t.Fatalf("no paired difference %s − %s of %s (%s)", a, b, metric, key)
	return bench.Stat{}
}
