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
	"github.com/swcmem/swc/locomo"
)

// Path returns where locomo10.json is expected: shared/data/locomo beside
// the repository's directory.
func Path() string {
	_, file, _, _ := runtime.Caller(0) // …/internal/locomotest/locomotest.go
	root := filepath.Dir(filepath.Dir(filepath.Dir(file)))
	return filepath.Join(root, "..", "shared", "data", "locomo", "locomo10.json")
}

// Load returns the LoCoMo conversations, or the locomo package's built-in
// sample when the file is absent and CI is not "true" (in CI the data must
// be there: Load fails the test).
func Load(tb testing.TB) []*swc.Conversation {
	tb.Helper()
	convs, _, err := locomo.LoadFile(Path())
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("LoCoMo data: %v", err)
		}
		tb.Logf("LoCoMo data not found at %s, using the built-in sample (put locomo10.json there to run on it): %v", Path(), err)
		if convs, err = locomo.Sample(); err != nil {
			tb.Fatal(err)
		}
	}
	return convs
}
