package bench

import (
	"slices"

	"github.com/swcmem/swc"
)

// DefaultPairs are the paired differences reported when both conditions
// ran: the paper's ablation (swc-temporal − swc-full), ours (swc-anchored −
// swc-temporal), the temporal fix on the sliding window, swc's selection
// and recall against each other and the full transcript, and against the
// retrieval baselines.
var DefaultPairs = [][2]string{
	{"swc-temporal", "swc-full"},
	{"swc-anchored", "swc-temporal"},
	{"sliding-temporal", "sliding"},
	{"swc-temporal", "sliding"},
	{"swc-temporal", "truncation"},
	{"swc-select", "swc-anchored"},
	{"swc-recall", "swc-anchored"},
	{"swc-recall", "swc-select"},
	{"swc-recall", "full"},
	{"rag-bm25-anchored", "rag-bm25"},
	{"swc-recall", "rag-bm25"},
	{"swc-recall", "rag-bm25-anchored"},
	{"swc-select", "rag-bm25-anchored"},
}

// SummaryInput is what Summarize needs.
type SummaryInput struct {
	Settings      Settings
	Order         []string // conditions, in report order
	Conversations []*swc.Conversation
	Rows          []Row
	Contexts      Contexts
	Resamples     int
	Seed          uint64
	Pairs         [][2]string // default DefaultPairs
	// QueryAware names the conditions whose context is built per question
	// (see QueryAwareNames).
	QueryAware []string
	// Types, when set, breaks results down by these question types (rows'
	// Type) rather than LoCoMo's categories; see Summary.Types.
	Types []string
}

// QueryAwareNames returns the names of the strategies whose context
// depends on the question (swc.QueryAware), in order.
func QueryAwareNames(ss []swc.Strategy) []string {
	var out []string
	for _, s := range ss {
		if qa, ok := s.(swc.QueryAware); ok && qa.QueryAware() {
			out = append(out, s.Name())
		}
	}
	return out
}

// Summarize computes summary.json from finished rows: per condition and
// category key, the mean and 95% bootstrap CI of every metric over the
// matched set (questions with a row under every condition); paired
// differences; per-conversation tables. Only rows without an error count;
// rows with one are counted in ConditionSummary.Errors. Rows of conditions
// or conversations outside in.Order and in.Conversations are ignored.
func Summarize(in SummaryInput) *Summary {
	convOrder := map[string]int{}
	for i, c := range in.Conversations {
		convOrder[c.ID] = i
	}
	inRun := map[string]bool{}
	for _, n := range in.Order {
		inRun[n] = true
	}
	rows := make([]Row, 0, len(in.Rows))
	var failed []Row
	for _, r := range in.Rows {
		if _, ok := convOrder[r.Conversation]; !ok || !inRun[r.Condition] {
			continue // rows of another selection, kept in the same directory
		}
		if r.Error == "" {
			rows = append(rows, r)
		} else {
			failed = append(failed, r)
		}
	}
	sortRows(rows, in.Order, convOrder)
	keys := CategoryKeys
	if len(in.Types) > 0 {
		keys = TypedBreakdown(in.Types).Keys()
	}

	// The matched set.
	count := map[string]int{}
	for _, r := range rows {
		count[r.QuestionID]++
	}
	matched := map[string]bool{}
	s := &Summary{
		Settings: in.Settings, Order: in.Order, Types: in.Types,
		Conditions:      map[string]*ConditionSummary{},
		PerConversation: map[string]map[string]*ConvSummary{},
		Paired:          []Paired{},
		Matched:         Matched{ByCategory: map[string]int{}},
	}
	for _, r := range rows {
		if count[r.QuestionID] == len(in.Order) && !matched[r.QuestionID] {
			matched[r.QuestionID] = true
			s.Matched.N++
			s.Matched.ByCategory[groupKey(r)]++
		}
	}
	byCond := map[string][]Row{}
	for _, r := range rows {
		if matched[r.QuestionID] {
			byCond[r.Condition] = append(byCond[r.Condition], r)
		}
	}
	for _, name := range in.Order {
		cr := byCond[name]
		cs := &ConditionSummary{Categories: categoryStats(cr, keys, in.Resamples, in.Seed), Actions: map[string]int{}, Rows: len(cr),
			QueryAware: slices.Contains(in.QueryAware, name)}
		tok := 0
		for _, r := range cr {
			if r.Tokens.Prompt > 0 {
				tok += r.Tokens.Prompt
			} else {
				tok += r.Tokens.Context
			}
		}
		if len(cr) > 0 {
			cs.TokPerQ = float64(tok) / float64(len(cr))
		}
		ctxSum, ctxN := 0, 0
		for _, c := range in.Conversations {
			x := in.Contexts[name][c.ID]
			if x == nil {
				continue
			}
			ctxSum += x.Tokens
			ctxN++
			cs.MaxContextTokens = max(cs.MaxContextTokens, x.Tokens)
			conv := s.PerConversation[c.ID]
			if conv == nil {
				conv = map[string]*ConvSummary{}
				s.PerConversation[c.ID] = conv
			}
			cv := &ConvSummary{ContextTokens: x.Tokens, Actions: map[string]int{}}
			for _, ch := range x.Chunks {
				cs.Actions[string(ch.Action)]++
				cv.Actions[string(ch.Action)]++
				if ch.Tier != "" {
					if cs.Tiers == nil {
						cs.Tiers = map[string]int{}
					}
					if cv.Tiers == nil {
						cv.Tiers = map[string]int{}
					}
					cs.Tiers[string(ch.Tier)]++
					cv.Tiers[string(ch.Tier)]++
				}
			}
			var convRows []Row
			for _, r := range cr {
				if r.Conversation == c.ID {
					convRows = append(convRows, r)
				}
			}
			cv.Categories = categoryStats(convRows, keys, in.Resamples, in.Seed)
			conv[name] = cv
		}
		if ctxN > 0 {
			cs.MeanContextTokens = float64(ctxSum) / float64(ctxN)
		}
		for _, r := range failed {
			if r.Condition == name {
				cs.Errors++
			}
		}
		s.Conditions[name] = cs
	}
	pairs := in.Pairs
	if pairs == nil {
		pairs = DefaultPairs
	}
	for _, p := range pairs {
		if byCond[p[0]] == nil || byCond[p[1]] == nil {
			continue
		}
		s.Paired = append(s.Paired, paired(p[0], p[1], byCond[p[0]], byCond[p[1]], keys, in.Resamples, in.Seed)...)
	}
	return s
}

// categoryStats bootstraps every metric of rows per key of keys.
func categoryStats(rows []Row, keys []string, resamples int, seed uint64) map[string]map[string]Stat {
	out := map[string]map[string]Stat{}
	for _, key := range keys {
		vals := map[string][]float64{}
		for _, r := range rows {
			if !inKey(r, key) {
				continue
			}
			for m, v := range r.Metrics {
				vals[m] = append(vals[m], v)
			}
		}
		if len(vals) == 0 {
			continue
		}
		ms := map[string]Stat{}
		for m, xs := range vals {
			ms[m] = StatOf(Bootstrap(xs, resamples, seed))
		}
		out[key] = ms
	}
	return out
}

// paired computes A − B for every category key and metric both have, on
// the questions both answered.
func paired(a, b string, ra, rb []Row, keys []string, resamples int, seed uint64) []Paired {
	rowB := map[string]Row{}
	for _, r := range rb {
		rowB[r.QuestionID] = r
	}
	var out []Paired
	for _, key := range keys {
		for _, m := range Metrics {
			var xa, xb []float64
			perConv := map[string][2]float64{} // sum of differences, count
			for _, r := range ra {
				if !inKey(r, key) {
					continue
				}
				other, ok := rowB[r.QuestionID]
				va, okA := r.Metrics[m]
				vb, okB := other.Metrics[m]
				if !ok || !okA || !okB {
					continue
				}
				xa = append(xa, va)
				xb = append(xb, vb)
				pc := perConv[r.Conversation]
				perConv[r.Conversation] = [2]float64{pc[0] + va - vb, pc[1] + 1}
			}
			if len(xa) == 0 {
				continue
			}
			est, err := PairedBootstrap(xa, xb, resamples, seed)
			if err != nil {
				continue
			}
			p := Paired{A: a, B: b, Category: key, Metric: m, Diff: StatOf(est), PerConversation: map[string]float64{}}
			for c, v := range perConv {
				p.PerConversation[c] = v[0] / v[1]
			}
			out = append(out, p)
		}
	}
	return out
}
