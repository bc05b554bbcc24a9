package selection

import (
	"github.com/swcmem/swc"
	"github.com/swcmem/swc/tokens"
)

// TurnSet is a choice of whole turns of one Analysis, rendered like
// swc-select's contexts: kept turns in conversation order under their
// session headers, "…" where turns of a shown session were left out,
// "[Session N omitted]" for sessions left out entirely. Other strategies
// (swc-recall, the retrieval baselines) fill one from a ranking of turns.
// A TurnSet is not safe for concurrent use.
type TurnSet struct {
	ch *choice
}

// NewTurnSet returns an empty TurnSet over x.
func (x *Analysis) NewTurnSet() *TurnSet { return &TurnSet{ch: newChoice(x, false)} }

// Has reports whether turn t is kept (whole or in part).
func (s *TurnSet) Has(t int) bool { return s.ch.turnKept(t) }

// Render returns the context text of the kept turns.
func (s *TurnSet) Render() string { return s.ch.render() }

// Fill adds turns of ranked (indexes into the analysis' Turns, best first)
// while they fit budget tokens, counting from used (the tokens of what is
// already kept), skipping a turn that does not fit for the next ones. The
// estimate it adds by (see addCost) is then checked by counting the
// rendering, and the last turns added are given back while it is over the
// budget. When ranked holds every turn and the whole conversation fits
// the budget, every turn is kept. It returns the rendering and its token
// count, which may exceed the budget only when what was kept before did.
func (s *TurnSet) Fill(ranked []int, used, budget int) (string, int) {
	return s.ch.fill(ranked, used, budget)
}

// Context returns the Context of the kept turns rendered as text (n
// tokens) under budget, reported like swc-select's.
func (s *TurnSet) Context(name, text string, n, budget int) *swc.Context {
	out := report(s.ch, text, n, budget)
	out.Strategy = name
	return out
}

// fill is TurnSet.Fill on a choice: turns whole turns of ranked become kept
// while they fit; the turns already whole are passed over.
func (c *choice) fill(ranked []int, used, budget int) (string, int) {
	if len(ranked) == len(c.x.Turns) && c.x.fitsWhole(budget) {
		for t := range c.x.Turns {
			c.keepTurn(t)
		}
		text := c.render()
		return text, tokens.Count(text)
	}
	base := c.clone()
	var added []int
	for _, t := range ranked {
		if c.turnWhole(t) {
			continue
		}
		cost := c.addCost(t)
		if used+cost > budget {
			continue
		}
		c.keepTurn(t)
		used += cost
		added = append(added, t)
	}
	text := c.render()
	n := tokens.Count(text)
	for n > budget && len(added) > 0 {
		last := added[len(added)-1]
		added = added[:len(added)-1]
		c.restore(base, last)
		text = c.render()
		n = tokens.Count(text)
	}
	return text, n
}

func (c *choice) clone() *choice {
	cp := *c
	cp.kept = append([]bool(nil), c.kept...)
	return &cp
}

// addCost estimates the tokens keeping all of turn t adds: its sentences
// not yet kept, its prefix when none was, its session's header when the
// session was omitted, and a gap marker.
func (c *choice) addCost(t int) int {
	ti := &c.x.Turns[t]
	if !c.turnKept(t) {
		cost := ti.Tokens + gapCost
		if ses := ti.Session; !c.sessionKept(ses) {
			cost += c.x.Header[ses] + tokens.Separator
		}
		return cost
	}
	cost := 0
	for u := c.first[t]; u < c.first[t+1]; u++ {
		if !c.kept[u] {
			cost += c.unit(u).Tokens
		}
	}
	return cost
}

// keepTurn keeps every sentence of turn t.
func (c *choice) keepTurn(t int) {
	for u := c.first[t]; u < c.first[t+1]; u++ {
		c.kept[u] = true
	}
}

// restore gives turn t back its state in base.
func (c *choice) restore(base *choice, t int) {
	copy(c.kept[c.first[t]:c.first[t+1]], base.kept[c.first[t]:c.first[t+1]])
}
