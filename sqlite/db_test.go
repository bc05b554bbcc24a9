package sqlite

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swcmem/swc"
)

func TestOpenCreatesDirsAndSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "cache.db")
	db, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("file not created: %v", err)
	}
	var mode, sync string
	var busy int
	conn, err := db.db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []struct {
		pragma string
		dst    any
	}{{"journal_mode", &mode}, {"synchronous", &sync}, {"busy_timeout", &busy}} {
		if err := conn.QueryRowContext(t.Context(), "PRAGMA "+q.pragma).Scan(q.dst); err != nil {
			t.Fatalf("PRAGMA %s: %v", q.pragma, err)
		}
	}
	if mode != "wal" {
		t.Errorf("journal_mode = %q, want wal", mode)
	}
	if sync != "2" { // FULL, the default (TestSynchronous)
		t.Errorf("synchronous = %q, want 2 (FULL)", sync)
	}
	if busy != int(BusyTimeout.Milliseconds()) {
		t.Errorf("busy_timeout = %d, want %d", busy, BusyTimeout.Milliseconds())
	}
	var v int
	if err := db.db.QueryRow("SELECT version FROM schema_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v != SchemaVersion() {
		t.Errorf("schema version = %d, want %d", v, SchemaVersion())
	}
}

func TestReopenKeepsData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.db")
	key := swc.GistKey{Variant: "full", Gister: "g", PromptHash: "p", ContentHash: "c"}
	db, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutGist(t.Context(), key, "kept"); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, ok, err := db.Gist(t.Context(), key)
	if err != nil || !ok || got != "kept" {
		t.Fatalf("after reopen Gist = %q, %v, %v; want kept, true, nil", got, ok, err)
	}
	var n int
	if err := db.db.QueryRow("SELECT count(*) FROM schema_version").Scan(&n); err != nil || n != 1 {
		t.Fatalf("schema_version rows = %d, %v; want 1", n, err)
	}
}

func TestOpenRejectsNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.db")
	db, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.db.Exec("UPDATE schema_version SET version = 99"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(t.Context(), path)
	if err == nil || !strings.Contains(err.Error(), "schema version 99") {
		t.Fatalf("Open of newer schema: err = %v, want schema version error", err)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "junk.db")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("not a database ", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, path string }{
		{"empty", ""},
		{"not a database", notDB},
		{"parent is a file", filepath.Join(file, "cache.db")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := Open(t.Context(), tc.path)
			if err == nil {
				db.Close()
				t.Fatal("Open succeeded, want error")
			}
			if !strings.HasPrefix(err.Error(), "sqlite: open") {
				t.Errorf("error %q lacks the sqlite: open prefix", err)
			}
		})
	}
}

func TestDefaultPath(t *testing.T) {
	old := UserCacheDir
	t.Cleanup(func() { UserCacheDir = old })

	UserCacheDir = func() (string, error) { return "/x/cache", nil }
	got, err := DefaultPath()
	if err != nil || got != filepath.Join("/x/cache", "swc", "cache.db") {
		t.Fatalf("DefaultPath = %q, %v", got, err)
	}
	UserCacheDir = func() (string, error) { return "", errors.New("no home") }
	if _, err := DefaultPath(); err == nil || !strings.Contains(err.Error(), "no home") {
		t.Fatalf("DefaultPath err = %v, want the dir error", err)
	}
}

func TestPathWithSpecialCharacters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "we?ird #dir%20", "cache.db")
	db, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("file not at %s: %v", path, err)
	}
}

// openTest opens a fresh cache file in a temporary directory, closed when
// the test ends.
func openTest(t testing.TB) *DB {
	t.Helper()
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "cache.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	return db
}
