package jobs

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/swcmem/swc/postgres/pgtest"
)

// countingConsolidator is due at once until it has consolidated, and
// counts its runs.
type countingConsolidator struct {
	runs    atomic.Int32
	running atomic.Int32
	overlap atomic.Bool
	done    atomic.Bool
}

func (c *countingConsolidator) Due(context.Context, string, string) (time.Duration, bool, error) {
	return 0, !c.done.Load(), nil
}

func (c *countingConsolidator) Consolidate(ctx context.Context, tenant, conv string) (int, error) {
	if c.running.Add(1) > 1 {
		c.overlap.Store(true)
	}
	defer c.running.Add(-1)
	c.runs.Add(1)
	time.Sleep(200 * time.Millisecond)
	c.done.Store(true)
	return 1, nil
}

// Two replicas' queues on one Postgres: many enqueues of one conversation
// from both make one job, run once, by one of them.
func TestPostgresUniqueAcrossReplicas(t *testing.T) {
	dsn := pgtest.Schema(t)
	ctx := context.Background()
	c := &countingConsolidator{}
	var queues []*Queue
	for range 2 {
		pool, err := pgxpool.New(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		q, err := OpenPostgres(ctx, pool, c, Config{PollInterval: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { q.Stop(context.Background()) })
		queues = append(queues, q)
	}
	at := time.Now().Add(time.Hour) // scheduled: waits until asked
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			if err := queues[i%2].Enqueue(ctx, "t1", "c1", at); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	jobs, err := queues[0].Pending(ctx, "t1", "c1")
	if err != nil || len(jobs) != 1 {
		t.Fatalf("Pending = %+v, %v; want one job", jobs, err)
	}
	// Both replicas ask for it now; the one job runs once.
	for _, q := range queues {
		if _, err := q.ConsolidateNow(ctx, "t1", "c1"); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		jobs, err := queues[1].Pending(ctx, "t1", "c1")
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs) == 0 && c.done.Load() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job not done after 20s: %+v", jobs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := c.runs.Load(); n != 1 || c.overlap.Load() {
		t.Fatalf("consolidated %d times (overlap %v), want once", n, c.overlap.Load())
	}
}

// Pending finds one conversation's job among many more than a page.
func TestPostgresPendingAmongMany(t *testing.T) {
	dsn := pgtest.Schema(t)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	q, err := OpenPostgres(ctx, pool, &countingConsolidator{}, Config{PollInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Stop(context.Background()) })
	testPendingAmongMany(t, q)
}
