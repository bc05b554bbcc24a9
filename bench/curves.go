package bench

// Curves is curves.json: every condition's metrics at every budget of a
// --budgets run, for accuracy-versus-tokens curves.
type Curves struct {
	Budgets []int    `json:"budgets"`
	Order   []string `json:"order"`
	// Types are the summaries' question types (Summary.Types): empty for
	// LoCoMo.
	Types []string `json:"types,omitempty"`
	// Points maps condition → category key → metric → one point per
	// budget that has it, in budget order.
	Points map[string]map[string]map[string][]CurvePoint `json:"points"`
}

// Breakdown returns how the curves' summaries are broken down (see
// Summary.Breakdown).
func (c *Curves) Breakdown() Breakdown {
	return (&Summary{Types: c.Types}).Breakdown()
}

// CurvePoint is one condition's metric at one budget: the budget, the mean
// tokens it actually sent per question (Tok/Q), and the estimate.
type CurvePoint struct {
	Budget  int     `json:"budget"`
	TokPerQ float64 `json:"tok_per_q"`
	Stat
}

// CurvesOf gathers the summaries of one run per budget (in budget order).
// Conditions are in the order of the first summary.
func CurvesOf(sums []*Summary) *Curves {
	c := &Curves{Points: map[string]map[string]map[string][]CurvePoint{}}
	for _, s := range sums {
		c.Budgets = append(c.Budgets, s.Settings.Budget)
		if c.Order == nil {
			c.Order, c.Types = s.Order, s.Types
		}
		for name, cs := range s.Conditions {
			byKey := c.Points[name]
			if byKey == nil {
				byKey = map[string]map[string][]CurvePoint{}
				c.Points[name] = byKey
			}
			for key, ms := range cs.Categories {
				if byKey[key] == nil {
					byKey[key] = map[string][]CurvePoint{}
				}
				for m, st := range ms {
					byKey[key][m] = append(byKey[key][m], CurvePoint{Budget: s.Settings.Budget, TokPerQ: cs.TokPerQ, Stat: st})
				}
			}
		}
	}
	return c
}
