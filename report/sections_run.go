package report

import (
	"fmt"

	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/usage"
)

// This file builds the sections about what the run did: tiers, context
// tokens, chunk actions, usage and the judge audit.

// tierKeys returns the tier names in m in report order.
func tierKeys(ms ...map[string]int) []string {
	all := map[string]bool{}
	for _, m := range ms {
		for k := range m {
			all[k] = true
		}
	}
	return ordered(tierOrder, all)
}

func tierSection(s *bench.Summary) section {
	sec := section{ID: "tiers", Title: "Tier distribution per conversation", Chart: "tiers",
		Text: []string{"Chunks per tier: high is kept verbatim, mid replaced by a gist, low discarded."}}
	convs := conversations(s)
	if !s.Breakdown().PerConversation { // one question each: totals only
		sec.Title, convs = "Tier distribution", nil
	}
	for _, c := range swcConditions(s) {
		tiers := []map[string]int{s.Conditions[c].Tiers}
		for _, conv := range convs {
			if cs := s.PerConversation[conv][c]; cs != nil {
				tiers = append(tiers, cs.Tiers)
			}
		}
		keys := tierKeys(tiers...)
		if len(keys) == 0 {
			continue
		}
		t := table{Caption: noted(s, condLabel(s, c)+": chunks per tier.", c), Header: append(append([]string{"Conversation"}, keys...), "Total", "Context tokens")}
		for _, conv := range convs {
			cs := s.PerConversation[conv][c]
			if cs == nil {
				continue
			}
			t.Rows = append(t.Rows, tierRow(conv, keys, cs.Tiers, fmt.Sprint(cs.ContextTokens)))
		}
		t.Rows = append(t.Rows, tierRow("All", keys, s.Conditions[c].Tiers, none))
		sec.Tables = append(sec.Tables, t)
	}
	if len(sec.Tables) == 0 {
		sec.Text = []string{"No tier counts (no SWC condition)."}
		sec.Chart = ""
	}
	return sec
}

func tierRow(label string, keys []string, tiers map[string]int, tokens string) []string {
	row := []string{label}
	total := 0
	for _, k := range keys {
		row = append(row, fmt.Sprint(tiers[k]))
		total += tiers[k]
	}
	return append(row, fmt.Sprint(total), tokens)
}

func tokenSection(s *bench.Summary) section {
	sec := section{ID: "tokens", Title: "Context tokens", Chart: "tokens",
		Text: []string{"Tok/Q is the mean number of tokens sent to the QA model per question (the context when offline)."}}
	conds := conditions(s)
	t := table{Caption: noted(s, "", conds...), Header: []string{"Condition", "Tok/Q", "Mean context", "Max context", "Rows", "Errors"}}
	for _, c := range conds {
		cs := s.Conditions[c]
		t.Rows = append(t.Rows, []string{condLabel(s, c), num(cs.TokPerQ, 0), num(cs.MeanContextTokens, 0), fmt.Sprint(cs.MaxContextTokens), fmt.Sprint(cs.Rows), fmt.Sprint(cs.Errors)})
	}
	sec.Tables = []table{t}
	if convs := conversations(s); len(convs) > 0 && s.Breakdown().PerConversation {
		pc := table{Caption: noted(s, "Context tokens per conversation.", conds...), Header: append([]string{"Conversation"}, condLabels(s, conds)...)}
		for _, conv := range convs {
			row := []string{conv}
			for _, c := range conds {
				if cs := s.PerConversation[conv][c]; cs != nil {
					row = append(row, fmt.Sprint(cs.ContextTokens))
				} else {
					row = append(row, none)
				}
			}
			pc.Rows = append(pc.Rows, row)
		}
		sec.Tables = append(sec.Tables, pc)
	}
	if len(conds) == 0 {
		sec.Chart = ""
	}
	return sec
}

func actionSection(s *bench.Summary) (section, bool) {
	all := map[string]bool{}
	for _, cs := range s.Conditions {
		if cs == nil {
			continue
		}
		for a := range cs.Actions {
			all[a] = true
		}
	}
	if len(all) == 0 {
		return section{}, false
	}
	keys := ordered(nil, all)
	conds := conditions(s)
	t := table{Caption: noted(s, "", conds...), Header: append([]string{"Condition"}, keys...)}
	for _, c := range conds {
		row := []string{condLabel(s, c)}
		for _, a := range keys {
			row = append(row, fmt.Sprint(s.Conditions[c].Actions[a]))
		}
		t.Rows = append(t.Rows, row)
	}
	return section{ID: "actions", Title: "Chunk actions", Text: []string{"Chunks per action over all conversations."}, Tables: []table{t}}, true
}

func usageSection(s *bench.Summary) (section, bool) {
	u := s.Usage
	if len(u.ByRole) == 0 && len(u.ByModel) == 0 && u.Total.Calls == 0 && u.Total.CacheHits == 0 {
		return section{}, false
	}
	sec := section{ID: "usage", Title: "Usage and cost"}
	if u.Total.CostUSD != nil {
		text := fmt.Sprintf("Estimated cost: $%s at list prices (no batch or cache discounts).", num(*u.Total.CostUSD, 2))
		if u.Total.Unpriced > 0 {
			text += fmt.Sprintf(" %d calls to unpriced models are not included.", u.Total.Unpriced)
		}
		sec.Text = []string{text}
	} else {
		sec.Text = []string{"Estimated cost: not available (no model used has a price)."}
	}
	for _, part := range []struct {
		caption, key string
		lines        []usage.Line
	}{{"By role.", "Role", u.ByRole}, {"By model.", "Model", u.ByModel}} {
		if len(part.lines) == 0 {
			continue
		}
		t := table{Caption: part.caption, Header: []string{part.key, "Calls", "Input tokens", "Output tokens", "Cache hits", "Errors", "Cost (USD)"}}
		for _, l := range part.lines {
			t.Rows = append(t.Rows, usageRow(l.Key, l))
		}
		t.Rows = append(t.Rows, usageRow("Total", u.Total))
		sec.Tables = append(sec.Tables, t)
	}
	return sec, true
}

func usageRow(label string, l usage.Line) []string {
	cost := none
	if l.CostUSD != nil {
		cost = num(*l.CostUSD, 4)
	}
	return []string{label, fmt.Sprint(l.Calls), fmt.Sprint(l.InputTokens), fmt.Sprint(l.OutputTokens), fmt.Sprint(l.CacheHits), fmt.Sprint(l.Errors), cost}
}

func auditSection(s *bench.Summary) (section, bool) {
	a := s.JudgeAudit
	if a == nil {
		return section{}, false
	}
	sec := section{ID: "audit", Title: "Judge audit",
		Text: []string{fmt.Sprintf("Deliberately wrong answers to %d questions, and how often the judge accepted them.", a.Questions)}}
	if len(a.Kinds) > 0 {
		t := table{Header: []string{"Answer kind", "Asked", "Accepted", "Rate"}}
		for _, k := range ordered(nil, a.Kinds) {
			c := a.Kinds[k]
			t.Rows = append(t.Rows, []string{k, fmt.Sprint(c.Asked), fmt.Sprint(c.Accepted), f3(c.Rate)})
		}
		sec.Tables = []table{t}
	}
	if t, ok := promptAuditTable(a); ok {
		sec.Tables = append(sec.Tables, t)
	}
	return sec, true
}
