// Package baseline holds the comparison strategies: the full
// conversation (the ceiling), truncation to the most recent turns with
// session 0 pinned, and the sliding window with a running summary.
package baseline

import (
	"context"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/tokens"
)

// selection is the set of turns kept verbatim, per session, as [from, to)
// ranges (baselines only ever keep one contiguous range per session).
type selection struct {
	c    *swc.Conversation
	from []int
	to   []int
}

func newSelection(c *swc.Conversation) *selection {
	s := &selection{c: c, from: make([]int, len(c.Sessions)), to: make([]int, len(c.Sessions))}
	return s
}

// blocks renders the kept turns, session by session.
func (s *selection) blocks() []swc.Block {
	var out []swc.Block
	for i := range s.c.Sessions {
		if s.to[i] > s.from[i] {
			ses := &s.c.Sessions[i]
			out = append(out, swc.Block{Session: ses, Turns: ses.Turns[s.from[i]:s.to[i]]})
		}
	}
	return out
}

// report builds the per-session account of a selection; summarized marks
// sessions (wholly or partly) condensed into a running summary.
func report(c *swc.Conversation, sel *selection, summarized map[int]bool, reason func(i int, a swc.Action) string) ([]swc.ChunkReport, []swc.Drop, []string) {
	var chunks []swc.ChunkReport
	drops := []swc.Drop{}
	var verbatim []string
	for i := range c.Sessions {
		ses := &c.Sessions[i]
		r := swc.ChunkReport{Session: i, Date: ses.DateText, Tokens: tokens.Session(ses)}
		kept := sel.to[i] - sel.from[i]
		switch {
		case kept == len(ses.Turns):
			r.Action = swc.ActionVerbatim
		case kept > 0:
			r.Action = swc.ActionPartial
			for _, t := range ses.Turns[sel.from[i]:sel.to[i]] {
				r.KeptTurns = append(r.KeptTurns, t.ID)
			}
		case summarized[i]:
			r.Action = swc.ActionGist
		default:
			r.Action = swc.ActionDropped
		}
		for _, t := range ses.Turns[sel.from[i]:sel.to[i]] {
			verbatim = append(verbatim, t.ID)
		}
		r.Reason = reason(i, r.Action)
		if kept < len(ses.Turns) && !summarized[i] {
			drops = append(drops, swc.Drop{Session: i, Turns: len(ses.Turns) - kept, Reason: r.Reason})
		}
		chunks = append(chunks, r)
	}
	return chunks, drops, verbatim
}

// Full is the whole conversation, with no budget: the ceiling.
type Full struct{}

var _ swc.Strategy = Full{}

// Name returns "full".
func (Full) Name() string { return "full" }

// Compress returns every turn of c (up to opts.Upto sessions); the budget is
// ignored. It never fails for a conversation with sessions.
func (Full) Compress(ctx context.Context, c *swc.Conversation, opts swc.CompressOptions) (*swc.Context, error) {
	c = c.Upto(opts.Upto)
	if len(c.Sessions) == 0 {
		return nil, swc.Errorf(swc.EINVALID, "conversation %s has no sessions", c.ID)
	}
	sel := newSelection(c)
	for i, s := range c.Sessions {
		sel.to[i] = len(s.Turns)
	}
	text := swc.Render(sel.blocks())
	chunks, drops, verbatim := report(c, sel, nil, func(int, swc.Action) string { return "full context" })
	return &swc.Context{Strategy: "full", Budget: 0, Tokens: tokens.Count(text), Text: text, Chunks: chunks, Dropped: drops, Verbatim: verbatim}, nil
}
