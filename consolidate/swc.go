// Package consolidate implements Salience-Weighted Consolidation:
// each session (chunk) is scored by downstream similarity, recency and
// information density; high-scoring chunks stay verbatim, mid-scoring ones
// are replaced by gists, low-scoring ones are dropped; pinned chunks
// (session 0 and the two most recent) always stay; and the result is cut to
// the token budget. Consolidation can be replayed session by session under
// a schedule (every-k, reactive, idle).
package consolidate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/swcmem/swc"
)

// Weights of the three salience signals.
type Weights struct {
	Downstream, Recency, Density float64
}

// Calibration says how scores meet the tier thresholds.
type Calibration string

// Calibrations.
const (
	// Absolute compares raw scores with the thresholds, as the paper does.
	Absolute Calibration = "absolute"
	// MinMax rescales the scores of a conversation's chunks to [0, 1]
	// (lowest → 0, highest → 1) before comparing them with the thresholds,
	// so the tiers use the thresholds' full range whatever the embedder.
	MinMax Calibration = "minmax"
)

// Config holds the settings of SWC. DefaultConfig gives the paper's values.
type Config struct {
	Weights Weights
	// High and Low are the tier thresholds: score > High is high,
	// Low ≤ score ≤ High is mid, score < Low is low.
	High, Low float64
	// TopK is how many of the most similar later turns are averaged into
	// the downstream signal.
	TopK int
	// PinFirst pins session 0; PinLast pins that many most recent sessions.
	PinFirst bool
	PinLast  int
	// Calibration maps scores onto the thresholds (default Absolute).
	Calibration Calibration
	// Concurrency bounds parallel gister calls (default 8).
	Concurrency int
	// Demote, beyond the paper's budget rule, replaces an over-budget verbatim chunk by
	// its gist instead of dropping it whole (default false, as the paper).
	// It gists every unpinned high chunk up front.
	Demote bool
}

// DefaultConfig returns the paper's settings: weights 0.4/0.3/0.3,
// thresholds 0.6/0.3, top-5 downstream, session 0 and the last two pinned,
// absolute calibration.
func DefaultConfig() Config {
	return Config{
		Weights: Weights{Downstream: 0.4, Recency: 0.3, Density: 0.3},
		High:    0.6, Low: 0.3, TopK: 5,
		PinFirst: true, PinLast: 2,
		Calibration: Absolute,
		Concurrency: 8,
	}
}

// Validate returns an EINVALID error describing the first bad setting.
func (c Config) Validate() error {
	w := c.Weights
	switch {
	case w.Downstream < 0 || w.Recency < 0 || w.Density < 0:
		return swc.Errorf(swc.EINVALID, "salience weights must not be negative (%v)", w)
	case w.Downstream+w.Recency+w.Density == 0:
		return swc.Errorf(swc.EINVALID, "salience weights are all zero")
	case c.Low > c.High:
		return swc.Errorf(swc.EINVALID, "low threshold %.3g is above high threshold %.3g", c.Low, c.High)
	case c.PinLast < 0:
		return swc.Errorf(swc.EINVALID, "pin-last must not be negative")
	case c.Calibration != "" && c.Calibration != Absolute && c.Calibration != MinMax:
		return swc.Errorf(swc.EINVALID, "unknown calibration %q (want absolute or minmax)", c.Calibration)
	}
	return nil
}

// SWC is the consolidation strategy. Build it with New.
type SWC struct {
	name     string
	Embedder swc.Embedder
	Gister   swc.Gister
	Variant  swc.GistVariant // swc.GistFull or swc.GistTemporal
	// Salient counts the named entities and numbers in a text (the density
	// signal). The CLI wires the mention package.
	Salient func(text string, speakers []string) int
	// Anchor, when set, rewrites a turn's text so that each relative
	// temporal expression is followed by its date resolved against ref
	// ("last Saturday [20 May 2023]"): the swc-anchored condition.
	Anchor func(text string, ref time.Time) string
	// Schedule decides when consolidation runs during replay.
	Schedule Schedule
	Config   Config
	// Plans, when set, remembers consolidations between Compress calls
	// (see PlanCache); nil remembers them within one call only.
	Plans PlanCache
}

var _ swc.Strategy = (*SWC)(nil)

// New returns an SWC strategy with DefaultConfig and the End schedule.
// name is the condition name it reports ("swc-full", …).
func New(name string, e swc.Embedder, g swc.Gister, variant swc.GistVariant, salient func(string, []string) int) *SWC {
	return &SWC{name: name, Embedder: e, Gister: g, Variant: variant, Salient: salient, Schedule: Schedule{Kind: End}, Config: DefaultConfig()}
}

// Name returns the condition name.
func (s *SWC) Name() string { return s.name }

// Compress replays c session by session under s.Schedule, consolidating
// when it says so, and returns the final context. Sessions that arrived
// after the last consolidation stay verbatim. It returns an EINVALID error
// for a bad configuration or budget, and the gister's or embedder's error
// when they fail.
func (s *SWC) Compress(ctx context.Context, c *swc.Conversation, opts swc.CompressOptions) (*swc.Context, error) {
	if err := s.Config.Validate(); err != nil {
		return nil, err
	}
	if s.Embedder == nil || s.Gister == nil || s.Salient == nil {
		return nil, errors.New("consolidate: SWC needs an Embedder, a Gister and a Salient counter")
	}
	if opts.Budget <= 0 {
		return nil, swc.Errorf(swc.EINVALID, "%s needs a positive token budget", s.name)
	}
	c = c.Upto(opts.Upto)
	if len(c.Sessions) == 0 {
		return nil, swc.Errorf(swc.EINVALID, "conversation %s has no sessions", c.ID)
	}
	memo := newGistMemo(s.Gister)
	pc := s.Plans
	if pc == nil {
		pc = mapCache{}
	}
	k := s.newCalls(c, pc)
	var decided *plan // the last consolidation, before budget cuts
	cost := func(i int) int { return k.fact(i).tokens }
	points, err := s.Schedule.run(len(c.Sessions), opts.Budget, c, cost, func(upto int) (int, error) {
		p, err := s.cachedPlan(ctx, k, c.Upto(upto), memo, true)
		if err != nil {
			return 0, err
		}
		if upto == len(c.Sessions) {
			// Nothing comes after: the schedule has no use for the
			// tokens, and the final plan below is this one.
			decided = p
			return 0, nil
		}
		decided = p.clone()
		return enforce(p, opts.Budget).tokens, nil
	})
	if err != nil {
		return nil, err
	}
	// The final state: chunks consolidated at the last point keep their
	// decisions; later ones are pending, verbatim.
	last := 0
	if len(points) > 0 {
		last = points[len(points)-1]
	}
	// Scores over everything, for the report and the budget order; when
	// the last consolidation is not the end, no new gists are made (the
	// decisions come from that consolidation).
	final, err := s.cachedPlan(ctx, k, c, memo, last == len(c.Sessions))
	if err != nil {
		return nil, err
	}
	if last < len(c.Sessions) {
		// The drops are those of the last consolidation (low tier, empty
		// gist), not those the scores over everything would give; enforce
		// adds the budget's.
		final.dropped = nil
		if decided != nil { // nil when no consolidation ran
			for _, d := range decided.dropped {
				if d.Session < last {
					final.dropped = append(final.dropped, d)
				}
			}
		}
		for i := range final.chunks {
			ch := &final.chunks[i]
			switch {
			case i < last:
				d := decided.chunks[i]
				ch.tier, ch.action, ch.gist, ch.gistTokens, ch.demoted = d.tier, d.action, d.gist, d.gistTokens, false
				ch.reason = d.reason
				if d.pinned && !ch.pinned {
					ch.reason = fmt.Sprintf("pinned when consolidated after session %d", last)
				}
			case ch.pinned:
				ch.tier, ch.action = swc.TierHigh, swc.ActionVerbatim
				ch.reason = "pinned"
			default:
				ch.tier, ch.action, ch.gist, ch.gistTokens = swc.TierHigh, swc.ActionVerbatim, "", 0
				ch.reason = fmt.Sprintf("pending: arrived after the last consolidation (session %d)", last)
			}
		}
	}
	out := final.context(s.name, opts.Budget, enforce(final, opts.Budget))
	out.Schedule = s.Schedule.String()
	out.Consolidations = points
	return out, nil
}

// gistMemo remembers gists made during one Compress call, so that replay
// never asks the gister twice for the same chunk.
type gistMemo struct {
	g swc.Gister
	m map[swc.GistRequest]string
}

func newGistMemo(g swc.Gister) *gistMemo { return &gistMemo{g: g, m: map[swc.GistRequest]string{}} }

func (gm *gistMemo) get(req swc.GistRequest) (string, bool) { s, ok := gm.m[req]; return s, ok }
func (gm *gistMemo) put(req swc.GistRequest, s string)      { gm.m[req] = s }

func (gm *gistMemo) gist(ctx context.Context, req swc.GistRequest) (string, error) {
	g, err := gm.g.Gist(ctx, req)
	if err != nil {
		return "", err // the gister's error names it (see plan.gist)
	}
	return g, nil
}
