package postgres

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/swcmem/swc/mock"
)

func TestEmbeddingCache(t *testing.T) {
	db := openTest(t)
	var seen []string // every text the embedder was asked for
	e := &mock.Embedder{ID: "fake:embed", EmbedFn: func(_ context.Context, texts []string) ([][]float32, error) {
		seen = append(seen, texts...)
		out := make([][]float32, len(texts))
		for i, t := range texts {
			out[i] = []float32{float32(len(t)), 0.25, -1.5}
		}
		return out, nil
	}}
	c := CachedEmbedder(e, db)
	ctx := context.Background()
	first := []string{"a", "bb", "a", "ccc"}
	v1, err := c.Embed(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, []string{"a", "bb", "ccc"}) {
		t.Fatalf("embedder saw %q, want each missing text once", seen)
	}
	v2, err := c.Embed(ctx, []string{"ccc", "dddd", "a"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, []string{"a", "bb", "ccc", "dddd"}) {
		t.Fatalf("embedder saw %q: a cached text was embedded again", seen)
	}
	if fmt.Sprint(v1[3]) != fmt.Sprint(v2[0]) || fmt.Sprint(v2[1]) != "[4 0.25 -1.5]" || fmt.Sprint(v1[0]) != fmt.Sprint(v1[2]) {
		t.Fatalf("vectors do not round-trip: %v %v", v1, v2)
	}
}
