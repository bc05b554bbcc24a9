package baseline

import (
	"context"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/tokens"
)

// Truncation keeps the most recent turns that fit the budget, with session 0
// pinned (kept first, whole when it fits).
type Truncation struct{}

var _ swc.Strategy = Truncation{}

// Name returns "truncation".
func (Truncation) Name() string { return "truncation" }

// Compress returns session 0 and then the most recent turns that fit the
// budget. When session 0 alone exceeds the budget, its own most recent
// turns that fit are kept. It returns EINVALID for a non-positive budget.
func (Truncation) Compress(ctx context.Context, c *swc.Conversation, opts swc.CompressOptions) (*swc.Context, error) {
	c = c.Upto(opts.Upto)
	if len(c.Sessions) == 0 {
		return nil, swc.Errorf(swc.EINVALID, "conversation %s has no sessions", c.ID)
	}
	if opts.Budget <= 0 {
		return nil, swc.Errorf(swc.EINVALID, "truncation needs a positive token budget")
	}
	sel := newSelection(c)
	left := opts.Budget
	// Session 0, pinned.
	s0 := &c.Sessions[0]
	if t := tokens.Session(s0); t <= left {
		sel.to[0] = len(s0.Turns)
		left -= t
	} else {
		fillRecent(c, sel, []int{0}, &left, 0)
	}
	// The most recent turns of the other sessions.
	var rest []int
	for i := len(c.Sessions) - 1; i >= 1; i-- {
		rest = append(rest, i)
	}
	blocks := 0
	if sel.to[0] > 0 {
		blocks = 1
	}
	fillRecent(c, sel, rest, &left, blocks)
	text := fitExact(c, sel, opts.Budget, nil)
	chunks, drops, verbatim := report(c, sel, nil, func(i int, a swc.Action) string {
		switch {
		case i == 0 && a == swc.ActionVerbatim:
			return "pinned: the first session"
		case a == swc.ActionVerbatim:
			return "within the most recent tokens"
		case a == swc.ActionPartial:
			return "partly beyond the budget: oldest turns cut"
		}
		return "beyond the budget: truncated"
	})
	chunks[0].Pinned = true
	return &swc.Context{Strategy: "truncation", Budget: opts.Budget, Tokens: tokens.Count(text), Text: text, Chunks: chunks, Dropped: drops, Verbatim: verbatim}, nil
}

// fillRecent walks the sessions in order (each from its last turn back) and
// keeps turns while they fit in *left tokens, counting a header and a
// separator for each new block. blocks is how many blocks are already in
// the context. It stops at the first turn that does not fit, so the kept
// turns are the most recent ones.
func fillRecent(c *swc.Conversation, sel *selection, sessions []int, left *int, blocks int) {
	for _, i := range sessions {
		ses := &c.Sessions[i]
		cost := tokens.Header(ses)
		if blocks > 0 {
			cost += tokens.Separator
		}
		sel.from[i], sel.to[i] = len(ses.Turns), len(ses.Turns)
		for j := len(ses.Turns) - 1; j >= 0; j-- {
			tt := tokens.Turn(ses.Turns[j])
			if sel.from[i] == len(ses.Turns) { // the block's first turn pays for the header
				tt += cost
			}
			if tt > *left {
				if sel.from[i] == len(ses.Turns) {
					sel.from[i], sel.to[i] = 0, 0
				}
				return
			}
			*left -= tt
			sel.from[i] = j
		}
		blocks++
	}
}

// fitExact renders the selection (after prefix blocks) and, while the exact
// token count exceeds the budget, cuts the oldest kept turn outside session
// 0, then session 0's. It returns the final text.
func fitExact(c *swc.Conversation, sel *selection, budget int, prefix []swc.Block) string {
	for {
		text := swc.Render(append(append([]swc.Block(nil), prefix...), sel.blocks()...))
		if tokens.Count(text) <= budget {
			return text
		}
		cut := false
		for _, i := range append(seq(1, len(c.Sessions)), 0) {
			if i < len(c.Sessions) && sel.to[i] > sel.from[i] {
				sel.from[i]++
				cut = true
				break
			}
		}
		if !cut {
			return swc.Render(prefix)
		}
	}
}

func seq(from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}
