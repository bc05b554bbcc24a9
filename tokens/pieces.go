package tokens

import (
	"sync/atomic"

	memopkg "github.com/swcmem/swc/internal/memo"
)

// Byte-pair encoding merges only inside the pieces cl100k_base's
// pre-tokenizer cuts a text into (the regular expression
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// matched again and again from the start), so a text's count is the sum
// of its pieces' counts. The tokenizer library runs that expression with a
// backtracking engine that allocates for every piece — most of a count's
// time. countText cuts text of printable ASCII, tabs and line breaks
// (nearly all of every conversation; a few common symbols too, see
// symbolLen) itself and remembers each piece's
// count, so a word is encoded once, not once per text it is in; the
// stretches around other characters go to the library. TestPiecesMatchLibrary checks
// the cuts against the expression and the counts against the library.

// pieceCounts remembers the counts of recently seen pieces.
var pieceCounts = memopkg.NewSlots[int](1 << 14)

// countText returns the count of s: the sum of its plain stretches'
// pieces' counts (see plainPrefix), and the library's count of the text
// from the piece before each character that is not plain to the next
// place where an ASCII letter is followed by a space. Both ends are
// piece ends (a letter's piece ends where the letters do), and the
// expression looks at nothing before where it starts and at most one
// character past a piece's end, so the pieces of each part are the
// whole text's.
func countText(s string) (int, error) {
	n, i := 0, 0
	for i < len(s) {
		k := i + plainPrefix(s[i:])
		for i < k {
			j := pieceEnd(s, i)
			// The piece is the expression's when every byte pieceEnd
			// looked at is plain: pieceEnd looks at most one past it.
			if k < len(s) && j+1 >= k {
				break
			}
			n += pieceCount(s[i:j])
			i = j
		}
		if i == len(s) {
			break
		}
		p := k + 1
		for p < len(s) && !(s[p] == ' ' && isLetter(s[p-1])) {
			p++
		}
		m, err := countStretch(s[i:p])
		if err != nil {
			return 0, err
		}
		n, i = n+m, p
	}
	return n, nil
}

// pieceCount returns the count of a piece of a plain text: 1 for one
// byte or a run of digits (at most three, see pieceEnd: cl100k_base has a
// token for every one of them, TestShortPiecesOneToken), the remembered
// count of another (shortCount for one of at most shortMax bytes). Half
// the pieces of a tool's output are one byte or digits, and nearly all the
// others short.
func pieceCount(p string) int {
	if len(p) == 1 || isDigit(p[0]) {
		return 1
	}
	if len(p) <= shortMax {
		if n, ok := shortCount(p); ok {
			return n
		}
	}
	return pieceCounts.Get(p, countPiece)
}

// shortMax is the length of the longest piece shortPieces holds.
const shortMax = 7

// shortPieces remembers the counts of recently seen pieces of 2 to
// shortMax bytes, each slot one word: the piece's bytes (the first in the
// low byte) above its count. A lookup is one load from a table the
// processor's cache holds (pieceCounts' entries are pointers to a key
// and a copy of its bytes); a new piece replaces the one in its slot.
var shortPieces [1 << 14]atomic.Uint64

// shortCount returns the count of p (at most shortMax bytes) from
// shortPieces, counted and remembered when it is not there; false when p
// holds a zero byte (it would pack as a shorter piece).
func shortCount(p string) (int, bool) {
	var key uint64
	for k := 0; k < len(p); k++ {
		if p[k] == 0 {
			return 0, false
		}
		key |= uint64(p[k]) << (8 * k)
	}
	slot := &shortPieces[(key*0x9E3779B97F4A7C15)>>(64-14)]
	if w := slot.Load(); w>>8 == key {
		return int(w & 0xFF), true
	}
	n := countPiece(p) // at most len(p): a token is a byte at least
	slot.Store(key<<8 | uint64(n))
	return n, true
}

// stretchCounts remembers the library's counts of recently seen
// stretches around characters that are not plain: a tool loop's stubs and
// lists of dropped calls repeat the same few ("→ exit", "…]"), and each
// call of the library costs its expression's set-up.
var stretchCounts = memopkg.NewSlots[int](1 << 12)

// countStretch is the library's count of a stretch, remembered (an error
// is not: it is asked again, and returned).
func countStretch(p string) (int, error) {
	if m := stretchCounts.Get(p, func(p string) int {
		m, err := get().Count(p)
		if err != nil {
			return -1
		}
		return m
	}); m >= 0 {
		return m, nil
	}
	return get().Count(p)
}

// countPiece is the library's count of one piece (an error cannot happen
// on the valid UTF-8 of a plain text; it would count each byte).
func countPiece(p string) int {
	n, err := get().Count(p)
	if err != nil {
		return len(p)
	}
	return n
}

// plainPrefix returns the length of the longest prefix of s that holds
// only printable ASCII, tabs, "\n", "\r" and the symbols of symbolLen:
// there the expression's classes are plain byte tests (\p{L} is A–Z and
// a–z, \p{N} 0–9, \s the space, tab, "\n" and "\r", and a symbol's
// bytes are punctuation as the symbol is), with no Unicode table or case
// folding to agree on.
func plainPrefix(s string) int {
	for i := 0; i < len(s); {
		if c := s[i]; (c < ' ' || c > '~') && c != '\t' && c != '\n' && c != '\r' {
			if n := symbolLen(s, i); n > 0 {
				i += n
				continue
			}
			return i
		}
		i++
	}
	return len(s)
}

// symbolLen returns the length of the character at s[i] when it is one
// of the symbols that stubs, lists of dropped calls and prose use most
// (→ ← … – — ‘ ’ “ ” •), 0 otherwise. None is a letter, a number or white
// space, so the expression treats each as it treats ASCII punctuation,
// and so do pieceEnd's byte tests (every byte of one is punctuation to
// isPunct); only the optional character before letters is one character,
// not one byte (pieceEnd).
func symbolLen(s string, i int) int {
	if i+2 >= len(s) || s[i] != 0xE2 {
		return 0
	}
	switch s[i+1] {
	case 0x80:
		switch s[i+2] {
		case 0x93, 0x94, 0x98, 0x99, 0x9C, 0x9D, 0xA2, 0xA6: // – — ‘ ’ “ ” • …
			return 3
		}
	case 0x86:
		switch s[i+2] {
		case 0x90, 0x92: // ← →
			return 3
		}
	}
	return 0
}

func isLetter(c byte) bool  { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isDigit(c byte) bool   { return '0' <= c && c <= '9' }
func isSpace(c byte) bool   { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func isNewline(c byte) bool { return c == '\n' || c == '\r' }
func isPunct(c byte) bool   { return !isLetter(c) && !isDigit(c) && !isSpace(c) }

// pieceEnd returns the end of the piece of the plain text s that starts
// at i (< len(s)): the expression's first alternative that matches there,
// as the backtracking engine matches it.
func pieceEnd(s string, i int) int {
	n, c := len(s), s[i]
	// (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if c == '\'' && i+1 < n {
		switch s[i+1] | 0x20 {
		case 's', 't', 'm', 'd':
			return i + 2
		case 'r', 'v':
			if i+2 < n && s[i+2]|0x20 == 'e' {
				return i + 3
			}
		case 'l':
			if i+2 < n && s[i+2]|0x20 == 'l' {
				return i + 3
			}
		}
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+
	j := i
	if !isLetter(c) && !isDigit(c) && !isNewline(c) {
		j += max(symbolLen(s, i), 1)
	}
	if j < n && isLetter(s[j]) {
		for j < n && isLetter(s[j]) {
			j++
		}
		return j
	}
	// \p{N}{1,3}
	if isDigit(c) {
		j = i + 1
		for j < n && j < i+3 && isDigit(s[j]) {
			j++
		}
		return j
	}
	//  ?[^\s\p{L}\p{N}]+[\r\n]*
	j = i
	if c == ' ' {
		j++
	}
	if j < n && isPunct(s[j]) {
		for j < n && isPunct(s[j]) {
			j++
		}
		for j < n && isNewline(s[j]) {
			j++
		}
		return j
	}
	// c is white space. \s*[\r\n]+ matches, as the library runs it, the
	// spaces and tabs before a line break and the run of line breaks (not
	// any white space after them: that starts the next piece). Without a
	// line break, \s+(?!\S) takes the run at the end of s or gives its
	// last character back to the text after it; \s+ takes a lone one.
	w := i
	for w < n && (s[w] == ' ' || s[w] == '\t') {
		w++
	}
	if w < n && isNewline(s[w]) {
		for w < n && isNewline(s[w]) {
			w++
		}
		return w
	}
	if w == n || w-i == 1 {
		return w
	}
	return w - 1
}
