package mention

import (
	"unicode/utf8"

	"github.com/swcmem/swc/internal/memo"
)

// Token classes.
const (
	tWord  = 1
	tNum   = 2
	tPunct = 3
)

// tok is one token of a text: a run of letters (with inner apostrophes),
// a run of digits, or one other non-space character.
type tok struct {
	s, e  int    // byte offsets
	low   string // lower-cased text
	cls   byte
	cap   bool // first letter upper case
	upper bool // all letters upper case (and more than one)
	space bool // whitespace (or start of text) before the token
	sent  bool // first token of a sentence
	num   int  // numeric value of digits or a number word, -1 otherwise
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// The same texts are analysed again and again (a turn is anchored, its
// entities and numbers counted, its sentences checked for time by the
// gister, for every request of an agent re-sending its history), so their
// tokens and HasTemporal's answers are remembered, in bounded memos: about
// memoBytes of texts per generation each.
const memoBytes = 32 << 20

var (
	tokensMemo      = memo.NewShared(memoBytes, func(text string, toks []tok) int { return len(text) + 64*len(toks) })
	hasTemporalMemo = memo.NewShared(memoBytes, func(text string, _ bool) int { return len(text) })
)

// tokens is tokenize, remembered. Callers must not modify the result.
func tokens(text string) []tok {
	if toks, ok := tokensMemo.Get(text); ok {
		return toks
	}
	toks := tokenize(text)
	tokensMemo.Put(text, toks)
	return toks
}

// tokenize splits text into tokens. It never fails; invalid UTF-8 is
// treated as letters.
func tokenize(text string) []tok {
	toks := make([]tok, 0, len(text)/4+4)
	sent := true
	space := true
	for i := 0; i < len(text); {
		c := text[i]
		if isSpace(c) {
			space = true
			i++
			continue
		}
		t := tok{s: i, space: space, sent: sent, num: -1}
		switch {
		case isDigit(c):
			j := i
			n := 0
			for j < len(text) && isDigit(text[j]) {
				if n < 1e8 {
					n = n*10 + int(text[j]-'0')
				}
				j++
			}
			t.e, t.cls, t.num = j, tNum, n
			t.low = text[i:j]
		case (c == '\'' || isQuoteRune(text, i)) && i > 0 && !space && isPossessive(text, i+quoteLen(text, i)):
			t.e, t.cls = i+quoteLen(text, i)+1, tWord
			t.low = "'s"
		case isLetter(c) && !isNonLetterRune(text, i):
			j := i
			hasUpper, allUpper, letters := false, true, 0
			for j < len(text) {
				b := text[j]
				if b >= 0x80 {
					if isNonLetterRune(text, j) {
						// a right single quote inside a word acts as an apostrophe
						if isQuoteRune(text, j) && j+3 < len(text) && isLetter(text[j+3]) && text[j+3] < 0x80 && !isPossessive(text, j+3) {
							j += 3
							continue
						}
						break
					}
					_, sz := utf8.DecodeRuneInString(text[j:])
					j += sz
					letters++
					continue
				}
				if isLetter(b) {
					if b >= 'A' && b <= 'Z' {
						hasUpper = true
					} else {
						allUpper = false
					}
					letters++
					j++
					continue
				}
				if b == '\'' && j+1 < len(text) && isLetter(text[j+1]) && text[j+1] < 0x80 && j > i {
					if isPossessive(text, j+1) {
						break // "Caroline's" -> "Caroline" + "'s"
					}
					j++
					continue
				}
				break
			}
			t.e, t.cls = j, tWord
			t.cap = text[i] >= 'A' && text[i] <= 'Z'
			t.upper = hasUpper && allUpper && letters > 1
			t.low = lower(text[i:j])
			if v, ok := numberWords[t.low]; ok {
				t.num = v
			}
		default:
			_, sz := utf8.DecodeRuneInString(text[i:])
			if sz < 1 {
				sz = 1
			}
			t.e, t.cls = i+sz, tPunct
			t.low = text[i : i+sz]
		}
		i = t.e
		toks = append(toks, t)
		space = false
		if t.cls == tPunct {
			switch {
			case c == '.' || c == '!' || c == '?' || c == ')' || c == ':' || c == ';' || c == '-' || c == '~':
				sent = true
			case c >= 0x80 && !isQuoteRune(text, i) && !isOpenQuote(text, i):
				sent = true // dashes, ellipses, emoji
			case c == '"' || c == '\'' || c == '(' || c == '*' || c >= 0x80:
				// quotes and brackets keep the sentence state
			default:
				sent = false
			}
		} else {
			sent = false
		}
	}
	// a newline ends a sentence too
	for k := 1; k < len(toks); k++ {
		if toks[k].space && hasNewline(text[toks[k-1].e:toks[k].s]) {
			toks[k].sent = true
		}
	}
	return toks
}

func hasNewline(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return true
		}
	}
	return false
}

// isNonLetterRune reports whether the rune at text[i] (non-ASCII) is
// punctuation we split on: curly quotes, dashes, ellipsis, emoji.
func isNonLetterRune(text string, i int) bool {
	if text[i] < 0x80 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	switch {
	case r >= 0x2000 && r <= 0x206F: // general punctuation
		return true
	case r >= 0x2190: // arrows, symbols, emoji, CJK punctuation
		return true
	case r == 0xA0 || r == 0xB4 || r == 0xAB || r == 0xBB:
		return true
	}
	return false
}

func isQuoteRune(text string, i int) bool {
	r, _ := utf8.DecodeRuneInString(text[i:])
	return r == 0x2019
}

// lower returns s lower-cased (ASCII only), allocating only when needed.
func lower(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

var numberWords = map[string]int{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
	"thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
	"seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
	"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
	"eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
	"million": 1000000, "billion": 1000000000, "dozen": 12,
}

// isPossessive reports whether text[i] is an "s" ending a word (the s of 's).
func isPossessive(text string, i int) bool {
	if i >= len(text) || text[i] != 's' && text[i] != 'S' {
		return false
	}
	return i+1 >= len(text) || !isLetter(text[i+1]) || isNonLetterRune(text, i+1)
}

func quoteLen(text string, i int) int {
	if text[i] == '\'' {
		return 1
	}
	return 3
}

func isOpenQuote(text string, i int) bool {
	r, _ := utf8.DecodeRuneInString(text[i:])
	return r == 0x201C || r == 0x201D || r == 0x2018
}
