package bench

import (
	"strconv"
	"strings"
	"time"
)

// Dates in the retention metrics. LoCoMo's normalisation deletes
// punctuation, so a gold answer written "On 31.12.2023" is the one token
// "31122023", which no context holds unless it writes the date with those
// very dots, and "Jan 21, 2024" wants "jan" where a context says
// "January". The retention metrics (answer retention, answer-token
// recall, support_recall@k) read every date written in digits or with an
// abbreviated month as the words swc writes dates in, in the gold answer
// and in the context alike (WrittenDates), so a date counts as kept
// however either writes it. Token F1 of a QA answer keeps LoCoMo's
// normalisation as it is.

// retentionTokens returns Tokens(WrittenDates(s)).
func retentionTokens(s string) []string { return Tokens(WrittenDates(s)) }

// WrittenDates returns s with its dates written in digits — day first
// with dots (31.12.2023, the order every convention writing dates with
// dots uses) or ISO 8601 (2023-12-31, 2023/12/31) — rewritten as "31
// December 2023"; an abbreviated month next to a number ("Jan 21", "21
// Dec 2023", "Sept. 2023") as its full name; and a day beside a month
// written as an ordinal or with a leading zero ("15th of August", "Aug
// 15th", "02 Jan") as its number ("15 of August", "August 15", "2
// January"). Digits that are no calendar date (a version "1.13.2024",
// slashes in other orders, which are ambiguous) are left as they are; so
// is a month-like word without a number beside it ("Jan" as a name, "may"
// as a verb). It works word by word (words split at white space, their
// leading and trailing punctuation aside; a month and its number on one
// line), so a string without a date costs one scan.
func WrittenDates(s string) string {
	if !dateHint(s) {
		return s
	}
	ws := dateFields(s)
	changed := false
	for i := range ws {
		w := &ws[i]
		core := s[w.a:w.b]
		if d, ok := digitDate(core); ok {
			w.repl, changed = d, true
			continue
		}
		full, ok := monthWord(core)
		if !ok {
			continue
		}
		// A number beside it on its line: the word before (or before
		// "of"), or after.
		near := func(k int) bool { return k >= 0 && k < len(ws) && ws[k].line == w.line }
		before, after := -1, -1
		if near(i-1) && dayLike(s[ws[i-1].a:ws[i-1].b]) {
			before = i - 1
		} else if near(i-2) && strings.EqualFold(s[ws[i-1].a:ws[i-1].b], "of") && dayLike(s[ws[i-2].a:ws[i-2].b]) {
			before = i - 2
		}
		if near(i+1) && startsDigit(s[ws[i+1].a:ws[i+1].b]) {
			after = i + 1
		}
		if before < 0 && after < 0 {
			continue
		}
		if full != core {
			w.repl, changed = full, true
		}
		for _, k := range [2]int{before, after} {
			if k < 0 || ws[k].repl != "" {
				continue
			}
			if d, ok := plainDay(s[ws[k].a:ws[k].b]); ok {
				ws[k].repl, changed = d, true
			}
		}
	}
	if !changed {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	at := 0
	for _, w := range ws {
		if w.repl == "" {
			continue
		}
		b.WriteString(s[at:w.a])
		b.WriteString(w.repl)
		at = w.b
	}
	b.WriteString(s[at:])
	return b.String()
}

// dateHint reports, in one scan without allocating, whether s may hold
// something WrittenDates rewrites: digits joined by '.', '-' or '/', or a
// digit and an abbreviated month, or a digit, a month's full name and a
// day written as an ordinal or with a leading zero. Most lines the
// metrics read hold none (swc's own dates are "20 May 2023").
func dateHint(s string) bool {
	digit, joined, short, long, day := false, false, false, false, false
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case isDigit(c):
			digit = true
			if c == '0' && (i == 0 || !isDigit(s[i-1])) && i+1 < len(s) && isDigit(s[i+1]) {
				day = true // a leading zero: "02"
			}
			i++
		case (c == '.' || c == '-' || c == '/') && i > 0 && i+1 < len(s) && isDigit(s[i-1]) && isDigit(s[i+1]):
			joined = true
			i++
		case isLetter(c):
			j := i + 1
			for j < len(s) && isLetter(s[j]) {
				j++
			}
			w := s[i:j]
			switch {
			case len(w) == 2 && i > 0 && isDigit(s[i-1]):
				day = day || ordinal(w)
			case len(w) >= 3 && len(w) <= 9:
				if full, ok := monthWord(w); ok {
					if full != w {
						short = true
					} else {
						long = true
					}
				}
			}
			i = j
		default:
			i++
		}
	}
	return digit && (joined || short || long && day)
}

// ordinal reports whether w is an ordinal suffix: st, nd, rd or th.
func ordinal(w string) bool {
	switch strings.ToLower(w) {
	case "st", "nd", "rd", "th":
		return true
	}
	return false
}

// dateField is a word of s: s[a:b] without its leading and trailing ASCII
// punctuation, and what replaces it ("" for nothing).
type dateField struct {
	a, b int
	line int // the line of s it is on (0 the first)
	repl string
}

func dateFields(s string) []dateField {
	out := make([]dateField, 0, strings.Count(s, " ")+1)
	line := 0
	for i := 0; i < len(s); {
		if s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' {
			if s[i] == '\n' {
				line++
			}
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && s[j] != '\r' {
			j++
		}
		a, b := i, j
		for a < b && isASCIIPunct(s[a]) {
			a++
		}
		for b > a && isASCIIPunct(s[b-1]) {
			b--
		}
		if a < b {
			out = append(out, dateField{a: a, b: b, line: line})
		}
		i = j
	}
	return out
}

// digitDate reads w as D.M.YYYY, YYYY-M-D or YYYY/M/D and writes it as
// "31 December 2023".
func digitDate(w string) (string, bool) {
	if len(w) < 8 || len(w) > 10 || !isDigit(w[0]) {
		return "", false
	}
	var sep byte
	var parts []string
	switch {
	case strings.IndexByte(w, '.') > 0:
		sep, parts = '.', strings.Split(w, ".")
	case strings.IndexByte(w, '-') > 0:
		sep, parts = '-', strings.Split(w, "-")
	case strings.IndexByte(w, '/') > 0:
		sep, parts = '/', strings.Split(w, "/")
	default:
		return "", false
	}
	if len(parts) != 3 {
		return "", false
	}
	for _, p := range parts {
		if p == "" || len(p) > 4 || !allDigits(p) {
			return "", false
		}
	}
	y, mo, d := parts[0], parts[1], parts[2]
	if sep == '.' {
		y, d = parts[2], parts[0]
	}
	if len(y) != 4 || len(mo) > 2 || len(d) > 2 {
		return "", false
	}
	yy, _ := strconv.Atoi(y)
	mm, _ := strconv.Atoi(mo)
	dd, _ := strconv.Atoi(d)
	if mm < 1 || mm > 12 || dd < 1 {
		return "", false
	}
	t := time.Date(yy, time.Month(mm), dd, 0, 0, 0, 0, time.UTC)
	if t.Day() != dd {
		return "", false
	}
	return t.Format("2 January 2006"), true
}

// monthWord returns the full name of a month w names or abbreviates (any
// case; "may" only capitalised, the verb otherwise), and whether it does.
func monthWord(w string) (string, bool) {
	if len(w) < 3 || len(w) > 9 || !isLetter(w[0]) {
		return "", false
	}
	switch w[0] | 0x20 {
	case 'j', 'f', 'm', 'a', 's', 'o', 'n', 'd':
	default:
		return "", false
	}
	if w == "may" {
		return "", false
	}
	var b [9]byte
	for i := 0; i < len(w); i++ {
		b[i] = w[i] | 0x20 // ASCII letters only: others fail the lookups
	}
	if full, ok := shortMonths[string(b[:len(w)])]; ok {
		return full, true
	}
	if fullMonths[string(b[:len(w)])] {
		return w, true
	}
	return "", false
}

var shortMonths = map[string]string{
	"jan": "January", "feb": "February", "mar": "March", "apr": "April",
	"jun": "June", "jul": "July", "aug": "August", "sep": "September",
	"sept": "September", "oct": "October", "nov": "November", "dec": "December",
}

var fullMonths = map[string]bool{
	"january": true, "february": true, "march": true, "april": true, "may": true, "june": true,
	"july": true, "august": true, "september": true, "october": true, "november": true, "december": true,
}

// dayLike reports whether w is a day or a year: digits, perhaps with an
// ordinal suffix.
func dayLike(w string) bool {
	_, ok := plainDay(w)
	return ok || allDigits(w) && len(w) <= 4
}

// plainDay returns the day w writes with an ordinal suffix or a leading
// zero ("15th", "02") as its number ("15", "2"), and whether it is one.
func plainDay(w string) (string, bool) {
	n := 0
	for n < len(w) && isDigit(w[n]) {
		n++
	}
	if n == 0 || n > 2 {
		return "", false
	}
	if n < len(w) && !ordinal(w[n:]) {
		return "", false
	}
	d := strings.TrimLeft(w[:n], "0")
	if d == "" || d == w {
		return "", false
	}
	return d, true
}

func startsDigit(w string) bool { return w != "" && isDigit(w[0]) }

func allDigits(w string) bool {
	for i := 0; i < len(w); i++ {
		if !isDigit(w[i]) {
			return false
		}
	}
	return w != ""
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
