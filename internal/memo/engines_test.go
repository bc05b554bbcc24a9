package memo

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/mock"
)

func TestSalientAndAnchor(t *testing.T) {
	calls := 0
	salient := Salient(func(text string, speakers []string) int { calls++; return len(text) + len(speakers) }, 1<<20)
	for range 3 {
		if n := salient("Ana met Rex", []string{"Ana"}); n != 12 {
			t.Fatalf("salient = %d", n)
		}
	}
	if salient("Ana met Rex", nil) != 11 || calls != 2 {
		t.Errorf("%d calls, want one per text and speakers", calls)
	}
	day := time.Date(2023, 5, 8, 0, 0, 0, 0, time.UTC)
	anchors := 0
	anchor := Anchor(func(text string, ref time.Time) string { anchors++; return text + " on " + ref.Format("2 Jan") }, 1<<20)
	anchor("yesterday", day)
	if got := anchor("yesterday", day); got != "yesterday on 8 May" || anchors != 1 {
		t.Errorf("anchor = %q after %d calls", got, anchors)
	}
	anchor("yesterday", day.AddDate(0, 0, 1))
	if anchors != 2 {
		t.Errorf("another reference time was not anchored again")
	}
}

// TestGister: gists are remembered per gister name and request; failures
// are not.
func TestGister(t *testing.T) {
	m := NewGists(1 << 20)
	calls, fail := 0, true
	f := func(_ context.Context, req swc.GistRequest) (string, error) {
		calls++
		if fail {
			return "", errors.New("provider down")
		}
		return "gist of " + req.Text, nil
	}
	a, b := NewGister(&mock.Gister{ID: "a", GistFn: f}, m), NewGister(&mock.Gister{ID: "b", GistFn: f}, m)
	req := swc.GistRequest{Text: "they met"}
	if _, err := a.Gist(context.Background(), req); err == nil {
		t.Fatal("no error")
	}
	fail = false
	for range 2 {
		if g, err := a.Gist(context.Background(), req); err != nil || g != "gist of they met" {
			t.Fatalf("gist %q, %v", g, err)
		}
	}
	b.Gist(context.Background(), req)
	if calls != 3 {
		t.Errorf("%d calls: want the failure, one for a and one for b", calls)
	}
}

// TestEmbedder: a batch is embedded once, dense and sparse (made from the
// dense vectors when the embedder has no sparse form).
func TestEmbedder(t *testing.T) {
	dense := &mock.Embedder{ID: "dense", EmbedFn: func(_ context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i, t := range texts {
			out[i] = []float32{0, float32(len(t))}
		}
		return out, nil
	}}
	e := NewEmbedder(dense, 1<<20)
	ctx := context.Background()
	batch := []string{"a", "bb"}
	for range 2 {
		v, err := e.Embed(ctx, batch)
		if err != nil || len(v) != 2 || v[1][1] != 2 {
			t.Fatalf("Embed = %v, %v", v, err)
		}
	}
	sp, err := e.EmbedSparse(ctx, batch)
	if err != nil || len(sp) != 2 || len(sp[1].Index) != 1 || sp[1].Index[0] != 1 {
		t.Fatalf("EmbedSparse = %+v, %v", sp, err)
	}
	e.EmbedSparse(ctx, batch)
	if e.Embed(ctx, []string{"a"}); dense.Calls.Load() != 3 {
		t.Errorf("%d calls: want one per batch and form", dense.Calls.Load())
	}
}
