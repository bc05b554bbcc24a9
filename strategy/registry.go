package strategy

import (
	"github.com/swcmem/swc"
	"github.com/swcmem/swc/baseline"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/retrieval"
	"github.com/swcmem/swc/selection"
)

// registry lists every strategy, in the order reports show them. Info.New
// is called with the defaults of Engines filled in.
var registry = []Info{
	{Name: "full", Doc: "the whole conversation, ignoring the budget (the ceiling)", Service: true,
		New: func(Engines) swc.Strategy { return baseline.Full{} }},
	{Name: "truncation", Doc: "the first session (pinned), then the most recent turns that fit", Compressor: true, Service: true,
		New: func(Engines) swc.Strategy { return baseline.Truncation{} }},
	{Name: "sliding", Doc: "the most recent turns, everything older in one running summary", Compressor: true,
		New: func(e Engines) swc.Strategy { return baseline.NewSliding("sliding", e.Gister, swc.GistSummary) }},
	{Name: "sliding-temporal", Doc: "sliding, its summary keeping temporal expressions verbatim", Compressor: true,
		New: func(e Engines) swc.Strategy {
			return baseline.NewSliding("sliding-temporal", e.Gister, swc.GistSummaryTemporal)
		}},
	{Name: "rag-bm25", Doc: "the retrieval peer: per question, the turns BM25 ranks best for it, filled to the budget, in order under their session headers", QueryAware: true,
		New: func(e Engines) swc.Strategy { return retrieval.New("rag-bm25", e.Plain) }},
	{Name: "rag-bm25-anchored", Doc: "rag-bm25 over the turns with their relative dates anchored", QueryAware: true,
		New: func(e Engines) swc.Strategy { return retrieval.New("rag-bm25-anchored", e.Analyzer) }},
	{Name: "swc-full", Doc: "SWC: sessions scored by salience, kept verbatim, gisted (generic prompt) or dropped", Compressor: true, Service: true,
		New: func(e Engines) swc.Strategy { return newSWC("swc-full", e, swc.GistFull, false) }},
	{Name: "swc-temporal", Doc: "SWC with gists that keep the temporal sentence first", Compressor: true, Service: true,
		New: func(e Engines) swc.Strategy { return newSWC("swc-temporal", e, swc.GistTemporal, false) }},
	{Name: "swc-anchored", Doc: "swc-temporal with every relative date followed by the date it resolves to", Compressor: true, Service: true,
		New: func(e Engines) swc.Strategy { return newSWC("swc-anchored", e, swc.GistTemporal, true) }},
	{Name: "swc-select", Doc: "single sentences chosen for value per token (new terms, entities, numbers, dates; the speaker telling of themselves), anchored, in order", Compressor: true,
		New: func(e Engines) swc.Strategy { return selection.New("swc-select", e.Analyzer) }},
	{Name: "swc-recall", Doc: "per question, the turns that stand out for it (BM25, a reply sharing its question's score, a day it names weighing as a word of that day's turns), swc-select filling the rest around them", QueryAware: true,
		New: func(e Engines) swc.Strategy {
			r := selection.NewRecall("swc-recall", selection.New("swc-select", e.Analyzer))
			r.Embedder = e.RecallEmbedder
			return r
		}},
}

// newSWC returns an SWC strategy of variant over e, anchoring relative
// dates when anchored.
func newSWC(name string, e Engines, variant swc.GistVariant, anchored bool) *consolidate.SWC {
	s := consolidate.New(name, e.Embedder, e.Gister, variant, e.Salient)
	s.Config, s.Plans = e.Config, e.Plans
	if e.Schedule.Kind != "" {
		s.Schedule = e.Schedule
	}
	if anchored {
		s.Anchor = e.Anchor
	}
	return s
}
