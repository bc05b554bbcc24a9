package consolidate

import (
	"context"
	"fmt"
	"sync"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/tokens"
)

// chunk is one session's state while a plan is built and cut to budget.
type chunk struct {
	ses        *swc.Session
	turns      []swc.Turn // as shown (anchored for swc-anchored)
	turnTokens []int      // tokens of "\n" + each rendered turn
	header     int        // tokens of the header line
	sig        swc.Signals
	score      float64
	tier       swc.Tier
	pinned     bool
	action     swc.Action
	cut        int // turns cut from the start (partial)
	gist       string
	gistTokens int  // tokens of the whole gist block
	demoted    bool // a verbatim chunk replaced by its gist to meet the budget
	reason     string
}

// tokens returns the block's tokens as it stands (0 when dropped).
func (ch *chunk) tokens() int {
	switch ch.action {
	case swc.ActionGist:
		return ch.gistTokens
	case swc.ActionVerbatim, swc.ActionPartial:
		n := ch.header
		for _, t := range ch.turnTokens[ch.cut:] {
			n += t
		}
		return n
	}
	return 0
}

func (ch *chunk) fullTokens() int {
	n := ch.header
	for _, t := range ch.turnTokens {
		n += t
	}
	return n
}

func (ch *chunk) block() (swc.Block, bool) {
	switch ch.action {
	case swc.ActionGist:
		return swc.Block{Session: ch.ses, Gist: ch.gist}, true
	case swc.ActionVerbatim, swc.ActionPartial:
		return swc.Block{Session: ch.ses, Turns: ch.turns[ch.cut:]}, true
	}
	return swc.Block{}, false
}

// plan is a consolidation of the sessions it holds.
type plan struct {
	demote   bool
	variant  swc.GistVariant
	chunks   []chunk
	dropped  []swc.Drop
	sepToken int
}

// clone returns a copy of p whose chunks can change independently.
func (p *plan) clone() *plan {
	cp := *p
	cp.chunks = append([]chunk(nil), p.chunks...)
	cp.dropped = append([]swc.Drop(nil), p.dropped...)
	return &cp
}

// planWith scores, tiers and (with gists) gists every session of c;
// without gists, it only scores and tiers.
// c is k's conversation or its first sessions; the facts and gists of each
// session come from k's cache when there, and go there when not.
func (s *SWC) planWith(ctx context.Context, c *swc.Conversation, memo *gistMemo, gists bool, k *calls) (*plan, error) {
	n := len(c.Sessions)
	p := &plan{chunks: make([]chunk, n), sepToken: tokens.Separator, demote: s.Config.Demote}
	dens := make([]float64, n)
	for i := range c.Sessions {
		ch := &p.chunks[i]
		ch.ses = &c.Sessions[i]
		f := k.fact(i)
		ch.turns, ch.turnTokens, ch.header, dens[i] = f.turns, f.turnTokens, f.header, f.density
	}
	sigs, err := s.signals(ctx, c, dens)
	if err != nil {
		return nil, err
	}
	scores := make([]float64, n)
	for i := range p.chunks {
		p.chunks[i].sig = sigs[i]
		scores[i] = s.Config.Weights.score(sigs[i])
	}
	tierScores := scores
	if s.Config.Calibration == MinMax {
		tierScores = minMax(scores)
	}
	var toGist []int
	for i := range p.chunks {
		ch := &p.chunks[i]
		ch.score = scores[i]
		ch.pinned = (s.Config.PinFirst && i == 0) || i >= n-s.Config.PinLast
		switch ts := tierScores[i]; {
		case ch.pinned || ts > s.Config.High:
			ch.tier, ch.action = swc.TierHigh, swc.ActionVerbatim
			ch.reason = "high tier"
			if ch.pinned {
				ch.reason = "pinned"
			}
		case ts >= s.Config.Low:
			ch.tier, ch.action = swc.TierMid, swc.ActionGist
			ch.reason = "mid tier"
			toGist = append(toGist, i)
		default:
			ch.tier, ch.action = swc.TierLow, swc.ActionDropped
			ch.reason = "low tier"
			p.dropped = append(p.dropped, swc.Drop{Session: i, Reason: fmt.Sprintf("low tier (score %.3f < %.2f)", ts, s.Config.Low)})
		}
	}
	if !gists {
		return p, nil
	}
	if s.Config.Demote { // high chunks that may be demoted need their gist ready
		for i := range p.chunks {
			if ch := &p.chunks[i]; ch.tier == swc.TierHigh && !ch.pinned {
				toGist = append(toGist, i)
			}
		}
	}
	if err := s.gistAll(ctx, p, toGist, memo, k); err != nil {
		return nil, err
	}
	return p, nil
}

// gistAll fills in the gists of the chunks at idx: from k's cache (under
// their sessions' keys) when there, else from memo, else calling the
// gister in parallel (at most Config.Concurrency at once).
func (s *SWC) gistAll(ctx context.Context, p *plan, idx []int, memo *gistMemo, k *calls) error {
	pc := k.pc
	variant := s.Variant
	if variant == "" {
		variant = swc.GistFull
	}
	p.variant = variant
	gistKey := func(i int) [32]byte { return derive(k.keys.session[i], "gist") }
	all := idx
	var rest []int
	for _, i := range idx {
		if v, ok := pc.Get(gistKey(i)); ok {
			if g, ok := v.(sessionGist); ok {
				p.chunks[i].gist, p.chunks[i].gistTokens = g.gist, g.tokens
				continue
			}
		}
		rest = append(rest, i)
	}
	idx = rest
	reqs := make([]swc.GistRequest, len(idx))
	var todo []int
	for k, i := range idx {
		ch := &p.chunks[i]
		reqs[k] = swc.GistRequest{Variant: variant, Date: ch.ses.DateText, Text: swc.Render([]swc.Block{{Session: ch.ses, Turns: ch.turns}})}
		if _, ok := memo.get(reqs[k]); !ok {
			todo = append(todo, k)
		}
	}
	conc := s.Config.Concurrency
	if conc <= 0 {
		conc = 8
	}
	results := make([]string, len(reqs))
	errs := make([]error, len(reqs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, conc)
	for _, k := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func(k int) {
			defer wg.Done()
			defer func() { <-sem }()
			results[k], errs[k] = memo.gist(ctx, reqs[k])
		}(k)
	}
	wg.Wait()
	for _, k := range todo {
		if errs[k] != nil {
			return fmt.Errorf("gist of session %d: %w", idx[k]+1, errs[k])
		}
		memo.put(reqs[k], results[k])
	}
	for k, i := range idx {
		ch := &p.chunks[i]
		ch.gist, _ = memo.get(reqs[k])
		if ch.gist != "" {
			ch.gistTokens = tokens.Count(swc.RenderBlock(swc.Block{Session: ch.ses, Gist: ch.gist}))
		}
		pc.Put(gistKey(i), sessionGist{ch.gist, ch.gistTokens}, len(ch.gist)+64, false)
	}
	for _, i := range all { // in order: the drops are listed in it
		if ch := &p.chunks[i]; ch.gist == "" && ch.tier == swc.TierMid { // nothing worth keeping: the chunk goes
			ch.action = swc.ActionDropped
			p.dropped = append(p.dropped, swc.Drop{Session: i, Reason: "mid tier, but the gist is empty"})
		}
	}
	return nil
}

func minMax(xs []float64) []float64 {
	out := make([]float64, len(xs))
	if len(xs) == 0 {
		return out
	}
	lo, hi := xs[0], xs[0]
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	for i, x := range xs {
		if hi > lo {
			out[i] = (x - lo) / (hi - lo)
		}
	}
	return out
}

// rendering is a plan's context text, its tokens, and the ids of the
// turns it shows verbatim.
type rendering struct {
	text     string
	tokens   int
	verbatim []string
}

// render returns the plan's rendering as it stands.
func (p *plan) render() *rendering {
	var blocks []swc.Block
	var verbatim []string
	for i := range p.chunks {
		ch := &p.chunks[i]
		if b, ok := ch.block(); ok {
			blocks = append(blocks, b)
			for _, t := range b.Turns {
				verbatim = append(verbatim, t.ID)
			}
		}
	}
	text := swc.Render(blocks)
	return &rendering{text: text, tokens: tokens.Count(text), verbatim: verbatim}
}

// context turns the plan, rendered as r (its rendering as it stands),
// into the reported Context.
func (p *plan) context(name string, budget int, r *rendering) *swc.Context {
	out := &swc.Context{Strategy: name, Budget: budget, Text: r.text, Tokens: r.tokens, Verbatim: r.verbatim, Dropped: p.dropped}
	if out.Dropped == nil {
		out.Dropped = []swc.Drop{}
	}
	for i := range p.chunks {
		ch := &p.chunks[i]
		r := swc.ChunkReport{
			Session: ch.ses.Index, Date: ch.ses.DateText, Tokens: ch.fullTokens(),
			Signals: ch.sig, Score: ch.score, Tier: ch.tier, Pinned: ch.pinned,
			Action: ch.action, Reason: ch.reason,
		}
		if ch.action == swc.ActionGist {
			r.GistTokens = ch.gistTokens
			r.Gist = ch.gist
		}
		if ch.gist != "" && (ch.tier == swc.TierMid || ch.demoted) {
			g := swc.GistRecord{Variant: p.variant, Sessions: []int{ch.ses.Index}, Text: ch.gist, InContext: ch.action == swc.ActionGist}
			for _, t := range ch.ses.Turns {
				g.Turns = append(g.Turns, t.ID)
			}
			out.Gists = append(out.Gists, g)
		}
		if ch.action == swc.ActionPartial {
			for _, t := range ch.turns[ch.cut:] {
				r.KeptTurns = append(r.KeptTurns, t.ID)
			}
		}
		out.Chunks = append(out.Chunks, r)
	}
	return out
}
