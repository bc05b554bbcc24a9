package observe

import (
	"strings"

	"github.com/swcmem/swc/tokens"
)

// maxLineBytes bounds a kept line: a longer one is cut around its most
// valuable identifier.
const maxLineBytes = 200

// Value of what a line holds (see Stub). An identifier's weight counts in
// the first chosen line that holds it; the bonuses count per line, a
// quarter of theirs when the line brings no identifier not yet kept.
var kindWeight = [...]float64{kindNumber: 0.5, kindName: 1.5, kindDotted: 2, kindPath: 3, kindRef: 4}

const (
	errorBonus = 6    // an error, failure or traceback line (not of a file view)
	focusBonus = 8    // a line holding a Focus identifier
	defBonus   = 1.5  // a definition: def, class, func, …
	lineBonus  = 0.05 // any non-blank line: fills what the budget leaves
)

// line is one output line as a candidate for the stub.
type line struct {
	text   string  // as printed (cut when long)
	lo, hi int32   // its distinct identifiers: selector.lineIDs[lo:hi]
	bonus  float64 // error, focus, definition and line bonuses
	cost   int     // tokens with its newline; 0 until counted
	chosen bool
	gain   float64 // value when chosen
}

// ident is one distinct identifier of the output.
type ident struct {
	weight  float64 // kind weight; 0 when Known
	focus   bool
	covered bool // a chosen line holds it
}

type selector struct {
	lines   []line
	lineIDs []int32
	ids     []ident
	index   map[string]int32
	opt     StubOptions
	used    int // tokens of the chosen lines and markers
}

func newSelector(body string, opt StubOptions) *selector {
	n := strings.Count(body, "\n") + 1
	s := &selector{
		lines: make([]line, 0, n),
		index: make(map[string]int32, n),
		opt:   opt,
	}
	for range n {
		text, rest, _ := strings.Cut(body, "\n")
		body = rest
		s.addLine(strings.TrimRight(text, " \t\r"))
	}
	return s
}

// addLine scans one line's identifiers and values it.
func (s *selector) addLine(text string) {
	if len(text) > maxLineBytes {
		text = s.cut(text)
	}
	l := line{text: text, lo: int32(len(s.lineIDs))}
	focus := false
	scan(text, func(id string, k kind) {
		i, ok := s.index[id]
		if !ok {
			i = int32(len(s.ids))
			s.index[id] = i
			d := ident{weight: kindWeight[k]}
			if s.opt.Known != nil && s.opt.Known(id) {
				d.weight = 0
			}
			if s.opt.Focus != nil && s.opt.Focus(id) {
				d.focus = true
			}
			s.ids = append(s.ids, d)
		}
		for _, j := range s.lineIDs[l.lo:] {
			if j == i {
				return
			}
		}
		s.lineIDs = append(s.lineIDs, i)
		focus = focus || s.ids[i].focus
	})
	l.hi = int32(len(s.lineIDs))
	if strings.TrimSpace(text) != "" {
		l.bonus = lineBonus
		code, view := codeOf(text)
		if !view && errorish(text) {
			l.bonus += errorBonus
		}
		if definition(code) {
			l.bonus += defBonus
		}
		if focus {
			l.bonus += focusBonus
		}
	}
	s.lines = append(s.lines, l)
}

// cut shortens a long line to about maxLineBytes around its most valuable
// identifier, keeping a file view's line-number prefix, marking cuts "…".
func (s *selector) cut(text string) string {
	best, bestW := "", -1.0
	scan(text, func(id string, k kind) {
		w := kindWeight[k]
		if s.opt.Focus != nil && s.opt.Focus(id) {
			w += focusBonus
		} else if s.opt.Known != nil && s.opt.Known(id) {
			w = 0
		}
		if w > bestW {
			best, bestW = id, w
		}
	})
	prefix := ""
	if n := viewPrefix(text); n > 0 {
		prefix, text = text[:n], text[n:]
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
	out := prefix
	if at > 0 {
		out += "…"
	}
	out += text[at:end]
	if end < len(text) {
		out += "…"
	}
	return out
}

// value is what choosing line i adds now.
func (s *selector) value(i int) float64 {
	l := &s.lines[i]
	v, fresh := 0.0, false
	for _, j := range s.lineIDs[l.lo:l.hi] {
		if d := &s.ids[j]; !d.covered && d.weight > 0 {
			v += d.weight
			fresh = true
		}
	}
	if fresh || l.lo == l.hi {
		return v + l.bonus
	}
	return v + l.bonus/4
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
// a marker more or fewer as the omitted run it is in splits or shrinks.
func (s *selector) delta(i int) int {
	m := -1
	if i > 0 && !s.lines[i-1].chosen {
		m++
	}
	if i < len(s.lines)-1 && !s.lines[i+1].chosen {
		m++
	}
	return s.costOf(i) + m*markerTokens
}

// choose picks lines greedily by value per token (lazily re-valued) within
// budget tokens.
func (s *selector) choose(budget int) {
	s.used = markerTokens // the whole output omitted: one marker
	h := make(prioq, 0, len(s.lines))
	for i := range s.lines {
		if v := s.value(i); v > 0 {
			est := len(s.lines[i].text)/3 + 2
			h.push(item{v / float64(est+markerTokens/2), int32(i)})
		}
	}
	for len(h) > 0 {
		it := h.pop()
		i := int(it.i)
		v := s.value(i)
		if v <= 0 {
			continue
		}
		p := v / float64(s.costOf(i)+markerTokens/2)
		if len(h) > 0 && p < h[0].p {
			h.push(item{p, it.i})
			continue
		}
		d := s.delta(i)
		if s.used+d > budget {
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
	for {
		b.Reset()
		b.WriteString(head)
		gap := 0
		flush := func(at int) {
			switch {
			case gap == 1 && s.costOf(at-1) <= markerTokens:
				b.WriteByte('\n')
				b.WriteString(s.lines[at-1].text)
			case gap > 0:
				b.WriteByte('\n')
				b.WriteString(marker(gap))
			}
			gap = 0
		}
		for i := range s.lines {
			if !s.lines[i].chosen {
				gap++
				continue
			}
			flush(i)
			b.WriteByte('\n')
			b.WriteString(s.lines[i].text)
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

// viewPrefix returns the length of a file view's line-number prefix
// ("   123\t", "   123→", "123:"), or 0.
func viewPrefix(t string) int {
	i := 0
	for i < len(t) && t[i] == ' ' {
		i++
	}
	j := i
	for j < len(t) && isDigitB(t[j]) {
		j++
	}
	if j == i || j >= len(t) {
		return 0
	}
	switch {
	case t[j] == '\t':
		return j + 1
	case strings.HasPrefix(t[j:], "→"):
		return j + len("→")
	}
	return 0
}

// codeOf returns a line's code without a file view's line-number prefix,
// and whether it had one.
func codeOf(t string) (string, bool) {
	if n := viewPrefix(t); n > 0 {
		return t[n:], true
	}
	return t, false
}

// errorish reports whether a line reads as an error, a failure or part of
// a traceback.
func errorish(t string) bool {
	for _, p := range errorMarks {
		if strings.Contains(t, p) {
			return true
		}
	}
	tt := strings.TrimLeft(t, " \t")
	return strings.HasPrefix(tt, "E ") || strings.HasPrefix(tt, "File \"")
}

var errorMarks = []string{"Error", "ERROR", "error:", "error[", "FAIL", "Traceback", "Exception", "panic:", "fatal:", "Failed", "failed"}

// definition reports whether code opens a definition: def, class, func,
// fn, type, struct, interface, impl, function; or an unindented C-like
// function head ("static int f(…)" not ending in ";").
func definition(code string) bool {
	t := strings.TrimLeft(code, " \t")
	for _, p := range defWords {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	if t == code && t != "" && isAlpha(t[0]) && strings.IndexByte(t, '(') > 0 && !strings.HasSuffix(t, ";") {
		for _, p := range []string{"return", "if", "for", "while", "switch", "else"} {
			if strings.HasPrefix(t, p) {
				return false
			}
		}
		return true
	}
	return false
}

var defWords = []string{"def ", "async def ", "class ", "func ", "fn ", "pub fn ", "pub struct ", "pub enum ", "type ", "struct ", "interface ", "impl ", "function ", "export function ", "export class ", "module ", "package "}

// prioq is a max-heap of lines by priority (ties: the earlier line).
type prioq []item

type item struct {
	p float64
	i int32
}

func (h prioq) less(a, b int) bool {
	if h[a].p != h[b].p {
		return h[a].p > h[b].p
	}
	return h[a].i < h[b].i
}

func (h *prioq) push(it item) {
	*h = append(*h, it)
	q := *h
	for c := len(q) - 1; c > 0; {
		p := (c - 1) / 2
		if !q.less(c, p) {
			break
		}
		q[c], q[p] = q[p], q[c]
		c = p
	}
}

func (h *prioq) pop() item {
	q := *h
	top := q[0]
	n := len(q) - 1
	q[0] = q[n]
	q = q[:n]
	for p := 0; ; {
		c := 2*p + 1
		if c >= n {
			break
		}
		if c+1 < n && q.less(c+1, c) {
			c++
		}
		if !q.less(c, p) {
			break
		}
		q[c], q[p] = q[p], q[c]
		p = c
	}
	*h = q
	return top
}
