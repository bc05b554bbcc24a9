// Package mock holds fakes of swc's interfaces for tests, built from
// function fields: a test sets the functions it needs, and a call whose
// function is nil panics naming it. Each fake counts its calls (Calls) and
// is safe for concurrent use when its functions are. Name methods return
// the ID field, or a fixed name when it is empty.
//
// It imports only the root package and the standard library, so any
// package's tests may use it.
package mock

import (
	"context"
	"sync/atomic"

	"github.com/swcmem/swc"
)

// Gister is a swc.Gister.
type Gister struct {
	ID     string // Name ("mock:gister" when empty)
	GistFn func(ctx context.Context, req swc.GistRequest) (string, error)
	Calls  atomic.Int64
}

var _ swc.Gister = (*Gister)(nil)

func (g *Gister) Name() string { return name(g.ID, "mock:gister") }

// Gist counts the call and returns GistFn's answer.
func (g *Gister) Gist(ctx context.Context, req swc.GistRequest) (string, error) {
	g.Calls.Add(1)
	if g.GistFn == nil {
		panic("mock: Gister.GistFn not set")
	}
	return g.GistFn(ctx, req)
}

// LLM is a swc.LLM.
type LLM struct {
	ID         string // Name ("mock:llm" when empty)
	CompleteFn func(ctx context.Context, req swc.LLMRequest) (swc.LLMResponse, error)
	Calls      atomic.Int64
}

var _ swc.LLM = (*LLM)(nil)

func (l *LLM) Name() string { return name(l.ID, "mock:llm") }

// Complete counts the call and returns CompleteFn's answer.
func (l *LLM) Complete(ctx context.Context, req swc.LLMRequest) (swc.LLMResponse, error) {
	l.Calls.Add(1)
	if l.CompleteFn == nil {
		panic("mock: LLM.CompleteFn not set")
	}
	return l.CompleteFn(ctx, req)
}

// Embedder is a swc.Embedder.
type Embedder struct {
	ID      string // Name ("mock:embedder" when empty)
	EmbedFn func(ctx context.Context, texts []string) ([][]float32, error)
	Calls   atomic.Int64
}

var _ swc.Embedder = (*Embedder)(nil)

func (e *Embedder) Name() string { return name(e.ID, "mock:embedder") }

// Embed counts the call and returns EmbedFn's answer.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.Calls.Add(1)
	if e.EmbedFn == nil {
		panic("mock: Embedder.EmbedFn not set")
	}
	return e.EmbedFn(ctx, texts)
}

func name(id, def string) string {
	if id == "" {
		return def
	}
	return id
}
