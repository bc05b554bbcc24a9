package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/embed"
	"github.com/swcmem/swc/gist"
	"github.com/swcmem/swc/internal/memo"
	"github.com/swcmem/swc/mention"
	"github.com/swcmem/swc/selection"
	"github.com/swcmem/swc/sqlite"
	"github.com/swcmem/swc/strategy"
	"github.com/swcmem/swc/usage"
)

// The offline engines are deterministic, and every condition, budget and
// question of a bench run asks them the same things about a conversation:
// the same turns to embed, the same sessions to gist, the same turns to
// count entities in. The engines remember those in bounded memos (swc
// serve keeps its engines for as long as it runs): textMemoBytes per
// generation for each text memo, vectorMemoBytes for the embeddings.
const (
	textMemoBytes   = 64 << 20
	vectorMemoBytes = 256 << 20
)

// engineFlags are the settings shared by every command that compresses.
type engineFlags struct {
	budget      int
	gister      string
	embedder    string
	schedule    string
	calibration string
	weights     string
	high, low   float64
	topK        int
	demote      bool
	cache       cacheFlags
	prov        *providerOptions
	// memoBytes, when positive, replaces textMemoBytes (and a quarter of
	// vectorMemoBytes): swc serve sizes it from --memory-limit.
	memoBytes int
}

// textBytes and vectorBytes are the bytes per generation of the engines'
// text memos and of the embeddings' memo.
func (f *engineFlags) textBytes() int {
	if f.memoBytes > 0 {
		return f.memoBytes
	}
	return textMemoBytes
}

func (f *engineFlags) vectorBytes() int {
	if f.memoBytes > 0 {
		return 4 * f.memoBytes
	}
	return vectorMemoBytes
}

func addEngineFlags(fs *flag.FlagSet) *engineFlags {
	f := &engineFlags{}
	def := consolidate.DefaultConfig()
	fs.IntVar(&f.budget, "budget", 4000, "token budget of the context (cl100k_base)")
	fs.StringVar(&f.gister, "gister", "extractive", "gister: extractive, or PROVIDER:MODEL (anthropic:…, openai:…, ollama:…)")
	fs.StringVar(&f.embedder, "embedder", "lexical", "embedder for downstream similarity: lexical, or PROVIDER:MODEL (openai:…, ollama:all-minilm)")
	fs.StringVar(&f.schedule, "schedule", "end", "consolidation schedule: end, every-k[:K] (K=3), reactive[:TOKENS] (threshold = budget), idle[:DURATION] (6h)")
	fs.StringVar(&f.calibration, "calibration", string(def.Calibration), "how scores meet the tier thresholds: absolute or minmax")
	w := def.Weights
	fs.StringVar(&f.weights, "weights", fmt.Sprintf("%g,%g,%g", w.Downstream, w.Recency, w.Density), "salience weights: downstream,recency,density")
	fs.Float64Var(&f.high, "high", def.High, "score above which a chunk is kept verbatim")
	fs.Float64Var(&f.low, "low", def.Low, "score below which a chunk is dropped")
	fs.IntVar(&f.topK, "top-k", def.TopK, "later turns averaged into the downstream signal")
	fs.BoolVar(&f.demote, "demote", def.Demote, "over budget, replace a verbatim chunk by its gist instead of dropping it (beyond the paper)")
	f.cache.add(fs)
	f.prov = addProviderFlags(fs)
	return f
}

// config returns the SWC configuration the flags describe, or a usage error.
func (f *engineFlags) config() (consolidate.Config, consolidate.Schedule, error) {
	cfg := consolidate.DefaultConfig()
	parts := strings.Split(f.weights, ",")
	if len(parts) != 3 {
		return cfg, consolidate.Schedule{}, usagef("--weights wants three numbers, downstream,recency,density (got %q)", f.weights)
	}
	var w [3]float64
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return cfg, consolidate.Schedule{}, usagef("--weights: %q is not a number", p)
		}
		w[i] = v
	}
	cfg.Weights = consolidate.Weights{Downstream: w[0], Recency: w[1], Density: w[2]}
	cfg.High, cfg.Low, cfg.TopK, cfg.Demote = f.high, f.low, f.topK, f.demote
	cfg.Calibration = consolidate.Calibration(f.calibration)
	if err := cfg.Validate(); err != nil {
		return cfg, consolidate.Schedule{}, usagef("%s", swc.ErrorMessage(err))
	}
	sched, err := consolidate.ParseSchedule(f.schedule)
	if err != nil {
		return cfg, consolidate.Schedule{}, usagef("--schedule: %s", swc.ErrorMessage(err))
	}
	if f.topK < 1 {
		return cfg, consolidate.Schedule{}, usagef("--top-k must be at least 1 (got %d)", f.topK)
	}
	if f.budget <= 0 {
		return cfg, consolidate.Schedule{}, usagef("--budget must be positive (got %d)", f.budget)
	}
	return cfg, sched, nil
}

// engines are the gister, embedder and caches a run uses.
type engines struct {
	flags    *engineFlags
	cfg      consolidate.Config
	schedule consolidate.Schedule
	gister   swc.Gister
	// gistPrompts hashes what an LLM gister sends besides the chunk
	// (every variant's prompt, the user template, max_tokens); "" for the
	// extractive gister, which has no prompt.
	gistPrompts string
	embedder    swc.Embedder
	closers     []func() error
	// meter records every LLM call the engines and the bench make.
	meter *usage.Meter
	// analyzer is the per-conversation turn analysis shared by swc-select,
	// swc-recall and rag-bm25-anchored; plain is rag-bm25's, without
	// anchors (both made on first use, see strategyEngines).
	analyzer, plain *selection.Analyzer
	// salient counts entities and numbers (the density signal and
	// swc-select's salience), remembered per text for the run.
	salient func(text string, speakers []string) int
	// temporal and anchor are mention.HasTemporal (which remembers its
	// answers itself) and mention.Anchor, remembered per text.
	temporal func(string) bool
	anchor   func(string, time.Time) string
	db       *sqlite.DB // opened on first use; nil with --no-cache
	dbErr    error
	dbSet    bool
}

// openEngines builds the engines the flags name. The caller must Close it.
func openEngines(ctx context.Context, env *Env, f *engineFlags) (*engines, error) {
	cfg, sched, err := f.config()
	if err != nil {
		return nil, err
	}
	e := &engines{flags: f, cfg: cfg, schedule: sched, meter: &usage.Meter{}}
	e.memos()
	if err := e.openGister(ctx, env); err != nil {
		e.Close()
		return nil, err
	}
	if err := e.openEmbedder(ctx, env); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

func (e *engines) openGister(ctx context.Context, env *Env) error {
	if e.flags.gister == "extractive" {
		g := gist.NewExtractive()
		g.Temporal = e.temporal
		e.gister = memo.NewGister(g, memo.NewGists(e.flags.textBytes())) // deterministic: remembered in memory only
		return nil
	}
	return e.openLLMGister(ctx, env)
}

func (e *engines) openEmbedder(ctx context.Context, env *Env) error {
	if e.flags.embedder == "lexical" {
		e.embedder = memo.NewEmbedder(embed.New(), e.flags.vectorBytes())
		return nil
	}
	return e.openRemoteEmbedder(ctx, env)
}

// Close releases the caches.
func (e *engines) Close() error {
	var first error
	for _, c := range e.closers {
		if err := c(); err != nil && first == nil {
			first = err
		}
	}
	e.closers = nil
	return first
}

// strategy returns the strategy of the named condition (package
// strategy), or a usage error naming the known ones.
func (e *engines) strategy(name string) (swc.Strategy, error) {
	s, err := strategy.New(name, e.strategyEngines())
	if err != nil {
		return nil, usagef("%s", swc.ErrorMessage(err))
	}
	return s, nil
}

// strategyEngines returns what every strategy of the run is built from:
// the engines, the remembered text functions and the shared turn
// analyses (made on first use).
func (e *engines) strategyEngines() strategy.Engines {
	if e.salient == nil {
		e.memos()
	}
	if e.analyzer == nil {
		e.analyzer = &selection.Analyzer{Anchor: e.anchor, Salient: e.salient, Dated: e.temporal}
		e.plain = &selection.Analyzer{}
	}
	se := strategy.Engines{
		Embedder: e.embedder, Gister: e.gister, Config: e.cfg, Schedule: e.schedule,
		Salient: e.salient, Anchor: e.anchor, Analyzer: e.analyzer, Plain: e.plain,
	}
	if e.flags.embedder != "lexical" {
		se.RecallEmbedder = e.embedder // a model embedder: swc-recall fuses its ranking with BM25's
	}
	return se
}

// strategies resolves a comma-separated list of condition names ("" = all).
func (e *engines) strategies(list string) ([]swc.Strategy, error) {
	names := strategy.Names(strategy.All)
	if strings.TrimSpace(list) != "" {
		names = strings.Split(list, ",")
	}
	var out []swc.Strategy
	seen := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if seen[n] {
			continue
		}
		seen[n] = true
		s, err := e.strategy(n)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// forget drops the turn analyses of c (selection.Analyzer.Forget): the
// bench calls it when every condition is done with c.
func (e *engines) forget(c *swc.Conversation) {
	if e.analyzer != nil {
		e.analyzer.Forget(c)
		e.plain.Forget(c)
	}
}

// memos sets the remembered text functions of the run.
func (e *engines) memos() {
	e.salient = memo.Salient(strategy.Salient, e.flags.textBytes())
	e.temporal = mention.HasTemporal // remembered per text by mention itself
	e.anchor = memo.Anchor(mention.Anchor, e.flags.textBytes())
}
