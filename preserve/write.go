package preserve

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// maxGistQuote bounds the gist an example quotes in text and Markdown, in
// bytes (JSON carries the whole gist).
const maxGistQuote = 600

// table is a rendered grid; the first column is left-aligned, the others
// right-aligned.
type table struct {
	head []string
	rows [][]string
}

func (t table) text(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	line := func(cells []string) {
		// tabwriter aligns every column right; pad the first one by hand.
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	width := 0
	for _, r := range append([][]string{t.head}, t.rows...) {
		width = max(width, len(r[0]))
	}
	pad := func(r []string) []string {
		out := append([]string{}, r...)
		out[0] = out[0] + strings.Repeat(" ", width-len(out[0]))
		return out
	}
	line(pad(t.head))
	for _, r := range t.rows {
		line(pad(r))
	}
	tw.Flush()
}

func (t table) markdown(w io.Writer) {
	fmt.Fprintf(w, "| %s |\n|", strings.Join(t.head, " | "))
	for i := range t.head {
		if i == 0 {
			fmt.Fprint(w, " --- |")
		} else {
			fmt.Fprint(w, " ---: |")
		}
	}
	fmt.Fprintln(w)
	for _, r := range t.rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
	}
}

func pct(x float64) string { return fmt.Sprintf("%.2f%%", 100*x) }

func times(x *float64) string {
	if x == nil {
		return "–"
	}
	return fmt.Sprintf("×%.2f", *x)
}

// typeTable is the Table 3 grid of one type: a row per variant.
func (r *Report) typeTable(typ string) table {
	t := table{head: []string{"variant", "gists", "found", "preserved", "rate"}}
	if typ == Temporal {
		t.head = append(t.head, "resolved", "value-preserved", "value rate")
	}
	for _, v := range r.Conditions {
		c := r.Counts(typ, v)
		if c == nil {
			continue
		}
		g := 0
		if cov := r.Coverage[v]; cov != nil {
			g = cov.Gists
		}
		row := []string{v, fmt.Sprint(g), fmt.Sprint(c.Found), fmt.Sprint(c.Preserved), pct(c.Rate)}
		if c.ValueRate != nil {
			row = append(row, fmt.Sprint(*c.Resolved), fmt.Sprint(*c.ValuePreserved), pct(*c.ValueRate))
		}
		t.rows = append(t.rows, row)
	}
	return t
}

// summaryTable is the paper's Table 3 layout: one row per type, with
// preserved/found and the rate per variant, then the ratios.
func (r *Report) summaryTable() table {
	t := table{head: append([]string{"type"}, r.Conditions...)}
	var pairs []Ratio
	for _, ra := range r.Ratios {
		if ra.Type == Temporal {
			pairs = append(pairs, ra)
			t.head = append(t.head, "× "+ra.Variant+"/"+ra.Baseline)
		}
	}
	cell := func(n, d int, rate float64) string { return fmt.Sprintf("%d/%d %s", n, d, pct(rate)) }
	for _, typ := range Types {
		row := []string{typ}
		for _, v := range r.Conditions {
			c := r.Counts(typ, v)
			row = append(row, cell(c.Preserved, c.Found, c.Rate))
		}
		for _, p := range pairs {
			row = append(row, times(r.ratio(typ, p.Variant, p.Baseline).Rate))
		}
		t.rows = append(t.rows, row)
	}
	if len(r.Conditions) > 0 && r.Counts(Temporal, r.Conditions[0]).ValueRate != nil {
		row := []string{"temporal (value)"}
		for _, v := range r.Conditions {
			c := r.Counts(Temporal, v)
			row = append(row, cell(*c.ValuePreserved, c.Found, *c.ValueRate))
		}
		for _, p := range pairs {
			row = append(row, times(r.ratio(Temporal, p.Variant, p.Baseline).ValueRate))
		}
		t.rows = append(t.rows, row)
	}
	return t
}

func (r *Report) ratio(typ, v, b string) Ratio {
	for _, ra := range r.Ratios {
		if ra.Type == typ && ra.Variant == v && ra.Baseline == b {
			return ra
		}
	}
	return Ratio{}
}

// convTable is the per-conversation grid of one type.
func (r *Report) convTable(typ string) table {
	t := table{head: append([]string{"conversation"}, r.Conditions...)}
	for _, cr := range r.PerConversation {
		row := []string{cr.Conversation}
		for _, v := range r.Conditions {
			c := cr.Types[typ].Variants[v]
			cell := fmt.Sprintf("%d/%d %s", c.Preserved, c.Found, pct(c.Rate))
			if c.ValueRate != nil {
				cell += fmt.Sprintf(" (value %s)", pct(*c.ValueRate))
			}
			row = append(row, cell)
		}
		t.rows = append(t.rows, row)
	}
	return t
}

const definition = "verbatim: the mention's surface form occurs in the gist (case- and whitespace-insensitive, at word boundaries); " +
	"value (temporal): the same resolved value in any wording, or the resolved date written out; value rate = value-preserved ÷ found. " +
	"Sources are the original turns each gist stands for; every gist made is audited, whether or not the budget kept it."

// WriteText writes the report as plain-text tables: a summary in the
// layout of the paper's Table 3, a table per type, the per-conversation
// breakdown and the examples. It returns the first write error.
func (r *Report) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "Preservation of mentions in gists")
	fmt.Fprintln(bw, definition)
	if len(r.Conditions) == 0 {
		fmt.Fprintln(bw, "\nno gists to audit")
		return bw.Flush()
	}
	fmt.Fprintln(bw)
	r.summaryTable().text(bw)
	for _, typ := range Types {
		fmt.Fprintf(bw, "\n%s\n", typ)
		r.typeTable(typ).text(bw)
		var parts []string
		for _, ra := range r.Ratios {
			if ra.Type != typ {
				continue
			}
			s := fmt.Sprintf("%s ÷ %s %s", ra.Variant, ra.Baseline, times(ra.Rate))
			if ra.ValueRate != nil {
				s += fmt.Sprintf(" (value %s)", times(ra.ValueRate))
			}
			parts = append(parts, s)
		}
		if len(parts) > 0 {
			fmt.Fprintf(bw, "ratios: %s\n", strings.Join(parts, "; "))
		}
	}
	fmt.Fprintln(bw, "\nPer conversation (preserved/found rate)")
	for _, typ := range Types {
		fmt.Fprintf(bw, "\n%s\n", typ)
		r.convTable(typ).text(bw)
	}
	fmt.Fprintln(bw, "\nExamples of lost mentions")
	for _, typ := range Types {
		for _, v := range r.Conditions {
			ex := r.Examples[typ][v]
			if len(ex) == 0 {
				continue
			}
			fmt.Fprintf(bw, "\n%s lost by %s\n", typ, v)
			for _, e := range ex {
				fmt.Fprintf(bw, "- %s %s (session %d): %q %s\n", e.Conversation, e.Turn, e.Session+1, e.Mention, e.label())
				fmt.Fprintf(bw, "    source: %s: %s\n", e.Speaker, e.Sentence)
				fmt.Fprintf(bw, "    gist:   %s\n", oneLine(clip(e.Gist, maxGistQuote)))
			}
		}
	}
	return bw.Flush()
}

// WriteMarkdown writes the same report as Markdown (preservation.md). It
// returns the first write error.
func (r *Report) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Preservation of mentions in gists\n\n%s\n", definition)
	if len(r.Conditions) == 0 {
		fmt.Fprintln(bw, "\nNo gists to audit.")
		return bw.Flush()
	}
	fmt.Fprint(bw, "\n## Summary\n\n")
	r.summaryTable().markdown(bw)
	for _, typ := range Types {
		fmt.Fprintf(bw, "\n## %s\n\n", typ)
		r.typeTable(typ).markdown(bw)
	}
	if len(r.Ratios) > 0 {
		fmt.Fprint(bw, "\n## Ratios\n\n")
		t := table{head: []string{"type", "variant", "baseline", "rate ratio", "value-rate ratio"}}
		for _, ra := range r.Ratios {
			vr := ""
			if ra.ValueRate != nil {
				vr = times(ra.ValueRate)
			}
			t.rows = append(t.rows, []string{ra.Type, ra.Variant, ra.Baseline, times(ra.Rate), vr})
		}
		t.markdown(bw)
	}
	fmt.Fprintln(bw, "\n## Per conversation (preserved/found rate)")
	for _, typ := range Types {
		fmt.Fprintf(bw, "\n### %s\n\n", typ)
		r.convTable(typ).markdown(bw)
	}
	fmt.Fprintln(bw, "\n## Examples of lost mentions")
	for _, typ := range Types {
		for _, v := range r.Conditions {
			ex := r.Examples[typ][v]
			if len(ex) == 0 {
				continue
			}
			fmt.Fprintf(bw, "\n### %s lost by %s\n\n", typ, v)
			for _, e := range ex {
				fmt.Fprintf(bw, "- **%s %s** (session %d): “%s” %s\n", e.Conversation, e.Turn, e.Session+1, e.Mention, e.label())
				fmt.Fprintf(bw, "  - source: %s: %s\n", e.Speaker, e.Sentence)
				fmt.Fprintf(bw, "  - gist: %s\n", oneLine(clip(e.Gist, maxGistQuote)))
			}
		}
	}
	return bw.Flush()
}

// label describes an example's mention: its kind and resolved value.
func (e Example) label() string {
	var parts []string
	parts = append(parts, e.Kind)
	if e.Value != "" && e.Kind != "event" {
		parts = append(parts, e.Value)
	}
	if e.Phrase != "" {
		parts = append(parts, e.Phrase)
	}
	if e.ValuePreserved {
		parts = append(parts, "value kept")
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// WriteSummary writes only the summary table (the paper's Table 3 layout,
// with the value row and the ratios), as Markdown when markdown is true or
// as aligned text otherwise: the short form a bench report embeds. It
// returns the first write error.
func (r *Report) WriteSummary(w io.Writer, markdown bool) error {
	bw := bufio.NewWriter(w)
	switch {
	case len(r.Conditions) == 0:
		fmt.Fprintln(bw, "no gists to audit")
	case markdown:
		r.summaryTable().markdown(bw)
	default:
		r.summaryTable().text(bw)
	}
	return bw.Flush()
}
