package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tinyRealTalk is a directory of one REALTALK-shaped conversation written
// for the tests.
var tinyRealTalk = filepath.Join("..", "..", "realtalk", "testdata")

// TestBenchRealTalk: bench reads REALTALK as its authors ship it — a
// directory of conversation files, or one of them — by shape; a
// directory holding anything else is an error naming the file, and a
// rerun over the same directory resumes (the data's identity is its
// files').
func TestBenchRealTalk(t *testing.T) {
	dir := t.TempDir()
	for _, data := range []string{tinyRealTalk, filepath.Join(tinyRealTalk, "Chat_1_Mara_Theo.json")} {
		out := t.TempDir()
		_, stderr, err := run(t, nil, "bench", "--data", data, "--conditions", "truncation,swc-recall", "--out", out, "--resamples", "200")
		if err != nil {
			t.Fatalf("%s: %v: %s", data, err, stderr)
		}
		s := readSummary(t, out)
		if s.Matched.N != 3 || len(s.Conditions["swc-recall"].Categories) == 0 {
			t.Errorf("%s: matched %+v, conditions %v", data, s.Matched, s.Conditions)
		}
		if data == tinyRealTalk {
			dir = out
		}
	}
	_, stderr, err := run(t, nil, "bench", "--data", tinyRealTalk, "--conditions", "truncation,swc-recall", "--out", dir, "--resamples", "200")
	if err != nil || !strings.Contains(stderr, "resum") {
		t.Errorf("rerun: %v, stderr %q: want a resumed run", err, stderr)
	}
	mixed := t.TempDir()
	b, err := os.ReadFile(filepath.Join(tinyRealTalk, "Chat_1_Mara_Theo.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"Chat_1.json": b, "notes.json": []byte(`{"x": 1}`)} {
		if err := os.WriteFile(filepath.Join(mixed, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := run(t, nil, "bench", "--data", mixed, "--out", t.TempDir()); err == nil || !strings.Contains(err.Error(), "notes.json: not a REALTALK conversation") {
		t.Errorf("a directory with another file: error %v", err)
	}
	if _, _, err := run(t, nil, "bench", "--data", t.TempDir(), "--out", t.TempDir()); err == nil || !strings.Contains(err.Error(), "without *.json files") {
		t.Errorf("an empty directory: error %v", err)
	}
}
