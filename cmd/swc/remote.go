package main

import (
	"context"
	"fmt"
	"io"

	"github.com/swc-project/swc"
	"github.com/swc-project/swc/gist"
	"github.com/swc-project/swc/sqlite"
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
		l = sqlite.CachedLLM(l, db)
	}
	return swc.Metered(l, e.meter), nil
}

// openLLMGister wires the paper's LLM gister behind the REM cache: a gist
// is keyed by (variant, gister and model, prompt hash, chunk content), so
// a rerun never pays for it twice.
func (e *engines) openLLMGister(ctx context.Context, env *Env) error {
	l, err := newLLM(env, e.flags.gister, e.flags.prov)
	if err != nil {
		return fmt.Errorf("--gister: %w", err)
	}
	var g swc.Gister = gist.NewLLM(swc.Metered(l, e.meter))
	db, err := e.cacheDB(ctx, env)
	if err != nil {
		return err
	}
	if db != nil {
		g = sqlite.CachedGister(g, db, gist.PromptHash)
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
	db, err := e.cacheDB(ctx, env)
	if err != nil {
		return err
	}
	if db != nil {
		out = sqlite.CachedEmbedder(out, db)
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
