package gist

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// word is one word of a sentence, as written and lowercased.
type word struct{ raw, low string }

// splitWords returns the words of s: runs of letters and digits, keeping
// an apostrophe between letters ("don't", ’ becomes ') and a '/', ':' or
// '-' between digits ("05/07/2023", "9:30pm", "2023-05-07").
func splitWords(s string) []word {
	var out []word
	start := -1
	var b []byte
	prev := rune(0)
	flush := func() {
		if len(b) > 0 {
			raw := string(b)
			out = append(out, word{raw, strings.ToLower(raw)})
		}
		b = b[:0]
		start = -1
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		next, _ := utf8.DecodeRuneInString(s[i+n:])
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if start < 0 {
				start = i
			}
			b = utf8.AppendRune(b, r)
		case (r == '\'' || r == '’') && unicode.IsLetter(prev) && unicode.IsLetter(next):
			b = append(b, '\'')
		case (r == '/' || r == ':' || r == '-') && unicode.IsDigit(prev) && unicode.IsDigit(next):
			b = append(b, byte(r))
		default:
			flush()
		}
		prev = r
		i += n
	}
	flush()
	return out
}

// setOf returns the set of the space-separated words in s.
func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// allDigits reports whether s is non-empty and all ASCII digits.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
