package bench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/swcmem/swc"
)

// LockName is the lock file a run holds in its output directory.
const LockName = ".lock"

// DirLock is an exclusive lock on an output directory, so that two runs
// never write one results.jsonl at once (the store compacts it with a
// rename while appending). Release it with Close.
type DirLock struct {
	f    *os.File
	path string
}

// LockDir creates dir if needed and takes an exclusive lock on dir/.lock
// without waiting. It returns an EUNAVAILABLE error naming the directory when
// another process (or another LockDir in this one) holds it, and an error
// when the lock file cannot be opened. The lock goes with the process, so a
// killed run leaves nothing to clean up.
func LockDir(dir string) (*DirLock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	path := filepath.Join(dir, LockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("bench: lock %s: %w", dir, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, swc.Errorf(swc.EUNAVAILABLE, "bench: %s is in use by another run (it holds %s); wait for it to finish or use another --out", dir, path)
		}
		return nil, fmt.Errorf("bench: lock %s: %w", path, err)
	}
	return &DirLock{f: f, path: path}, nil
}

// Close releases the lock.
func (l *DirLock) Close() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the descriptor releases the lock
	l.f = nil
	return err
}

var errLocked = errors.New("locked")
