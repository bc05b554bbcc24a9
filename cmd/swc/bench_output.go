package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/locomo"
)

// finishSummary adds what the runner does not compute: usage, the judge
// audit and the preservation analysis.
func finishSummary(ctx context.Context, env *Env, sum *bench.Summary, convs []*swc.Conversation, contexts bench.Contexts, eng *engines, judge swc.LLM, f *benchFlags) error {
	if f.judgeAudit > 0 {
		if judge == nil {
			fmt.Fprintln(env.Stderr, "swc: bench: --judge-audit needs a judge model (--qa/--judge); skipped")
		} else {
			audit, err := bench.AuditJudge(ctx, judge, convs, f.judgeAudit, f.seed,
				bench.AuditOptions{Filter: locomo.TextOnly, Concurrency: eng.flags.prov.concurrency, Prompt: f.gold.judgePrompt})
			if err != nil {
				return err
			}
			sum.JudgeAudit = audit
		}
	}
	sum.Usage = eng.meter.Summary()
	if len(sum.Types) == 0 { // LongMemEval: would hold every conversation's gists at once
		sum.Preservation = preservation(convs, contexts)
	}
	return nil
}

// writeBenchOutputs writes summary.json and the reports into dir.
func writeBenchOutputs(dir string, sum *bench.Summary) error {
	if err := bench.WriteSummary(dir, sum); err != nil {
		return err
	}
	return writeReports(dir, sum)
}

// printBenchTable prints the headline table: per condition, the primary
// metric for categories 1–4 and each category, and Tok/Q.
func printBenchTable(w io.Writer, sum *bench.Summary) {
	metric := bench.MetricAnswerTokenRecall
	if !sum.Settings.Offline {
		metric = bench.MetricJudge
	}
	if len(sum.Types) > 0 {
		printTypedTable(w, sum, metric)
		return
	}
	n14 := 0
	for _, k := range []string{"1", "2", "3", "4"} {
		n14 += sum.Matched.ByCategory[k]
	}
	fmt.Fprintf(w, "%s, mean [95%% CI] over categories 1–4: n = %d (matched set, all categories: %d)\n",
		metricWords(metric), n14, sum.Matched.N)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "condition\tcats 1-4\tcat 1\tcat 2\tcat 3\tcat 4\tsupport@5 1-4\tTok/Q\tmax ctx")
	for _, name := range sum.Order {
		cs := sum.Conditions[name]
		if cs == nil {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t", name, cell(cs, "1-4", metric, true))
		for _, k := range []string{"1", "2", "3", "4"} {
			fmt.Fprintf(tw, "%s\t", cell(cs, k, metric, false))
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%d\n", cell(cs, "1-4", bench.MetricSupportRecall, false), cs.TokPerQ, cs.MaxContextTokens)
	}
	if g := sum.Gold; g != nil {
		ceil := g.Ceiling
		if metric == bench.MetricEvidenceRetention {
			ceil = g.EvidenceCeiling
		}
		fmt.Fprintf(tw, "ceiling (%s gold)\t%s\t", g.Option, ceilingCell(ceil, "1-4"))
		for _, k := range []string{"1", "2", "3", "4"} {
			fmt.Fprintf(tw, "%s\t", ceilingCell(ceil, k))
		}
		fmt.Fprintln(tw, "\t")
	}
	tw.Flush()
	printGoldLine(w, sum.Gold)
}

// metricWords names a metric for people ("answer-token recall").
func metricWords(metric string) string {
	switch metric {
	case bench.MetricAnswerTokenRecall:
		return "answer-token recall"
	case bench.MetricJudge:
		return "judge accuracy"
	}
	return strings.ReplaceAll(metric, "_", " ")
}

func cell(cs *bench.ConditionSummary, key, metric string, ci bool) string {
	st, ok := cs.Categories[key][metric]
	if !ok {
		return "-"
	}
	if ci {
		return fmt.Sprintf("%.3f [%.3f, %.3f]", st.Mean, st.CI[0], st.CI[1])
	}
	return fmt.Sprintf("%.3f", st.Mean)
}

// printTypedTable is printBenchTable for a typed run (LongMemEval): the
// aggregate of every type but abstention, each type, then support recall.
func printTypedTable(w io.Writer, sum *bench.Summary, metric string) {
	b := sum.Breakdown()
	fmt.Fprintf(w, "%s, mean [95%% CI] over %s: n = %d (matched set, with abstention: %d)\n",
		metricWords(metric), b.Aggregate(), sum.Matched.N-sum.Matched.ByCategory[b.Apart], sum.Matched.N)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "condition\tall types")
	for _, k := range b.Groups {
		fmt.Fprintf(tw, "\t%s", k)
	}
	fmt.Fprintln(tw, "\tsupport@5\tevidence (abst.)\tTok/Q\tmax ctx")
	for _, name := range sum.Order {
		cs := sum.Conditions[name]
		if cs == nil {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s", name, cell(cs, b.Primary, metric, true))
		for _, k := range b.Groups {
			fmt.Fprintf(tw, "\t%s", cell(cs, k, metric, false))
		}
		fmt.Fprintf(tw, "\t%s\t%s\t%.0f\t%d\n", cell(cs, b.Primary, bench.MetricSupportRecall, false),
			cell(cs, b.Apart, bench.MetricEvidenceRetention, false), cs.TokPerQ, cs.MaxContextTokens)
	}
	tw.Flush()
}
