package embed

import (
	"unicode"
	"unicode/utf8"

	"github.com/swcmem/swc/term"
)

// vocab numbers the index terms of a batch. words memoises, per raw
// lowercased word, its term id or -1 for a dropped word, so each distinct
// word is stemmed once per Embed call.
type vocab struct {
	words map[string]int32
	stems map[string]int32
	n     int32
	buf   []byte
}

func newVocab() *vocab {
	return &vocab{words: map[string]int32{}, stems: map[string]int32{}}
}

// termIDs appends to dst the term ids of text, in order. Terms: the text
// is lowercased and split into runs of letters and digits (Unicode-aware;
// an apostrophe between two letters stays inside the word, so "don't" is
// one token); a trailing possessive "'s" is cut; stopwords and one-letter
// words are dropped (single digits are kept); remaining apostrophes are
// removed; ASCII words are Porter-stemmed.
func (v *vocab) termIDs(dst []int32, text string) []int32 {
	buf := v.buf[:0]
	flush := func() {
		if len(buf) == 0 {
			return
		}
		id, ok := v.words[string(buf)]
		if !ok {
			id = v.intern(string(buf))
		}
		if id >= 0 {
			dst = append(dst, id)
		}
		buf = buf[:0]
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf { // ASCII fast path
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
				buf = append(buf, c)
			case 'A' <= c && c <= 'Z':
				buf = append(buf, c+'a'-'A')
			case c == '\'' && len(buf) > 0 && nextIsLetter(text, i+1):
				buf = append(buf, c)
			default:
				flush()
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
		case r == '’' && len(buf) > 0 && nextIsLetter(text, i+n):
			buf = append(buf, '\'')
		default:
			flush()
		}
		i += n
	}
	flush()
	v.buf = buf
	return dst
}

// intern returns the term id of raw word w, assigning a new id to a new
// stem, or -1 when w is dropped.
func (v *vocab) intern(w string) int32 {
	id := int32(-1)
	if st, keep := term.Stem(w); keep {
		var ok bool
		if id, ok = v.stems[st]; !ok {
			id = v.n
			v.stems[st] = id
			v.n++
		}
	}
	v.words[w] = id
	return id
}

// terms returns the index terms of text (for tests).
func terms(text string) []string {
	v := newVocab()
	ids := v.termIDs(nil, text)
	byID := make([]string, v.n)
	for st, id := range v.stems {
		byID[id] = st
	}
	var out []string
	for _, id := range ids {
		out = append(out, byID[id])
	}
	return out
}

func nextIsLetter(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r)
}
