package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/swcmem/swc/bench"
)

// charts draws the charts the HTML page shows, by name: "categories",
// "paired" (a forest plot), "conversations", "tiers" and "tokens"; a chart
// without data is left out. Every chart has a title and axis labels in
// words, and colours fixed per condition name (colorOf). It returns an
// error only for a chart that cannot be drawn (none today).
func charts(s *bench.Summary) (map[string]string, error) {
	pm := primaryMetric(s)
	out := map[string]string{}
	for name, svg := range map[string]string{
		"categories":    categoryChart(s, pm),
		"paired":        forestChart(s, pm),
		"conversations": conversationChart(s, pm),
		"tiers":         tierChart(s),
		"tokens":        tokenChart(s),
	} {
		if svg != "" {
			out[name] = svg
		}
	}
	return out, nil
}

// categoryChart draws the primary metric per category and condition with
// 95% CI whiskers; "" when there is nothing to draw.
func categoryChart(s *bench.Summary, pm string) string {
	if pm == "" {
		return ""
	}
	var keys, names []string
	b := s.Breakdown()
	for _, k := range append(append([]string(nil), b.Groups...), b.Primary) {
		if hasMetric(s, pm, k) {
			keys = append(keys, k)
			names = append(names, categoryName(k))
		}
	}
	conds := conditions(s)
	if len(keys) == 0 || len(conds) == 0 {
		return ""
	}
	top := 0.0
	var series []barSeries
	for _, c := range conds {
		bs := barSeries{name: condLabel(s, c), color: colorOf(c)}
		for _, k := range keys {
			st, ok := stat(s, c, k, pm)
			bs.bars = append(bs.bars, bar{v: st.Mean, lo: st.CI[0], hi: st.CI[1], hasCI: ok, ok: ok})
			top = math.Max(top, st.CI[1])
		}
		series = append(series, bs)
	}
	ymax, ticks := scoreTicks(top)
	f := newFrame("categories", fmt.Sprintf("%s by question category (mean, 95%% CI)", capitalize(metricLabel(pm))),
		either(b.Typed, "LongMemEval question type", "LoCoMo question category"), metricLabel(pm), 0, ymax)
	f.yAxis(ticks, func(v float64) string { return num(v, 1) })
	f.groupedBars(names, series)
	f.awareNote(anyAware(s, conds...))
	return f.end()
}

// conversationChart draws category 2 per conversation and condition with
// 95% CI whiskers; "" when there is nothing to draw.
func conversationChart(s *bench.Summary, pm string) string {
	convs := conversations(s)
	conds := conditions(s)
	if pm == "" || len(convs) == 0 || len(conds) == 0 || !s.Breakdown().PerConversation {
		return ""
	}
	found := false
	top := 0.0
	var series []barSeries
	for _, c := range conds {
		bs := barSeries{name: condLabel(s, c), color: colorOf(c)}
		for _, conv := range convs {
			st, ok := convStat(s, conv, c, s.Breakdown().Temporal, pm)
			hasCI := ok && (st.CI[0] != 0 || st.CI[1] != 0)
			bs.bars = append(bs.bars, bar{v: st.Mean, lo: st.CI[0], hi: st.CI[1], hasCI: hasCI, ok: ok})
			found = found || ok
			top = math.Max(top, math.Max(st.Mean, st.CI[1]))
		}
		series = append(series, bs)
	}
	if !found {
		return ""
	}
	ymax, ticks := scoreTicks(top)
	f := newFrame("conversations", fmt.Sprintf("Category 2 (temporal) %s by conversation (mean, 95%% CI)", metricLabel(pm)),
		"conversation", metricLabel(pm), 0, ymax)
	f.yAxis(ticks, func(v float64) string { return num(v, 1) })
	f.groupedBars(convs, series)
	f.awareNote(anyAware(s, conds...))
	return f.end()
}

// tierChart draws, for every SWC condition, how many sessions landed in
// each tier over all conversations; "" when no condition has tier counts.
func tierChart(s *bench.Summary) string {
	var conds []string
	var tiers []map[string]int
	for _, c := range swcConditions(s) {
		if cs := s.Conditions[c]; cs != nil && len(cs.Tiers) > 0 {
			conds = append(conds, c)
			tiers = append(tiers, cs.Tiers)
		}
	}
	if len(conds) == 0 {
		return ""
	}
	keys := tierKeys(tiers...)
	// Stack from the bottom: low, mid, high (high on top).
	var series []barSeries
	top := 0.0
	totals := make([]float64, len(conds))
	for i := len(keys) - 1; i >= 0; i-- {
		k := keys[i]
		bs := barSeries{name: k + " tier", color: tierColor(k)}
		for j := range conds {
			v := float64(tiers[j][k])
			totals[j] += v
			bs.bars = append(bs.bars, bar{v: v, ok: true})
		}
		series = append(series, bs)
	}
	for _, t := range totals {
		top = math.Max(top, t)
	}
	ymax, ticks := countTicks(top)
	f := newFrame("tiers", "Sessions per tier, every SWC condition (all conversations)", "condition", "sessions", 0, ymax)
	f.yAxis(ticks, func(v float64) string { return num(v, 0) })
	f.stackedBars(condLabels(s, conds), series)
	f.awareNote(anyAware(s, conds...))
	return f.end()
}

// tokenChart draws the mean tokens per question of every condition as
// horizontal bars, one row per condition with its value in a column of
// its own, and the budget as a dashed vertical line that crosses no
// label; "" without conditions.
func tokenChart(s *bench.Summary) string {
	conds := conditions(s)
	if len(conds) == 0 {
		return ""
	}
	top := float64(s.Settings.Budget)
	for _, c := range conds {
		top = math.Max(top, s.Conditions[c].TokPerQ)
	}
	xmax, ticks := countTicks(top)
	const rowH, labelW, valueW, head, foot = 24.0, 200.0, 80.0, 62.0, 56.0
	h := head + foot + rowH*float64(len(conds))
	x0, x1 := labelW, chartW-valueW
	x := func(v float64) float64 { return x0 + (x1-x0)*v/xmax }
	const title = "Tokens sent per question (context and prompt)"
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="chart-tokens" viewBox="0 0 %g %g" width="%g" height="%g" role="img" aria-labelledby="chart-tokens-title" font-family="Arial,Helvetica,sans-serif">`+"\n", chartW, h, chartW, h)
	fmt.Fprintf(&b, `<title id="chart-tokens-title">%s</title>`+"\n", svgText(title))
	fmt.Fprintf(&b, `<text class="chart-title" x="10" y="24" font-size="16" font-weight="bold">%s</text>`+"\n", svgText(title))
	fmt.Fprintf(&b, `<text class="axis-label x-label" x="%g" y="%g" font-size="13" text-anchor="middle">tokens per question</text>`+"\n", (x0+x1)/2, h-10)
	fmt.Fprintf(&b, `<text class="axis-label y-label" x="%g" y="%g" font-size="13" text-anchor="end">condition</text>`+"\n", x0-10, head-12)
	fmt.Fprintf(&b, `<text class="axis-label value-label" x="%g" y="%g" font-size="13" text-anchor="end">tokens</text>`+"\n", chartW-10, head-12)
	for _, t := range ticks {
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%g" y2="%g" stroke="#eee"/><text class="tick" x="%.1f" y="%g" font-size="11" text-anchor="middle">%s</text>`+"\n",
			x(t), x(t), head, h-foot, x(t), h-foot+16, num(t, 0))
	}
	fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="#444"/>`+"\n", x0, x0, head, h-foot)
	for i, c := range conds {
		y := head + rowH*float64(i)
		v := s.Conditions[c].TokPerQ
		name := condLabel(s, c)
		fmt.Fprintf(&b, `<text class="row-label" x="%g" y="%.1f" font-size="12" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", x0-10, y+rowH/2, svgText(name))
		fmt.Fprintf(&b, `<rect x="%g" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s: %s tokens per question</title></rect>`+"\n",
			x0, y+rowH*0.15, x(v)-x0, rowH*0.7, colorOf(c), svgText(name), num(v, 0))
		fmt.Fprintf(&b, `<text class="value" x="%g" y="%.1f" font-size="12" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", chartW-10, y+rowH/2, num(v, 0))
	}
	if bud := s.Settings.Budget; bud > 0 {
		label := fmt.Sprintf("budget: %d tokens", bud)
		fmt.Fprintf(&b, `<line class="reference" x1="%.1f" x2="%.1f" y1="%g" y2="%g" stroke="#222" stroke-width="1.5" stroke-dasharray="6 4"><title>%s</title></line>`+"\n",
			x(float64(bud)), x(float64(bud)), head-4, h-foot, svgText(label))
		fmt.Fprintf(&b, `<text class="reference-label" x="%.1f" y="%g" font-size="11" text-anchor="end">%s</text>`+"\n", x(float64(bud))-4, head-8, svgText(label))
	}
	if anyAware(s, conds...) {
		fmt.Fprintf(&b, `<text class="note" x="10" y="%g" font-size="11">%s</text>`+"\n", h-10, svgText("† question-aware"))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// forestRows returns the paired differences the forest plot and the
// compact table show: the primary metric, categories 1–4 and 2, without
// rows that are zero throughout (mean and both CI ends).
func forestRows(s *bench.Summary, pm string) []bench.Paired {
	b := s.Breakdown()
	var out []bench.Paired
	for _, p := range s.Paired {
		if p.Metric != pm || (p.Category != b.Primary && p.Category != b.Temporal) {
			continue
		}
		if p.Diff.Mean == 0 && p.Diff.CI[0] == 0 && p.Diff.CI[1] == 0 {
			continue
		}
		out = append(out, p)
	}
	return out
}

// forestChart draws each paired difference A − B as a point with its 95%
// CI, one row per pair and category, around a line at zero; "" when there
// are none.
func forestChart(s *bench.Summary, pm string) string {
	rows := forestRows(s, pm)
	if len(rows) == 0 {
		return ""
	}
	const rowH, labelW, top, bottom = 22.0, 330.0, 62.0, 56.0
	h := top + bottom + rowH*float64(len(rows))
	lo, hi := 0.0, 0.0
	for _, p := range rows {
		lo, hi = math.Min(lo, p.Diff.CI[0]), math.Max(hi, p.Diff.CI[1])
	}
	pad := math.Max(0.02, (hi-lo)*0.08)
	lo, hi = lo-pad, hi+pad
	x0, x1 := labelW, chartW-30
	x := func(v float64) float64 { return x0 + (x1-x0)*(v-lo)/(hi-lo) }
	title := fmt.Sprintf("Paired differences A − B in %s (matched questions, 95%% CI)", metricLabel(pm))
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="chart-paired" viewBox="0 0 %g %g" width="%g" height="%g" role="img" aria-labelledby="chart-paired-title" font-family="Arial,Helvetica,sans-serif">`+"\n", chartW, h, chartW, h)
	fmt.Fprintf(&b, `<title id="chart-paired-title">%s</title>`+"\n", svgText(title))
	fmt.Fprintf(&b, `<text class="chart-title" x="10" y="24" font-size="16" font-weight="bold">%s</text>`+"\n", svgText(title))
	fmt.Fprintf(&b, `<text class="axis-label x-label" x="%g" y="%g" font-size="13" text-anchor="middle">difference in %s (A − B; right of 0: A better)</text>`+"\n", (x0+x1)/2, h-10, svgText(metricLabel(pm)))
	fmt.Fprintf(&b, `<text class="axis-label y-label" x="%g" y="%g" font-size="13" text-anchor="end">pair (A − B), category</text>`+"\n", labelW-10, top-12)
	// Ticks at round steps.
	step := math.Pow(10, math.Floor(math.Log10((hi-lo)/4)))
	for _, m := range []float64{1, 2, 5} {
		if (hi-lo)/(m*step) <= 8 {
			step *= m
			break
		}
	}
	for v := math.Ceil(lo/step) * step; v <= hi+1e-9; v += step {
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%g" y2="%g" stroke="#eee"/><text class="tick" x="%.1f" y="%g" font-size="11" text-anchor="middle">%s</text>`+"\n",
			x(v), x(v), top, h-bottom, x(v), h-bottom+16, signed(v))
	}
	fmt.Fprintf(&b, `<line class="reference" x1="%.1f" x2="%.1f" y1="%g" y2="%g" stroke="#222" stroke-width="1.2"/>`+"\n", x(0), x(0), top-4, h-bottom)
	var named []string
	for _, p := range rows {
		named = append(named, p.A, p.B)
	}
	if anyAware(s, named...) {
		fmt.Fprintf(&b, `<text class="note" x="%g" y="%g" font-size="11" text-anchor="end">%s</text>`+"\n", x1, top-12, svgText("† question-aware"))
	}
	for i, p := range rows {
		y := top + rowH*(float64(i)+0.5)
		label := fmt.Sprintf("%s − %s, %s", condLabel(s, p.A), condLabel(s, p.B), categoryName(p.Category))
		col := colorOf(p.A)
		fmt.Fprintf(&b, `<text class="row-label" x="%g" y="%.1f" font-size="12" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", x0-10, y, svgText(label))
		fmt.Fprintf(&b, `<g><title>%s: %s</title><line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/><circle cx="%.1f" cy="%.1f" r="4.5" fill="%s"/></g>`+"\n",
			svgText(label), svgText(signedCell(p.Diff)), x(p.Diff.CI[0]), x(p.Diff.CI[1]), y, y, col, x(p.Diff.Mean), y, col)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// capitalize upper-cases the first letter of an ASCII-initial s.
func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// either returns a when cond holds, else b.
func either(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}
