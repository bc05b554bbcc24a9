package sqlite

import (
	"context"
	"fmt"
	"testing"

	"github.com/swcmem/swc"
)

// fillGists stores n gists and returns their keys.
func fillGists(b *testing.B, db *DB, n int) []swc.GistKey {
	b.Helper()
	keys := make([]swc.GistKey, n)
	tx, err := db.db.BeginTx(b.Context(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	for i := range keys {
		keys[i] = swc.GistKey{Variant: "full", Gister: "extractive", PromptHash: Hash("prompt"), ContentHash: Hash(fmt.Sprint(i))}
		if _, err := tx.Exec(`INSERT INTO gists VALUES (?, ?, ?, ?, ?, 0)`,
			keys[i].Variant, keys[i].Gister, keys[i].PromptHash, keys[i].ContentHash, fmt.Sprintf("gist %d of a few sentences", i)); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return keys
}

func BenchmarkGistHit(b *testing.B) {
	for _, n := range []int{100, 10_000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			db := openTest(b)
			keys := fillGists(b, db, n)
			ctx := b.Context()
			i := 0
			for b.Loop() {
				if _, ok, err := db.Gist(ctx, keys[i%n]); err != nil || !ok {
					b.Fatalf("miss: %v", err)
				}
				i++
			}
		})
	}
}

// BenchmarkGistHitSession is a REM cache hit as gist.Cached makes it for a
// session's text: the key's content hash, then the lookup.
func BenchmarkGistHitSession(b *testing.B) {
	db := openTest(b)
	ctx := b.Context()
	req := swc.GistRequest{Variant: swc.GistTemporal, Date: "8 May 2023", Text: string(make([]byte, 8000))} // ~a session
	key := func() swc.GistKey {
		return swc.GistKey{Variant: req.Variant, Gister: "extractive", PromptHash: promptHashes(req.Variant), ContentHash: req.ContentHash()}
	}
	if err := db.PutGist(ctx, key(), "gist"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, ok, err := db.Gist(ctx, key()); err != nil || !ok {
			b.Fatalf("miss: %v", err)
		}
	}
}

func BenchmarkCachedEmbedderHit(b *testing.B) {
	for _, n := range []int{10, 500} {
		b.Run(fmt.Sprintf("texts=%d", n), func(b *testing.B) {
			db := openTest(b)
			e := CachedEmbedder(&fakeEmbedder{name: "e", embed: func(_ context.Context, texts []string) ([][]float32, error) {
				out := make([][]float32, len(texts))
				for i := range out {
					out[i] = make([]float32, 384)
				}
				return out, nil
			}}, db)
			texts := make([]string, n)
			for i := range texts {
				texts[i] = fmt.Sprintf("turn %d text", i)
			}
			ctx := b.Context()
			if _, err := e.Embed(ctx, texts); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := e.Embed(ctx, texts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
