package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/storetest"
)

func TestStoreConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) swc.Store {
		db, err := Open(context.Background(), filepath.Join(t.TempDir(), "swc.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	})
}
