package bm25

import (
	"unicode"
	"unicode/utf8"

	"github.com/swcmem/swc/term"
)

// Terms returns the index terms of text: lowercased runs of Unicode letters
// and digits (an apostrophe between letters stays inside the word, then is
// removed, and a possessive "'s" is cut), minus English stopwords and
// single letters (single digits are kept), ASCII words Porter-stemmed.
// Queries and documents must go through the same function.
func Terms(text string) []string {
	var out []string
	var buf []byte
	flush := func() {
		if len(buf) == 0 {
			return
		}
		st, keep := term.StemBytes(buf)
		buf = buf[:0]
		if keep {
			out = append(out, st)
		}
	}
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case r < utf8.RuneSelf && ('a' <= r && r <= 'z' || '0' <= r && r <= '9'):
			buf = append(buf, byte(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
		case (r == '\'' || r == '’') && len(buf) > 0 && nextIsLetter(text, i+n):
			buf = append(buf, '\'')
		default:
			flush()
		}
		i += n
	}
	flush()
	return out
}

func nextIsLetter(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r)
}
