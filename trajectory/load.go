package trajectory

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// A Trajectory is one agent run: its request bodies, one per format it
// comes in, each holding the whole run.
type Trajectory struct {
	Name   string
	Agent  string
	Bodies []Body
}

// A Body is a request body of one format.
type Body struct {
	Format chat.Format
	Data   []byte
}

// wrapperFormats are the fields of a trajectory file ({"name", "agent",
// "source", "license", "openai", "anthropic", "responses", "gemini"}) that
// hold a request body, and their formats, in the order the bench runs
// them.
var wrapperFormats = []struct {
	key    string
	format chat.Format
}{
	{"openai", chat.OpenAI},
	{"anthropic", chat.Anthropic},
	{"responses", chat.Responses},
	{"gemini", chat.Gemini},
}

// Load reads every *.json, *.traj and *.jsonl file of dir, in name
// order: a trajectory file (an object
// with "openai", "anthropic", "responses" and/or "gemini" request bodies;
// a null one is absent), a plain request body (Chat Completions,
// Messages, Responses or Gemini's generateContent, told apart by their
// fields; the trajectory is named after the file), SWE-agent's own
// trajectory file (its "history", read in both Chat Completions and
// Messages form: sweagent.go), a Claude Code session transcript (its
// conversation as a Messages body: claudecode.go), a Codex CLI session
// rollout (its last request as a Responses body: codex.go) or a Gemini
// CLI session record (its last request as a Gemini API body:
// geminicli.go); and every *.db file, an opencode database (each of its
// sessions a trajectory: opencode.go). It also returns the SHA-256 of
// the files' names and bytes, so that a resumed run can tell whether the
// data changed. It returns an EINVALID error naming the file for one that
// is neither, or for a body in a format the bench does not replay.
func Load(dir string) ([]Trajectory, string, error) { return LoadSkipping(dir, nil) }

// LoadSkipping is Load, but a file Load would fail on (not JSON, cut
// short, of no format the bench reads) is passed to skip, its error
// naming it, and the others are read: a directory of an agent's sessions
// may hold one being written, or one of another program's. The hash
// covers the skipped files too. It returns an EINVALID error when every
// file is skipped, naming the first; skip nil is Load.
func LoadSkipping(dir string, skip func(err error)) ([]Trajectory, string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, "", fmt.Errorf("trajectory: %w", err)
	}
	for _, ext := range []string{"*.traj", "*.jsonl", "*.db"} {
		more, err := filepath.Glob(filepath.Join(dir, ext))
		if err != nil {
			return nil, "", fmt.Errorf("trajectory: %w", err)
		}
		paths = append(paths, more...)
	}
	if len(paths) == 0 {
		msg := fmt.Sprintf("trajectory: no *.json, *.traj, *.jsonl or *.db files in %s", dir)
		if sub := nestedRuns(dir); sub != "" {
			msg += fmt.Sprintf(" (a directory below it holds some, e.g. %s: point --trajectories at the directory of the runs, as Codex keeps a day's sessions in sessions/YYYY/MM/DD)", sub)
		}
		return nil, "", swc.Errorf(swc.ENOTFOUND, "%s", msg)
	}
	sort.Strings(paths)
	h := sha256.New()
	var out []Trajectory
	var first error // the first file skipped
	bad := func(err error) error {
		if skip == nil {
			return err
		}
		if first == nil {
			first = err
		}
		skip(err)
		return nil
	}
	for _, p := range paths {
		if filepath.Ext(p) == ".db" {
			// A database is hashed as it is read, not held: a heavy
			// user's runs to hundreds of megabytes.
			if err := hashFile(h, filepath.Base(p), p); err != nil {
				return nil, "", fmt.Errorf("trajectory: %w", err)
			}
			ts, err := loadOpencode(p, h)
			if err != nil {
				if err := bad(swc.Errorf(swc.EINVALID, "trajectory: %s: %s", p, swc.ErrorMessage(err))); err != nil {
					return nil, "", err
				}
				continue
			}
			out = append(out, ts...)
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			if err := bad(fmt.Errorf("trajectory: %w", err)); err != nil {
				return nil, "", err
			}
			continue
		}
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.Base(p), len(data))
		h.Write(data)
		t, err := parseFile(strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)), data)
		if err != nil {
			if err := bad(swc.Errorf(swc.EINVALID, "trajectory: %s: %s", p, swc.ErrorMessage(err))); err != nil {
				return nil, "", err
			}
			continue
		}
		out = append(out, t)
	}
	if len(out) == 0 && first != nil {
		return nil, "", swc.Errorf(swc.EINVALID, "trajectory: no file of %s could be read (the first: %s)", dir, strings.TrimPrefix(swc.ErrorMessage(first), "trajectory: "))
	}
	return out, hex.EncodeToString(h.Sum(nil)), nil
}

// loadOpencode reads the opencode database at path (its -wal file, when
// there is one, is part of it and of h, the data's hash).
func loadOpencode(path string, h io.Writer) ([]Trajectory, error) {
	if err := hashFile(h, "-wal", path+"-wal"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("its -wal file: %v", err)
	}
	db, err := openReadOnly(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if !isOpencode(db) {
		return nil, fmt.Errorf("not an opencode database (no session, message and part tables)")
	}
	ts, err := opencodeSessions(context.Background(), db)
	if err != nil {
		return nil, fmt.Errorf("an opencode database: %v", err)
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("an opencode database with no session the model answered")
	}
	return ts, nil
}

// hashFile writes to h name, the size of the file at path and its bytes,
// streamed: what writing name, the length and the data read whole would.
func hashFile(h io.Writer, name, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "%s\x00%d\x00", name, st.Size())
	n, err := io.Copy(h, f)
	if err == nil && n != st.Size() {
		err = fmt.Errorf("%s changed while it was read (%d bytes, then %d)", path, st.Size(), n)
	}
	return err
}

// nestedRuns returns the first directory below dir, in walk order, that
// holds a *.json, *.traj or *.jsonl file, or "" (none within 10,000
// entries).
func nestedRuns(dir string) string {
	found, seen := "", 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if seen++; err != nil || found != "" || seen > 10000 {
			return filepath.SkipAll
		}
		if !d.IsDir() && filepath.Dir(p) != filepath.Clean(dir) {
			switch filepath.Ext(p) {
			case ".json", ".traj", ".jsonl", ".db":
				found = filepath.Dir(p)
				return filepath.SkipAll
			}
		}
		return nil
	})
	return found
}

// parseFile reads one file: a trajectory wrapper or a plain request body.
func parseFile(name string, data []byte) (Trajectory, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return Trajectory{Name: name}, errors.New("empty file")
	}
	if isClaudeCode(data) {
		body, err := claudeCodeBody(data)
		if errors.Is(err, errNoMessages) {
			body, err = []byte(`{"messages":[]}`), nil
		}
		if err != nil {
			return Trajectory{Name: name}, fmt.Errorf("a Claude Code transcript: %v", err)
		}
		return Trajectory{Name: name, Agent: "Claude Code", Bodies: []Body{{Format: chat.Anthropic, Data: body}}}, nil
	}
	if isCodex(data) {
		body, err := codexBody(data)
		if err != nil {
			return Trajectory{Name: name}, fmt.Errorf("a Codex rollout: %v", err)
		}
		return Trajectory{Name: name, Agent: "Codex", Bodies: []Body{{Format: chat.Responses, Data: body}}}, nil
	}
	if ok, whole := isGeminiCLI(data); ok {
		body, err := geminiCLIBody(data, whole)
		if err != nil {
			return Trajectory{Name: name}, fmt.Errorf("a Gemini CLI session: %v", err)
		}
		return Trajectory{Name: name, Agent: "Gemini CLI", Bodies: []Body{{Format: chat.Gemini, Data: body}}}, nil
	}
	o, err := decodeObject(data)
	if err != nil {
		return Trajectory{}, fmt.Errorf("want a JSON object (a trajectory or a request body): %v", err)
	}
	t := Trajectory{Name: name}
	if isSWEAgent(o) {
		oa, an, err := sweAgentBodies(o)
		if err != nil {
			return t, fmt.Errorf("a SWE-agent trajectory: %v", err)
		}
		t.Agent = "SWE-agent"
		t.Bodies = []Body{{Format: chat.OpenAI, Data: oa}, {Format: chat.Anthropic, Data: an}}
		return t, nil
	}
	if isWrapper(o) {
		var meta struct{ Name, Agent string }
		_ = json.Unmarshal(data, &meta)
		if meta.Name != "" {
			t.Name = meta.Name
		}
		t.Agent = meta.Agent
		for _, w := range wrapperFormats {
			raw := bytes.TrimSpace(o[w.key])
			if len(raw) == 0 || string(raw) == "null" {
				continue
			}
			t.Bodies = append(t.Bodies, Body{Format: w.format, Data: raw})
		}
		if len(t.Bodies) == 0 {
			return t, fmt.Errorf("a trajectory file with no request body")
		}
		return t, nil
	}
	f, err := chat.Detect(data) // an Interactions body is told from a Responses one, and refused below
	if err != nil {
		return t, err
	}
	if _, err := codecOf(f); err != nil {
		return t, err
	}
	t.Bodies = []Body{{Format: f, Data: bytes.TrimSpace(data)}}
	return t, nil
}

// isWrapper reports whether o is a trajectory file rather than a request
// body: no message list of its own, and a body under a format's name.
func isWrapper(o object) bool {
	if _, ok := o["messages"]; ok {
		return false
	}
	if _, ok := o["input"]; ok {
		return false
	}
	if _, ok := o["contents"]; ok {
		return false
	}
	for _, w := range wrapperFormats {
		if _, ok := o[w.key]; ok {
			return true
		}
	}
	return false
}
