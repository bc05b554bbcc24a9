package sqlite

import (
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/mock"
)

func TestVectorEncoding(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    []float32
		want []byte
	}{
		{"empty", []float32{}, []byte{}},
		{"one", []float32{1}, []byte{0x00, 0x00, 0x80, 0x3f}},
		{"mixed", []float32{-2.5, 0, float32(math.Inf(1))}, []byte{0, 0, 0x20, 0xc0, 0, 0, 0, 0, 0, 0, 0x80, 0x7f}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := EncodeVector(tc.v)
			if !slices.Equal(b, tc.want) {
				t.Fatalf("EncodeVector = % x, want % x", b, tc.want)
			}
			got, err := DecodeVector(b)
			if err != nil || !slices.Equal(got, tc.v) {
				t.Fatalf("DecodeVector = %v, %v; want %v", got, err, tc.v)
			}
		})
	}
	if _, err := DecodeVector([]byte{1, 2, 3}); err == nil {
		t.Fatal("DecodeVector of 3 bytes succeeded")
	}
}

func TestEmbeddingsRoundTrip(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	texts := []string{"a", "b", ""}
	vecs := [][]float32{{1, 2, 3}, {0.5, -0.25}, {}}
	if err := db.PutEmbeddings(ctx, "e1", texts, vecs); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		embedder string
		texts    []string
		want     [][]float32
	}{
		{"all", "e1", texts, vecs},
		{"order and duplicates", "e1", []string{"b", "x", "a", "b"}, [][]float32{{0.5, -0.25}, nil, {1, 2, 3}, {0.5, -0.25}}},
		{"other embedder", "e2", []string{"a"}, [][]float32{nil}},
		{"none", "e1", nil, [][]float32{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := db.Embeddings(ctx, tc.embedder, tc.texts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Embeddings = %v, want %v", got, tc.want)
			}
		})
	}
	if err := db.PutEmbeddings(ctx, "e1", []string{"a"}, nil); err == nil {
		t.Fatal("PutEmbeddings with mismatched lengths succeeded")
	}
}

func TestEmbeddingsManyTexts(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	n := 3*lookupBatch + 7 // several lookup and write batches
	texts := make([]string, n)
	vecs := make([][]float32, n)
	for i := range texts {
		texts[i] = string(rune('a'+i%26)) + string(rune(0x4e00+i))
		vecs[i] = []float32{float32(i), float32(-i)}
	}
	if err := db.PutEmbeddings(ctx, "e", texts, vecs); err != nil {
		t.Fatal(err)
	}
	got, err := db.Embeddings(ctx, "e", texts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, vecs) {
		t.Fatal("many-text round trip differs")
	}
}

// vectorOf is a batch-independent fake embedding.
func vectorOf(s string) []float32 { return []float32{float32(len(s)), float32(s[0])} }

func TestCachedEmbedder(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	var batches [][]string
	inner := &mock.Embedder{ID: "ollama:all-minilm", EmbedFn: func(_ context.Context, texts []string) ([][]float32, error) {
		batches = append(batches, slices.Clone(texts))
		out := make([][]float32, len(texts))
		for i, s := range texts {
			out[i] = vectorOf(s)
		}
		return out, nil
	}}
	e := CachedEmbedder(inner, db)
	if e.Name() != "ollama:all-minilm" {
		t.Fatalf("Name = %q", e.Name())
	}
	for _, step := range []struct {
		texts        []string
		wantBatch    []string // nil: no inner call
		hits, misses int64
	}{
		{[]string{"alpha", "beta"}, []string{"alpha", "beta"}, 0, 2},
		{[]string{"gamma", "alpha", "delta", "gamma", "beta"}, []string{"gamma", "delta"}, 2, 5},
		{[]string{"delta", "alpha", "gamma", "beta"}, nil, 6, 5},
		{nil, nil, 6, 5},
	} {
		n := len(batches)
		got, err := e.Embed(ctx, step.texts)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(step.texts) {
			t.Fatalf("Embed(%v) returned %d vectors", step.texts, len(got))
		}
		for i, s := range step.texts {
			if !slices.Equal(got[i], vectorOf(s)) {
				t.Fatalf("Embed(%v)[%d] = %v, want %v", step.texts, i, got[i], vectorOf(s))
			}
		}
		switch {
		case step.wantBatch == nil && len(batches) != n:
			t.Fatalf("Embed(%v) called the inner embedder with %v on a warm cache", step.texts, batches[n:])
		case step.wantBatch != nil && (len(batches) != n+1 || !slices.Equal(batches[n], step.wantBatch)):
			t.Fatalf("Embed(%v) inner batches %v, want one call with %v", step.texts, batches[n:], step.wantBatch)
		}
		if s := db.Stats(); s.EmbedHits != step.hits || s.EmbedMisses != step.misses {
			t.Fatalf("after Embed(%v) stats = %+v, want %d hits %d misses", step.texts, s, step.hits, step.misses)
		}
	}
}

func TestCachedEmbedderErrors(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	boom := errors.New("boom")
	for _, tc := range []struct {
		name  string
		embed func(context.Context, []string) ([][]float32, error)
		check func(error) bool
	}{
		{"inner error", func(context.Context, []string) ([][]float32, error) { return nil, boom },
			func(err error) bool { return errors.Is(err, boom) }},
		{"wrong count", func(context.Context, []string) ([][]float32, error) { return [][]float32{{1}}, nil },
			func(err error) bool { return swc.ErrorCode(err) == swc.EINTERNAL }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := CachedEmbedder(&mock.Embedder{ID: tc.name, EmbedFn: tc.embed}, db)
			if _, err := e.Embed(ctx, []string{"x", "y"}); !tc.check(err) {
				t.Fatalf("err = %v", err)
			}
			if got, _ := db.Embeddings(ctx, tc.name, []string{"x", "y"}); got[0] != nil || got[1] != nil {
				t.Fatalf("something was stored after a failure: %v", got)
			}
		})
	}
}
