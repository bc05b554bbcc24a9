// Package report renders a benchmark summary (bench.Summary) as
// summary.csv, a Markdown report with the paper's tables and a
// self-contained HTML page with the same tables and SVG charts.
//
// Every renderer is deterministic: the same Summary gives the same bytes.
package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/swcmem/swc/bench"
)

// categoryNames names LoCoMo's categories as the paper does.
var categoryNames = map[string]string{
	"1":   "1 Multi-hop",
	"2":   "2 Temporal",
	"3":   "3 Open-domain",
	"4":   "4 Single-hop",
	"5":   "5 Adversarial",
	"1-4": "1–4 All",
	// Keys of a typed run (LongMemEval): its types go by their names.
	bench.KeyAll:        "All but abstention",
	bench.KeyAbstention: "Abstention",
}

// categoryName returns the display name of a category key.
func categoryName(key string) string {
	if n, ok := categoryNames[key]; ok {
		return n
	}
	return key
}

// ordered returns the keys of m: those of preferred in that order, then
// the rest sorted.
func ordered[V any](preferred []string, m map[string]V) []string {
	var out []string
	seen := make(map[string]bool, len(m))
	for _, k := range preferred {
		if _, ok := m[k]; ok && !seen[k] {
			out = append(out, k)
			seen[k] = true
		}
	}
	rest := slices.Sorted(maps.Keys(m))
	for _, k := range rest {
		if !seen[k] {
			out = append(out, k)
		}
	}
	return out
}

// conditions returns the conditions of s with a summary in report order:
// s.Order, then any others sorted.
func conditions(s *bench.Summary) []string {
	var out []string
	for _, c := range ordered(s.Order, s.Conditions) {
		if s.Conditions[c] != nil {
			out = append(out, c)
		}
	}
	return out
}

// conversations returns the conversation ids of s.PerConversation in the
// order of s.Settings.Conversations, then any others sorted.
func conversations(s *bench.Summary) []string {
	return ordered(s.Settings.Conversations, s.PerConversation)
}

// stat returns the estimate of metric on category key under condition c.
func stat(s *bench.Summary, c, key, metric string) (bench.Stat, bool) {
	cs := s.Conditions[c]
	if cs == nil {
		return bench.Stat{}, false
	}
	st, ok := cs.Categories[key][metric]
	return st, ok
}

// convStat returns the estimate of metric on category key under condition
// c in conversation conv.
func convStat(s *bench.Summary, conv, c, key, metric string) (bench.Stat, bool) {
	cs := s.PerConversation[conv][c]
	if cs == nil {
		return bench.Stat{}, false
	}
	st, ok := cs.Categories[key][metric]
	return st, ok
}

// hasMetric reports whether any condition has metric on any of keys.
func hasMetric(s *bench.Summary, metric string, keys ...string) bool {
	for _, cs := range s.Conditions {
		if cs == nil {
			continue
		}
		for _, k := range keys {
			if _, ok := cs.Categories[k][metric]; ok {
				return true
			}
		}
	}
	return false
}

// metrics returns the metrics present on any of keys, in bench.Metrics
// order followed by unknown ones sorted.
func metrics(s *bench.Summary, keys ...string) []string {
	present := map[string]bool{}
	for _, cs := range s.Conditions {
		if cs == nil {
			continue
		}
		for _, k := range keys {
			for m := range cs.Categories[k] {
				present[m] = true
			}
		}
	}
	return ordered(bench.Metrics, present)
}

// primaryMetric returns the metric the headline tables and charts use:
// the judge when present, else answer-token recall, else the first metric
// present, else "".
func primaryMetric(s *bench.Summary) string {
	b := s.Breakdown()
	all := metrics(s, append(b.Groups, b.Primary)...)
	for _, m := range []string{bench.MetricJudge, bench.MetricAnswerTokenRecall} {
		if slices.Contains(all, m) {
			return m
		}
	}
	if len(all) > 0 {
		return all[0]
	}
	return ""
}

// metricLabel describes a metric for headings.
func metricLabel(m string) string {
	switch m {
	case bench.MetricJudge:
		return "judge accuracy"
	case bench.MetricF1:
		return "token F1"
	case bench.MetricAnswerRetention:
		return "answer retention"
	case bench.MetricAnswerTokenRecall:
		return "answer-token recall"
	case bench.MetricSupportRecall:
		return "support recall@5"
	case bench.MetricEvidenceRetention:
		return "evidence retention"
	}
	return m
}

// swcConditions returns the swc-* conditions and any other condition with
// tier counts, in report order.
func swcConditions(s *bench.Summary) []string {
	var out []string
	for _, c := range conditions(s) {
		cs := s.Conditions[c]
		if strings.HasPrefix(c, "swc") || (cs != nil && len(cs.Tiers) > 0) {
			out = append(out, c)
		}
	}
	return out
}

// tierOrder is the order tiers are reported in.
var tierOrder = []string{"high", "mid", "low"}

// num formats x with prec decimals, never as negative zero.
func num(x float64, prec int) string {
	s := fmt.Sprintf("%.*f", prec, x)
	if strings.TrimLeft(s, "-0.") == "" && strings.HasPrefix(s, "-") {
		s = s[1:]
	}
	return s
}

// f3 formats x with 3 decimals, like the paper.
func f3(x float64) string { return num(x, 3) }

// signed formats x with 3 decimals and a sign.
func signed(x float64) string {
	s := f3(x)
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

// interval formats a confidence interval as "[lo, hi]".
func interval(st bench.Stat) string {
	return "[" + f3(st.CI[0]) + ", " + f3(st.CI[1]) + "]"
}

// cell formats an estimate as "mean [lo, hi]".
func cell(st bench.Stat) string { return f3(st.Mean) + " " + interval(st) }

// signedCell formats a difference as "+mean [lo, hi]".
func signedCell(st bench.Stat) string {
	return signed(st.Mean) + " [" + signed(st.CI[0]) + ", " + signed(st.CI[1]) + "]"
}

// none marks a missing value in tables.
const none = "—"

// nRange formats the sample sizes ns: one number when they agree, else
// "lo–hi"; none when empty.
func nRange(ns []int) string {
	if len(ns) == 0 {
		return none
	}
	lo, hi := slices.Min(ns), slices.Max(ns)
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d–%d", lo, hi)
}

// pct formats a rate in [0, 1] as a percentage with 2 decimals.
func pct(rate float64) string { return num(100*rate, 2) + "%" }

// awareMark follows the name of a question-aware condition in tables and
// charts, explained by awareNote next to them.
const awareMark = " †"

// awareNote explains awareMark.
const awareNote = "† question-aware: its context is built for each question, knowing the question; the other conditions build one context per conversation and budget."

// queryAware reports whether condition c built its context per question.
func queryAware(s *bench.Summary, c string) bool {
	cs := s.Conditions[c]
	return cs != nil && cs.QueryAware
}

// condLabel is condition c's name as tables and charts show it: with
// awareMark when it is question-aware.
func condLabel(s *bench.Summary, c string) string {
	if queryAware(s, c) {
		return c + awareMark
	}
	return c
}

// condLabels is condLabel of each of conds.
func condLabels(s *bench.Summary, conds []string) []string {
	out := make([]string, len(conds))
	for i, c := range conds {
		out[i] = condLabel(s, c)
	}
	return out
}

// anyAware reports whether any of conds is question-aware.
func anyAware(s *bench.Summary, conds ...string) bool {
	return slices.ContainsFunc(conds, func(c string) bool { return queryAware(s, c) })
}

// noted returns caption followed by awareNote when any of conds is
// question-aware, else caption.
func noted(s *bench.Summary, caption string, conds ...string) string {
	if !anyAware(s, conds...) {
		return caption
	}
	if caption == "" {
		return awareNote
	}
	return caption + " " + awareNote
}
