// Package locomotest gives tests the LoCoMo data set, which lives beside
// the checkout (../shared/data/locomo/locomo10.json) and is never copied
// into it.
package locomotest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/internal/skipnote"
	"github.com/swcmem/swc/locomo"
)

// Path returns where locomo10.json is expected: shared/data/locomo beside
// the repository's directory.
func Path() string {
	_, file, _, _ := runtime.Caller(0) // …/internal/locomotest/locomotest.go
	root := filepath.Dir(filepath.Dir(filepath.Dir(file)))
	return filepath.Join(filepath.Dir(root), "shared", "data", "locomo", "locomo10.json")
}

// Missing is the note of a run without the file: what happens and how to
// get it.
func Missing() string {
	return "not found at " + Path() + ", so the tests that need it skip or run on the built-in sample; " +
		"get it with: curl -fL --create-dirs -o " + Path() + " " + URL
}

// URL is where LoCoMo's file is published.
const URL = "https://raw.githubusercontent.com/snap-research/locomo/main/data/locomo10.json"

// Need returns Path, or, when the file is absent, fails tb in CI (CI=true)
// and skips it elsewhere, saying so also without -v (skipnote).
func Need(tb testing.TB) string {
	tb.Helper()
	if _, err := os.Stat(Path()); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("LoCoMo data: %v", err)
		}
		skipnote.Skip(tb, "LoCoMo", Missing())
	}
	return Path()
}

// Wide skips tb under -short: it is a test over the whole of LoCoMo.
// Otherwise it returns Need(tb).
func Wide(tb testing.TB) string {
	tb.Helper()
	if testing.Short() {
		tb.Skip("LoCoMo-wide: runs without -short")
	}
	return Need(tb)
}

// Load returns the LoCoMo conversations, or the locomo package's built-in
// sample under -short, or when the file is absent and CI is not "true" (in
// CI the data must be there: Load fails the test).
func Load(tb testing.TB) []*swc.Conversation {
	tb.Helper()
	if testing.Short() {
		tb.Log("-short: the built-in sample instead of LoCoMo")
		return sample(tb)
	}
	convs, _, err := locomo.LoadFile(Path())
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("LoCoMo data: %v", err)
		}
		skipnote.Note("LoCoMo", Missing())
		tb.Logf("LoCoMo data not found at %s, using the built-in sample: %v", Path(), err)
		return sample(tb)
	}
	return convs
}

func sample(tb testing.TB) []*swc.Conversation {
	tb.Helper()
	convs, err := locomo.Sample()
	if err != nil {
		tb.Fatal(err)
	}
	return convs
}
