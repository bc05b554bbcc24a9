// Package strategy is the one registry of swc's memory strategies: their
// names, one-line docs, what each needs and where it can be used, and how
// to build it. The CLI (compress, inspect, bench), the library
// (memory.Compressor) and the service (sleep.Service, swc serve) all
// build strategies here, so adding a condition is one entry in registry.
package strategy

import (
	"strings"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/mention"
	"github.com/swcmem/swc/selection"
)

// Default is the strategy used when none is named: by swc compress and
// inspect, memory.Compressor, the service and its proxy.
const Default = "swc-anchored"

// Info describes one strategy.
type Info struct {
	// Name is the condition's name ("swc-anchored"), as flags, requests
	// and reports spell it.
	Name string
	// Doc says in one line what the strategy keeps.
	Doc string
	// QueryAware strategies build their context for a question
	// (swc.CompressOptions.Query): the bench builds one context per
	// question, and reports rank them apart.
	QueryAware bool
	// Compressor strategies are offered by memory.Compressor (and the
	// proxy): they keep to the budget and need no question.
	Compressor bool
	// Service strategies are consolidated with and served by the service
	// (sleep.Service): their read path uses the gists consolidation made
	// and calls no LLM.
	Service bool
	// New builds the strategy over e.
	New func(e Engines) swc.Strategy
}

// Engines are what strategies are built from. Embedder and Gister are
// required by the strategies that embed or gist; the other fields are
// optional, with the defaults noted.
type Engines struct {
	Embedder swc.Embedder
	Gister   swc.Gister
	// Config tunes SWC (zero: consolidate.DefaultConfig); Schedule replays
	// its consolidation (zero: once, at the end).
	Config   consolidate.Config
	Schedule consolidate.Schedule
	// Plans, when set, remembers SWC's consolidations between calls.
	Plans consolidate.PlanCache
	// Salient counts a text's entities and numbers (SWC's density
	// numerator); nil means Salient.
	Salient func(text string, speakers []string) int
	// Anchor anchors relative dates to a turn's date (swc-anchored and the
	// turn analysis); nil means mention.Anchor.
	Anchor func(text string, date time.Time) string
	// Analyzer is the turn analysis of swc-select, swc-recall and
	// rag-bm25-anchored (it caches by conversation: share one between
	// strategies of a run); nil means a fresh one per strategy over
	// Anchor, Salient and mention.HasTemporal.
	Analyzer *selection.Analyzer
	// Plain is rag-bm25's turn analysis, without anchors; nil means a
	// fresh one per strategy.
	Plain *selection.Analyzer
	// RecallEmbedder, when set (a model embedder), has swc-recall fuse
	// its ranking with BM25's.
	RecallEmbedder swc.Embedder
}

// Salient counts a text's named entities and numbers: SWC's density
// numerator.
func Salient(text string, speakers []string) int {
	return len(mention.Entities(text, speakers)) + len(mention.Numbers(text))
}

// withDefaults fills e's optional functions.
func (e Engines) withDefaults() Engines {
	if e.Salient == nil {
		e.Salient = Salient
	}
	if e.Anchor == nil {
		e.Anchor = mention.Anchor
	}
	if e.Config == (consolidate.Config{}) {
		e.Config = consolidate.DefaultConfig()
	}
	if e.Analyzer == nil {
		e.Analyzer = &selection.Analyzer{Anchor: e.Anchor, Salient: e.Salient, Dated: mention.HasTemporal}
	}
	if e.Plain == nil {
		e.Plain = &selection.Analyzer{}
	}
	return e
}

// List returns every strategy, in the order reports show them.
func List() []Info { return append([]Info(nil), registry...) }

// All keeps every strategy (for Names and Find).
func All(Info) bool { return true }

// ForCompressor keeps the strategies memory.Compressor offers.
func ForCompressor(i Info) bool { return i.Compressor }

// ForService keeps the strategies the service consolidates with and
// serves.
func ForService(i Info) bool { return i.Service }

// Names returns the names of the strategies keep keeps, in report order.
func Names(keep func(Info) bool) []string {
	var out []string
	for _, i := range registry {
		if keep(i) {
			out = append(out, i.Name)
		}
	}
	return out
}

// Find returns the strategy named name among those keep keeps, or an
// EINVALID error naming them.
func Find(name string, keep func(Info) bool) (Info, error) {
	for _, i := range registry {
		if i.Name == name && keep(i) {
			return i, nil
		}
	}
	return Info{}, swc.Errorf(swc.EINVALID, "unknown strategy %q (want one of %s)", name, strings.Join(Names(keep), ", "))
}

// New returns the named strategy over e, or an EINVALID error naming the
// known strategies.
func New(name string, e Engines) (swc.Strategy, error) {
	i, err := Find(name, All)
	if err != nil {
		return nil, err
	}
	return i.New(e.withDefaults()), nil
}
