package report

import (
	"fmt"
	"hash/fnv"
	"html"
	"math"
	"strings"
	"unicode/utf8"
)

// The charts are SVG written directly: a title, labelled axes in words, a
// legend, and colours fixed per condition name across every chart and
// report. The text uses the page's fonts, so no font is embedded (gonum/plot
// embedded twelve Liberation fonts, 4.4 MB of the binary).

// Chart geometry, in SVG user units (the page scales the SVG to its width).
const (
	chartW       = 960.0
	chartH       = 380.0
	marginLeft   = 72.0
	marginRight  = 190.0 // legend
	marginTop    = 44.0
	marginBottom = 64.0
)

// conditionColors fixes the colour of every known condition (Tableau 10),
// so that a condition looks the same in every chart whatever the run's
// order; others get a colour from their name's hash.
var conditionColors = map[string]string{
	"full":             "#7F7F7F",
	"truncation":       "#E15759",
	"sliding":          "#F28E2B",
	"sliding-temporal": "#EDC948",
	"swc-full":         "#76B7B2",
	"swc-temporal":     "#59A14F",
	"swc-anchored":     "#4E79A7",
	"swc-select":       "#B07AA1",
	"swc-recall":       "#9C755F",
	// the trajectory bench's conditions
	"swc":       "#1F77B4",
	"mask-5":    "#FF9DA7",
	"mask-10":   "#9467BD",
	"trim-half": "#17BECF",
}

var extraColors = []string{"#FF9DA7", "#BAB0AC", "#1F77B4", "#8C564B", "#17BECF", "#BCBD22", "#D62728", "#9467BD"}

// colorOf returns the fixed colour of condition name.
func colorOf(name string) string {
	if c, ok := conditionColors[name]; ok {
		return c
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return extraColors[h.Sum32()%uint32(len(extraColors))]
}

// tierColor colours the tiers; others get grey.
func tierColor(t string) string {
	switch t {
	case "high":
		return "#4E79A7"
	case "mid":
		return "#F28E2B"
	case "low":
		return "#BAB0AC"
	}
	return "#79706E"
}

// svgText escapes s for SVG text and attributes.
func svgText(s string) string { return html.EscapeString(s) }

// legendItem is one line of a legend.
type legendItem struct {
	name, color string
	note        bool // text alone
}

// frame is a chart being drawn: a plot area with a y scale.
type frame struct {
	b          strings.Builder
	ymin, ymax float64
	legend     []legendItem
}

// newFrame starts a chart with its title, axis labels and y range.
func newFrame(id, title, xlabel, ylabel string, ymin, ymax float64) *frame {
	f := &frame{ymin: ymin, ymax: ymax}
	if f.ymax <= f.ymin {
		f.ymax = f.ymin + 1
	}
	fmt.Fprintf(&f.b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="chart-%s" viewBox="0 0 %g %g" width="%g" height="%g" role="img" aria-labelledby="chart-%s-title" font-family="Arial,Helvetica,sans-serif">`+"\n",
		svgText(id), chartW, chartH, chartW, chartH, svgText(id))
	fmt.Fprintf(&f.b, `<title id="chart-%s-title">%s</title>`+"\n", svgText(id), svgText(title))
	fmt.Fprintf(&f.b, `<text class="chart-title" x="%g" y="24" font-size="16" font-weight="bold">%s</text>`+"\n", marginLeft, svgText(title))
	fmt.Fprintf(&f.b, `<text class="axis-label x-label" x="%g" y="%g" font-size="13" text-anchor="middle">%s</text>`+"\n",
		marginLeft+f.plotW()/2, chartH-12, svgText(xlabel))
	fmt.Fprintf(&f.b, `<text class="axis-label y-label" transform="translate(18 %g) rotate(-90)" font-size="13" text-anchor="middle">%s</text>`+"\n",
		marginTop+f.plotH()/2, svgText(ylabel))
	return f
}

func (f *frame) plotW() float64 { return chartW - marginLeft - marginRight }
func (f *frame) plotH() float64 { return chartH - marginTop - marginBottom }

// y maps a value to its vertical position.
func (f *frame) y(v float64) float64 {
	v = math.Max(f.ymin, math.Min(f.ymax, v))
	return marginTop + f.plotH()*(1-(v-f.ymin)/(f.ymax-f.ymin))
}

// yAxis draws horizontal grid lines and labels at ticks.
func (f *frame) yAxis(ticks []float64, label func(float64) string) {
	for _, t := range ticks {
		y := f.y(t)
		fmt.Fprintf(&f.b, `<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="#ddd" stroke-width="1"/>`+"\n", marginLeft, marginLeft+f.plotW(), y, y)
		fmt.Fprintf(&f.b, `<text class="tick" x="%g" y="%.1f" font-size="11" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", marginLeft-6, y, svgText(label(t)))
	}
	fmt.Fprintf(&f.b, `<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="#444"/>`+"\n", marginLeft, marginLeft, marginTop, marginTop+f.plotH())
	fmt.Fprintf(&f.b, `<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="#444"/>`+"\n", marginLeft, marginLeft+f.plotW(), marginTop+f.plotH(), marginTop+f.plotH())
}

// xLabels writes category names under the x positions xs; when a name
// is wider than the space between two positions, every other name goes
// one line lower, so that no two overlap.
func (f *frame) xLabels(xs []float64, names []string) {
	stagger := false
	if len(xs) > 1 {
		for _, n := range names {
			stagger = stagger || textWidth(n, 11) > xs[1]-xs[0]-4
		}
	}
	for i, x := range xs {
		y := marginTop + f.plotH() + 16
		if stagger && i%2 == 1 {
			y += 13
		}
		fmt.Fprintf(&f.b, `<text class="tick" x="%.1f" y="%g" font-size="11" text-anchor="middle">%s</text>`+"\n", x, y, svgText(names[i]))
	}
}

// textWidth is a generous estimate of the width of s in Arial at size px.
func textWidth(s string, size float64) float64 {
	return float64(utf8.RuneCountInString(s)) * size * 0.6
}

// awareNote adds a legend line explaining awareMark when any is true.
func (f *frame) awareNote(any bool) {
	if any {
		f.legend = append(f.legend, legendItem{name: "† question-aware", note: true})
	}
}

func (f *frame) rect(x, y, w, h float64, color, title string) {
	fmt.Fprintf(&f.b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s</title></rect>`+"\n", x, y, w, math.Max(h, 0), color, svgText(title))
}

// whisker draws a vertical CI from lo to hi at x.
func (f *frame) whisker(x, lo, hi float64) {
	y1, y2 := f.y(lo), f.y(hi)
	fmt.Fprintf(&f.b, `<path class="ci" d="M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f" stroke="#222" stroke-width="1" fill="none"/>`+"\n",
		x, y1, y2, x-3, y1, x+3, x-3, y2, x+3)
}

// end writes the legend and closes the SVG.
func (f *frame) end() string {
	x := marginLeft + f.plotW() + 16
	for i, it := range f.legend {
		y := marginTop + 6 + float64(i)*20
		if it.note {
			fmt.Fprintf(&f.b, `<text class="legend note" x="%g" y="%g" font-size="11" dominant-baseline="middle">%s</text>`+"\n", x, y+6, svgText(it.name))
			continue
		}
		fmt.Fprintf(&f.b, `<rect x="%g" y="%g" width="12" height="12" fill="%s"/><text class="legend" x="%g" y="%g" font-size="12" dominant-baseline="middle">%s</text>`+"\n",
			x, y, it.color, x+18, y+6, svgText(it.name))
	}
	f.b.WriteString("</svg>\n")
	return f.b.String()
}

// scoreTicks are 0, 0.2, … up to top (at least 1).
func scoreTicks(top float64) (float64, []float64) {
	top = math.Max(1, math.Ceil(top*5)/5)
	var ts []float64
	for i := 0; float64(i)*0.2 <= top+1e-9; i++ {
		ts = append(ts, float64(i)*0.2)
	}
	return top, ts
}

// countTicks are about five round steps from 0 past top.
func countTicks(top float64) (float64, []float64) {
	if top <= 0 {
		return 1, []float64{0, 1}
	}
	step := math.Pow(10, math.Floor(math.Log10(top/5)))
	for _, m := range []float64{1, 2, 5, 10} {
		if top/(m*step) <= 6 {
			step *= m
			break
		}
	}
	step = math.Max(step, 1)
	end := math.Ceil(top*1.08/step) * step
	var ts []float64
	for v := 0.0; v <= end+1e-9; v += step {
		ts = append(ts, v)
	}
	return end, ts
}

// bar is one bar of a grouped or stacked chart: value, CI (when hasCI) and
// a hover title.
type bar struct {
	v, lo, hi float64
	hasCI, ok bool
}

// barSeries is one colour of bars across the groups.
type barSeries struct {
	name, color string
	bars        []bar // one per group
}

// groupedBars draws series side by side within each group and returns the
// chart's x centre of each group.
func (f *frame) groupedBars(groups []string, series []barSeries) {
	n := float64(len(groups))
	unit := f.plotW() / n
	w := unit * 0.8 / float64(len(series))
	var xs []float64
	for g := range groups {
		xs = append(xs, marginLeft+unit*(float64(g)+0.5))
	}
	for k, s := range series {
		for g, b := range s.bars {
			if !b.ok {
				continue
			}
			x := xs[g] - unit*0.4 + w*float64(k)
			title := fmt.Sprintf("%s, %s: %s", s.name, groups[g], f3(b.v))
			if b.hasCI {
				title += " [" + f3(b.lo) + ", " + f3(b.hi) + "]"
			}
			f.rect(x, f.y(b.v), w*0.92, f.y(f.ymin)-f.y(b.v), s.color, title)
			if b.hasCI {
				f.whisker(x+w*0.46, b.lo, b.hi)
			}
		}
		f.legend = append(f.legend, legendItem{name: s.name, color: s.color})
	}
	f.xLabels(xs, groups)
}

// stackedBars draws series stacked within each group, first at the bottom.
func (f *frame) stackedBars(groups []string, series []barSeries) {
	unit := f.plotW() / float64(len(groups))
	w := unit * 0.6
	var xs []float64
	base := make([]float64, len(groups))
	for g := range groups {
		xs = append(xs, marginLeft+unit*(float64(g)+0.5))
	}
	for _, s := range series {
		for g, b := range s.bars {
			if !b.ok || b.v == 0 {
				continue
			}
			top := base[g] + b.v
			f.rect(xs[g]-w/2, f.y(top), w, f.y(base[g])-f.y(top), s.color, fmt.Sprintf("%s, %s: %s", s.name, groups[g], num(b.v, 0)))
			base[g] = top
		}
	}
	for i := len(series) - 1; i >= 0; i-- { // the legend lists the top of the stack first
		f.legend = append(f.legend, legendItem{name: series[i].name, color: series[i].color})
	}
	f.xLabels(xs, groups)
}
