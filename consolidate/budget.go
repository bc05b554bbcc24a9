package consolidate

import (
	"fmt"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/tokens"
)

// estimate returns the plan's token count as the sum of its blocks,
// separators and the markers of sessions omitted between blocks (see
// swc.Render). BPE merges at block boundaries make it differ from the exact
// count by a token or two; enforce checks the exact count at the end.
func (p *plan) estimate() int {
	n, blocks, prev := 0, 0, -1
	for i := range p.chunks {
		if t := p.chunks[i].tokens(); t > 0 {
			n += t
			blocks++
			if prev >= 0 && i > prev+1 {
				n += tokens.Omission(prev+1, i-1)
			}
			prev = i
		}
	}
	if blocks > 1 {
		n += (blocks - 1) * p.sepToken
	}
	return n
}

// enforce cuts p to budget in this order: verbatim chunks that
// are not pinned, lowest salience first; then gists, lowest salience first;
// (with Config.Demote, each is first replaced by its gist); then, when the
// pinned chunks alone exceed the budget, their oldest turns
// (session 0's last). Each removal is recorded in p.dropped.
//
// It returns the plan's rendering as it ends (see plan.rendering).
func enforce(p *plan, budget int) *rendering {
	next := p.steps()
	cutToEstimate(p, budget, next)
	for {
		r := p.render()
		if r.tokens <= budget || next() < 0 {
			return r
		}
	}
}

// cutToEstimate makes next's removals until p's estimate is within
// budget, keeping the estimate up to date one chunk at a time (as
// p.estimate() counts it, without counting every chunk again).
func cutToEstimate(p *plan, budget int, next func() int) {
	e := newEstimator(p)
	for e.est > budget {
		i := next()
		if i < 0 {
			return
		}
		e.update(i)
	}
}

// estimator keeps p.estimate() as chunks change: the kept chunks (those
// with tokens) are linked in order, each with the tokens counted for it.
type estimator struct {
	p          *plan
	prev, next []int // neighbouring kept chunks; -1 at the ends
	tok        []int // tokens counted for each chunk (0: not kept)
	est        int
}

func newEstimator(p *plan) *estimator {
	n := len(p.chunks)
	e := &estimator{p: p, prev: make([]int, n), next: make([]int, n), tok: make([]int, n)}
	last := -1
	for i := range p.chunks {
		e.prev[i], e.next[i] = -1, -1
		if t := p.chunks[i].tokens(); t > 0 {
			e.tok[i] = t
			e.prev[i] = last
			if last >= 0 {
				e.next[last] = i
			}
			last = i
		}
	}
	e.est = p.estimate()
	return e
}

// gap is the cost between kept chunks a and b (either -1: none).
func (e *estimator) gap(a, b int) int {
	if a < 0 || b < 0 {
		return 0
	}
	n := e.p.sepToken
	if b > a+1 {
		n += tokens.Omission(a+1, b-1)
	}
	return n
}

// update counts chunk i again after a change.
func (e *estimator) update(i int) {
	t := e.p.chunks[i].tokens()
	switch old := e.tok[i]; {
	case old > 0 && t > 0:
		e.est += t - old
	case old > 0: // i is no longer kept
		a, b := e.prev[i], e.next[i]
		e.est += e.gap(a, b) - e.gap(a, i) - e.gap(i, b) - old
		if a >= 0 {
			e.next[a] = b
		}
		if b >= 0 {
			e.prev[b] = a
		}
	case t > 0: // never happens (steps only take away): count again
		*e = *newEstimator(e.p)
		return
	}
	e.tok[i] = t
}

// steps returns a function that makes the next removal and reports whether
// there was one.
func (p *plan) steps() func() int {
	var idx []int
	scores := make([]float64, len(p.chunks))
	for i := range p.chunks {
		scores[i] = p.chunks[i].score
		idx = append(idx, i)
	}
	order := rankOrder(idx, scores)
	var verbatim, gists, pinned []int
	for _, i := range order {
		ch := &p.chunks[i]
		switch {
		case ch.action == swc.ActionVerbatim && !ch.pinned:
			verbatim = append(verbatim, i)
		case ch.action == swc.ActionGist:
			gists = append(gists, i)
		}
	}
	for i := range p.chunks { // chronological, session 0 last
		if p.chunks[i].pinned && i != 0 {
			pinned = append(pinned, i)
		}
	}
	if len(p.chunks) > 0 && p.chunks[0].pinned {
		pinned = append(pinned, 0)
	}
	return func() int {
		for len(verbatim) > 0 {
			i := verbatim[0]
			verbatim = verbatim[1:]
			if ch := &p.chunks[i]; ch.action == swc.ActionVerbatim {
				if p.demote && ch.gist != "" {
					ch.action, ch.demoted = swc.ActionGist, true
					ch.reason = "over budget: verbatim chunk replaced by its gist, lowest salience first"
					p.dropped = append(p.dropped, swc.Drop{Session: i, Turns: len(ch.turns), Reason: fmt.Sprintf("over budget: %s chunk demoted to its gist (score %.3f)", ch.tier, ch.score)})
					gists = append(gists, i) // it outscores every mid gist: last to go
					return i
				}
				ch.action = swc.ActionDropped
				ch.reason = "over budget: verbatim chunk, lowest salience first"
				p.dropped = append(p.dropped, swc.Drop{Session: i, Reason: fmt.Sprintf("over budget: %s chunk dropped (score %.3f)", ch.tier, ch.score)})
				return i
			}
		}
		for len(gists) > 0 {
			i := gists[0]
			gists = gists[1:]
			if ch := &p.chunks[i]; ch.action == swc.ActionGist {
				ch.action = swc.ActionDropped
				ch.reason = "over budget: gist, lowest salience first"
				d := swc.Drop{Session: i, Reason: fmt.Sprintf("over budget: gist dropped (score %.3f)", ch.score)}
				if ch.demoted { // listed once: its demotion entry becomes the drop
					ch.reason = "over budget: demoted to its gist, then the gist dropped"
					d.Reason = fmt.Sprintf("over budget: %s chunk demoted, then its gist dropped (score %.3f)", ch.tier, ch.score)
					for k := range p.dropped {
						if p.dropped[k].Session == i {
							p.dropped[k] = d
							return i
						}
					}
				}
				p.dropped = append(p.dropped, d)
				return i
			}
		}
		for len(pinned) > 0 {
			i := pinned[0]
			ch := &p.chunks[i]
			if ch.action == swc.ActionDropped || ch.cut >= len(ch.turns) {
				pinned = pinned[1:]
				continue
			}
			ch.cut++
			ch.action = swc.ActionPartial
			ch.reason = "over budget: pinned chunks alone exceed it; oldest turns cut"
			if ch.cut == 1 {
				p.dropped = append(p.dropped, swc.Drop{Session: i, Turns: 1, Reason: "over budget: oldest turns of a pinned chunk cut"})
			}
			d := &p.dropped[len(p.dropped)-1] // this session's entry: cuts go one session at a time
			d.Turns = ch.cut
			if ch.cut == len(ch.turns) {
				ch.action = swc.ActionDropped
				d.Reason = "over budget: pinned chunk cut to nothing"
			}
			return i
		}
		return -1
	}
}
