package memo

import (
	"context"
	"crypto/sha256"
	"strings"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/vector"
)

// The decorators below remember what the deterministic engines compute,
// in Memos: the CLI's engines (every condition, budget and question of a
// bench run asks them the same things about a conversation) and a
// memory.Compressor's (an agent re-sends its history every turn). Use them
// only over deterministic engines, or behind a cache that makes them so.

// GistKey identifies a gist: the gister's name and the request.
type GistKey struct {
	Gister string
	Req    swc.GistRequest
}

// NewGists returns a memo of gists holding about max bytes per
// generation, to share between Gisters.
func NewGists(max int) *Memo[GistKey, string] {
	return New(max, func(k GistKey, v string) int { return len(k.Gister) + len(k.Req.Text) + len(k.Req.Date) + len(v) })
}

// Gister is a swc.Gister whose gists are remembered in a memo (keyed by
// the wrapped gister's name, so that one memo can serve several).
type Gister struct {
	swc.Gister
	m *Memo[GistKey, string]
}

var _ swc.Gister = (*Gister)(nil)

// NewGister returns g with its gists remembered in m (NewGists).
func NewGister(g swc.Gister, m *Memo[GistKey, string]) *Gister {
	return &Gister{Gister: g, m: m}
}

// Gist returns the remembered gist of req, or makes and remembers it; a
// failed gist is not remembered.
func (g *Gister) Gist(ctx context.Context, req swc.GistRequest) (string, error) {
	k := GistKey{g.Gister.Name(), req}
	if s, ok := g.m.Get(k); ok {
		return s, nil
	}
	s, err := g.Gister.Gist(ctx, req)
	if err == nil {
		g.m.Put(k, s)
	}
	return s, err
}

// Embedder is a swc.Embedder (and swc.SparseEmbedder) whose vectors are
// remembered per batch of texts, keyed by the batch's SHA-256.
type Embedder struct {
	swc.Embedder
	dense  *Memo[[32]byte, [][]float32]
	sparse *Memo[[32]byte, []swc.Sparse]
}

var _ swc.SparseEmbedder = (*Embedder)(nil)

// NewEmbedder returns e with its vectors remembered, about max bytes per
// generation for the dense and as many for the sparse ones.
func NewEmbedder(e swc.Embedder, max int) *Embedder {
	return &Embedder{Embedder: e,
		dense: New(max, func(_ [32]byte, v [][]float32) int {
			n := 24 * len(v)
			for _, x := range v {
				n += 4 * len(x)
			}
			return n
		}),
		sparse: New(max, func(_ [32]byte, v []swc.Sparse) int {
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
// them; it returns the embedder's error. Callers must not modify the
// vectors.
func (m *Embedder) EmbedSparse(ctx context.Context, texts []string) ([]swc.Sparse, error) {
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
// them; it returns the embedder's error. Callers must not modify the
// vectors.
func (m *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	key := batchKey(texts)
	if v, ok := m.dense.Get(key); ok {
		return v, nil
	}
	v, err := m.Embedder.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	m.dense.Put(key, v)
	return v, nil
}

// Salient returns fn (a count of a text's entities and numbers, SWC's
// density numerator) remembered per text and speakers, about max bytes
// per generation.
func Salient(fn func(text string, speakers []string) int, max int) func(text string, speakers []string) int {
	m := New(max, func(k string, _ int) int { return len(k) })
	return func(text string, speakers []string) int {
		k := strings.Join(speakers, "\x00") + "\x01" + text
		if v, ok := m.Get(k); ok {
			return v
		}
		v := fn(text, speakers)
		m.Put(k, v)
		return v
	}
}

type anchorKey struct {
	text string
	ref  time.Time
}

// Anchor returns fn (mention.Anchor: relative dates anchored to ref)
// remembered per text and reference time, about max bytes per generation.
func Anchor(fn func(text string, ref time.Time) string, max int) func(text string, ref time.Time) string {
	m := New(max, func(k anchorKey, v string) int { return len(k.text) + len(v) })
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

// Terms returns fn (bm25.Terms: a text's terms) remembered per text, about
// max bytes per generation. Callers must not modify the slices it returns.
func Terms(fn func(text string) []string, max int) func(text string) []string {
	m := New(max, func(k string, v []string) int {
		n := len(k) + 24*len(v)
		for _, t := range v {
			n += len(t)
		}
		return n
	})
	return func(text string) []string {
		if v, ok := m.Get(text); ok {
			return v
		}
		v := fn(text)
		m.Put(text, v)
		return v
	}
}
