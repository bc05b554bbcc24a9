package tokens

import (
	"os"
	"os/exec"
	"testing"

	"github.com/swcmem/swc"
)

// TestLazyLoad runs this test binary again with only this test, so that
// nothing else has counted tokens, and checks that the vocabulary is not
// loaded at program start but on the first Count.
func TestLazyLoad(t *testing.T) {
	if os.Getenv("SWC_TOKENS_LAZY_CHILD") == "1" {
		if n := loads.Load(); n != 0 {
			t.Fatalf("vocabulary loaded %d times before any count: package init loads the tokenizer", n)
		}
		Count("hello")
		if n := loads.Load(); n != 1 {
			t.Fatalf("vocabulary loaded %d times after counting, want 1", n)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLazyLoad$", "-test.count=1")
	cmd.Env = append(os.Environ(), "SWC_TOKENS_LAZY_CHILD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func TestSeparator(t *testing.T) {
	if got := Count(swc.BlockSeparator); got != Separator {
		t.Errorf("Count(%q) = %d, but Separator = %d", swc.BlockSeparator, got, Separator)
	}
	if got := Count("\n"); got != newline {
		t.Errorf("Count(%q) = %d, but newline = %d", "\n", got, newline)
	}
}
