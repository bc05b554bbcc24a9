package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/swcmem/swc"
)

// fakeGister, fakeLLM and fakeEmbedder are fakes built from function fields.
type fakeGister struct {
	name string
	gist func(ctx context.Context, req swc.GistRequest) (string, error)
}

func (f *fakeGister) Name() string { return f.name }
func (f *fakeGister) Gist(ctx context.Context, req swc.GistRequest) (string, error) {
	return f.gist(ctx, req)
}

type fakeLLM struct {
	name     string
	complete func(ctx context.Context, req swc.LLMRequest) (swc.LLMResponse, error)
}

func (f *fakeLLM) Name() string { return f.name }
func (f *fakeLLM) Complete(ctx context.Context, req swc.LLMRequest) (swc.LLMResponse, error) {
	return f.complete(ctx, req)
}

type fakeEmbedder struct {
	name  string
	embed func(ctx context.Context, texts []string) ([][]float32, error)
}

func (f *fakeEmbedder) Name() string { return f.name }
func (f *fakeEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return f.embed(ctx, texts)
}

// openTest opens a fresh cache file in a temporary directory, closed when
// the test ends.
func openTest(t testing.TB) *DB {
	t.Helper()
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "cache.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	return db
}
