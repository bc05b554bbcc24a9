package consolidate

import (
	"context"
	"errors"
	"fmt"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/tokens"
)

// Decided is what a consolidation of a conversation's sessions decided
// for each of them before any budget cut: tiers, gists, signals and costs,
// without the turns. A service stores it beside the gists so that a
// context read resumes from it (Resume) instead of planning every session
// again.
type Decided struct {
	Variant  swc.GistVariant  `json:"variant"`
	Sessions []DecidedSession `json:"sessions"`
}

// DecidedSession is one session of a Decided.
type DecidedSession struct {
	Date       string      `json:"date"`
	Header     int         `json:"header"`  // tokens of the header line
	Tokens     int         `json:"tokens"`  // tokens of the whole verbatim block
	Density    float64     `json:"density"` // before the division by the largest
	Signals    swc.Signals `json:"signals"`
	Score      float64     `json:"score"`
	Tier       swc.Tier    `json:"tier"`
	Pinned     bool        `json:"pinned,omitempty"`
	Action     swc.Action  `json:"action"`
	Reason     string      `json:"reason"`
	Gist       string      `json:"gist,omitempty"`
	GistTokens int         `json:"gist_tokens,omitempty"`
}

// Decide returns the decisions of a consolidation of every session of c
// (the plan Compress makes under the End schedule, before the budget).
// With s.Plans set, a Compress of c just before makes it a lookup. It
// returns Compress's errors.
func (s *SWC) Decide(ctx context.Context, c *swc.Conversation) (*Decided, error) {
	if err := s.Config.Validate(); err != nil {
		return nil, err
	}
	if s.Embedder == nil || s.Gister == nil || s.Salient == nil {
		return nil, errors.New("consolidate: SWC needs an Embedder, a Gister and a Salient counter")
	}
	if len(c.Sessions) == 0 {
		return &Decided{Sessions: []DecidedSession{}}, nil
	}
	pc := s.Plans
	if pc == nil {
		pc = mapCache{}
	}
	k := s.newCalls(c, pc)
	p, err := s.cachedPlan(ctx, k, c, newGistMemo(s.Gister), true)
	if err != nil {
		return nil, err
	}
	d := &Decided{Variant: p.variant, Sessions: make([]DecidedSession, len(p.chunks))}
	if d.Variant == "" {
		d.Variant = s.Variant
	}
	for i := range p.chunks {
		ch := &p.chunks[i]
		d.Sessions[i] = DecidedSession{Date: ch.ses.DateText, Header: ch.header, Tokens: ch.fullTokens(), Density: k.fact(i).density,
			Signals: ch.sig, Score: ch.score, Tier: ch.tier, Pinned: ch.pinned, Action: ch.action, Reason: ch.reason,
			Gist: ch.gist, GistTokens: ch.gistTokens}
	}
	return d, nil
}

// Resume is Compress under the Through schedule (its last consolidation
// after the first len(d.Sessions) sessions, nil d: none) for a
// conversation of n sessions of which only some are read:
//
//   - the consolidated sessions keep d's decisions; their recency and
//     density are taken again over the n sessions, their downstream signal
//     is d's (the turns that came later are not compared with them);
//   - tail holds the last sessions (Index n-len(tail.Sessions) to n-1,
//     none of them consolidated), and first, when not nil, session 0 (read
//     apart when nothing is consolidated and the tail does not reach it):
//     these are pending, verbatim, scored among themselves (the embedder
//     fitted on their turns);
//   - the sessions neither consolidated nor read are reported dropped,
//     "not read".
//
// load returns the consolidated sessions (those indexes, ascending) whose
// turns the budget reaches verbatim, with their Index set. When every
// session is consolidated (n == len(d.Sessions)), or nothing is and every
// session is read, the context is the one Compress returns for the whole
// conversation. It returns Compress's errors and load's.
func (s *SWC) Resume(ctx context.Context, d *Decided, n int, tail *swc.Conversation, first *swc.Session, budget int, load func(idx []int) ([]swc.Session, error)) (*swc.Context, error) {
	if err := s.Config.Validate(); err != nil {
		return nil, err
	}
	if s.Embedder == nil || s.Salient == nil {
		return nil, errors.New("consolidate: SWC needs an Embedder and a Salient counter")
	}
	if budget <= 0 {
		return nil, swc.Errorf(swc.EINVALID, "%s needs a positive token budget", s.name)
	}
	var decided []DecidedSession
	variant := s.Variant
	if d != nil {
		decided = d.Sessions
		if d.Variant != "" {
			variant = d.Variant
		}
	}
	t := len(decided)
	w0 := n - len(tail.Sessions)
	if n <= 0 || t > w0 || (first != nil && (t > 0 || w0 == 0)) {
		return nil, fmt.Errorf("consolidate: resume: %d sessions, %d consolidated, %d read at the end", n, t, len(tail.Sessions))
	}
	// The sessions read, scored among themselves.
	read := &swc.Conversation{ID: tail.ID, SpeakerA: tail.SpeakerA, SpeakerB: tail.SpeakerB}
	if first != nil {
		read.Sessions = append(read.Sessions, *first)
	}
	read.Sessions = append(read.Sessions, tail.Sessions...)
	for j, ses := range read.Sessions {
		if want := w0 + j - len(read.Sessions) + len(tail.Sessions); ses.Index != want && (first == nil || j > 0) || first != nil && j == 0 && ses.Index != 0 {
			return nil, fmt.Errorf("consolidate: resume: session %d read has index %d", want, ses.Index)
		}
	}
	k := s.newCalls(read, mapCache{})
	dens := make([]float64, len(read.Sessions))
	for i := range read.Sessions {
		dens[i] = k.fact(i).density
	}
	sigs, err := s.signals(ctx, read, dens)
	if err != nil {
		return nil, err
	}
	maxDens := 0.0
	for _, x := range dens {
		maxDens = max(maxDens, x)
	}
	for i := range decided {
		maxDens = max(maxDens, decided[i].Density)
	}
	density := func(x float64) float64 {
		if maxDens > 0 {
			return x / maxDens
		}
		return 0
	}
	p := &plan{chunks: make([]chunk, n), sepToken: tokens.Separator, demote: s.Config.Demote, variant: variant}
	pinned := func(i int) bool { return (s.Config.PinFirst && i == 0) || i >= n-s.Config.PinLast }
	score := func(ch *chunk) { ch.score = s.Config.Weights.score(ch.sig) }
	for i := range decided {
		ds := &decided[i]
		ch := &p.chunks[i]
		ch.ses = &swc.Session{Index: i, DateText: ds.Date}
		ch.header, ch.turnTokens = ds.Header, []int{ds.Tokens - ds.Header} // until loaded
		ch.sig = ds.Signals
		ch.sig.Recency, ch.sig.Density = float64(i)/float64(n), density(ds.Density)
		score(ch)
		ch.tier, ch.action, ch.gist, ch.gistTokens, ch.reason = ds.Tier, ds.Action, ds.Gist, ds.GistTokens, ds.Reason
		ch.pinned = pinned(i)
		if ds.Pinned && !ch.pinned {
			ch.reason = fmt.Sprintf("pinned when consolidated after session %d", t)
		}
		if ch.action == swc.ActionDropped {
			p.dropped = append(p.dropped, swc.Drop{Session: i, Reason: ch.reason})
		}
	}
	for i := t; i < w0; i++ {
		ch := &p.chunks[i]
		ch.ses = &swc.Session{Index: i}
		ch.action, ch.reason = swc.ActionDropped, fmt.Sprintf("not read: beyond the budget's reach, after the last consolidation (session %d)", t)
	}
	for j := range read.Sessions {
		i := read.Sessions[j].Index
		ch := &p.chunks[i]
		f := k.fact(j)
		ch.ses, ch.turns, ch.turnTokens, ch.header = &read.Sessions[j], f.turns, f.turnTokens, f.header
		ch.sig = sigs[j]
		ch.sig.Recency, ch.sig.Density = float64(i)/float64(n), density(dens[j])
		score(ch)
		ch.tier, ch.action, ch.pinned = swc.TierHigh, swc.ActionVerbatim, pinned(i)
		ch.reason = fmt.Sprintf("pending: arrived after the last consolidation (session %d)", t)
		if ch.pinned {
			ch.reason = "pinned"
		}
	}
	// The consolidated sessions a pinned cut may reach need their turns
	// before the budget is enforced; the others once the estimate leaves
	// them in.
	if err := s.loadTurns(p, t, func(ch *chunk) bool { return ch.pinned }, load); err != nil {
		return nil, err
	}
	r, err := s.enforceLoading(p, t, budget, load)
	if err != nil {
		return nil, err
	}
	out := p.context(s.name, budget, r)
	out.Schedule = Schedule{Kind: Through, At: t}.String()
	if t == n {
		out.Schedule = Schedule{Kind: End}.String()
	}
	if t > 0 {
		out.Consolidations = []int{t}
	}
	return out, nil
}

// loadTurns gives the verbatim chunks among the first t of p that want
// keeps their turns, from load.
func (s *SWC) loadTurns(p *plan, t int, want func(*chunk) bool, load func(idx []int) ([]swc.Session, error)) error {
	var idx []int
	for i := range t {
		if ch := &p.chunks[i]; ch.turns == nil && (ch.action == swc.ActionVerbatim || ch.action == swc.ActionPartial) && want(ch) {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	if load == nil {
		return errors.New("consolidate: resume: consolidated sessions to load and no loader")
	}
	got, err := load(idx)
	if err != nil {
		return err
	}
	if len(got) != len(idx) {
		return fmt.Errorf("consolidate: resume: asked for %d sessions, loaded %d", len(idx), len(got))
	}
	c := &swc.Conversation{Sessions: got}
	k := s.newCalls(c, mapCache{})
	for j, i := range idx {
		ch := &p.chunks[i]
		f := k.fact(j)
		if f.header+sum(f.turnTokens) != ch.fullTokens() {
			return fmt.Errorf("consolidate: resume: session %d has changed since it was consolidated", i+1)
		}
		ch.ses, ch.turns, ch.turnTokens, ch.header = &c.Sessions[j], f.turns, f.turnTokens, f.header
	}
	return nil
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// enforceLoading is enforce over a plan whose first t chunks may lack
// their turns: the estimate needs none; what it leaves verbatim is loaded
// before the exact count.
func (s *SWC) enforceLoading(p *plan, t, budget int, load func(idx []int) ([]swc.Session, error)) (*rendering, error) {
	next := p.steps()
	cutToEstimate(p, budget, next)
	if err := s.loadTurns(p, t, func(*chunk) bool { return true }, load); err != nil {
		return nil, err
	}
	for {
		r := p.render()
		if r.tokens <= budget || next() < 0 {
			return r, nil
		}
	}
}
