// Package chromiumtest starts a headless Chromium for browser tests through
// chromedp, the same way for every package that has one.
package chromiumtest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/swcmem/swc/internal/skipnote"
)

// Timeout bounds everything a test does in the browser returned by New.
const Timeout = 60 * time.Second

// Path returns Debian's chromium (or another Chrome) binary. Without one it
// fails the test in CI (CI=true; .ci/run installs it) and skips it
// elsewhere, saying how to run it (also without -v: skipnote); it then
// returns "". Under -short it skips the test: a browser test takes seconds.
func Path(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("a browser test: runs without -short")
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium on PATH: .ci/run must install Debian's chromium")
	}
	skipnote.Skip(t, "Chromium", "not on PATH, so the browser tests skip; `apt-get install chromium` (Debian) runs them")
	return ""
}

// New returns a chromedp context for a fresh headless Chromium with a
// width×height window, its own user-data-dir and TMPDIR in t.TempDir()
// (Chromium leaves its singleton socket's directory in TMPDIR) and a
// Timeout deadline. The browser is closed when the test and its later-registered
// cleanups end. Without Chromium the test is skipped or failed, as Path.
func New(t testing.TB, width, height int) context.Context {
	t.Helper()
	bin := Path(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Env("TMPDIR=" + t.TempDir()),
		chromedp.WindowSize(width, height),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(cancelCtx)
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	t.Cleanup(cancel)
	return ctx
}
