package trajectory

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swcmem/swc"
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
	if n, rows := run(Truncation{}); n != 30 || len(rows) != 30 {
		t.Fatalf("first run wrote %d rows, holds %d; want 30", n, len(rows))
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
	if n != 31 || len(rows) != 60 {
		t.Fatalf("resumed run wrote %d rows, holds %d; want 31 (the torn one and mask-1's 30) and 60", n, len(rows))
	}
	var stable int
	for _, r := range rows {
		if r.Condition == "truncation" && r.Budget == 100000 && r.Stable != nil && *r.Stable {
			stable++
		}
	}
	if stable != 12 { // 4 pairs in each format, all within the budget: unchanged
		t.Errorf("%d stable truncation rows at 100000, want 12", stable)
	}
	if n, _ := run(Truncation{}, Mask{K: 1}); n != 0 {
		t.Errorf("a finished run wrote %d rows again", n)
	}
	data, _ = os.ReadFile(path)
	if got := strings.Count(string(data), "\n"); got != 60 {
		t.Errorf("results.jsonl has %d lines, want 60", got)
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
	write("c.json", `{"name":"x","openai":null,"anthropic":null}`)
	if _, _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "c.json") {
		t.Errorf("a trajectory without bodies: %v, want an error naming c.json", err)
	}
	if _, _, err := Load(t.TempDir()); swc.ErrorCode(err) != swc.ENOTFOUND {
		t.Errorf("an empty directory: %v, want ENOTFOUND", err)
	}
}
