package observe

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// kind is the class of an identifier.
type kind uint8

const (
	kindNumber kind = iota // a number of 3+ digits
	kindName               // a snake_case or camelCase name
	kindDotted             // a dotted name: pkg.mod.Func, models.py
	kindPath               // a path: a/b.py, ./x/y, /usr/lib
	kindRef                // a file:line reference: a/b.py:12
)

// maxIdent bounds an identifier's length: a longer run (a hash, base64, a
// minified line) is no name an agent types.
const maxIdent = 200

// Identifiers returns the distinct identifiers of text in order of first
// appearance: paths (a/b.py, ./x/y), file:line references (a/b.py:12, also
// giving the path and, of 3+ digits, the line), dotted names
// (pkg.mod.Func, also giving its parts that are names of their own),
// snake_case and camelCase names, numbers of 3+ digits. A path is not
// split. The scan is one linear pass over the bytes.
func Identifiers(text string) []string {
	var out []string
	seen := map[string]struct{}{}
	scan(text, func(id string, _ kind) {
		if _, ok := seen[id]; !ok {
			seen[id] = struct{}{}
			out = append(out, id)
		}
	})
	return out
}

// Byte classes, looked up in class.
const (
	cWord  = 1 << iota // letter, digit or underscore
	cAlpha             // letter or underscore
	cDigit
	cLower
	cUpper
	cUnder
)

var class = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c == '_':
			t[c] = cWord | cAlpha | cUnder
		case 'a' <= c && c <= 'z':
			t[c] = cWord | cAlpha | cLower
		case 'A' <= c && c <= 'Z':
			t[c] = cWord | cAlpha | cUpper
		case '0' <= c && c <= '9':
			t[c] = cWord | cDigit
		}
	}
	return t
}()

func isWord(c byte) bool   { return class[c]&cWord != 0 }
func isAlpha(c byte) bool  { return class[c]&cAlpha != 0 }
func isDigitB(c byte) bool { return class[c]&cDigit != 0 }

// scan calls emit for every identifier occurrence of s (repeats included),
// in order.
func scan(s string, emit func(string, kind)) {
	n := len(s)
	for i := 0; i < n; {
		c := s[i]
		start := -1
		switch {
		case isWord(c):
			if i > 0 && s[i-1] >= 0x80 && letterBefore(s, i) {
				// inside a non-ASCII word ("café_crème"): skip the rest of it
				for i < n && (isWord(s[i]) || s[i] >= 0x80) {
					i++
				}
				continue
			}
			start = i
		case c == '/' && i+1 < n && (isWord(s[i+1]) || s[i+1] == '.') && (i == 0 || !isWord(s[i-1])):
			start = i
			if i > 0 && s[i-1] == '/' {
				start++ // a URL's host: "https://github.com/x" gives github.com/x
			}
		case c == '.' && i+1 < n && (s[i+1] == '/' || s[i+1] == '.' && i+2 < n && s[i+2] == '/') && (i == 0 || !isWord(s[i-1])):
			start = i
		case c == '~' && i+1 < n && s[i+1] == '/':
			start = i
		}
		if start < 0 {
			i++
			continue
		}
		j := i + 1
		var seps uint8         // the separators the token holds
		cls := class[s[start]] // the classes of its word characters
		upperIn := false       // an upper-case letter past a word's start
		for j < n {
			c := s[j]
			if k := class[c]; k&cWord != 0 {
				cls |= k
				if k&cUpper != 0 && s[j-1] != '_' && class[s[j-1]]&cWord != 0 {
					upperIn = true
				}
				j++
				continue
			}
			if j+1 >= n {
				break
			}
			d := s[j+1]
			ok := false
			switch c {
			case '.':
				ok = isWord(d) || d == '/' || d == '.' && j+2 < n && s[j+2] == '/'
			case '/':
				ok = isWord(d) || d == '.'
			case '-':
				ok = isWord(d)
			case ':':
				ok = isDigitB(d)
			}
			if !ok {
				break
			}
			seps |= sepBit(c)
			j++
		}
		if c := s[start]; c == '/' || c == '.' || c == '~' {
			seps |= sepBit(c)
		}
		i = j
		if j < n && s[j] >= 0x80 && letterAt(s, j) {
			continue // a word running on in non-ASCII letters ("naïve")
		}
		if j-start <= maxIdent {
			if seps == 0 {
				// A plain word, told apart by its classes (as word does).
				switch {
				case cls&cUnder != 0 && cls&(cLower|cUpper) != 0 && !isDigitB(s[start]),
					cls&cUnder == 0 && cls&cLower != 0 && upperIn && !isDigitB(s[start]):
					emit(s[start:j], kindName)
				case cls == cWord|cDigit && j-start >= 3:
					emit(s[start:j], kindNumber)
				}
			} else {
				classify(s[start:j], emit)
			}
		}
	}
}

// letterBefore reports whether the character before s[i] is a letter or
// digit (not punctuation such as "…" or "→").
func letterBefore(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// letterAt reports whether the character at s[i] is a letter or digit.
func letterAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// sepBit is a separator's bit in scan's set ('~' counts as '/').
func sepBit(c byte) uint8 {
	switch c {
	case '.':
		return 1
	case '/', '~':
		return 2
	case '-':
		return 4
	case ':':
		return 8
	}
	return 0
}

// word emits a token of word characters alone: a name or a number.
func word(t string, emit func(string, kind)) {
	switch {
	case isName(t):
		emit(t, kindName)
	case len(t) >= 3 && allDigits(t):
		emit(t, kindNumber)
	}
}

// classify emits the identifiers of one scanned token.
func classify(t string, emit func(string, kind)) {
	if k := strings.IndexByte(t, ':'); k >= 0 {
		head, rest := t[:k], t[k+1:]
		line := rest
		if m := strings.IndexByte(rest, ':'); m >= 0 {
			line = rest[:m]
		}
		if allDigits(line) && (isPath(head) || isDotted(head)) {
			emit(t[:k+1+len(line)], kindRef)
			classify(head, emit)
			if len(line) >= 3 {
				emit(line, kindNumber)
			}
			if len(line) < len(rest) {
				classify(rest[len(line)+1:], emit)
			}
			return
		}
		classifyEach(t, ':', emit)
		return
	}
	if strings.IndexByte(t, '/') >= 0 {
		if isPath(t) {
			emit(t, kindPath)
		}
		return
	}
	if strings.IndexByte(t, '-') >= 0 {
		classifyEach(t, '-', emit)
		return
	}
	if strings.IndexByte(t, '.') >= 0 {
		if isDotted(t) {
			emit(t, kindDotted)
			for rest := t; rest != ""; {
				seg := rest
				if k := strings.IndexByte(rest, '.'); k >= 0 {
					seg, rest = rest[:k], rest[k+1:]
				} else {
					rest = ""
				}
				if isName(seg) {
					emit(seg, kindName)
				}
			}
			return
		}
		classifyEach(t, '.', emit)
		return
	}
	word(t, emit)
}

// classifyEach classifies each piece of t between its sep bytes (an
// empty piece holds no identifier).
func classifyEach(t string, sep byte, emit func(string, kind)) {
	for t != "" {
		k := strings.IndexByte(t, sep)
		if k < 0 {
			classify(t, emit)
			return
		}
		if k > 0 {
			classify(t[:k], emit)
		}
		t = t[k+1:]
	}
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigitB(s[i]) {
			return false
		}
	}
	return true
}

// isPath reports whether t (made of word characters and . / -) is a path:
// it holds a slash and a letter, and is more than a slash and dots.
func isPath(t string) bool {
	if strings.IndexByte(t, '/') < 0 {
		return false
	}
	for i := 0; i < len(t); i++ {
		if 'a' <= t[i]|0x20 && t[i]|0x20 <= 'z' {
			return true
		}
	}
	return false
}

// isDotted reports whether t is a dotted name: two or more segments, each
// starting with a letter or underscore, one of them longer than a letter
// ("e.g" is not one).
func isDotted(t string) bool {
	segs, long := 0, false
	for rest := t; ; {
		seg := rest
		k := strings.IndexByte(rest, '.')
		if k >= 0 {
			seg, rest = rest[:k], rest[k+1:]
		}
		if seg == "" || !isAlpha(seg[0]) || strings.IndexByte(seg, '-') >= 0 {
			return false
		}
		segs++
		if len(seg) > 1 {
			long = true
		}
		if k < 0 {
			break
		}
	}
	return segs >= 2 && long
}

// isName reports whether w (word characters only) is a snake_case name
// (an underscore and a letter) or a camelCase one (a lowercase letter and
// an uppercase one after its first letter: getValue, QuerySet, HTTPServer).
func isName(w string) bool {
	if w == "" || isDigitB(w[0]) {
		return false
	}
	under, letter, lower, upperIn := false, false, false, false
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c == '_':
			under = true
		case 'a' <= c && c <= 'z':
			letter, lower = true, true
		case 'A' <= c && c <= 'Z':
			letter = true
			if i > 0 && w[i-1] != '_' {
				upperIn = true
			}
		}
	}
	if under {
		return letter
	}
	return lower && upperIn
}
