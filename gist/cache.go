package gist

import (
	"context"

	"github.com/swcmem/swc"
)

// cached is the REM cache in front of a gister.
type cached struct {
	g          swc.Gister
	cache      swc.GistCache
	promptHash func(swc.GistVariant) string
}

var _ swc.Gister = (*cached)(nil)

// Cached returns a gister that answers from cache and calls g only on a
// miss, storing what g returns. A gist is keyed by its variant, g's name
// (the model included), promptHash of the variant (so that a changed
// prompt misses; LLM.PromptHash for an LLM gister) and the request's
// ContentHash. Name is g's name. It panics when promptHash is nil.
func Cached(g swc.Gister, cache swc.GistCache, promptHash func(swc.GistVariant) string) swc.Gister {
	if promptHash == nil {
		panic("gist: Cached: nil promptHash")
	}
	return &cached{g: g, cache: cache, promptHash: promptHash}
}

func (c *cached) Name() string { return c.g.Name() }

// Gist returns the cached gist, or g's gist stored for next time. It
// returns g's error unchanged (nothing is stored then), or the cache's
// error when it cannot be read or written.
func (c *cached) Gist(ctx context.Context, req swc.GistRequest) (string, error) {
	key := swc.GistKey{Variant: req.Variant, Gister: c.g.Name(), PromptHash: c.promptHash(req.Variant), ContentHash: req.ContentHash()}
	text, ok, err := c.cache.Gist(ctx, key)
	if err != nil || ok {
		return text, err
	}
	if text, err = c.g.Gist(ctx, req); err != nil {
		return "", err
	}
	if err := c.cache.PutGist(ctx, key, text); err != nil {
		return "", err
	}
	return text, nil
}
