package sleep_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/sleep"
)

// countingStore counts the version checks (Conversation) of the read path.
type countingStore struct {
	swc.Store
	asks atomic.Int64
}

func (s *countingStore) Conversation(ctx context.Context, tenant, conv string) (swc.ConversationInfo, error) {
	s.asks.Add(1)
	return s.Store.Conversation(ctx, tenant, conv)
}

// While watching, a cached context is served without asking the store;
// a change told (Changed) or Recheck passing (a notification lost) makes
// the next read ask; a reconnect (Watching(true) again) makes every cached
// context unchecked; while not watching, every read asks.
func TestWatchingServesWithoutStore(t *testing.T) {
	ctx := context.Background()
	m, db, clk, msgs := setup(t, consolidate.Schedule{Kind: consolidate.Idle, Window: time.Hour}, 3)
	cs := &countingStore{Store: db}
	m.Store, m.Recheck = cs, time.Second
	appendAll(t, db, msgs[:len(msgs)-2], clk.t)
	read := func(step string, wantAsks int64) *sleep.Result {
		t.Helper()
		before := cs.asks.Load()
		res, err := m.Context(ctx, "t", "c", sleep.Request{})
		if err != nil {
			t.Fatal(err)
		}
		if got := cs.asks.Load() - before; (got > 0) != (wantAsks > 0) {
			t.Errorf("%s: the read asked the store %d times, want %v", step, got, wantAsks > 0)
		}
		return res
	}
	read("not watching, first read", 1)
	read("not watching, cached", 1)
	m.Watching(true)
	read("first read after watching began", 1)
	v1 := read("watching, cached", 0)
	appendAll(t, db, msgs[len(msgs)-2:len(msgs)-1], clk.t) // a change no one tells
	if got := read("an untold change within Recheck", 0); got.Version != v1.Version {
		t.Fatalf("served version %d, want the cached %d (the bound allows it)", got.Version, v1.Version)
	}
	clk.t = clk.t.Add(time.Second)
	v2 := read("an untold change after Recheck", 1)
	if v2.Version == v1.Version {
		t.Fatalf("after Recheck the read still serves version %d", v1.Version)
	}
	read("watching, cached again", 0)
	appendAll(t, db, msgs[len(msgs)-1:], clk.t)
	m.Changed("t", "c", 0)
	if v3 := read("a change told", 1); v3.Version == v2.Version {
		t.Fatalf("after Changed the read still serves version %d", v2.Version)
	}
	read("cached after the change", 0)
	m.Watching(false)
	read("notifications stopped", 1)
	read("notifications stopped, again", 1)
	m.Watching(true)
	read("reconnected", 1)
	read("reconnected, cached", 0)
}
