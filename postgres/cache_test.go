package postgres

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/swcmem/swc"
)

// Two replicas share the REM cache: what one stored, the other reads; of
// the keys both store at once, the first stored gist is kept.
func TestREMCacheSharedByReplicas(t *testing.T) {
	db1 := openTest(t)
	db2, err := Open(context.Background(), db1.pool.Config().ConnString(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	ctx := context.Background()
	key := func(i int) swc.GistKey {
		req := swc.GistRequest{Variant: swc.GistTemporal, Date: "1 May 2023", Text: fmt.Sprintf("session %d", i)}
		return swc.GistKey{Variant: req.Variant, Gister: "fake:gister", PromptHash: "p-temporal", ContentHash: req.ContentHash()}
	}
	for i := range 10 {
		if err := db1.PutGist(ctx, key(i), fmt.Sprint("gist ", i)); err != nil {
			t.Fatal(err)
		}
	}
	var hits, misses atomic.Int32
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			got, ok, err := db2.Gist(ctx, key(i))
			switch {
			case err != nil:
				t.Error(err)
			case ok && got == fmt.Sprint("gist ", i):
				hits.Add(1)
			case ok:
				t.Errorf("gist %d = %q", i, got)
			default:
				misses.Add(1)
				if err := db2.PutGist(ctx, key(i), fmt.Sprint("gist ", i)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if hits.Load() != 10 || misses.Load() != 10 {
		t.Fatalf("replica 2: %d hits, %d misses; want 10, 10", hits.Load(), misses.Load())
	}
	// A second put keeps the first gist; another variant misses.
	if err := db1.PutGist(ctx, key(15), "other"); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := db1.Gist(ctx, key(15)); err != nil || !ok || got != "gist 15" {
		t.Fatalf("after a second put: %q, %v, %v; want gist 15", got, ok, err)
	}
	other := key(0)
	other.Variant = swc.GistFull
	if _, ok, err := db1.Gist(ctx, other); err != nil || ok {
		t.Fatalf("another variant: ok=%v, %v; want a miss", ok, err)
	}
}
