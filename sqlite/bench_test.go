package sqlite

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/mock"
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
			e := CachedEmbedder(&mock.Embedder{ID: "e", EmbedFn: func(_ context.Context, texts []string) ([][]float32, error) {
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

// BenchmarkAppend appends to a stored conversation the way agents do: one
// new message with an id, or a retried batch of the last 8 (all stored).
func BenchmarkAppend(b *testing.B) {
	ctx := b.Context()
	t0 := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	msg := func(i int) swc.Message {
		return swc.Message{ID: fmt.Sprint("m", i), Role: swc.RoleUser, Content: "a message of a few words", Time: t0.Add(time.Duration(i) * time.Second)}
	}
	setup := func(b *testing.B) (*DB, int) {
		db := openTest(b)
		var msgs []swc.Message
		for i := range 400 {
			msgs = append(msgs, msg(i))
		}
		if _, err := db.AppendMessages(ctx, "t", "c", msgs, swc.AppendOptions{Rule: swc.DefaultSessionRule(), Now: func() time.Time { return t0 }}); err != nil {
			b.Fatal(err)
		}
		return db, len(msgs)
	}
	b.Run("one-new", func(b *testing.B) {
		db, n := setup(b)
		for b.Loop() {
			if res, err := db.AppendMessages(ctx, "t", "c", []swc.Message{msg(n)}, swc.AppendOptions{Rule: swc.DefaultSessionRule(), Now: func() time.Time { return t0 }}); err != nil || res.Appended != 1 {
				b.Fatal(res, err)
			}
			n++
		}
	})
	b.Run("retried-8", func(b *testing.B) {
		db, n := setup(b)
		var batch []swc.Message
		for i := n - 8; i < n; i++ {
			batch = append(batch, msg(i))
		}
		for b.Loop() {
			if res, err := db.AppendMessages(ctx, "t", "c", batch, swc.AppendOptions{Rule: swc.DefaultSessionRule(), Now: func() time.Time { return t0 }}); err != nil || res.Skipped != 8 {
				b.Fatal(res, err)
			}
		}
	})
}
