package sleep_test

import (
	"context"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/sleep"
)

// TestContextCacheBytes: one tenant reading a large conversation at many
// distinct budgets holds at most its share of the context cache's bytes,
// and another tenant's cached context is not pushed out (the cache held
// 4,096 contexts of any size: ~7.5 MB a budget of a 3.4 MB conversation).
func TestContextCacheBytes(t *testing.T) {
	ctx := context.Background()
	m, db, clk, msgs := setup(t, consolidate.Schedule{Kind: consolidate.Idle, Window: time.Minute}, 0)
	m.CacheBytes, m.TenantShare = 4<<20, 0.25
	appendAll(t, db, msgs, clk.t)
	if _, err := db.AppendMessages(ctx, "other", "c", msgs[:20], swc.AppendOptions{Rule: swc.DefaultSessionRule(), Now: func() time.Time { return clk.t }}); err != nil {
		t.Fatal(err)
	}
	theirs, err := m.Context(ctx, "other", "c", sleep.Request{Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	var held int64 // what a cache bounded in entries only would hold
	for budget := 20000; budget < 60000; budget += 1000 {
		r, err := m.Context(ctx, "t", "c", sleep.Request{Budget: budget, Format: "openai"})
		if err != nil {
			t.Fatal(err)
		}
		held += int64(2*len(r.JSON()) + 1024)
	}
	entries, bytes, largest := m.CacheStats()
	t.Logf("40 budgets: %d contexts cached, %d bytes, the largest tenant %d (an entry-bounded cache: %d bytes)", entries, bytes, largest, held)
	if largest > m.CacheBytes/4 || bytes > m.CacheBytes {
		t.Errorf("cache holds %d bytes, the largest tenant %d; want ≤ %d and ≤ %d", bytes, largest, m.CacheBytes, m.CacheBytes/4)
	}
	if held <= m.CacheBytes/4 {
		t.Fatalf("the reads made only %d bytes of contexts: the test proves nothing", held)
	}
	again, err := m.Context(ctx, "other", "c", sleep.Request{Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	if again != theirs {
		t.Error("tenant t's reads pushed out the other tenant's cached context")
	}
}
