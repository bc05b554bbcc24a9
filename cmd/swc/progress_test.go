package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestRenderBar(t *testing.T) {
	got := renderBar("bench", "questions", 50, 200, 10*time.Second)
	for _, want := range []string{"bench [=======", "50/200 questions", "5/s", "ETA 30s"} {
		if !strings.Contains(got, want) {
			t.Errorf("bar %q lacks %q", got, want)
		}
	}
	if got := renderBar("x", "questions", 0, 10, 0); !strings.Contains(got, "ETA ?") {
		t.Errorf("bar at start %q", got)
	}
}

func TestProgressSilentOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	clock := time.Unix(0, 0)
	p := newProgress(&buf, false, "bench", "questions", func() time.Time { return clock })
	p.update(5, 10)
	p.update(10, 10)
	p.step("summarising")
	p.clear()
	if buf.Len() != 0 {
		t.Errorf("progress wrote %q to a non-terminal", buf.String())
	}
}

// TestProgressStepAndClear: at 100% the bar gives way to the final step,
// and clear leaves an empty line for the result table.
func TestProgressStepAndClear(t *testing.T) {
	var buf bytes.Buffer
	clock := time.Unix(0, 0)
	p := newProgress(&buf, true, "bench", "questions", func() time.Time { clock = clock.Add(time.Second); return clock })
	p.update(5, 10)
	p.update(10, 10)
	p.step("summarising and writing reports…")
	p.clear()
	out := buf.String()
	for _, want := range []string{"10/10 questions", eraseLine + "bench: summarising and writing reports…"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress wrote %q, lacks %q", out, want)
		}
	}
	if !strings.HasSuffix(out, eraseLine) || strings.Contains(out, "\n") {
		t.Errorf("progress did not end cleared on its own line: %q", out)
	}
}
