package mock

import (
	"context"
	"sync"

	"github.com/swcmem/swc"
)

// GistCache is a swc.GistCache. NewGistCache returns one that works.
type GistCache struct {
	GistFn    func(ctx context.Context, key swc.GistKey) (string, bool, error)
	PutGistFn func(ctx context.Context, key swc.GistKey, text string) error
}

var _ swc.GistCache = (*GistCache)(nil)

// NewGistCache returns a GistCache over a map, safe for concurrent use,
// that keeps the first gist stored under a key, as the stores do.
func NewGistCache() *GistCache {
	var mu sync.Mutex
	m := map[swc.GistKey]string{}
	return &GistCache{
		GistFn: func(_ context.Context, key swc.GistKey) (string, bool, error) {
			mu.Lock()
			defer mu.Unlock()
			t, ok := m[key]
			return t, ok, nil
		},
		PutGistFn: func(_ context.Context, key swc.GistKey, text string) error {
			mu.Lock()
			defer mu.Unlock()
			if _, ok := m[key]; !ok {
				m[key] = text
			}
			return nil
		},
	}
}

// Gist returns GistFn's answer.
func (c *GistCache) Gist(ctx context.Context, key swc.GistKey) (string, bool, error) {
	if c.GistFn == nil {
		panic("mock: GistCache.GistFn not set")
	}
	return c.GistFn(ctx, key)
}

// PutGist returns PutGistFn's answer.
func (c *GistCache) PutGist(ctx context.Context, key swc.GistKey, text string) error {
	if c.PutGistFn == nil {
		panic("mock: GistCache.PutGistFn not set")
	}
	return c.PutGistFn(ctx, key, text)
}
