package memory

import (
	"strings"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/baseline"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/embed"
	"github.com/swcmem/swc/gist"
	"github.com/swcmem/swc/mention"
	"github.com/swcmem/swc/selection"
)

// Strategies are the strategies a Compressor offers: every condition but
// "full", which ignores the budget, and "swc-recall", which needs a
// question (without one it is swc-select).
var Strategies = []string{"swc-anchored", "swc-temporal", "swc-full", "swc-select", "truncation", "sliding", "sliding-temporal"}

// NewStrategy returns the named strategy over the given engines with cfg.
// It returns an EINVALID error for an unknown name.
func NewStrategy(name string, e swc.Embedder, g swc.Gister, cfg consolidate.Config) (swc.Strategy, error) {
	return Engines{Embedder: e, Gister: g, Config: cfg}.Strategy(name)
}

// Engines are what Engines.Strategy builds a strategy from. The function
// fields and Analyzer are optional; their defaults are noted.
type Engines struct {
	Embedder swc.Embedder
	Gister   swc.Gister
	Config   consolidate.Config
	Schedule consolidate.Schedule // zero: consolidate's default
	// Salient counts a text's entities and numbers (SWC's density
	// numerator); nil means Salient.
	Salient func(text string, speakers []string) int
	// Anchor is swc-anchored's and swc-select's anchoring of relative
	// dates; nil means mention.Anchor.
	Anchor func(text string, date time.Time) string
	// Analyzer is swc-select's turn analysis; nil means a fresh one per
	// strategy (it caches by conversation) over Anchor, Salient and
	// mention.HasTemporal.
	Analyzer *selection.Analyzer
}

// Strategy returns the named strategy, one of Strategies, over the
// engines. It returns an EINVALID error for an unknown name.
func (e Engines) Strategy(name string) (swc.Strategy, error) {
	salient, anchor := e.Salient, e.Anchor
	if salient == nil {
		salient = Salient
	}
	if anchor == nil {
		anchor = mention.Anchor
	}
	newSWC := func(v swc.GistVariant) *consolidate.SWC {
		s := consolidate.New(name, e.Embedder, e.Gister, v, salient)
		s.Config, s.Schedule = e.Config, e.Schedule
		return s
	}
	switch name {
	case "swc-full":
		return newSWC(swc.GistFull), nil
	case "swc-temporal":
		return newSWC(swc.GistTemporal), nil
	case "swc-anchored":
		s := newSWC(swc.GistTemporal)
		s.Anchor = anchor
		return s, nil
	case "swc-select":
		a := e.Analyzer
		if a == nil {
			a = &selection.Analyzer{Anchor: anchor, Salient: salient, Dated: mention.HasTemporal}
		}
		return selection.New(name, a), nil
	case "truncation":
		return baseline.Truncation{}, nil
	case "sliding":
		return baseline.NewSliding(name, e.Gister, swc.GistSummary), nil
	case "sliding-temporal":
		return baseline.NewSliding(name, e.Gister, swc.GistSummaryTemporal), nil
	}
	return nil, swc.Errorf(swc.EINVALID, "unknown strategy %q (want one of %s)", name, strings.Join(Strategies, ", "))
}

// Salient counts a text's named entities and numbers: SWC's density
// numerator.
func Salient(text string, speakers []string) int {
	return len(mention.Entities(text, speakers)) + len(mention.Numbers(text))
}

// offline returns the built-in engines: the extractive gister (keeping
// temporal sentences) and the lexical embedder.
func offline() (swc.Gister, swc.Embedder) {
	g := gist.NewExtractive()
	g.Temporal = mention.HasTemporal
	return g, embed.New()
}
