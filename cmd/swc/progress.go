package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress draws "done/total, rate, ETA" on a terminal; it is silent when
// the writer is not one.
type progress struct {
	w     io.Writer
	on    bool
	now   func() time.Time
	start time.Time
	mu    sync.Mutex
	last  time.Time
	label string
}

func newProgress(w io.Writer, tty bool, label string, now func() time.Time) *progress {
	return &progress{w: w, on: tty, now: now, start: now(), label: label}
}

// update redraws the bar, at most ten times a second and always at the end.
func (p *progress) update(done, total int) {
	if !p.on || total <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.now()
	if done < total && t.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = t
	fmt.Fprint(p.w, "\r"+renderBar(p.label, done, total, t.Sub(p.start)))
	if done >= total {
		fmt.Fprintln(p.w)
	}
}

// renderBar formats one progress line.
func renderBar(label string, done, total int, elapsed time.Duration) string {
	const width = 30
	filled := done * width / max(total, 1)
	bar := strings.Repeat("=", filled) + strings.Repeat(" ", width-filled)
	rate := 0.0
	if elapsed > 0 {
		rate = float64(done) / elapsed.Seconds()
	}
	eta := "?"
	if rate > 0 {
		eta = time.Duration(float64(total-done) / rate * float64(time.Second)).Round(time.Second).String()
	}
	return fmt.Sprintf("%s [%s] %d/%d  %.0f/s  ETA %s ", label, bar, done, total, rate, eta)
}
