package report

import (
	"fmt"
	"slices"

	"github.com/swcmem/swc/bench"
)

// keyResultsSection is the report's first block: the headline comparisons
// with their CIs, before any detail.
func keyResultsSection(s *bench.Summary, pm string) section {
	sec := section{ID: "key", Title: "Key results"}
	if pm == "" {
		sec.Text = []string{"No metric was recorded."}
		return sec
	}
	label := metricLabel(pm)
	var best string
	var bestStat bench.Stat
	for _, c := range conditions(s) {
		if c == "full" { // the ceiling, not a compression
			continue
		}
		if st, ok := stat(s, c, "1-4", pm); ok && (best == "" || st.Mean > bestStat.Mean) {
			best, bestStat = c, st
		}
	}
	if best != "" {
		sec.Items = append(sec.Items, fmt.Sprintf("Highest %s on categories 1–4 under the %d-token budget: %s, %s (n = %d), %s tokens per question.",
			label, s.Settings.Budget, best, cell(bestStat), bestStat.N, num(s.Conditions[best].TokPerQ, 0)))
	}
	if st, ok := stat(s, "full", "1-4", pm); ok {
		sec.Items = append(sec.Items, fmt.Sprintf("Full context (no budget, the ceiling): %s, %s tokens per question.", cell(st), num(s.Conditions["full"].TokPerQ, 0)))
	}
	// The paper's comparisons first: temporal prompt and anchors against
	// the generic gist, then SWC against the baselines.
	rank := func(p bench.Paired) int {
		switch {
		case p.B == "swc-full" && p.Category == "2":
			return 0
		case p.B == "swc-full":
			return 1
		case p.Category == "2":
			return 2
		}
		return 3
	}
	rows := forestRows(s, pm)
	slices.SortStableFunc(rows, func(a, b bench.Paired) int { return rank(a) - rank(b) })
	for i, p := range rows {
		if i == 6 {
			break
		}
		verdict := "no clear difference (the CI spans 0)"
		switch {
		case p.Diff.CI[0] > 0:
			verdict = "better"
		case p.Diff.CI[1] < 0:
			verdict = "worse"
		}
		sec.Items = append(sec.Items, fmt.Sprintf("%s − %s, %s: %s %s, n = %d — %s.",
			p.A, p.B, categoryName(p.Category), signedCell(p.Diff), label, p.Diff.N, verdict))
	}
	sec.Text = []string{fmt.Sprintf("Means with 95%% bootstrap CIs (%s); differences are paired on the questions every condition answered. Details follow.", label)}
	return sec
}
