package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress draws "done/total unit, rate, ETA" on a terminal; it is silent
// when the writer is not one. After the last step it shows what happens
// next (step) and is cleared before results are printed (clear).
type progress struct {
	w     io.Writer
	on    bool
	now   func() time.Time
	start time.Time
	mu    sync.Mutex
	last  time.Time
	label string
	unit  string
	drawn bool
}

func newProgress(w io.Writer, tty bool, label, unit string, now func() time.Time) *progress {
	return &progress{w: w, on: tty, now: now, start: now(), label: label, unit: unit}
}

// eraseLine returns the cursor to the start of the line and clears it.
const eraseLine = "\r\x1b[K"

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
	fmt.Fprint(p.w, eraseLine+renderBar(p.label, p.unit, done, total, t.Sub(p.start)))
	p.drawn = true
}

// step replaces the bar by a message saying what the program does now
// ("summarising and writing reports…"), so that it does not look frozen
// at 100%.
func (p *progress) step(msg string) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprint(p.w, eraseLine+p.label+": "+msg)
	p.drawn = true
}

// clear erases the bar or step line, leaving the terminal as it was.
func (p *progress) clear() {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, eraseLine)
		p.drawn = false
	}
}

// renderBar formats one progress line.
func renderBar(label, unit string, done, total int, elapsed time.Duration) string {
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
	return fmt.Sprintf("%s [%s] %d/%d %s  %.0f/s  ETA %s ", label, bar, done, total, unit, rate, eta)
}
