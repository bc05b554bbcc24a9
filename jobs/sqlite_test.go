package jobs

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// Pending finds one conversation's job among many more than a page, on
// SQLite too (filtered in SQL, not in the first 1,000 jobs listed).
func TestSQLitePendingAmongMany(t *testing.T) {
	ctx := context.Background()
	pool, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "jobs.db")+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)")
	if err != nil {
		t.Fatal(err)
	}
	pool.SetMaxOpenConns(1)
	t.Cleanup(func() { pool.Close() })
	q, err := Open(ctx, pool, &countingConsolidator{}, Config{PollInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Stop(context.Background()) })
	testPendingAmongMany(t, q)
}

// testPendingAmongMany enqueues 1,005 conversations' jobs (more than a
// page) and checks that Pending finds the first and the last, and nothing
// of another tenant.
func testPendingAmongMany(t *testing.T, q *Queue) {
	t.Helper()
	ctx := context.Background()
	at := time.Now().Add(time.Hour)
	for i := range 1005 {
		if err := q.Enqueue(ctx, "t1", fmt.Sprintf("c%04d", i), at); err != nil {
			t.Fatal(err)
		}
	}
	for _, conv := range []string{"c0000", "c1004"} {
		jobs, err := q.Pending(ctx, "t1", conv)
		if err != nil || len(jobs) != 1 {
			t.Fatalf("Pending(%s) = %+v, %v; want its one job", conv, jobs, err)
		}
	}
	if jobs, err := q.Pending(ctx, "t2", "c0000"); err != nil || len(jobs) != 0 {
		t.Fatalf("another tenant's Pending = %+v, %v", jobs, err)
	}
}
