package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestRenderBar(t *testing.T) {
	got := renderBar("bench", 50, 200, 10*time.Second)
	for _, want := range []string{"bench [=======", "50/200", "5/s", "ETA 30s"} {
		if !strings.Contains(got, want) {
			t.Errorf("bar %q lacks %q", got, want)
		}
	}
	if got := renderBar("x", 0, 10, 0); !strings.Contains(got, "ETA ?") {
		t.Errorf("bar at start %q", got)
	}
}

func TestProgressSilentOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	clock := time.Unix(0, 0)
	p := newProgress(&buf, false, "bench", func() time.Time { return clock })
	p.update(5, 10)
	p.update(10, 10)
	if buf.Len() != 0 {
		t.Errorf("progress wrote %q to a non-terminal", buf.String())
	}
	p = newProgress(&buf, true, "bench", func() time.Time { clock = clock.Add(time.Second); return clock })
	p.update(5, 10)
	p.update(10, 10)
	if !strings.Contains(buf.String(), "10/10") || !strings.HasSuffix(buf.String(), "\n") {
		t.Errorf("progress on a terminal wrote %q", buf.String())
	}
}
