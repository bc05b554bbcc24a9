package bench

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestLockDir: a second lock on a directory fails at once, naming it;
// after Close the directory can be locked again.
func TestLockDir(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no flock here")
	}
	dir := filepath.Join(t.TempDir(), "out")
	a, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockDir(dir); err == nil || !strings.Contains(err.Error(), dir+" is in use by another run") {
		t.Fatalf("second lock: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := LockDir(dir)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	b.Close()
}

// TestWriteFileAtomicSyncs: the new file is synced before the rename and
// the directory after it; nothing temporary is left behind.
func TestWriteFileAtomicSyncs(t *testing.T) {
	var synced []string
	defer func(f func(*os.File) error) { syncFile = f }(syncFile)
	syncFile = func(f *os.File) error {
		synced = append(synced, f.Name())
		return f.Sync()
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "summary.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("content %q", b)
	}
	if len(synced) != 2 || !strings.Contains(filepath.Base(synced[0]), ".summary.json.") || synced[1] != dir {
		t.Errorf("synced %q, want the temporary file then %s", synced, dir)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}
