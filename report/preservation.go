package report

import (
	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/preserve"
)

var preservationNames = map[string]string{preserve.Temporal: "Temporal", preserve.Entity: "Named entity", preserve.Event: "Event"}

// optPct formats an optional rate.
func optPct(x *float64) string {
	if x == nil {
		return none
	}
	return pct(*x)
}

// preservationVariants returns the variants of p with counts for type ty,
// in the run's order; nil when the type has none.
func preservationVariants(p *preserve.Report, ty string, order []string) []string {
	tr := p.Types[ty]
	if tr == nil {
		return nil
	}
	var out []string
	for _, v := range ordered(order, tr.Variants) {
		if tr.Variants[v] != nil {
			out = append(out, v)
		}
	}
	return out
}

func preservationSection(s *bench.Summary) (section, bool) {
	p := s.Preservation
	if p == nil {
		return section{}, false
	}
	sec := section{ID: "preservation", Title: "Preservation of gisted content"}
	types := ordered(preserve.Types, p.Types)
	hasValue := false
	for _, ty := range types {
		for _, v := range preservationVariants(p, ty, s.Order) {
			hasValue = hasValue || p.Counts(ty, v).ValueRate != nil
		}
	}
	header := []string{"Type", "Variant", "Found", "Preserved", "Rate"}
	if hasValue {
		header = append(header, "Value rate")
	}
	t := table{Header: header, Labels: 2}
	for _, ty := range types {
		for _, v := range preservationVariants(p, ty, s.Order) {
			c := p.Counts(ty, v)
			row := []string{typeName(ty), v, num(float64(c.Found), 0), num(float64(c.Preserved), 0), pct(c.Rate)}
			if hasValue {
				row = append(row, optPct(c.ValueRate))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	if len(t.Rows) == 0 {
		sec.Text = []string{"The preservation analysis holds no counts; see summary.json."}
		return sec, true
	}
	sec.Text = []string{"Mentions found in the source text of gisted chunks, and how many appear verbatim in the gist (case- and whitespace-insensitive); value rate counts the same date/time in any wording."}
	sec.Tables = []table{t}
	if r, ok := ratioTable(p, types); ok {
		sec.Tables = append(sec.Tables, r)
	}
	return sec, true
}

// ratioTable is the paper's Table 3: found, the verbatim rates of
// swc-full and swc-temporal, and their ratio; ok is false unless some type
// has both variants.
func ratioTable(p *preserve.Report, types []string) (table, bool) {
	const full, temporal = "swc-full", "swc-temporal"
	t := table{Caption: "Table 3: verbatim preservation, " + temporal + " vs " + full + ".",
		Header: []string{"Type", "Found (" + full + ")", full, temporal, "×"}}
	for _, ty := range types {
		f, tm := p.Counts(ty, full), p.Counts(ty, temporal)
		if f == nil || tm == nil {
			continue
		}
		ratio := none
		if f.Rate > 0 {
			ratio = num(tm.Rate/f.Rate, 2)
		}
		t.Rows = append(t.Rows, []string{typeName(ty), num(float64(f.Found), 0), pct(f.Rate), pct(tm.Rate), ratio})
	}
	return t, len(t.Rows) > 0
}

func typeName(ty string) string {
	if n, ok := preservationNames[ty]; ok {
		return n
	}
	return ty
}
