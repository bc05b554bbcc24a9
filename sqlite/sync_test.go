package sqlite

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/swcmem/swc"
)

// TestSynchronous: every connection (the DB's and its Pools', which River
// writes jobs through) syncs each commit unless normal is asked for.
func TestSynchronous(t *testing.T) {
	for _, tc := range []struct {
		sync string
		want int // PRAGMA synchronous: 1 NORMAL, 2 FULL
	}{{"", 2}, {SyncFull, 2}, {SyncNormal, 1}} {
		db, err := OpenConfig(t.Context(), filepath.Join(t.TempDir(), "swc.db"), Config{Synchronous: tc.sync})
		if err != nil {
			t.Fatal(err)
		}
		pool, err := db.Pool(1)
		if err != nil {
			t.Fatal(err)
		}
		var got, gotPool int
		if err := db.db.QueryRowContext(t.Context(), "PRAGMA synchronous").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if err := pool.QueryRowContext(t.Context(), "PRAGMA synchronous").Scan(&gotPool); err != nil {
			t.Fatal(err)
		}
		if got != tc.want || gotPool != tc.want {
			t.Errorf("synchronous %q: the DB's connection has %d, the pool's %d; want %d", tc.sync, got, gotPool, tc.want)
		}
		pool.Close()
		db.Close()
	}
	if _, err := OpenConfig(t.Context(), filepath.Join(t.TempDir(), "swc.db"), Config{Synchronous: "off"}); err == nil {
		t.Error("synchronous off accepted")
	}
}

// BenchmarkAppendSynchronous is the cost of a durable append: one new
// message appended to a stored conversation, every commit synced (full)
// or synced at checkpoints only (normal), in the same run.
func BenchmarkAppendSynchronous(b *testing.B) {
	ctx := b.Context()
	t0 := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	msg := func(i int) swc.Message {
		return swc.Message{ID: fmt.Sprint("m", i), Role: swc.RoleUser, Content: "a message of a few words", Time: t0.Add(time.Duration(i) * time.Second)}
	}
	for _, sync := range []string{SyncFull, SyncNormal} {
		b.Run(sync, func(b *testing.B) {
			db, err := OpenConfig(ctx, filepath.Join(b.TempDir(), "swc.db"), Config{Synchronous: sync})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			n := 0
			for b.Loop() {
				if res, err := db.AppendMessages(ctx, "t", "c", []swc.Message{msg(n)}, swc.AppendOptions{Rule: swc.DefaultSessionRule(), Now: func() time.Time { return t0 }}); err != nil || res.Appended != 1 {
					b.Fatal(res, err)
				}
				n++
			}
		})
	}
}
