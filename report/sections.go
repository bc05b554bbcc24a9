package report

import (
	"fmt"
	"strings"

	"github.com/swcmem/swc/bench"
)

// sections builds the report's sections from s, in order.
func sections(s *bench.Summary) []section {
	pm := primaryMetric(s)
	out := []section{keyResultsSection(s, pm), settingsSection(s), aggregateSection(s, pm), categorySection(s), category5Section(s), matchedSection(s), pairedSection(s)}
	out = append(out, conversationSection(s, pm), tierSection(s), tokenSection(s))
	if sec, ok := goldSection(s, pm); ok {
		out = append(out, sec)
	}
	if sec, ok := actionSection(s); ok {
		out = append(out, sec)
	}
	if sec, ok := usageSection(s); ok {
		out = append(out, sec)
	}
	if sec, ok := preservationSection(s); ok {
		out = append(out, sec)
	}
	if sec, ok := auditSection(s); ok {
		out = append(out, sec)
	}
	return out
}

func settingsSection(s *bench.Summary) section {
	st := s.Settings
	rows := [][]string{
		{"Data", st.Data},
		{"Conversations", conversationList(st.Conversations)},
		{"Conditions", strings.Join(st.Conditions, ", ")},
		{"Budget", fmt.Sprintf("%d tokens", st.Budget)},
	}
	if st.Offline {
		rows = append(rows, []string{"Mode", "offline (no QA or judge model)"})
	} else {
		rows = append(rows, []string{"QA model", orNone(st.QA)}, []string{"Judge model", orNone(st.Judge)})
	}
	rows = append(rows,
		[]string{"Gister", orNone(st.Gister)},
		[]string{"Embedder", orNone(st.Embedder)},
		[]string{"Schedule", orNone(st.Schedule)},
		[]string{"Calibration", orNone(st.Calibration)},
		[]string{"Bootstrap", fmt.Sprintf("seed %d, %d resamples, 95%% percentile CIs", st.Seed, st.Resamples)},
		[]string{"Tokenizer", orNone(st.Tokenizer)},
	)
	if st.Gold != "" {
		rows = append(rows, []string{"Gold", st.Gold})
	}
	if st.JudgePrompt != "" && !st.Offline {
		rows = append(rows, []string{"Judge prompt", st.JudgePrompt})
	}
	if st.QAPrompt != "" {
		rows = append(rows, []string{"QA prompt", st.QAPrompt})
	}
	if st.Version != "" {
		rows = append(rows, []string{"Version", st.Version})
	}
	return section{ID: "settings", Title: "Settings", Tables: []table{{Header: []string{"Setting", "Value"}, Rows: rows, Labels: 2}}}
}

func orNone(s string) string {
	if s == "" {
		return none
	}
	return s
}

// metricNote says which metric the headline tables use.
func metricNote(pm string) string {
	switch pm {
	case "":
		return "No metric was recorded."
	case bench.MetricJudge:
		return "Primary metric: LLM-judge accuracy (judge)."
	}
	return fmt.Sprintf("Primary metric: %s (%s); no judge scores were recorded.", metricLabel(pm), pm)
}

func aggregateSection(s *bench.Summary, pm string) section {
	b := s.Breakdown()
	sec := section{ID: "aggregate", Title: "Aggregate, " + b.Aggregate(), Text: []string{metricNote(pm)}}
	if pm == "" {
		return sec
	}
	conds := conditions(s)
	t := table{
		Caption: noted(s, fmt.Sprintf("Table 1: aggregate %s, %s.", metricLabel(pm), b.Aggregate()), conds...),
		Header:  []string{"Condition", "Mean", "95% CI", "n", "Tok/Q"},
	}
	for _, c := range conds {
		row := []string{condLabel(s, c), none, none, none, num(s.Conditions[c].TokPerQ, 0)}
		if st, ok := stat(s, c, b.Primary, pm); ok {
			row[1], row[2], row[3] = f3(st.Mean), interval(st), fmt.Sprint(st.N)
		}
		t.Rows = append(t.Rows, row)
	}
	sec.Tables = []table{t}
	return sec
}

// categoryTable is Table 2 for one metric: rows categories (keys), columns
// conditions.
func categoryTable(s *bench.Summary, metric, caption string, keys []string) table {
	conds := conditions(s)
	t := table{Caption: noted(s, caption, conds...), Header: append([]string{groupWord(s), "n"}, condLabels(s, conds)...)}
	for _, key := range keys {
		row := []string{categoryName(key), ""}
		var ns []int
		for _, c := range conds {
			st, ok := stat(s, c, key, metric)
			if !ok {
				row = append(row, none)
				continue
			}
			ns = append(ns, st.N)
			row = append(row, cell(st))
		}
		row[1] = nRange(ns)
		t.Rows = append(t.Rows, row)
	}
	return t
}

func categorySection(s *bench.Summary) section {
	word := strings.ToLower(groupWord(s))
	sec := section{ID: "categories", Title: "By " + word, Chart: "categories",
		Text: []string{fmt.Sprintf("Mean [95%% CI] per %s and condition; n is the number of questions (a range when conditions differ).", word)}}
	b := s.Breakdown()
	keys := append(append([]string(nil), b.Groups...), b.Primary)
	for i, m := range metrics(s, keys...) {
		sec.Tables = append(sec.Tables, categoryTable(s, m, fmt.Sprintf("Table 2.%d: %s by %s.", i+1, metricLabel(m), word), keys))
	}
	if len(sec.Tables) == 0 {
		sec.Text = []string{fmt.Sprintf("No per-%s results.", word)}
		sec.Chart = ""
	}
	return sec
}

func category5Section(s *bench.Summary) section {
	b := s.Breakdown()
	sec := section{ID: "category5", Title: "Category 5 (adversarial), reported separately",
		Text: []string{"Category 5 rewards removing content: an answer saying the information is not available scores 1, so a context that drops everything scores well. It is kept out of the 1–4 aggregate."}}
	none5 := "No category 5 results."
	if b.Typed {
		sec.Title = "Abstention questions, reported separately"
		sec.Text = []string{"An abstention question's right answer is that the history does not tell: it rewards removing content, has no answer to retain, and is kept out of the aggregate. Offline, only evidence retention (the turns of the sessions it is about) is measured."}
		none5 = "No abstention results."
	}
	ms := metrics(s, b.Apart)
	if len(ms) == 0 {
		sec.Text = append(sec.Text, none5)
		return sec
	}
	conds := conditions(s)
	t := table{Caption: noted(s, "", conds...), Header: append([]string{"Condition", "n"}, ms...)}
	for _, c := range conds {
		row := []string{condLabel(s, c), none}
		for _, m := range ms {
			st, ok := stat(s, c, b.Apart, m)
			if !ok {
				row = append(row, none)
				continue
			}
			row[1] = fmt.Sprint(st.N)
			row = append(row, cell(st))
		}
		t.Rows = append(t.Rows, row)
	}
	sec.Tables = []table{t}
	return sec
}

func matchedSection(s *bench.Summary) section {
	sec := section{ID: "matched", Title: "Matched set",
		Text: []string{fmt.Sprintf("%d questions have a result under every condition; paired differences use them.", s.Matched.N)}}
	if len(s.Matched.ByCategory) > 0 {
		t := table{Header: []string{groupWord(s), "n"}}
		for _, key := range ordered(s.Breakdown().Keys(), s.Matched.ByCategory) {
			t.Rows = append(t.Rows, []string{categoryName(key), fmt.Sprint(s.Matched.ByCategory[key])})
		}
		sec.Tables = []table{t}
	}
	return sec
}

// convMean returns the unweighted mean of the per-conversation values and
// how many are positive.
func convMean(m map[string]float64) (mean float64, positive int) {
	if len(m) == 0 {
		return 0, 0
	}
	// Sum in a fixed order so the result does not depend on map order.
	for _, k := range ordered(nil, m) {
		mean += m[k]
		if m[k] > 0 {
			positive++
		}
	}
	return mean / float64(len(m)), positive
}

func pairedSection(s *bench.Summary) section {
	pm := primaryMetric(s)
	sec := section{ID: "paired", Title: "Paired differences (A − B, matched set)", Chart: "paired"}
	rows := forestRows(s, pm)
	if len(rows) == 0 {
		sec.Text = []string{"No paired differences."}
		sec.Chart = ""
		return sec
	}
	b := s.Breakdown()
	sec.Text = []string{fmt.Sprintf("Paired-bootstrap difference A − B in %s on the matched questions, %s and %s; pairs whose difference and CI are all zero are left out. Every pair, metric and category, with per-conversation deltas, is in summary.json.", metricLabel(pm), b.Aggregate(), b.Temporal)}
	var named []string
	for _, p := range rows {
		named = append(named, p.A, p.B)
	}
	t := table{Caption: noted(s, "", named...), Header: []string{"A − B", groupWord(s), "Δ [95% CI]", "n", "Δ > 0 in"}, Labels: 2}
	for _, p := range rows {
		_, pos := convMean(p.PerConversation)
		t.Rows = append(t.Rows, []string{
			condLabel(s, p.A) + " − " + condLabel(s, p.B), categoryName(p.Category), signedCell(p.Diff), fmt.Sprint(p.Diff.N),
			fmt.Sprintf("%d/%d conv.", pos, len(p.PerConversation)),
		})
	}
	sec.Tables = []table{t}
	return sec
}

func conversationSection(s *bench.Summary, pm string) section {
	sec := section{ID: "conversations", Title: "Category 2 (temporal) by conversation", Chart: "conversations"}
	if !s.Breakdown().PerConversation {
		sec.Title = "By conversation"
		sec.Text = []string{"Left out: each conversation holds one question (its own haystack), so its table would repeat the questions' rows; results.jsonl has them."}
		sec.Chart = ""
		return sec
	}
	convs := conversations(s)
	if pm == "" || len(convs) == 0 {
		sec.Text = []string{"No per-conversation results."}
		sec.Chart = ""
		return sec
	}
	sec.Text = []string{fmt.Sprintf("Table 4-like: category 2 %s per conversation; the last row is the unweighted mean over conversations.", metricLabel(pm))}
	conds := conditions(s)
	var pairs []bench.Paired // the differences are in the forest plot
	header := append([]string{"Conversation", "n"}, condLabels(s, conds)...)
	for _, p := range pairs {
		header = append(header, "Δ "+p.A+" − "+p.B)
	}
	t := table{Caption: noted(s, "", conds...), Header: header}
	sums := make([]float64, len(conds)+len(pairs))
	counts := make([]int, len(sums))
	for _, conv := range convs {
		row := []string{conv, ""}
		var ns []int
		for i, c := range conds {
			st, ok := convStat(s, conv, c, "2", pm)
			if !ok {
				row = append(row, none)
				continue
			}
			ns = append(ns, st.N)
			row = append(row, f3(st.Mean))
			sums[i] += st.Mean
			counts[i]++
		}
		for j, p := range pairs {
			d, ok := p.PerConversation[conv]
			if !ok {
				row = append(row, none)
				continue
			}
			row = append(row, signed(d))
			sums[len(conds)+j] += d
			counts[len(conds)+j]++
		}
		row[1] = nRange(ns)
		t.Rows = append(t.Rows, row)
	}
	mean := []string{"Mean", ""}
	for i := range sums {
		switch {
		case counts[i] == 0:
			mean = append(mean, none)
		case i >= len(conds):
			mean = append(mean, signed(sums[i]/float64(counts[i])))
		default:
			mean = append(mean, f3(sums[i]/float64(counts[i])))
		}
	}
	t.Rows = append(t.Rows, mean)
	sec.Tables = []table{t}
	return sec
}

// groupWord is what a key names: "Category" (LoCoMo) or "Type".
func groupWord(s *bench.Summary) string {
	if s.Breakdown().Typed {
		return "Type"
	}
	return "Category"
}

// maxListed is how many conversation ids the settings table lists.
const maxListed = 20

// conversationList returns "N (id, id, …)", naming at most maxListed.
func conversationList(ids []string) string {
	if len(ids) <= maxListed {
		return fmt.Sprintf("%d (%s)", len(ids), strings.Join(ids, ", "))
	}
	return fmt.Sprintf("%d (%s, … and %d more; summary.json lists them all)", len(ids), strings.Join(ids[:maxListed], ", "), len(ids)-maxListed)
}
