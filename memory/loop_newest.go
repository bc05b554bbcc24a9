package memory

import (
	"slices"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/observe"
)

// holdBudget returns res, a tool loop's compression (compressLoop), with
// its newest observations cut to bring it within the budget when it is
// over and Options.HoldBudget is set (cutNewest); as it is otherwise.
func (c *Compressor) holdBudget(msgs []swc.Message, costs []int, l *loopShape, res *Result) *Result {
	if !c.opts.HoldBudget || res.OverBudget == 0 {
		return res
	}
	b := len(l.units) // the masking boundary: the unit res.Recent starts
	for u := range l.units {
		if l.units[u].msgs[0] == res.Recent {
			b = u
			break
		}
	}
	lc := &loopCosts{msgs: msgs, cost: costs, stubCap: c.opts.StubTokens + MessageOverhead, share: max(c.opts.StubShare, 0)}
	c.cutNewest(msgs, l, lc, b, res)
	return res
}

// cutNewest brings a tool loop's request that is still over the budget
// back within it by cutting the observations it sends verbatim (the
// newest exchange's, those the window keeps), which the walk never
// stubs: one output of a megabyte, or a few parallel reads, would send
// the request over the budget whatever it is. Each is replaced by a
// stub of its lines worth most and its handle (the proxy's swc_recall
// returns the whole output), sized by water-filling: the outputs under
// a common level stay whole, the others are cut to it, the level the
// highest that brings the request within the budget. When no level
// down to a stub's least (Options.StubTokens) does (the instructions, the
// task and the person's texts overflow the budget alone), nothing is
// cut: the request goes over all the same. The cut outputs are listed in
// Result.Truncated and their stubs in Result.Rewritten. An output the
// provider needs whole (a screenshot a computer call returns, a tool
// search's result) is never cut.
func (c *Compressor) cutNewest(msgs []swc.Message, l *loopShape, lc *loopCosts, b int, res *Result) {
	need := res.Tokens - c.opts.Budget
	if need <= 0 || b >= len(l.units) {
		return
	}
	type cand struct {
		i, unit, cost int
	}
	var cands []cand
	for u := b; u < len(l.units); u++ {
		for _, i := range l.units[u].obs {
			if _, done := res.Rewritten[i]; done || !lc.stubbable(i) {
				continue
			}
			cands = append(cands, cand{i, u, lc.cost[i]})
		}
	}
	if len(cands) == 0 {
		return
	}
	floor := lc.stubCap
	saving := func(level int) int {
		s := 0
		for _, k := range cands {
			s += max(k.cost-level, 0)
		}
		return s
	}
	top := 0
	for _, k := range cands {
		top = max(top, k.cost)
	}
	// The highest level in [floor, top] whose saving covers need (the
	// saving falls as the level rises).
	if saving(floor) < need {
		return // over whatever is cut: the outputs go whole
	}
	lo, hi := floor, top
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if saving(mid) >= need {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	level := lo
	at := make(map[int]int, len(res.Source)) // input index → position in res.Messages
	for p, i := range res.Source {
		at[i] = p
	}
	known, focus := map[string]bool{}, map[string]bool{}
	for _, i := range slices.Concat(l.instr, l.head) {
		for _, id := range c.identifiers(msgs[i].Content) {
			known[id] = true
		}
	}
	for _, id := range c.identifiers(msgs[l.head[len(l.head)-1]].Content) {
		focus[id] = true
	}
	opt := observe.StubOptions{
		OmitCall: true, // the assistant turn above holds it
		Known:    func(id string) bool { return known[id] },
		Focus:    func(id string) bool { return focus[id] },
	}
	for _, k := range cands {
		if k.cost <= level {
			continue
		}
		p, ok := at[k.i]
		if !ok {
			continue
		}
		ob, callID := observation(msgs, &l.units[k.unit], k.i)
		opt.Handle = c.handle(callID, ob.Output)
		opt.MaxTokens = level - MessageOverhead
		st := c.stub(ob, opt)
		m := res.Messages[p]
		m.Content, m.MediaTokens = st, 0
		res.Tokens += c.Cost(m) - k.cost
		res.Messages[p] = m
		if res.Rewritten == nil {
			res.Rewritten = map[int]string{}
		}
		res.Rewritten[k.i] = st
		res.Truncated = append(res.Truncated, k.i)
	}
	slices.Sort(res.Truncated)
	res.Compacted += len(res.Truncated)
	res.OverBudget = max(res.Tokens-c.opts.Budget, 0)
}
