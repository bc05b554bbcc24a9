package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// Store is DIR/results.jsonl: rows are appended as they are produced and
// synced, so a killed run loses at most the row being written; a rerun
// reads what is there and skips it.
type Store struct {
	path   string
	mu     sync.Mutex
	f      *os.File
	done   map[rowKey]Row
	failed map[rowKey]Row // the last failure of keys not done
}

type rowKey struct{ condition, question string }

// OpenStore opens (creating) dir/results.jsonl. Rows already there are
// kept as done, except rows with an error, which the run retries; a line
// cut short by a kill is dropped. The file is rewritten compacted before
// appending. It returns an error when the file cannot be read or written.
func OpenStore(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	s := &Store{path: filepath.Join(dir, "results.jsonl"), done: map[rowKey]Row{}, failed: map[rowKey]Row{}}
	var order []rowKey
	if data, err := os.ReadFile(s.path); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var r Row
			if len(bytes.TrimSpace(sc.Bytes())) == 0 || json.Unmarshal(sc.Bytes(), &r) != nil || r.Condition == "" || r.QuestionID == "" {
				continue // a torn or foreign line
			}
			k := rowKey{r.Condition, r.QuestionID}
			if r.Error != "" {
				delete(s.done, k)
				continue
			}
			if _, seen := s.done[k]; !seen {
				order = append(order, k)
			}
			s.done[k] = r
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("bench: read %s: %w", s.path, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("bench: %w", err)
	}
	// Rewrite compacted (atomically), then append from there.
	var buf bytes.Buffer
	for _, k := range order {
		if r, ok := s.done[k]; ok {
			line, _ := json.Marshal(r)
			buf.Write(line)
			buf.WriteByte('\n')
		}
	}
	if err := WriteFileAtomic(s.path, buf.Bytes()); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	s.f = f
	return s, nil
}

// Done returns the finished row for (condition, question id), if any.
func (s *Store) Done(condition, questionID string) (Row, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.done[rowKey{condition, questionID}]
	return r, ok
}

// Len returns how many finished rows the store holds.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.done)
}

// Add appends r with one write call (no buffering in the process, so a
// killed run keeps every row it reported; Close syncs to disk). Rows with
// an error are written too (the record of what failed) but not counted as
// done.
func (s *Store) Add(r Row) error {
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("bench: encode row: %w", err)
	}
	line = append(line, '\n')
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.f.Write(line); err != nil {
		return fmt.Errorf("bench: write %s: %w", s.path, err)
	}
	k := rowKey{r.Condition, r.QuestionID}
	if r.Error == "" {
		s.done[k] = r
		delete(s.failed, k)
	} else {
		s.failed[k] = r
	}
	return nil
}

// Failed returns the last failed row of every question that this run
// tried and could not finish.
func (s *Store) Failed() []Row {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Row, 0, len(s.failed))
	for _, r := range s.failed {
		out = append(out, r)
	}
	return out
}

// Rows returns every finished row.
func (s *Store) Rows() []Row {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Row, 0, len(s.done))
	for _, r := range s.done {
		out = append(out, r)
	}
	return out
}

// Close syncs and closes the file.
func (s *Store) Close() error {
	if err := s.f.Sync(); err != nil {
		s.f.Close()
		return fmt.Errorf("bench: sync %s: %w", s.path, err)
	}
	return s.f.Close()
}

// syncFile syncs f to disk (a variable so tests can count the calls).
var syncFile = (*os.File).Sync

// writeFileAtomic writes data to path through a temporary file beside it:
// written, synced to disk, renamed over path, and the directory synced, so
// that after a crash path holds either the old or the new bytes, whole. On
// error the temporary file is removed. Every file bench and report write
// goes through it.
func WriteFileAtomic(path string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = syncFile(f); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return syncFile(d)
}

// WriteSummary writes s as dir/summary.json (indented, atomically). It
// returns an error when the file cannot be written.
func WriteSummary(dir string, s *Summary) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("bench: encode summary: %w", err)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "summary.json"), append(data, '\n')); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return nil
}

var _ io.Closer = (*Store)(nil)
