package mock_test

import (
	"context"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/mock"
)

// TestUnset: a call whose function is unset panics naming it, and is
// counted; Name falls back to a fixed name.
func TestUnset(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		want string
		call func()
	}{
		{"Gister.GistFn", func() { (&mock.Gister{}).Gist(ctx, swc.GistRequest{}) }},
		{"LLM.CompleteFn", func() { (&mock.LLM{}).Complete(ctx, swc.LLMRequest{}) }},
		{"Embedder.EmbedFn", func() { (&mock.Embedder{}).Embed(ctx, nil) }},
		{"GistCache.GistFn", func() { (&mock.GistCache{}).Gist(ctx, swc.GistKey{}) }},
		{"GistCache.PutGistFn", func() { (&mock.GistCache{}).PutGist(ctx, swc.GistKey{}, "") }},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), tc.want) {
					t.Errorf("%s: recovered %v", tc.want, r)
				}
			}()
			tc.call()
		}()
	}
	g := &mock.Gister{}
	func() { defer func() { recover() }(); g.Gist(ctx, swc.GistRequest{}) }()
	if g.Calls.Load() != 1 {
		t.Errorf("%d calls counted, want 1", g.Calls.Load())
	}
	if g.Name() != "mock:gister" || (&mock.LLM{}).Name() != "mock:llm" || (&mock.Embedder{ID: "x"}).Name() != "x" {
		t.Error("Name is not the ID or the fixed name")
	}
}

// TestNewGistCache: the first gist stored under a key is kept.
func TestNewGistCache(t *testing.T) {
	ctx := context.Background()
	c := mock.NewGistCache()
	k := swc.GistKey{Variant: swc.GistFull, Gister: "g"}
	if _, ok, err := c.Gist(ctx, k); ok || err != nil {
		t.Fatalf("empty cache: %v, %v", ok, err)
	}
	c.PutGist(ctx, k, "first")
	c.PutGist(ctx, k, "second")
	if got, ok, _ := c.Gist(ctx, k); !ok || got != "first" {
		t.Fatalf("Gist = %q, %v; want first", got, ok)
	}
	k.Variant = swc.GistTemporal
	if _, ok, _ := c.Gist(ctx, k); ok {
		t.Fatal("another variant hit")
	}
}
