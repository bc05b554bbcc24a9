package trajectory

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

func TestResultsResume(t *testing.T) {
	dir := t.TempDir()
	key := ResumeKey{DataSHA256: "abc", Tokenizer: "cl100k_base", Version: "test"}
	if err := CheckResume(dir, key); err != nil {
		t.Fatal(err)
	}
	run := func(conds ...Condition) (written int, all []Row) {
		res, err := OpenResults(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Close()
		r := &Runner{Trajectories: loadTiny(t), Conditions: conds, Budgets: []int{1, 100000}, Done: res.Done,
			Write: func(row Row) error { written++; return res.Write(row) }}
		if err := r.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		return written, res.Rows()
	}
	if n, rows := run(Truncation{}); n != 40 || len(rows) != 40 {
		t.Fatalf("first run wrote %d rows, holds %d; want 40", n, len(rows))
	}
	// a run killed while writing: the last row torn
	path := filepath.Join(dir, ResultsFile)
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	torn := strings.Join(lines[:len(lines)-1], "") + lines[len(lines)-1][:10]
	if err := os.WriteFile(path, []byte(torn), 0o644); err != nil {
		t.Fatal(err)
	}
	n, rows := run(Truncation{}, Mask{K: 1})
	if n != 41 || len(rows) != 80 {
		t.Fatalf("resumed run wrote %d rows, holds %d; want 41 (the torn one and mask-1's 40) and 80", n, len(rows))
	}
	var stable int
	for _, r := range rows {
		if r.Condition == "truncation" && r.Budget == 100000 && r.Stable != nil && *r.Stable {
			stable++
		}
	}
	if stable != 16 { // 4 pairs in each of the 4 formats, all within the budget: unchanged
		t.Errorf("%d stable truncation rows at 100000, want 16", stable)
	}
	if n, _ := run(Truncation{}, Mask{K: 1}); n != 0 {
		t.Errorf("a finished run wrote %d rows again", n)
	}
	data, _ = os.ReadFile(path)
	if got := strings.Count(string(data), "\n"); got != 80 {
		t.Errorf("results.jsonl has %d lines, want 80", got)
	}
	key.Version = "other"
	if err := CheckResume(dir, key); swc.ErrorCode(err) != swc.EINVALID {
		t.Errorf("another version: %v, want an EINVALID error", err)
	}
	// a row of a version before recoverable FRR: retained, not recoverable
	old := `{"trajectory":"t","format":"openai","budget":1,"condition":"swc","request":1,"targets":2,"retained":1}` + "\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenResults(dir); swc.ErrorCode(err) != swc.EINVALID || !strings.Contains(err.Error(), "recoverable") {
		t.Errorf("a row without recoverable: %v, want an EINVALID error saying so", err)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	tiny, _ := os.ReadFile("testdata/tiny.json")
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.json", string(tiny))
	write("b.json", `{"model":"m","system":"s","messages":[{"role":"user","content":"u"},{"role":"assistant","content":"a"},{"role":"user","content":"v"}]}`)
	trajs, hash, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(trajs) != 2 || trajs[0].Name != "tiny" || len(trajs[0].Bodies) != 2 || trajs[1].Name != "b" || trajs[1].Bodies[0].Format != "anthropic" || len(hash) != 64 {
		t.Fatalf("Load = %+v, %q", trajs, hash)
	}
	write("b2.json", `{"systemInstruction":{"parts":[{"text":"s"}]},"contents":[{"role":"user","parts":[{"text":"u"}]},{"role":"model","parts":[{"text":"a"}]}]}`)
	write("b3.json", `{"name":"g","gemini":{"contents":[{"role":"user","parts":[{"text":"u"}]},{"role":"model","parts":[{"text":"a"}]}]}}`)
	trajs, _, err = Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(trajs) != 4 || trajs[2].Name != "b2" || trajs[2].Bodies[0].Format != chat.Gemini || trajs[3].Name != "g" || len(trajs[3].Bodies) != 1 || trajs[3].Bodies[0].Format != chat.Gemini {
		t.Fatalf("Load = %+v, want b2 a plain Gemini body, g a trajectory file with one", trajs)
	}
	if _, err := NewReplay("b2", trajs[2].Bodies[0]); err != nil {
		t.Errorf("the plain Gemini body: %v", err)
	}
	write("c.json", `{"name":"x","openai":null,"anthropic":null}`)
	if _, _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "c.json") {
		t.Errorf("a trajectory without bodies: %v, want an error naming c.json", err)
	}
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "e.jsonl"), []byte(" \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(empty); err == nil || !strings.Contains(err.Error(), "e.jsonl: empty file") {
		t.Errorf("an empty file: %v, want an error naming it empty", err)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "l.jsonl.json"), []byte(`{"time":"2024-01-01T00:00:00Z","speaker":"a","text":"hi"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(other); err == nil || !strings.Contains(err.Error(), "replays openai, anthropic, responses and gemini request bodies") {
		t.Errorf("a body of another format: %v, want an error naming the formats replayed", err)
	}
	inter := t.TempDir()
	if err := os.WriteFile(filepath.Join(inter, "i.json"), []byte(`{"model":"gemini-3-flash-preview","input":[{"type":"user_input","content":[{"type":"text","text":"fix it"}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(inter); err == nil || !strings.Contains(err.Error(), "format interactions: the trajectory bench replays") {
		t.Errorf("an Interactions body: %v, want an error naming its format and the formats replayed", err)
	}
	if _, _, err := Load(t.TempDir()); swc.ErrorCode(err) != swc.ENOTFOUND || strings.Contains(err.Error(), "below it") {
		t.Errorf("an empty directory: %v, want ENOTFOUND", err)
	}
	sessions := t.TempDir() // Codex's sessions/YYYY/MM/DD
	day := filepath.Join(sessions, "2026", "12", "05")
	if err := os.MkdirAll(day, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(day, "rollout-x.jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(sessions); swc.ErrorCode(err) != swc.ENOTFOUND || !strings.Contains(err.Error(), "below it holds some, e.g. "+day) {
		t.Errorf("runs in a directory below: %v, want ENOTFOUND naming %s", err, day)
	}
}

// TestLoadSkipping: a file the bench cannot read (cut short, not JSON,
// of no format it replays) stops Load, naming it; LoadSkipping passes
// each to skip, naming it, and reads the rest, the skipped files still in
// the data's hash; with nothing left it is an error naming the first.
func TestLoadSkipping(t *testing.T) {
	dir := t.TempDir()
	tiny, _ := os.ReadFile("testdata/tiny.json")
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.json", string(tiny))
	write("cut.json", string(tiny[:len(tiny)/2]))
	write("notes.jsonl", "just some notes\n")
	if _, _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "cut.json") {
		t.Fatalf("Load: %v, want an error naming cut.json", err)
	}
	var skipped []string
	trajs, hash, err := LoadSkipping(dir, func(err error) { skipped = append(skipped, err.Error()) })
	if err != nil {
		t.Fatal(err)
	}
	if len(trajs) != 1 || trajs[0].Name != "tiny" {
		t.Errorf("read %+v, want tiny alone", trajs)
	}
	if len(skipped) != 2 || !strings.Contains(skipped[0], "cut.json") || !strings.Contains(skipped[1], "notes.jsonl") {
		t.Errorf("skipped %q, want cut.json and notes.jsonl named", skipped)
	}
	write("notes.jsonl", "other notes\n")
	if _, hash2, _ := LoadSkipping(dir, func(error) {}); hash2 == hash {
		t.Error("a skipped file changed, the data's hash did not")
	}
	os.Remove(filepath.Join(dir, "a.json"))
	_, _, err = LoadSkipping(dir, func(error) {})
	if swc.ErrorCode(err) != swc.EINVALID || !strings.Contains(err.Error(), "no file of") || !strings.Contains(err.Error(), "cut.json") {
		t.Errorf("nothing readable: %v, want EINVALID naming the first file", err)
	}
}
