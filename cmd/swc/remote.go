package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/gist"
	"github.com/swcmem/swc/openai"
	"github.com/swcmem/swc/postgres"
	"github.com/swcmem/swc/sqlite"
	"github.com/swcmem/swc/usage"
)

// cacheDB opens the cache file once, on first use (nil with --no-cache).
func (e *engines) cacheDB(ctx context.Context, env *Env) (*sqlite.DB, error) {
	if !e.dbSet {
		e.dbSet = true
		e.db, e.dbErr = e.flags.cache.open(ctx, env)
		if e.db != nil {
			e.closers = append(e.closers, e.db.Close)
		}
	}
	return e.db, e.dbErr
}

// cacheScope returns "@BASEURL" when spec's provider is reached at a base
// URL other than its default, and "" otherwise: cache entries of the same
// model name on two servers (two vLLM or Ollama hosts) must not mix.
func cacheScope(env *Env, spec string, o *providerOptions) string {
	provider, _, err := parseSpec(spec)
	if err != nil {
		return ""
	}
	var url, def string
	switch provider {
	case "anthropic":
		url, def = pick(o.anthropicBaseURL, env.Vars["ANTHROPIC_BASE_URL"]), ""
	case "openai":
		url, def = pick(o.openaiBaseURL, env.Vars["OPENAI_BASE_URL"]), openai.DefaultBaseURL
	case "ollama":
		url, def = pick(o.ollamaBaseURL, env.Vars["OLLAMA_BASE_URL"]), openai.OllamaBaseURL
	}
	if url = strings.TrimRight(url, "/"); url == "" || url == strings.TrimRight(def, "/") {
		return ""
	}
	return "@" + url
}

// scopedLLM gives an LLM the cache identity cacheScope makes.
type scopedLLM struct {
	swc.LLM
	name string
}

func (s scopedLLM) Name() string { return s.name }

// WireKey passes on the wrapped LLM's (see swc.WireKeyer), so that cache
// keys record what is sent.
func (s scopedLLM) WireKey(req swc.LLMRequest) string {
	if wk, ok := s.LLM.(swc.WireKeyer); ok {
		return wk.WireKey(req)
	}
	return ""
}

// scopedEmbedder gives an embedder the cache identity cacheScope makes.
type scopedEmbedder struct {
	swc.Embedder
	name string
}

func (s scopedEmbedder) Name() string { return s.name }

// llm returns the chat model spec names, metered, behind the response
// cache unless --no-cache.
func (e *engines) llm(ctx context.Context, env *Env, spec string) (swc.LLM, error) {
	l, err := newLLM(env, spec, e.flags.prov)
	if err != nil {
		return nil, err
	}
	db, err := e.cacheDB(ctx, env)
	if err != nil {
		return nil, err
	}
	if db != nil {
		cached := sqlite.CachedLLM(scopedLLM{l, l.Name() + cacheScope(env, spec, e.flags.prov)}, db)
		l = scopedLLM{cached, l.Name()} // reports keep the plain name
	}
	return usage.Metered(l, e.meter), nil
}

// openLLMGister wires the paper's LLM gister behind the REM cache: a gist
// is keyed by (variant, gister and model, prompt hash, chunk content), so
// a rerun never pays for it twice.
func (e *engines) openLLMGister(ctx context.Context, env *Env) error {
	l, err := newLLM(env, e.flags.gister, e.flags.prov)
	if err != nil {
		return fmt.Errorf("--gister: %w", err)
	}
	if pg := e.flags.cache.pg; pg != nil && !e.flags.cache.noCache {
		scoped := gist.NewLLM(usage.Metered(scopedLLM{l, l.Name() + cacheScope(env, e.flags.gister, e.flags.prov)}, e.meter))
		e.gister = gist.Cached(scoped, pg, scoped.PromptHash)
		return nil
	}
	db, err := e.cacheDB(ctx, env)
	if err != nil {
		return err
	}
	var g swc.Gister = gist.NewLLM(usage.Metered(l, e.meter))
	var hashes []string
	for _, v := range []swc.GistVariant{swc.GistFull, swc.GistTemporal, swc.GistSummary, swc.GistSummaryTemporal} {
		hashes = append(hashes, g.(*gist.LLM).PromptHash(v))
	}
	e.gistPrompts = sqlite.Hash(strings.Join(hashes, ","))
	if db != nil {
		// The REM cache keys on the gister's name: scope it to the server.
		scoped := gist.NewLLM(usage.Metered(scopedLLM{l, l.Name() + cacheScope(env, e.flags.gister, e.flags.prov)}, e.meter))
		g = gist.Cached(scoped, db, scoped.PromptHash)
	}
	e.gister = g
	return nil
}

// openRemoteEmbedder wires an OpenAI-compatible embedder behind the
// embedding cache.
func (e *engines) openRemoteEmbedder(ctx context.Context, env *Env) error {
	emb, err := newEmbedder(env, e.flags.embedder, e.flags.prov)
	if err != nil {
		return fmt.Errorf("--embedder: %w", err)
	}
	emb.OnUsage = func(u swc.Usage) { e.meter.Record("embed", emb.Name(), u, false) }
	var out swc.Embedder = emb
	if pg := e.flags.cache.pg; pg != nil && !e.flags.cache.noCache {
		e.embedder = postgres.CachedEmbedder(scopedEmbedder{emb, emb.Name() + cacheScope(env, e.flags.embedder, e.flags.prov)}, pg)
		return nil
	}
	db, err := e.cacheDB(ctx, env)
	if err != nil {
		return err
	}
	if db != nil {
		out = sqlite.CachedEmbedder(scopedEmbedder{emb, emb.Name() + cacheScope(env, e.flags.embedder, e.flags.prov)}, db)
	}
	e.embedder = out
	return nil
}

// printUsage writes the usage table when any provider was called.
func (e *engines) printUsage(w io.Writer) {
	s := e.meter.Summary()
	if s.Total.Calls+s.Total.CacheHits+s.Total.Errors == 0 {
		return
	}
	fmt.Fprint(w, "LLM usage:\n"+s.String())
}
