package main

import (
	"context"
	"crypto/sha256"
	"strings"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/internal/memo"
	"github.com/swcmem/swc/vector"
)

// The offline engines are deterministic, and every condition, budget and
// question of a bench run asks them the same things about a conversation:
// the same turns to embed (swc-full, swc-temporal and swc-anchored embed
// the raw turns), the same sessions to gist, the same turns to count
// entities in. These memos make each of those one computation per run.

// The memos are bounded (memo.Memo), since swc serve keeps its engines
// for as long as it runs: textMemoBytes per generation for each text memo,
// vectorMemoBytes for the embeddings.
const (
	textMemoBytes   = 64 << 20
	vectorMemoBytes = 256 << 20
)

// memoEmbedder remembers the vectors of each batch of texts, keyed by the
// batch's SHA-256. Use it only over a deterministic embedder.
type memoEmbedder struct {
	swc.Embedder
	m      *memo.Memo[[32]byte, [][]float32]
	sparse *memo.Memo[[32]byte, []swc.Sparse]
}

var _ swc.SparseEmbedder = (*memoEmbedder)(nil)

func newMemoEmbedder(e swc.Embedder) *memoEmbedder {
	return &memoEmbedder{Embedder: e,
		m: memo.New(vectorMemoBytes, func(_ [32]byte, v [][]float32) int {
			n := 24 * len(v)
			for _, x := range v {
				n += 4 * len(x)
			}
			return n
		}),
		sparse: memo.New(vectorMemoBytes, func(_ [32]byte, v []swc.Sparse) int {
			n := 48 * len(v)
			for _, x := range v {
				n += 8 * len(x.Index)
			}
			return n
		}),
	}
}

// batchKey is the SHA-256 of texts.
func batchKey(texts []string) [32]byte {
	h := sha256.New()
	for _, t := range texts {
		h.Write([]byte(t))
		h.Write([]byte{0})
	}
	var key [32]byte
	h.Sum(key[:0])
	return key
}

// EmbedSparse returns the remembered sparse vectors of texts, or embeds
// (sparse when the embedder can, else dense made sparse) and remembers
// them. Callers must not modify the vectors.
func (m *memoEmbedder) EmbedSparse(ctx context.Context, texts []string) ([]swc.Sparse, error) {
	key := batchKey(texts)
	if v, ok := m.sparse.Get(key); ok {
		return v, nil
	}
	var v []swc.Sparse
	if se, ok := m.Embedder.(swc.SparseEmbedder); ok {
		var err error
		if v, err = se.EmbedSparse(ctx, texts); err != nil {
			return nil, err
		}
	} else {
		dense, err := m.Embedder.Embed(ctx, texts)
		if err != nil {
			return nil, err
		}
		v = make([]swc.Sparse, len(dense))
		for i, d := range dense {
			v[i] = vector.ToSparse(d)
		}
	}
	m.sparse.Put(key, v)
	return v, nil
}

// Embed returns the remembered vectors of texts, or embeds and remembers
// them. Callers must not modify the vectors.
func (m *memoEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	key := batchKey(texts)
	if v, ok := m.m.Get(key); ok {
		return v, nil
	}
	v, err := m.Embedder.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	m.m.Put(key, v)
	return v, nil
}

// memoGister remembers each request's gist. Use it only over a
// deterministic gister.
type memoGister struct {
	swc.Gister
	m *memo.Memo[swc.GistRequest, string]
}

var _ swc.Gister = (*memoGister)(nil)

func newMemoGister(g swc.Gister) *memoGister {
	return &memoGister{Gister: g, m: memo.New(textMemoBytes, func(k swc.GistRequest, v string) int {
		return len(k.Text) + len(k.Date) + len(v)
	})}
}

// Gist returns the remembered gist of req, or makes and remembers it.
func (m *memoGister) Gist(ctx context.Context, req swc.GistRequest) (string, error) {
	if v, ok := m.m.Get(req); ok {
		return v, nil
	}
	g, err := m.Gister.Gist(ctx, req)
	if err != nil {
		return "", err
	}
	m.m.Put(req, g)
	return g, nil
}

// salientMemo returns salient, remembered per text and speakers.
func salientMemo() func(text string, speakers []string) int {
	m := memo.New(textMemoBytes, func(k string, _ int) int { return len(k) })
	return func(text string, speakers []string) int {
		key := text + "\x00" + strings.Join(speakers, "\x00")
		if v, ok := m.Get(key); ok {
			return v
		}
		n := salient(text, speakers)
		m.Put(key, n)
		return n
	}
}

type anchorKey struct {
	text string
	ref  time.Time
}

// anchorMemo returns fn (mention.Anchor), remembered per text and
// reference time.
func anchorMemo(fn func(string, time.Time) string) func(string, time.Time) string {
	m := memo.New(textMemoBytes, func(k anchorKey, v string) int { return len(k.text) + len(v) })
	return func(text string, ref time.Time) string {
		k := anchorKey{text, ref}
		if v, ok := m.Get(k); ok {
			return v
		}
		v := fn(text, ref)
		m.Put(k, v)
		return v
	}
}
