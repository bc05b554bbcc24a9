package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/report"
)

// writeCurves writes DIR/curves.{json,md,html} for the summaries of a
// --budgets run and prints the headline curve.
func writeCurves(env *Env, dir string, sums []*bench.Summary) error {
	c := bench.CurvesOf(sums)
	if err := report.WriteCurves(dir, c); err != nil {
		return err
	}
	metric := bench.MetricAnswerTokenRecall
	if len(sums) > 0 && !sums[0].Settings.Offline {
		metric = bench.MetricJudge
	}
	printCurves(env.Stdout, c, metric)
	printCurves(env.Stdout, c, bench.MetricSupportRecall)
	fmt.Fprintf(env.Stderr, "swc: bench: wrote curves over budgets %v to %s (curves.json, curves.md, curves.html)\n", c.Budgets, dir)
	return nil
}

// printCurves prints one metric on categories 1–4, conditions by budgets.
func printCurves(w io.Writer, c *bench.Curves, metric string) {
	b := c.Breakdown()
	fmt.Fprintf(w, "\n%s, %s, by budget\n", metric, strings.ReplaceAll(b.Aggregate(), "–", "-"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "condition")
	for _, b := range c.Budgets {
		fmt.Fprintf(tw, "\t%d", b)
	}
	fmt.Fprintln(tw)
	for _, name := range c.Order {
		fmt.Fprint(tw, name)
		pts := c.Points[name][b.Primary][metric]
		for _, b := range c.Budgets {
			v := "-"
			for _, p := range pts {
				if p.Budget == b {
					v = fmt.Sprintf("%.3f", p.Mean)
				}
			}
			fmt.Fprintf(tw, "\t%s", v)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}
