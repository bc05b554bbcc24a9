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
	"slices"
	"strconv"
	"strings"

	"github.com/swcmem/swc"
)

// BodiesFile is the name of the file of the requests as each condition
// sent them (swc bench --trajectories --save-contexts).
const BodiesFile = "requests.jsonl"

// A SentBody is one line of BodiesFile: a row's key and the request body
// its condition sent, compacted to one line, or the refusal.
type SentBody struct {
	Trajectory string          `json:"trajectory"`
	Format     string          `json:"format"`
	Budget     int             `json:"budget"`
	Condition  string          `json:"condition"`
	Request    int             `json:"request"`
	Refused    string          `json:"refused,omitempty"`
	Body       json.RawMessage `json:"body,omitempty"`
}

// Bodies is an output directory's BodiesFile, open for appending.
type Bodies struct {
	f *os.File
	w *bufio.Writer
}

// OpenBodies opens dir's BodiesFile for appending, a torn last line (from
// a run killed while writing) cut off.
func OpenBodies(dir string) (*Bodies, error) {
	path := filepath.Join(dir, BodiesFile)
	good, err := lastLineEnd(path)
	if err != nil {
		return nil, err
	}
	f, err := openAt(path, good)
	if err != nil {
		return nil, err
	}
	return &Bodies{f: f, w: bufio.NewWriter(f)}, nil
}

// lastLineEnd returns the offset after the last line break of path (0
// when it has none or does not exist), reading it from its end a block at
// a time: a file of bodies may be gigabytes.
func lastLineEnd(path string) (int, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("trajectory: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("trajectory: %w", err)
	}
	buf := make([]byte, 64<<10)
	for end := st.Size(); end > 0; {
		start := max(end-int64(len(buf)), 0)
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && n < int(end-start) {
			return 0, fmt.Errorf("trajectory: %w", err)
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return int(start) + i + 1, nil
		}
		end = start
	}
	return 0, nil
}

// Write appends the body row's condition sent (nil for a refusal) as one
// line, written through to the file.
func (b *Bodies) Write(row Row, body []byte) error {
	line := SentBody{Trajectory: row.Trajectory, Format: row.Format, Budget: row.Budget, Condition: row.Condition, Request: row.Request, Refused: row.Refused}
	if row.Refused == "" {
		var buf bytes.Buffer
		if err := json.Compact(&buf, body); err != nil {
			return fmt.Errorf("trajectory: %s request %d under %s: the body sent is no JSON: %w", row.Trajectory, row.Request, row.Condition, err)
		}
		line.Body = buf.Bytes()
	}
	enc := json.NewEncoder(b.w) // one line, its newline; the body's bytes unescaped
	enc.SetEscapeHTML(false)
	if err := enc.Encode(line); err != nil {
		return fmt.Errorf("trajectory: %w", err)
	}
	if err := b.w.Flush(); err != nil {
		return fmt.Errorf("trajectory: write %s: %w", BodiesFile, err)
	}
	return nil
}

// Close closes the file.
func (b *Bodies) Close() error { return flushClose(b.w, b.f) }

// Pick returns the trajectories names lists (comma-separated names or
// positions from 0, in the order given, each once), or all of them when
// names is empty; an ENOTFOUND error names one it does not find, an
// EINVALID one a list of commas and blanks.
func Pick(trajs []Trajectory, names string) ([]Trajectory, error) {
	if strings.TrimSpace(names) == "" {
		return trajs, nil
	}
	var out []Trajectory
	var seen []int
	for name := range strings.SplitSeq(names, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		i := slices.IndexFunc(trajs, func(t Trajectory) bool { return t.Name == name })
		if n, err := strconv.Atoi(name); i < 0 && err == nil && strconv.Itoa(n) == name && n >= 0 && n < len(trajs) {
			i = n
		}
		if i < 0 {
			var known []string
			for _, t := range trajs[:min(len(trajs), pickListed)] {
				known = append(known, t.Name)
			}
			if len(trajs) > pickListed {
				known = append(known, fmt.Sprintf("… %d more", len(trajs)-pickListed))
			}
			return nil, swc.Errorf(swc.ENOTFOUND, "trajectory: no trajectory %q (have, by name or position 0–%d: %s)", name, len(trajs)-1, strings.Join(known, ", "))
		}
		if !slices.Contains(seen, i) {
			seen = append(seen, i)
			out = append(out, trajs[i])
		}
	}
	if len(out) == 0 {
		return nil, swc.Errorf(swc.EINVALID, "trajectory: %q names no trajectory", names)
	}
	return out, nil
}

// pickListed is how many names Pick's error lists.
const pickListed = 20
