package skipnote

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNoteOncePerComponentAndRun: a component is noted once by the first
// test binary of a run; a second binary of the same run (the marker file
// made) stays quiet.
func TestNoteOncePerComponentAndRun(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	out := filepath.Join(t.TempDir(), "stderr")
	defer func(f func() *os.File) { stderr = f }(stderr)
	stderr = func() *os.File {
		f, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	note("Chromium", "not on PATH")
	note("Chromium", "not on PATH")
	note("Postgres", "SWC_TEST_POSTGRES is not set")
	mu.Lock()
	noted = map[string]bool{} // as in another package's test binary
	mu.Unlock()
	note("Postgres", "SWC_TEST_POSTGRES is not set")
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := "swc tests: Chromium: not on PATH (-v lists the tests)\n" +
		"swc tests: Postgres: SWC_TEST_POSTGRES is not set (-v lists the tests)\n"
	if string(b) != want {
		t.Errorf("notes:\n%s\nwant:\n%s", b, want)
	}
}
