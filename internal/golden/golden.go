// Package golden compares test output with golden files and rewrites them
// when the test binary runs with -update: the one golden-file helper of
// the project's tests.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files the tests compare with")

// Check compares got with the file at path (relative to the package
// directory, e.g. testdata/x.golden). Under -update it writes got there
// first (creating the directory). A difference fails t, naming the file
// and how to accept the new output.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run go test -run '%s' -update and review the diff)\n--- got\n%s\n--- want\n%s", path, t.Name(), got, want)
	}
}
