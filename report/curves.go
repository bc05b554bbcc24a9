package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/swcmem/swc/bench"
)

// CurvesTitle is the heading of curves.md and curves.html.
const CurvesTitle = "SWC benchmark: accuracy versus tokens"

// curveKeys are the category keys curves are drawn for, in order.
var curveKeys = []string{"1-4", "1", "2", "3", "4"}

// curveKeysOf returns the keys curves are drawn for: curveKeys for
// LoCoMo, else the aggregate and each question type.
func curveKeysOf(c *bench.Curves) []string {
	b := c.Breakdown()
	if !b.Typed {
		return curveKeys
	}
	return append([]string{b.Primary}, b.Groups...)
}

// curveMetrics returns the metrics any condition has at any budget, in
// bench.Metrics order.
func curveMetrics(c *bench.Curves) []string {
	present := map[string]bool{}
	for _, byKey := range c.Points {
		for _, ms := range byKey {
			for m := range ms {
				present[m] = true
			}
		}
	}
	return ordered(bench.Metrics, present)
}

// curveConditions returns c's conditions in order, those with points only.
func curveConditions(c *bench.Curves) []string {
	var out []string
	for _, n := range c.Order {
		if c.Points[n] != nil {
			out = append(out, n)
		}
	}
	return out
}

// curveSections builds one section per metric: a table per category key,
// rows conditions, columns budgets, cells mean [95% CI].
func curveSections(c *bench.Curves) []section {
	var out []section
	for _, m := range curveMetrics(c) {
		sec := section{ID: "curve-" + m, Title: capitalize(metricLabel(m)) + " versus budget", Chart: m,
			Text: []string{"Mean [95% CI] per budget (tokens); Tok/Q is what a question actually sent, at most the budget (full ignores it)."}}
		for _, key := range curveKeysOf(c) {
			t := table{Caption: fmt.Sprintf("%s, %s.", capitalize(metricLabel(m)), categoryName(key)), Header: []string{"Condition"}}
			for _, b := range c.Budgets {
				t.Header = append(t.Header, strconv.Itoa(b))
			}
			any := false
			for _, name := range curveConditions(c) {
				row := []string{name}
				pts := c.Points[name][key][m]
				for _, b := range c.Budgets {
					cellText := none
					for _, p := range pts {
						if p.Budget == b {
							cellText, any = cell(p.Stat), true
						}
					}
					row = append(row, cellText)
				}
				t.Rows = append(t.Rows, row)
			}
			if any {
				sec.Tables = append(sec.Tables, t)
			}
		}
		if len(sec.Tables) > 0 {
			out = append(out, sec)
		}
	}
	return out
}

// CurvesMarkdown writes curves.md: per metric and category key, every
// condition's mean and 95% CI at every budget. It returns the first write
// error.
func CurvesMarkdown(w io.Writer, c *bench.Curves) error {
	if err := writeMarkdown(w, CurvesTitle, curveSections(c)); err != nil {
		return fmt.Errorf("report: curves markdown: %w", err)
	}
	return nil
}

// CurvesHTML writes curves.html: the tables of CurvesMarkdown, each metric
// with one chart per category key (x: budget on a log scale, y: the
// metric; one line per condition with 95% CI whiskers). It returns an
// error when a chart cannot be drawn or writing fails.
func CurvesHTML(w io.Writer, c *bench.Curves) error {
	secs := curveSections(c)
	svgs := map[string]string{}
	for _, sec := range secs {
		var svg string
		for _, key := range curveKeysOf(c) {
			s, err := CurveChart(c, sec.Chart, key)
			if err != nil {
				return fmt.Errorf("report: curve %s %s: %w", sec.Chart, key, err)
			}
			svg += s
		}
		svgs[sec.Chart] = svg
	}
	if err := writePage(w, CurvesTitle, secs, svgs); err != nil {
		return fmt.Errorf("report: curves: %w", err)
	}
	return nil
}

// CurveChart draws metric on category key against the budget, one line
// per condition (colours fixed per condition name) with 95% CI whiskers,
// as an SVG element; "" when no condition has the metric there.
func CurveChart(c *bench.Curves, metric, key string) (string, error) {
	if len(c.Budgets) == 0 {
		return "", nil
	}
	top := 0.0
	var names []string
	for _, name := range curveConditions(c) {
		pts := c.Points[name][key][metric]
		if len(pts) == 0 {
			continue
		}
		names = append(names, name)
		for _, pt := range pts {
			top = math.Max(top, pt.CI[1])
		}
	}
	if len(names) == 0 {
		return "", nil
	}
	ymax, ticks := scoreTicks(top)
	f := newFrame("curve-"+metric+"-"+key, fmt.Sprintf("%s, %s, by budget (mean, 95%% CI)", capitalize(metricLabel(metric)), categoryName(key)),
		"budget (tokens, log scale)", metricLabel(metric), 0, ymax)
	f.yAxis(ticks, func(v float64) string { return num(v, 1) })
	lo, hi := math.Log2(float64(slices.Min(c.Budgets))), math.Log2(float64(slices.Max(c.Budgets)))
	pad := math.Max(0.25, (hi-lo)*0.05)
	lo, hi = lo-pad, hi+pad
	x := func(budget int) float64 { return marginLeft + f.plotW()*(math.Log2(float64(budget))-lo)/(hi-lo) }
	var xs []float64
	var labels []string
	for _, b := range c.Budgets {
		xs = append(xs, x(b))
		labels = append(labels, strconv.Itoa(b))
	}
	f.xLabels(xs, labels)
	for _, name := range names {
		col := colorOf(name)
		var d strings.Builder
		for i, pt := range c.Points[name][key][metric] {
			cmd := "L"
			if i == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%.1f %.1f", cmd, x(pt.Budget), f.y(pt.Mean))
		}
		fmt.Fprintf(&f.b, `<path class="series" d="%s" stroke="%s" stroke-width="2" fill="none"/>`+"\n", d.String(), col)
		for _, pt := range c.Points[name][key][metric] {
			f.whisker(x(pt.Budget), pt.CI[0], pt.CI[1])
			fmt.Fprintf(&f.b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"><title>%s at %d tokens: %s</title></circle>`+"\n",
				x(pt.Budget), f.y(pt.Mean), col, svgText(name), pt.Budget, svgText(cell(bench.Stat{Mean: pt.Mean, CI: pt.CI})))
		}
		f.legend = append(f.legend, legendItem{name: name, color: col})
	}
	return f.end(), nil
}

// WriteCurves writes curves.json, curves.md and curves.html into dir, each
// atomically, after rendering all three. It returns the first rendering or
// file-system error.
func WriteCurves(dir string, c *bench.Curves) error {
	js, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("report: encode curves: %w", err)
	}
	var md, html bytes.Buffer
	if err := CurvesMarkdown(&md, c); err != nil {
		return err
	}
	if err := CurvesHTML(&html, c); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for name, data := range map[string][]byte{"curves.json": append(js, '\n'), "curves.md": md.Bytes(), "curves.html": html.Bytes()} {
		if err := bench.WriteFileAtomic(filepath.Join(dir, name), data); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	return nil
}
