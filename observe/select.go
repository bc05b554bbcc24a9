package observe

import (
	"math"
	"strings"

	"github.com/swcmem/swc/tokens"
)

// maxLineBytes bounds a kept line: a longer one is cut around its most
// valuable identifier. 80 is the width source code keeps to (PEP 8's 79,
// most style guides' 80), so a code line is kept whole and what runs
// past it — a log line's payload, a long string, a data row — gives way
// to one more line: over the shared trajectories, with Focus and
// MinValue 0.05, stubs keep 53.6% of forward uses against 50.7% at 120
// bytes (three trajectories better, none worse; TestTrajectories).
const maxLineBytes = 80

// Value of what a line holds (see Stub). An identifier not Known weighs
// its kind's weight times 1+ln(the number of lines holding it) (a name the
// output repeats is central to it); a Focus identifier not Known weighs
// focusWeight times the same, a Known one knownFocusWeight. An
// identifier's weight counts in the first chosen line that holds it; a
// line's bonuses count in full while it brings an identifier not yet
// kept, a quarter of them after.
var kindWeight = [...]float64{kindNumber: 0.5, kindName: 2, kindDotted: 1.5, kindPath: 1.5, kindRef: 0.5}

const (
	focusWeight = 3.0 // a Focus identifier the request lacks
	// knownFocusWeight is a Focus identifier the request already holds
	// (the task's, a kept call's): a hint of what the loop works on, worth
	// a little as context but nothing as a reference — the request has
	// it. At focusWeight such lines filled a third of the stubs of the
	// shared trajectories (see docs/benchmark.md, "Stubs of old
	// observations").
	knownFocusWeight = 0.25
	headBonus        = 8.0  // an error's headline: an exception raised, a failing test, "error:"
	errorBonus       = 4.0  // another diagnostic line: a traceback's frame, pytest's "E" lines
	defBonus         = 1.5  // a definition: def, class, func, …
	lineBonus        = 0.05 // any non-blank line: fills what the budget leaves
)

// line is a candidate for the stub: an output line, or a piece of a
// very long one.
type line struct {
	text   string  // as printed (cut when long)
	src    int32   // the output line it is of
	span   int32   // output lines it stands for: 1, or the unread middle's
	whole  bool    // it is the whole output line
	lo, hi int32   // its distinct identifiers: selector.lineIDs[lo:hi]
	bonus  float64 // diagnostic, definition and line bonuses
	cost   int     // tokens with its newline; 0 until counted
	est    int     // estimated tokens with its newline; 0 until estimated
	num    int32   // a file view's line number it is printed with; -1 when none
	head   bool    // a diagnostic's headline
	chosen bool
	gain   float64 // value when chosen
}

// ident is one distinct identifier of the output.
type ident struct {
	weight  float64 // see weight
	count   int32   // lines holding it
	value   float64 // weight × (1 + ln count), once every line is read
	focus   bool    // Focus holds it and Known does not
	covered bool    // a chosen line holds it
}

type selector struct {
	lines    []line
	lineIDs  []int32
	ids      []ident
	index    map[string]int32
	opt      StubOptions
	nsrc     int     // output lines
	used     int     // tokens of the chosen lines and markers
	minValue float64 // the least value per token of the current phase
}

func newSelector(body string, opt StubOptions) *selector {
	head, tail, skipped := body, "", 0
	if len(body) > maxReadBytes {
		head, tail, skipped = ends(body)
	}
	n := strings.Count(head, "\n") + strings.Count(tail, "\n") + 3
	s := &selector{
		lines:   make([]line, 0, n),
		lineIDs: make([]int32, 0, 4*n),
		ids:     make([]ident, 0, n),
		index:   make(map[string]int32, n),
		opt:     opt,
	}
	s.read(head)
	if skipped > 0 {
		// The middle, never read: one candidate that is never chosen.
		s.lines = append(s.lines, line{src: int32(s.nsrc), span: int32(skipped), lo: int32(len(s.lineIDs)), hi: int32(len(s.lineIDs)), num: -1})
		s.nsrc++
		s.read(tail)
	}
	for i := range s.ids {
		d := &s.ids[i]
		d.value = d.weight * (1 + math.Log(float64(d.count)))
	}
	s.innermost()
	return s
}

// maxReadBytes bounds what a stub reads of an output: of a longer one, its
// first and last maxReadBytes/2 (whole lines), the middle counted as
// omitted lines. A stub then costs the same for 1 MB as for 256 KB.
const maxReadBytes = 256 << 10

// ends returns body's first and last lines, about maxReadBytes/2 of each,
// and how many lines lie between them.
func ends(body string) (head, tail string, skipped int) {
	h := strings.LastIndexByte(body[:maxReadBytes/2], '\n')
	if h < 0 {
		h = maxReadBytes / 2
	}
	t := len(body) - maxReadBytes/2
	if k := strings.IndexByte(body[t:], '\n'); k >= 0 && t+k+1 < len(body) {
		t += k + 1
	}
	if t <= h+1 {
		return body, "", 0
	}
	middle := body[h:t] // from the head's line break to the tail's first line
	return body[:h], body[t:], max(strings.Count(middle, "\n")-1, 1)
}

// read adds the lines of text as the next output lines.
func (s *selector) read(text string) {
	for {
		l, rest, more := strings.Cut(text, "\n")
		l = strings.TrimRight(l, " \t\r")
		if i := strings.LastIndexByte(l, '\r'); i >= 0 {
			l = l[i+1:] // a progress line: what the terminal showed last
		}
		s.addLine(l, int32(s.nsrc))
		s.nsrc++
		if !more {
			return
		}
		text = rest
	}
}

// addLine adds output line src as one candidate, cut when long, or, when
// very long (a minified file, a one-line JSON document), as pieces of
// about maxLineBytes.
func (s *selector) addLine(text string, src int32) {
	_, view := codeOf(text)
	diag := diagNone
	if view {
		// A file view's number padding aligns columns no stub keeps.
		text = strings.TrimLeft(text, " ")
	} else {
		diag = diagnostic(text)
	}
	if diag == diagHead && len(text) > softLineBytes {
		text = cutTail(text)
	}
	if diag == diagLine && (isFrame(text) || isCallFrame(text)) {
		// A stack frame says where: its path and line number are what
		// the next step opens, so it goes whole up to frameBytes, not cut
		// around its function's name.
		if len(text) <= frameBytes {
			s.add(text, src, true, diag)
			return
		}
	}
	switch {
	case len(text) > pieceLineBytes:
		for at := 0; at < len(text); {
			end := pieceEnd(text, at)
			open, close := "", ""
			if at > 0 {
				open = "…"
			}
			if end < len(text) {
				close = "…"
			}
			s.add(open+text[at:end]+close, src, false, diag)
			at, diag = end, diagNone // a diagnostic is its first piece's
		}
		return
	case len(text) > maxLineBytes:
		s.add(s.cut(text, diag == diagHead), src, false, diag)
	default:
		s.add(text, src, true, diag)
	}
}

// frameBytes is the longest traceback frame a stub keeps whole.
const frameBytes = 2 * maxLineBytes

// isFrame reports whether line is a Python traceback's frame:
// `File "path", line N, in name`.
func isFrame(line string) bool {
	t := trimIndent(line)
	return strings.HasPrefix(t, `File "`) && strings.Contains(t, `", line `)
}

// isCallFrame reports whether line is a JVM or JavaScript stack frame:
// "at pkg.Class.method(File.java:42)", "at fn (src/app.js:12:5)".
func isCallFrame(line string) bool {
	t := trimIndent(line)
	return strings.HasPrefix(t, "at ") && strings.HasSuffix(t, ")") && strings.Contains(t, ":")
}

// innermost marks the innermost frame of each Python traceback (the last
// frame before the exception's headline, within a few lines: its code
// line, a caret line) as a headline too: where the error was raised is
// where the agent looks next.
func (s *selector) innermost() {
	frame := -1
	for i := range s.lines {
		l := &s.lines[i]
		switch {
		case isFrame(l.text):
			frame = i
		case l.head && frame >= 0 && l.src-s.lines[frame].src <= innermostGap:
			f := &s.lines[frame]
			if !f.head {
				f.bonus += headBonus - errorBonus
				f.head = true
			}
			frame = -1
		}
	}
}

// innermostGap is how many output lines after its innermost frame a
// traceback's headline comes at most (the frame's code line, a caret
// line, the headline).
const innermostGap = 4

// pieceLineBytes is the length from which a line is cut into pieces.
const pieceLineBytes = 3 * maxLineBytes

// pieceEnd returns where the piece of t that starts at at ends: about
// maxLineBytes on, after a separator (", ; space } ]") when one is in its
// last third, on a character boundary.
func pieceEnd(t string, at int) int {
	end := at + maxLineBytes
	if end >= len(t) {
		return len(t)
	}
	for k := end; k > end-maxLineBytes/3; k-- {
		switch t[k-1] {
		case ',', ';', ' ', '}', ']':
			return k
		}
	}
	for end > at+1 && t[end]&0xC0 == 0x80 {
		end--
	}
	return end
}

// add scans one candidate's identifiers and values it.
func (s *selector) add(text string, src int32, whole bool, diag int) {
	l := line{text: text, src: src, span: 1, whole: whole, lo: int32(len(s.lineIDs)), num: viewNumber(text)}
	scan(text, func(id string, k kind) {
		i, ok := s.index[id]
		if !ok {
			i = int32(len(s.ids))
			s.index[id] = i
			w, focus := s.weight(id, k)
			s.ids = append(s.ids, ident{weight: w, focus: focus})
		}
		for _, j := range s.lineIDs[l.lo:] {
			if j == i {
				return
			}
		}
		s.ids[i].count++
		s.lineIDs = append(s.lineIDs, i)
	})
	l.hi = int32(len(s.lineIDs))
	if strings.TrimSpace(text) != "" {
		l.bonus = lineBonus
		code, _ := codeOf(text)
		switch diag {
		case diagHead:
			l.bonus += headBonus
			l.head = true
		case diagLine:
			l.bonus += errorBonus
		}
		if definition(code) {
			l.bonus += defBonus
		}
	}
	s.lines = append(s.lines, l)
}

// weight is an identifier's weight before its count: its kind's;
// focusWeight when Focus holds it and Known does not (focus then true);
// knownFocusWeight when both hold it; 0 when Known alone does.
func (s *selector) weight(id string, k kind) (w float64, focus bool) {
	known := s.opt.Known != nil && s.opt.Known(id)
	switch {
	case s.opt.Focus == nil || !s.opt.Focus(id):
		if known {
			return 0, false
		}
		return kindWeight[k], false
	case known:
		return knownFocusWeight, false
	}
	return focusWeight, true
}

// softLineBytes is the length from which a diagnostic headline loses
// what follows its last identifier by more than tailBytes (an assertion's
// values, a message's prose).
const (
	softLineBytes = 100
	tailBytes     = 20
)

// cutTail cuts t tailBytes after the end of its last identifier, marking
// the cut "…", when that is shorter.
func cutTail(t string) string {
	end, from := 0, 0
	scan(t, func(id string, _ kind) {
		if k := strings.Index(t[from:], id); k >= 0 {
			from += k
			end = max(end, from+len(id))
		}
	})
	end += tailBytes
	if end >= len(t)-1 {
		return t
	}
	for end > 0 && t[end]&0xC0 == 0x80 {
		end--
	}
	return t[:end] + "…"
}

// cut shortens a long line to about maxLineBytes around its most valuable
// identifier — from its start when head (a diagnostic's headline reads
// from its start) — keeping the prefix that says where the line is (a
// file view's line number, a grep hit's or a compiler message's
// "path:12:"), marking cuts "…".
func (s *selector) cut(text string, head bool) string {
	best, bestW := "", -1.0
	scan(text, func(id string, k kind) {
		if w, _ := s.weight(id, k); w > bestW {
			best, bestW = id, w
		}
	})
	prefix := ""
	if n := max(viewPrefix(text), locationPrefix(text)); n > 0 && n < len(text)/2 {
		prefix, text = text[:n], text[n:]
	}
	if head {
		best = ""
	}
	at := 0
	if best != "" {
		at = max(strings.Index(text, best)-maxLineBytes/4, 0)
	}
	end := min(at+maxLineBytes, len(text))
	at = max(min(at, end-maxLineBytes), 0)
	for at > 0 && text[at]&0xC0 == 0x80 {
		at--
	}
	for end < len(text) && text[end]&0xC0 == 0x80 {
		end++
	}
	open, close := "", ""
	if at > 0 {
		open = "…"
	}
	if end < len(text) {
		close = "…"
	}
	return prefix + open + text[at:end] + close
}

// value is what choosing line i adds now.
func (s *selector) value(i int) float64 {
	l := &s.lines[i]
	v, fresh := 0.0, false
	for _, j := range s.lineIDs[l.lo:l.hi] {
		if d := &s.ids[j]; !d.covered && d.weight > 0 {
			v += d.value
			fresh = true
		}
	}
	if fresh {
		return v + l.bonus
	}
	return v + l.bonus/4
}

// guess is line i's tokens with its newline: counted when it was, else
// estimated (see estimate).
func (s *selector) guess(i int) int {
	l := &s.lines[i]
	if l.cost > 0 {
		return l.cost
	}
	if l.est == 0 {
		l.est = estimate(l.text) + 1
	}
	return l.est
}

// costOf is line i's tokens with its newline (counted once).
func (s *selector) costOf(i int) int {
	l := &s.lines[i]
	if l.cost == 0 {
		l.cost = tokens.Count(l.text) + 1
	}
	return l.cost
}

// delta is what choosing line i adds to the stub's tokens: the line, and
// the markers of the omitted run it is in as the run splits or shrinks.
func (s *selector) delta(i int) int {
	a, b := i-1, i+1 // the chosen candidates around i, or -1 and len
	for a >= 0 && !s.lines[a].chosen {
		a--
	}
	for b < len(s.lines) && !s.lines[b].chosen {
		b++
	}
	return s.costOf(i) + s.runCost(a, i) + s.runCost(i, b) - s.runCost(a, b)
}

// runCost is what the marker of the omitted run between candidates a and
// b (exclusive; -1 and len for the output's ends) costs: nothing when the
// run is empty, a bare marker when it is evident (see evident), else a
// counted one.
func (s *selector) runCost(a, b int) int {
	switch {
	case b-a <= 1:
		return 0
	case a >= 0 && b < len(s.lines) && s.evident(a, b, int(s.lines[b].src-s.lines[a].src)-1):
		return bareMarkerTokens
	}
	return markerTokens
}

// evident reports whether a run of omitted output lines between
// candidates a and b says its length by itself: both are lines of a file
// view whose numbers are omitted+1 apart, so a bare "[…]" loses nothing.
func (s *selector) evident(a, b, omitted int) bool {
	if a < 0 || b >= len(s.lines) {
		return false
	}
	x, y := s.lines[a].num, s.lines[b].num
	return x >= 0 && y >= 0 && int(y-x) == omitted+1
}

// markerShare is the marker cost a first guess of line i's tokens adds:
// about half a marker, as a chosen line splits one run in two.
func (s *selector) markerShare(i int) int {
	if s.lines[i].num >= 0 {
		return 1
	}
	return markerTokens / 2
}

// choose picks lines within budget tokens: first diagnostic headlines
// (within headShare of the budget), then lines holding a Focus identifier
// not Known and not yet kept (within focusShare more), then any line;
// each phase greedily by value per token (lazily re-valued).
func (s *selector) choose(budget int) {
	s.used = markerTokens // the whole output omitted: one marker
	s.phase(budget*headShare/100, func(i int) bool { return s.lines[i].head })
	if s.opt.Focus != nil {
		s.phase(min(budget, s.used+budget*focusShare/100), s.focused)
	}
	s.minValue = s.opt.MinValue
	s.phase(budget, func(int) bool { return true })
}

// maxMisses is how many counted lines may fail to fit in a phase before
// it stops: each count costs, and the lines left are the less valuable.
const maxMisses = 32

// headShare and focusShare are the percentages of a stub's budget that
// diagnostic headlines, then lines holding a Focus identifier not Known
// and not yet kept, may fill before other lines are chosen. Focus lines
// are kept to a share: a loop that marks every identifier its calls named
// as Focus would otherwise fill the stub with lines around them (over the
// shared trajectories at 160 tokens, with Focus = the task's and the
// calls' identifiers and Known ones opening the round too, stubs kept
// 51.8% of forward uses at 40%, about 50% at 70%, against 56.2% without
// Focus; TestTrajectories).
const (
	headShare  = 60
	focusShare = 40
)

// focused reports whether line i holds a Focus identifier not Known and
// not yet kept.
func (s *selector) focused(i int) bool {
	l := &s.lines[i]
	for _, j := range s.lineIDs[l.lo:l.hi] {
		if d := &s.ids[j]; d.focus && !d.covered {
			return true
		}
	}
	return false
}

func (s *selector) phase(budget int, in func(int) bool) {
	misses := 0 // lines counted that did not fit
	h := make(prioq, 0, len(s.lines))
	for i := range s.lines {
		if l := &s.lines[i]; !l.chosen && in(i) {
			if v := s.value(i); v > 0 {
				// A first guess by length; popped, a line is estimated.
				h.push(item{v / float64(len(l.text)/4+1+s.markerShare(i)), int32(i)})
			}
		}
	}
	for len(h) > 0 {
		it := h.pop()
		i := int(it.i)
		v := s.value(i)
		if v <= 0 || !in(i) {
			continue
		}
		if budget-s.used < 2 {
			return
		}
		if s.minValue > 0 && it.p < s.minValue {
			return // every line left is worth less
		}
		// Re-valued by the guess first, so that a stale line is counted
		// only once it is still on top.
		if p := v / float64(s.guess(i)+s.markerShare(i)); len(h) > 0 && p < h[0].p {
			h.push(item{p, it.i})
			continue
		}
		if s.lines[i].cost == 0 {
			if s.used+s.guess(i)*2/3-markerTokens > budget {
				continue // far from fitting: not worth counting
			}
			if p := v / float64(s.costOf(i)+s.markerShare(i)); len(h) > 0 && p < h[0].p {
				h.push(item{p, it.i})
				continue
			}
		}
		d := s.delta(i)
		if s.used+d > budget {
			if misses++; misses == maxMisses {
				return // the budget is as good as full: stop counting
			}
			continue
		}
		s.used += d
		l := &s.lines[i]
		l.chosen, l.gain = true, v
		for _, j := range s.lineIDs[l.lo:l.hi] {
			s.ids[j].covered = true
		}
	}
}

// render writes the stub: head, then the chosen lines in order with a
// marker for each omitted run (a single omitted line no dearer than a
// marker is written instead), dropping the least valuable chosen lines
// while the count is over limit.
func (s *selector) render(head string, limit int) string {
	var b strings.Builder
	kept := make([]bool, s.nsrc) // output lines of which a candidate is chosen
	for {
		clear(kept)
		for i := range s.lines {
			if s.lines[i].chosen {
				kept[s.lines[i].src] = true
			}
		}
		b.Reset()
		b.WriteString(head)
		omitted, run, last := 0, 0, int32(-1) // omitted output lines, candidates in the run
		prev := -1                            // the last chosen candidate
		flush := func(at int) {
			mark, cost := marker(omitted), markerTokens
			if at < len(s.lines) && s.evident(prev, at, omitted) {
				mark, cost = bareMarker, bareMarkerTokens
			}
			switch {
			case omitted == 1 && run == 1 && s.lines[at-1].whole && s.costOf(at-1) <= cost:
				b.WriteByte('\n')
				b.WriteString(s.lines[at-1].text)
			case omitted > 0:
				b.WriteByte('\n')
				b.WriteString(mark)
			}
			omitted, run = 0, 0
		}
		for i := range s.lines {
			l := &s.lines[i]
			if !l.chosen {
				run++
				if !kept[l.src] && l.src != last {
					omitted += int(l.span)
				}
				last = l.src
				continue
			}
			flush(i)
			last, prev = l.src, i
			b.WriteByte('\n')
			b.WriteString(l.text)
		}
		flush(len(s.lines))
		out := b.String()
		if tokens.Count(out) <= limit {
			return out
		}
		worst := -1
		for i := range s.lines {
			if l := &s.lines[i]; l.chosen && (worst < 0 || l.gain/float64(l.cost) < s.lines[worst].gain/float64(s.lines[worst].cost)) {
				worst = i
			}
		}
		if worst < 0 {
			return tokens.Truncate(out, limit)
		}
		s.lines[worst].chosen = false
	}
}
