package postgres

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/swcmem/swc"
)

type countingGister struct{ calls atomic.Int32 }

func (g *countingGister) Name() string { return "fake:gister" }

func (g *countingGister) Gist(_ context.Context, req swc.GistRequest) (string, error) {
	g.calls.Add(1)
	return "gist of " + req.Text, nil
}

// Two replicas share the REM cache: what one made, the other reuses.
func TestREMCacheSharedByReplicas(t *testing.T) {
	db1 := openTest(t)
	db2, err := Open(context.Background(), db1.pool.Config().ConnString(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	g := &countingGister{}
	ph := func(v swc.GistVariant) string { return "p-" + string(v) }
	var s1, s2 CacheStats
	r1, r2 := CachedGister(g, db1, ph, &s1), CachedGister(g, db2, ph, &s2)
	ctx := context.Background()
	reqs := make([]swc.GistRequest, 20)
	for i := range reqs {
		reqs[i] = swc.GistRequest{Variant: swc.GistTemporal, Date: "1 May 2023", Text: fmt.Sprintf("session %d", i)}
	}
	for _, r := range reqs[:10] {
		if _, err := r1.Gist(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for _, r := range reqs {
		wg.Go(func() {
			got, err := r2.Gist(ctx, r)
			if err != nil || got != "gist of "+r.Text {
				t.Errorf("gist = %q, %v", got, err)
			}
		})
	}
	wg.Wait()
	if s2.Hits.Load() != 10 || s2.Misses.Load() != 10 || g.calls.Load() != 20 {
		t.Fatalf("replica 2: %d hits, %d misses; %d gister calls; want 10, 10, 20", s2.Hits.Load(), s2.Misses.Load(), g.calls.Load())
	}
	// Another variant or prompt misses.
	other := reqs[0]
	other.Variant = swc.GistFull
	if _, err := r1.Gist(ctx, other); err != nil || g.calls.Load() != 21 {
		t.Fatalf("another variant: %v, %d calls", err, g.calls.Load())
	}
}
