// Package skipnote makes a test's reason for skipping visible without -v.
//
// `go test ./...` prints nothing of a passing package but its "ok" line: a
// test skipped because a component is missing (Chromium, Postgres, the
// LoCoMo data) would say why only under -v. Skip writes one line per
// component and `go test` run, "swc tests: …", to the go command's own
// standard error when that is a terminal or a pipe (Linux:
// /proc/PPID/fd/2), else to the terminal (/dev/tty); the go command does
// not buffer it. The first test binary of a run to skip for a component
// writes the line; the others stay quiet.
//
// Under -v (and -json, which implies it) the skip messages are shown
// anyway, so Skip adds nothing. A result go test replays from its cache
// ("(cached)") prints no line; -count=1 runs the tests again. A stderr
// redirected to a file gets no line (see parentStderr).
package skipnote

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	mu    sync.Mutex
	noted = map[string]bool{}
	// stderr opens where notes go (replaced in tests).
	stderr = parentStderr
)

// Skip notes (see Note) and skips tb with "component: reason".
func Skip(tb testing.TB, component, reason string) {
	tb.Helper()
	Note(component, reason)
	tb.Skipf("%s: %s", component, reason)
}

// Note writes "swc tests: component: reason" to the go command's standard
// error once per component and test run, unless the run is verbose. It is
// for a test that goes on without the component (with a stand-in) as much
// as for one that skips. Failing to write is silent: the note is a
// courtesy, the skip message stays in -v's output.
func Note(component, reason string) {
	if !testing.Verbose() {
		note(component, reason)
	}
}

func note(component, reason string) {
	mu.Lock()
	defer mu.Unlock()
	if noted[component] {
		return
	}
	noted[component] = true
	if !firstInRun(component) {
		return
	}
	w := stderr()
	if w == nil {
		return
	}
	defer w.Close()
	fmt.Fprintf(w, "swc tests: %s: %s (-v lists the tests)\n", component, reason)
}

// parentStderr opens the standard error of the process that started the
// test binary (the go command) when it is a terminal, a pipe or a socket,
// else the terminal; nil when neither opens. A stderr redirected to a
// regular file is passed over: the go command writes it at an offset of
// its own, which would write over a line added from another process.
func parentStderr() *os.File {
	for _, name := range []string{fmt.Sprintf("/proc/%d/fd/2", os.Getppid()), "/dev/tty"} {
		if info, err := os.Stat(name); err != nil || info.Mode().IsRegular() {
			continue
		}
		if f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0); err == nil {
			return f
		}
	}
	return nil
}

// firstInRun reports whether no other test binary of this go command (the
// parent process: its pid and start time) has noted component yet, by
// creating a marker file in the temporary directory. Markers older than a
// day are removed. Without a marker directory every binary notes.
func firstInRun(component string) bool {
	dir := filepath.Join(os.TempDir(), "swc-skipnote")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return true
	}
	run := fmt.Sprint(os.Getppid())
	if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", os.Getppid())); err == nil {
		// Field 22 is the start time: pids are reused, (pid, start) is not.
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 {
			if f := strings.Fields(string(stat)[i+1:]); len(f) > 19 {
				run += "-" + f[19]
			}
		}
	}
	if old, err := os.ReadDir(dir); err == nil {
		for _, e := range old {
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > 24*time.Hour {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, run+"-"+strings.ReplaceAll(component, "/", "_")), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return !os.IsExist(err) // exists: noted already; another error: note anyway
	}
	f.Close()
	return true
}
