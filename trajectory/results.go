package trajectory

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/swcmem/swc"
)

// ResultsFile is the name of the rows' file in an output directory.
const ResultsFile = "results.jsonl"

// RunFile holds the resume key of an output directory.
const RunFile = "run.json"

// ResumeKey is what must match for the rows of an output directory to be
// reused: the data's bytes, the tokenizer and swc's version (the
// conditions and metrics change with it). Budgets and conditions may
// differ: rows are keyed by both.
type ResumeKey struct {
	DataSHA256 string `json:"data_sha256"`
	Tokenizer  string `json:"tokenizer"`
	Version    string `json:"version"`
}

// CheckResume writes key to dir's run.json, or, when one is there, returns
// an EINVALID error when it differs (the rows in dir were made from other
// data or another version: use another directory).
func CheckResume(dir string, key ResumeKey) error {
	path := filepath.Join(dir, RunFile)
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("trajectory: %w", err)
		}
		js, _ := json.MarshalIndent(key, "", "  ")
		if err := os.WriteFile(path, append(js, '\n'), 0o644); err != nil {
			return fmt.Errorf("trajectory: %w", err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("trajectory: %w", err)
	}
	var old ResumeKey
	if err := json.Unmarshal(data, &old); err != nil {
		return swc.Errorf(swc.EINVALID, "trajectory: %s: %v", path, err)
	}
	if old != key {
		return swc.Errorf(swc.EINVALID, "trajectory: the rows in %s were made with other data, tokenizer or version (%s has %+v, this run %+v): choose another --out or remove the directory", dir, RunFile, old, key)
	}
	return nil
}

// Results is an output directory's results.jsonl, open for appending.
type Results struct {
	f    *os.File
	w    *bufio.Writer
	rows []Row
	done map[Key]bool
}

// OpenResults reads the rows already in dir's results.jsonl (a torn last
// line, from a run killed while writing, is dropped) and opens it for
// appending. It returns an error when a line before the last is not a
// row, and an EINVALID one when a row was written before recoverable FRR
// was measured (it retained targets it does not count as recoverable).
func OpenResults(dir string) (*Results, error) {
	path := filepath.Join(dir, ResultsFile)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("trajectory: %w", err)
	}
	r := &Results{done: map[Key]bool{}}
	lines := bytes.Split(data, []byte("\n"))
	good, pos := 0, 0 // the bytes of whole rows; the current line's offset
	for i, line := range lines {
		pos += len(line) + 1
		if len(bytes.TrimSpace(line)) == 0 {
			good = min(pos, len(data))
			continue
		}
		var row Row
		if err := json.Unmarshal(line, &row); err != nil {
			if i == len(lines)-1 {
				break // torn last line
			}
			return nil, swc.Errorf(swc.EINVALID, "trajectory: %s line %d: %v", path, i+1, err)
		}
		good = min(pos, len(data))
		if row.Recoverable < row.Retained {
			return nil, swc.Errorf(swc.EINVALID, "trajectory: %s line %d: %d targets retained but %d recoverable: the rows were made before recoverable FRR was measured; choose another --out or remove the directory", path, i+1, row.Retained, row.Recoverable)
		}
		if !r.done[row.Key()] {
			r.done[row.Key()] = true
			r.rows = append(r.rows, row)
		}
	}
	f, err := openAt(path, good)
	if err != nil {
		return nil, err
	}
	r.f, r.w = f, bufio.NewWriter(f)
	if good > 0 && data[good-1] != '\n' {
		r.w.WriteByte('\n') // a whole last row without its line break
	}
	return r, nil
}

// Len is the number of rows held.
func (r *Results) Len() int { return len(r.rows) }

// Done reports whether the row of k is held.
func (r *Results) Done(k Key) bool { return r.done[k] }

// Rows returns the rows held, in the order they were written.
func (r *Results) Rows() []Row { return r.rows }

// Write appends row as one line, written through to the file.
func (r *Results) Write(row Row) error {
	js, err := json.Marshal(row)
	if err != nil {
		return fmt.Errorf("trajectory: %w", err)
	}
	r.w.Write(js)
	r.w.WriteByte('\n')
	if err := r.w.Flush(); err != nil {
		return fmt.Errorf("trajectory: write %s: %w", ResultsFile, err)
	}
	r.done[row.Key()] = true
	r.rows = append(r.rows, row)
	return nil
}

// Close closes the file.
func (r *Results) Close() error { return flushClose(r.w, r.f) }

// flushClose flushes w and closes f, w's file.
func flushClose(w *bufio.Writer, f *os.File) error {
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// openAt opens path (and makes its directory) for writing from byte good
// on, the bytes after it cut off.
func openAt(path string, good int) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("trajectory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("trajectory: %w", err)
	}
	if err := f.Truncate(int64(good)); err == nil {
		_, err = f.Seek(int64(good), 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("trajectory: %w", err)
	}
	return f, nil
}
