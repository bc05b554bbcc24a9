package report

import (
	"fmt"
	"slices"

	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/locomo"
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
	b := s.Breakdown()
	// best returns the condition with the highest mean on categories 1–4
	// among those keep accepts, but for full (the ceiling, not a
	// compression).
	best := func(keep func(string) bool) (string, bench.Stat) {
		var name string
		var top bench.Stat
		for _, c := range conditions(s) {
			if c == "full" || !keep(c) {
				continue
			}
			if st, ok := stat(s, c, b.Primary, pm); ok && (name == "" || st.Mean > top.Mean) {
				name, top = c, st
			}
		}
		return name, top
	}
	highest := func(among, c string, st bench.Stat) string {
		name := c
		if queryAware(s, c) {
			name += " (question-aware: its context is built for each question, knowing it)"
		}
		return fmt.Sprintf("Highest %s on %s under the %d-token budget%s: %s, %s (n = %d), %s tokens per question.",
			label, b.Aggregate(), s.Settings.Budget, among, name, cell(st), st.N, num(s.Conditions[c].TokPerQ, 0))
	}
	if c, st := best(func(string) bool { return true }); c != "" {
		sec.Items = append(sec.Items, highest("", c, st))
	}
	if c, st := best(func(c string) bool { return !queryAware(s, c) }); c != "" && anyAware(s, conditions(s)...) {
		sec.Items = append(sec.Items, highest(" among the conditions that build one context per conversation", c, st))
	}
	if st, ok := stat(s, "full", b.Primary, pm); ok {
		sec.Items = append(sec.Items, fmt.Sprintf("Full context (no budget, the ceiling): %s, %s tokens per question.", cell(st), num(s.Conditions["full"].TokPerQ, 0)))
	}
	// The paper's comparisons first: temporal prompt and anchors against
	// the generic gist, then SWC against the baselines.
	rank := func(p bench.Paired) int {
		switch {
		case p.B == "swc-full" && p.Category == b.Temporal:
			return 0
		case p.B == "swc-full":
			return 1
		case p.Category == b.Temporal:
			return 2
		}
		return 3
	}
	rows := forestRows(s, pm)
	slices.SortStableFunc(rows, func(a, b bench.Paired) int { return rank(a) - rank(b) })
	rows = rows[:min(len(rows), 6)]
	var named []string
	for _, p := range rows {
		verdict := "no clear difference (the CI spans 0)"
		switch {
		case p.Diff.CI[0] > 0:
			verdict = "better"
		case p.Diff.CI[1] < 0:
			verdict = "worse"
		}
		sec.Items = append(sec.Items, fmt.Sprintf("%s − %s, %s: %s %s, n = %d — %s.",
			condLabel(s, p.A), condLabel(s, p.B), categoryName(p.Category), signedCell(p.Diff), label, p.Diff.N, verdict))
		named = append(named, p.A, p.B)
	}
	sec.Text = []string{fmt.Sprintf("Means with 95%% bootstrap CIs (%s); differences are paired on the questions every condition answered. Details follow.", label)}
	if anyAware(s, named...) {
		sec.Text = append(sec.Text, awareNote)
	}
	if c := fewConversations(s, rows); c != "" {
		sec.Caveats = []string{c}
	}
	return sec
}

// minVerdictConversations is how many conversations a verdict needs
// before the report stops warning about it.
const minVerdictConversations = 3

// fewConversations returns the caveat shown above the key results when
// every verdict among rows comes from fewer than
// minVerdictConversations conversations, else "".
func fewConversations(s *bench.Summary, rows []bench.Paired) string {
	if len(rows) == 0 {
		return ""
	}
	most := 0
	for _, p := range rows {
		n := len(p.PerConversation)
		if n == 0 {
			n = len(conversations(s))
		}
		most = max(most, n)
	}
	if most >= minVerdictConversations {
		return ""
	}
	what := fmt.Sprintf("%d conversations", most)
	if most == 1 {
		what = "one conversation"
	}
	if s.Settings.Data == locomo.SampleName {
		what += " (the built-in sample is one synthetic conversation)"
	}
	return fmt.Sprintf("Caveat: every verdict below comes from %s. The CIs count questions, not conversations, so a \"better\" or \"worse\" here says nothing yet of other conversations: run on at least %d (LoCoMo has ten) before relying on one.", what, minVerdictConversations)
}
