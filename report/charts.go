package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/swcmem/swc/bench"
)

// Chart size; the page scales the SVG to its width.
const (
	chartWidth  = 720 // points
	chartHeight = 300
)

// palette colours conditions by their position in the report order
// (Tableau 10).
var palette = []color.RGBA{
	{0x4E, 0x79, 0xA7, 0xFF}, {0xF2, 0x8E, 0x2B, 0xFF}, {0xE1, 0x57, 0x59, 0xFF},
	{0x76, 0xB7, 0xB2, 0xFF}, {0x59, 0xA1, 0x4F, 0xFF}, {0xED, 0xC9, 0x48, 0xFF},
	{0xB0, 0x7A, 0xA1, 0xFF}, {0xFF, 0x9D, 0xA7, 0xFF}, {0x9C, 0x75, 0x5F, 0xFF},
	{0xBA, 0xB0, 0xAC, 0xFF},
}

// tierColors colours the tiers; others get grey.
var tierColors = map[string]color.RGBA{
	"high": {0x4E, 0x79, 0xA7, 0xFF},
	"mid":  {0xF2, 0x8E, 0x2B, 0xFF},
	"low":  {0xBA, 0xB0, 0xAC, 0xFF},
}

func conditionColor(i int) color.RGBA { return palette[i%len(palette)] }

// sans is the chart typeface; its metrics match Arial/Helvetica, which the
// SVG names as fallbacks.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// charts draws the charts the HTML page shows, by name: "categories",
// "conversations", "tiers" and "tokens"; a chart without data is left
// out. It returns an error when a chart cannot be drawn.
func charts(s *bench.Summary) (map[string]string, error) {
	pm := primaryMetric(s)
	out := map[string]string{}
	draws := []struct {
		name string
		fn   func() (string, error)
	}{
		{"categories", func() (string, error) { return categoryChart(s, pm) }},
		{"conversations", func() (string, error) { return conversationChart(s, pm) }},
		{"tiers", func() (string, error) { return tierChart(s) }},
		{"tokens", func() (string, error) { return tokenChart(s) }},
	}
	for _, d := range draws {
		svg, err := d.fn()
		if err != nil {
			return nil, fmt.Errorf("report: %s chart: %w", d.name, err)
		}
		if svg != "" {
			out[d.name] = svg
		}
	}
	return out, nil
}

// newPlot returns a plot with the report's fonts and horizontal grid.
func newPlot(title, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sans, 12)
	p.Title.Padding = vg.Points(6)
	p.Y.Label.Text = ylabel
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font = font.From(sans, 10)
		ax.Tick.Label.Font = font.From(sans, 9)
	}
	g := plotter.NewGrid()
	g.Vertical.Color = nil
	g.Horizontal.Color = color.Gray{0xD8}
	g.Horizontal.Width = vg.Points(0.5)
	p.Add(g)
	return p
}

// legendEntry is one line of a chart's legend.
type legendEntry struct {
	name  string
	thumb plot.Thumbnailer
}

// groupedBars adds one bar series per group to p over n categories; vals
// [g][i] is group g's value at category i and ok[g][i] whether it exists.
// It returns the series and the x offset (in points) of each group.
func groupedBars(p *plot.Plot, vals [][]float64, colors []color.RGBA, n int, plotWidth vg.Length) ([]*plotter.BarChart, []vg.Length, error) {
	k := len(vals)
	unit := plotWidth / vg.Length(n)
	w := unit * 0.8 / vg.Length(k)
	bars := make([]*plotter.BarChart, k)
	offs := make([]vg.Length, k)
	for g := range vals {
		b, err := plotter.NewBarChart(plotter.Values(vals[g]), w)
		if err != nil {
			return nil, nil, err
		}
		b.Color = colors[g]
		b.LineStyle.Width = 0
		offs[g] = (vg.Length(g) - vg.Length(k-1)/2) * w
		b.Offset = offs[g]
		bars[g] = b
		p.Add(b)
	}
	return bars, offs, nil
}

// whiskers are asymmetric y error bars at data points.
type whiskers struct {
	plotter.XYs
	plotter.YErrors
}

func (w whiskers) Len() int { return len(w.XYs) }

// shifted draws a plotter moved right by dx points, so error bars line up
// with offset bars.
type shifted struct {
	*plotter.YErrorBars
	dx vg.Length
}

func (s shifted) Plot(c draw.Canvas, p *plot.Plot) {
	c.Push()
	c.Translate(vg.Point{X: s.dx})
	s.YErrorBars.Plot(c, p)
	c.Pop()
}

// scoreAxis sets p's y axis to [0, max(1, top)] with a tick every 0.1,
// labelled every 0.2.
func scoreAxis(p *plot.Plot, top float64) {
	p.Y.Min, p.Y.Max = 0, math.Max(1, top)
	var ticks plot.ConstantTicks
	for i := 0; float64(i)/10 <= p.Y.Max+1e-9; i++ {
		t := plot.Tick{Value: float64(i) / 10}
		if i%2 == 0 {
			t.Label = num(t.Value, 1)
		}
		ticks = append(ticks, t)
	}
	p.Y.Tick.Marker = ticks
}

// categoryAxis labels the x axis with names at 0, 1, … and sets its range
// so that bars of width up to one unit fit.
func categoryAxis(p *plot.Plot, names []string) {
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
}

// countAxis starts p's y axis at 0, leaves 8% headroom above top and
// puts about five integer-labelled ticks on it, at 1, 2 or 5 × 10^k steps.
func countAxis(p *plot.Plot, top float64) {
	p.Y.Min = 0
	if top <= 0 {
		return
	}
	p.Y.Max = top * 1.08
	step := math.Pow(10, math.Floor(math.Log10(p.Y.Max/5)))
	for _, m := range []float64{1, 2, 5, 10} {
		if p.Y.Max/(m*step) <= 6 {
			step *= m
			break
		}
	}
	step = math.Max(step, 1)
	var ticks plot.ConstantTicks
	for i := 0; float64(i)*step/2 <= p.Y.Max; i++ {
		t := plot.Tick{Value: float64(i) * step / 2}
		if i%2 == 0 {
			t.Label = num(t.Value, 0)
		}
		ticks = append(ticks, t)
	}
	p.Y.Tick.Marker = ticks
}

// categoryChart draws the primary metric per category and condition with
// 95% CI whiskers; "" when there is nothing to draw.
func categoryChart(s *bench.Summary, pm string) (string, error) {
	if pm == "" {
		return "", nil
	}
	keys := []string{}
	for _, k := range []string{"1", "2", "3", "4", "1-4"} {
		if hasMetric(s, pm, k) {
			keys = append(keys, k)
		}
	}
	conds := conditions(s)
	if len(keys) == 0 || len(conds) == 0 {
		return "", nil
	}
	p := newPlot(fmt.Sprintf("%s by category (95%% CI)", capitalize(metricLabel(pm))), pm)
	vals := make([][]float64, len(conds))
	colors := make([]color.RGBA, len(conds))
	top := 0.0
	for g, c := range conds {
		vals[g] = make([]float64, len(keys))
		colors[g] = conditionColor(g)
		for i, k := range keys {
			if st, ok := stat(s, c, k, pm); ok {
				vals[g][i] = st.Mean
				top = math.Max(top, st.CI[1])
			}
		}
	}
	lw := legendWidth(conds)
	bars, offs, err := groupedBars(p, vals, colors, len(keys), plotArea(lw))
	if err != nil {
		return "", err
	}
	for g, c := range conds {
		var wk whiskers
		for i, k := range keys {
			st, ok := stat(s, c, k, pm)
			if !ok {
				continue
			}
			wk.XYs = append(wk.XYs, plotter.XY{X: float64(i), Y: st.Mean})
			wk.YErrors = append(wk.YErrors, struct{ Low, High float64 }{st.Mean - st.CI[0], st.CI[1] - st.Mean})
		}
		if len(wk.XYs) == 0 {
			continue
		}
		eb, err := plotter.NewYErrorBars(wk)
		if err != nil {
			return "", err
		}
		eb.CapWidth = vg.Points(4)
		eb.LineStyle.Width = vg.Points(0.8)
		p.Add(shifted{eb, offs[g]})
	}
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = categoryName(k)
	}
	categoryAxis(p, names)
	scoreAxis(p, top)
	return render(p, entries(conds, bars), lw)
}

// conversationChart draws the category 2 primary metric per conversation
// and condition; "" when there is nothing to draw.
func conversationChart(s *bench.Summary, pm string) (string, error) {
	convs := conversations(s)
	conds := conditions(s)
	if pm == "" || len(convs) == 0 || len(conds) == 0 {
		return "", nil
	}
	vals := make([][]float64, len(conds))
	colors := make([]color.RGBA, len(conds))
	found := false
	for g, c := range conds {
		vals[g] = make([]float64, len(convs))
		colors[g] = conditionColor(g)
		for i, conv := range convs {
			if st, ok := convStat(s, conv, c, "2", pm); ok {
				vals[g][i] = st.Mean
				found = true
			}
		}
	}
	if !found {
		return "", nil
	}
	p := newPlot(fmt.Sprintf("Category 2 (temporal) %s by conversation", metricLabel(pm)), pm)
	lw := legendWidth(conds)
	bars, _, err := groupedBars(p, vals, colors, len(convs), plotArea(lw))
	if err != nil {
		return "", err
	}
	categoryAxis(p, convs)
	scoreAxis(p, 0)
	return render(p, entries(conds, bars), lw)
}

// tierCondition picks the condition whose tiers are charted: swc-full,
// else the first swc condition with tier counts; "" when none has any.
func tierCondition(s *bench.Summary) string {
	cands := swcConditions(s)
	for i, c := range cands {
		if c == "swc-full" {
			cands[0], cands[i] = cands[i], cands[0]
		}
	}
	for _, c := range cands {
		for _, conv := range conversations(s) {
			if cs := s.PerConversation[conv][c]; cs != nil && len(cs.Tiers) > 0 {
				return c
			}
		}
	}
	return ""
}

// tierChart draws stacked tier counts per conversation for one swc
// condition; "" when no condition has tier counts.
func tierChart(s *bench.Summary) (string, error) {
	c := tierCondition(s)
	if c == "" {
		return "", nil
	}
	convs := conversations(s)
	var tiers []map[string]int
	for _, conv := range convs {
		var t map[string]int
		if cs := s.PerConversation[conv][c]; cs != nil {
			t = cs.Tiers
		}
		tiers = append(tiers, t)
	}
	keys := tierKeys(tiers...)
	p := newPlot("Tier distribution per conversation ("+c+")", "chunks")
	lw := legendWidth(keys)
	w := plotArea(lw) / vg.Length(len(convs)) * 0.6
	var prev *plotter.BarChart
	var legend []legendEntry
	for _, k := range keys {
		vals := make(plotter.Values, len(convs))
		for i := range convs {
			vals[i] = float64(tiers[i][k])
		}
		b, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return "", err
		}
		col, ok := tierColors[k]
		if !ok {
			col = color.RGBA{0x79, 0x70, 0x6E, 0xFF}
		}
		b.Color = col
		b.LineStyle.Width = 0
		if prev != nil {
			b.StackOn(prev)
		}
		p.Add(b)
		prev = b
		legend = append(legend, legendEntry{k, b})
	}
	categoryAxis(p, convs)
	top := 0.0
	for i := range convs {
		top = math.Max(top, prev.BarHeight(i))
	}
	countAxis(p, top)
	// The legend lists the top of the stack first, like the bars.
	for i, j := 0, len(legend)-1; i < j; i, j = i+1, j-1 {
		legend[i], legend[j] = legend[j], legend[i]
	}
	return render(p, legend, lw)
}

// tokenChart draws Tok/Q per condition; "" without conditions.
func tokenChart(s *bench.Summary) (string, error) {
	conds := conditions(s)
	if len(conds) == 0 {
		return "", nil
	}
	p := newPlot("Tokens per question", "Tok/Q")
	w := plotArea(0) / vg.Length(len(conds)) * 0.6
	top := 0.0
	var labels plotter.XYLabels
	for i, c := range conds {
		tpq := s.Conditions[c].TokPerQ
		top = math.Max(top, tpq)
		labels.XYs = append(labels.XYs, plotter.XY{X: float64(i), Y: tpq})
		labels.Labels = append(labels.Labels, num(tpq, 0))
		b, err := plotter.NewBarChart(plotter.Values{tpq}, w)
		if err != nil {
			return "", err
		}
		b.XMin = float64(i)
		b.Color = conditionColor(i)
		b.LineStyle.Width = 0
		p.Add(b)
	}
	lb, err := plotter.NewLabels(labels)
	if err != nil {
		return "", err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font = font.From(sans, 9)
		lb.TextStyle[i].XAlign = draw.XCenter
	}
	lb.Offset = vg.Point{Y: vg.Points(3)}
	p.Add(lb)
	categoryAxis(p, conds)
	countAxis(p, top)
	return render(p, nil, 0)
}

func entries(names []string, bars []*plotter.BarChart) []legendEntry {
	out := make([]legendEntry, len(names))
	for i, n := range names {
		out[i] = legendEntry{n, bars[i]}
	}
	return out
}

// legendStyle returns the legend settings of every chart.
func legendStyle() plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font = font.From(sans, 9)
	l.ThumbnailWidth = vg.Points(12)
	l.Padding = vg.Points(3)
	l.Top, l.Left = true, true
	return l
}

// legendWidth returns the width of a legend listing names; 0 for none.
func legendWidth(names []string) vg.Length {
	if len(names) == 0 {
		return 0
	}
	l := legendStyle()
	var w vg.Length
	for _, n := range names {
		w = max(w, l.TextStyle.Width(" "+n))
	}
	return w + l.ThumbnailWidth + vg.Points(24)
}

// plotArea estimates the width of the data area of a chart whose legend
// takes lw points, leaving room for the y axis.
func plotArea(lw vg.Length) vg.Length {
	return vg.Points(chartWidth) - lw - vg.Points(55)
}

// render draws p, with a legend to its right when there are entries, as
// an SVG element without XML prolog.
func render(p *plot.Plot, legend []legendEntry, lw vg.Length) (string, error) {
	c := vgsvg.New(vg.Points(chartWidth), vg.Points(chartHeight))
	dc := draw.New(c)
	if len(legend) == 0 {
		p.Draw(dc)
	} else {
		p.Draw(draw.Crop(dc, 0, -lw, 0, 0))
		l := legendStyle()
		for _, e := range legend {
			l.Add(e.name, e.thumb)
		}
		l.Draw(draw.Crop(dc, vg.Points(chartWidth)-lw+vg.Points(8), 0, 0, -vg.Points(28)))
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", err
	}
	return cleanSVG(buf.String()), nil
}

// cleanSVG drops the XML prolog and comment vgsvg writes, the unused xlink
// namespace, and gives the font a generic fallback.
func cleanSVG(svg string) string {
	if i := strings.Index(svg, "<svg"); i >= 0 {
		svg = svg[i:]
	}
	if !strings.Contains(svg, "xlink:href") {
		svg = strings.Replace(svg, "\n\txmlns:xlink=\"http://www.w3.org/1999/xlink\"", "", 1)
	}
	return strings.ReplaceAll(svg, "font-family:Liberation Sans;", "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")
}

// capitalize upper-cases the first letter of an ASCII-initial s.
func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
