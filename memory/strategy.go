package memory

import (
	"strings"

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
	newSWC := func(v swc.GistVariant) *consolidate.SWC {
		s := consolidate.New(name, e, g, v, Salient)
		s.Config = cfg
		return s
	}
	switch name {
	case "swc-full":
		return newSWC(swc.GistFull), nil
	case "swc-temporal":
		return newSWC(swc.GistTemporal), nil
	case "swc-anchored":
		s := newSWC(swc.GistTemporal)
		s.Anchor = mention.Anchor
		return s, nil
	case "swc-select":
		// A fresh Analyzer: it caches by conversation, and each call
		// sessionises anew.
		return selection.New(name, &selection.Analyzer{Anchor: mention.Anchor, Salient: Salient, Dated: mention.HasTemporal}), nil
	case "truncation":
		return baseline.Truncation{}, nil
	case "sliding":
		return baseline.NewSliding(name, g, swc.GistSummary), nil
	case "sliding-temporal":
		return baseline.NewSliding(name, g, swc.GistSummaryTemporal), nil
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
