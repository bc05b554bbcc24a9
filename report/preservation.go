package report

import (
	"bytes"
	"encoding/json"

	"github.com/swc-project/swc/bench"
)

// preservation mirrors the shape of Summary.Preservation:
// {"types": {type: {"variants": {condition: {found, preserved, rate,
// value_rate}}}}}.
type preservation struct {
	Types map[string]struct {
		Variants map[string]preservedCounts `json:"variants"`
	} `json:"types"`
}

type preservedCounts struct {
	Found     *float64 `json:"found"`
	Preserved *float64 `json:"preserved"`
	Rate      *float64 `json:"rate"`
	ValueRate *float64 `json:"value_rate"`
}

// preservationTypes is the report order of content types.
var preservationTypes = []string{"temporal", "entity", "event"}

var preservationNames = map[string]string{"temporal": "Temporal", "entity": "Named entity", "event": "Event"}

// decodePreservation converts v (any JSON-marshalable value) into the
// preservation shape; ok is false when it has another shape or no types.
func decodePreservation(v any) (p preservation, ok bool) {
	raw, err := json.Marshal(v)
	if err != nil {
		return p, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&p); err != nil || len(p.Types) == 0 {
		return p, false
	}
	for _, t := range p.Types {
		for _, c := range t.Variants {
			if c.Found == nil || c.Preserved == nil || c.Rate == nil {
				return p, false
			}
		}
	}
	return p, true
}

// optPct formats an optional rate.
func optPct(x *float64) string {
	if x == nil {
		return none
	}
	return pct(*x)
}

func preservationSection(s *bench.Summary) (section, bool) {
	if s.Preservation == nil {
		return section{}, false
	}
	sec := section{ID: "preservation", Title: "Preservation of gisted content"}
	p, ok := decodePreservation(s.Preservation)
	if !ok {
		sec.Text = []string{"The preservation analysis has a shape this report does not know; see summary.json."}
		return sec, true
	}
	sec.Text = []string{"Mentions found in the source text of gisted chunks, and how many appear verbatim in the gist (case- and whitespace-insensitive); value rate counts the same date/time in any wording."}
	types := ordered(preservationTypes, p.Types)
	hasValue := false
	for _, ty := range types {
		for _, c := range p.Types[ty].Variants {
			hasValue = hasValue || c.ValueRate != nil
		}
	}
	header := []string{"Type", "Variant", "Found", "Preserved", "Rate"}
	if hasValue {
		header = append(header, "Value rate")
	}
	t := table{Header: header, Labels: 2}
	for _, ty := range types {
		vs := p.Types[ty].Variants
		for _, v := range ordered(s.Order, vs) {
			c := vs[v]
			row := []string{typeName(ty), v, num(*c.Found, 0), num(*c.Preserved, 0), pct(*c.Rate)}
			if hasValue {
				row = append(row, optPct(c.ValueRate))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	sec.Tables = []table{t}
	if r, ok := ratioTable(p, types); ok {
		sec.Tables = append(sec.Tables, r)
	}
	return sec, true
}

// ratioTable is the paper's Table 3: found, the verbatim rates of
// swc-full and swc-temporal, and their ratio; ok is false unless some type
// has both variants.
func ratioTable(p preservation, types []string) (table, bool) {
	const full, temporal = "swc-full", "swc-temporal"
	t := table{Caption: "Table 3: verbatim preservation, " + temporal + " vs " + full + ".",
		Header: []string{"Type", "Found (" + full + ")", full, temporal, "×"}}
	for _, ty := range types {
		vs := p.Types[ty].Variants
		f, okF := vs[full]
		tm, okT := vs[temporal]
		if !okF || !okT {
			continue
		}
		ratio := none
		if *f.Rate > 0 {
			ratio = num(*tm.Rate / *f.Rate, 2)
		}
		t.Rows = append(t.Rows, []string{typeName(ty), num(*f.Found, 0), pct(*f.Rate), pct(*tm.Rate), ratio})
	}
	return t, len(t.Rows) > 0
}

func typeName(ty string) string {
	if n, ok := preservationNames[ty]; ok {
		return n
	}
	return ty
}
