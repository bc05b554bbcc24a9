package jobs

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/swcmem/swc"
)

// owedStore lists the conversations owed a consolidation; only
// Unconsolidated is implemented.
type owedStore struct {
	swc.Store
	refs []swc.ConversationRef
	err  error
}

func (s owedStore) Unconsolidated(context.Context) ([]swc.ConversationRef, error) {
	return s.refs, s.err
}

// enqueued records Enqueue calls; only Enqueue is implemented.
type enqueued struct {
	swc.Queue
	mu    sync.Mutex
	convs []string
}

func (q *enqueued) Enqueue(_ context.Context, tenant, conv string, _ time.Time) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.convs = append(q.convs, tenant+"/"+conv)
	return nil
}

func (q *enqueued) count() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.convs)
}

func TestSweep(t *testing.T) {
	store := owedStore{refs: []swc.ConversationRef{{Tenant: "t1", ID: "a"}, {Tenant: "t2", ID: "b"}}}
	q := &enqueued{}
	ctx, cancel := context.WithCancel(context.Background())
	if err := Sweep(ctx, store, q, 0, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	if q.count() != 2 || q.convs[0] != "t1/a" || q.convs[1] != "t2/b" {
		t.Fatalf("first sweep enqueued %v", q.convs)
	}
	// Repeated every interval until ctx ends.
	if err := Sweep(ctx, store, q, 5*time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for q.count() < 8 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if q.count() < 8 {
		t.Errorf("%d enqueued: the sweep did not repeat", q.count())
	}
	down := errors.New("database down")
	if err := Sweep(context.Background(), owedStore{err: down}, q, 0, nil); !errors.Is(err, down) {
		t.Errorf("first sweep's error: %v", err)
	}
}
