package main

import (
	"context"
	"crypto/sha256"
	"strings"
	"sync"
	"time"

	"github.com/swcmem/swc"
)

// The offline engines are deterministic, and every condition, budget and
// question of a bench run asks them the same things about a conversation:
// the same turns to embed (swc-full, swc-temporal and swc-anchored embed
// the raw turns), the same sessions to gist, the same turns to count
// entities in. These memos make each of those one computation per run.

// memoEmbedder remembers the vectors of each batch of texts, keyed by the
// batch's SHA-256. Use it only over a deterministic embedder.
type memoEmbedder struct {
	swc.Embedder
	mu sync.Mutex
	m  map[[32]byte][][]float32
}

var _ swc.Embedder = (*memoEmbedder)(nil)

func newMemoEmbedder(e swc.Embedder) *memoEmbedder {
	return &memoEmbedder{Embedder: e, m: map[[32]byte][][]float32{}}
}

// Embed returns the remembered vectors of texts, or embeds and remembers
// them. Callers must not modify the vectors.
func (m *memoEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	h := sha256.New()
	for _, t := range texts {
		h.Write([]byte(t))
		h.Write([]byte{0})
	}
	var key [32]byte
	h.Sum(key[:0])
	m.mu.Lock()
	v, ok := m.m[key]
	m.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := m.Embedder.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.m[key] = v
	m.mu.Unlock()
	return v, nil
}

// memoGister remembers each request's gist. Use it only over a
// deterministic gister.
type memoGister struct {
	swc.Gister
	m sync.Map // swc.GistRequest → string
}

var _ swc.Gister = (*memoGister)(nil)

// Gist returns the remembered gist of req, or makes and remembers it.
func (m *memoGister) Gist(ctx context.Context, req swc.GistRequest) (string, error) {
	if v, ok := m.m.Load(req); ok {
		return v.(string), nil
	}
	g, err := m.Gister.Gist(ctx, req)
	if err != nil {
		return "", err
	}
	m.m.Store(req, g)
	return g, nil
}

// salientMemo remembers salient's counts per text and speakers.
type salientMemo struct{ m sync.Map } // string → int

// count is salient, remembered.
func (s *salientMemo) count(text string, speakers []string) int {
	key := text + "\x00" + strings.Join(speakers, "\x00")
	if v, ok := s.m.Load(key); ok {
		return v.(int)
	}
	n := salient(text, speakers)
	s.m.Store(key, n)
	return n
}

// textMemo remembers a pure function of a text (the temporal check).
type textMemo[V any] struct {
	fn func(string) V
	m  sync.Map // string → V
}

func (t *textMemo[V]) get(s string) V {
	if v, ok := t.m.Load(s); ok {
		return v.(V)
	}
	v := t.fn(s)
	t.m.Store(s, v)
	return v
}

// anchorMemo remembers mention.Anchor per text and reference time.
type anchorMemo struct {
	fn func(string, time.Time) string
	m  sync.Map // anchorKey → string
}

type anchorKey struct {
	text string
	ref  time.Time
}

func (a *anchorMemo) get(text string, ref time.Time) string {
	k := anchorKey{text, ref}
	if v, ok := a.m.Load(k); ok {
		return v.(string)
	}
	v := a.fn(text, ref)
	a.m.Store(k, v)
	return v
}
