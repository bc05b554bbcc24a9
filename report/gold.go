package report

import (
	"fmt"

	"github.com/swcmem/swc/bench"
)

// goldSection reports the gold option: what the LoCoMo audit changed per
// category, the ceiling beside each aggregate, and what the audit's
// corrections do to each condition (paired, corrected − original).
func goldSection(s *bench.Summary, pm string) (section, bool) {
	g := s.Gold
	if g == nil {
		return section{}, false
	}
	sec := section{ID: "gold", Title: "Gold answers and ceilings"}
	keys := []string{"1", "2", "3", "4", "1-4"}
	if g.Option == bench.GoldCorrected {
		sec.Text = append(sec.Text, fmt.Sprintf("Scored against the corrected gold: the LoCoMo audit (%s, %d entries) replaces the answer of every question whose answer it faults and the evidence of every question it lists. The ceiling is 1 by construction; the original gold's ceiling is given for reference.", g.Audit, g.Entries))
	} else {
		sec.Text = append(sec.Text, fmt.Sprintf("Scored against LoCoMo's original gold (the paper's). The LoCoMo audit (%s, %d entries) faults the answers counted below: a perfect system scores at most the ceiling, the share of questions whose gold answer the audit did not fault. Rerun with --gold corrected to score against the corrections.", g.Audit, g.Entries))
	}
	changed := table{Caption: "Questions of the matched set the audit touches, per category.",
		Header: []string{"Category", "Answers changed", "Evidence changed", "Answers faulted", "Evidence faulted", "Ceiling", "Evidence ceiling", "Original-gold ceiling"}}
	for _, k := range keys {
		if _, ok := g.Ceiling[k]; !ok {
			continue
		}
		c, f := g.Changed[k], g.Faulted[k]
		changed.Rows = append(changed.Rows, []string{categoryName(k), fmt.Sprint(c.Answer), fmt.Sprint(c.Evidence), fmt.Sprint(f.Answer), fmt.Sprint(f.Evidence),
			f3(g.Ceiling[k]), f3(g.EvidenceCeiling[k]), f3(g.OriginalCeiling[k])})
	}
	sec.Tables = append(sec.Tables, changed)
	if pm != "" {
		ceil := g.Ceiling
		if pm == bench.MetricEvidenceRetention {
			ceil = g.EvidenceCeiling
		}
		t := table{Caption: fmt.Sprintf("%s with the ceiling (%s gold) beside each aggregate.", capitalize(metricLabel(pm)), g.Option),
			Header: []string{"Condition"}}
		for _, k := range keys {
			t.Header = append(t.Header, categoryName(k))
		}
		t.Caption = noted(s, t.Caption, conditions(s)...)
		for _, c := range conditions(s) {
			row := []string{condLabel(s, c)}
			for _, k := range keys {
				st, ok := stat(s, c, k, pm)
				if !ok {
					row = append(row, none)
					continue
				}
				row = append(row, cell(st)+" / "+ceilingText(ceil, k))
			}
			t.Rows = append(t.Rows, row)
		}
		sec.Tables = append(sec.Tables, t)
	}
	if len(g.Paired) > 0 {
		t := table{Caption: "What the audit's corrections do to each condition: paired difference corrected − original [95% CI] on the matched set (questions the audit does not touch differ by 0).",
			Header: []string{"Condition", "Metric"}, Labels: 2}
		for _, k := range keys {
			t.Header = append(t.Header, categoryName(k))
		}
		for _, c := range conditions(s) {
			byMetric := map[string]map[string]bench.Paired{}
			for _, p := range g.Paired[c] {
				if byMetric[p.Metric] == nil {
					byMetric[p.Metric] = map[string]bench.Paired{}
				}
				byMetric[p.Metric][p.Category] = p
			}
			for _, m := range ordered(bench.Metrics, byMetric) {
				row := []string{c, m}
				for _, k := range keys {
					if p, ok := byMetric[m][k]; ok {
						row = append(row, signedCell(p.Diff))
					} else {
						row = append(row, none)
					}
				}
				t.Rows = append(t.Rows, row)
			}
		}
		sec.Tables = append(sec.Tables, t)
		if g.Incomplete > 0 {
			sec.Text = append(sec.Text, fmt.Sprintf("%d rows of audited questions have no score under the other gold (kept from an earlier run or a failed judge call) and are left out of the paired comparison.", g.Incomplete))
		}
	}
	return sec, true
}

func ceilingText(m map[string]float64, key string) string {
	if v, ok := m[key]; ok {
		return f3(v)
	}
	return none
}

// promptAuditTable compares the judge prompts audited: how often each
// accepted each kind of wrong answer.
func promptAuditTable(a *bench.JudgeAudit) (table, bool) {
	if len(a.ByPrompt) == 0 {
		return table{}, false
	}
	t := table{Caption: fmt.Sprintf("False acceptance by judge prompt (this run's: %s). Choose knowingly: a prompt that accepts vague answers inflates every score.", orNone(a.Prompt)),
		Header: []string{"Judge prompt", "Answer kind", "Asked", "Accepted", "Errors", "Rate"}, Labels: 2}
	for _, p := range ordered(bench.JudgePromptNames, a.ByPrompt) {
		for _, k := range ordered([]string{bench.AuditVague, bench.AuditOtherAnswer}, a.ByPrompt[p]) {
			c := a.ByPrompt[p][k]
			t.Rows = append(t.Rows, []string{p, k, fmt.Sprint(c.Asked), fmt.Sprint(c.Accepted), fmt.Sprint(c.Errors), pct(c.Rate)})
		}
	}
	return t, true
}
