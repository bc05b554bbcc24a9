package storetest_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/postgres"
	"github.com/swcmem/swc/postgres/pgtest"
	"github.com/swcmem/swc/sqlite"
	"github.com/swcmem/swc/storetest"
)

// TestBackends runs the one conformance suite over every Store: SQLite
// always, Postgres when $SWC_TEST_POSTGRES names a server (in CI always).
func TestBackends(t *testing.T) {
	backends := []struct {
		name string
		open func(t *testing.T) swc.Store
	}{
		{"sqlite", func(t *testing.T) swc.Store {
			db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "swc.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		}},
		{"postgres", func(t *testing.T) swc.Store {
			db, err := postgres.Open(context.Background(), pgtest.Schema(t), postgres.Config{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		}},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			if b.name == "postgres" {
				pgtest.DSN(t)
			}
			storetest.Run(t, b.open)
		})
	}
}
