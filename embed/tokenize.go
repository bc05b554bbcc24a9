package embed

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/swcmem/swc/internal/memo"
	"github.com/swcmem/swc/term"
)

// scanWords calls word with each raw word of text, in order: the text is
// lowercased and split into runs of letters and digits (Unicode-aware; an
// apostrophe between two letters stays inside the word, so "don't" is one
// word). word must not keep raw.
func scanWords(text string, word func(raw []byte)) {
	var buf []byte
	flush := func() {
		if len(buf) > 0 {
			word(buf)
			buf = buf[:0]
		}
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
}

// termCount is an index term of a text and how often it occurs there.
type termCount struct {
	term string
	tf   int32
}

// textTermsBytes bounds the texts each generation of textTermsMemo holds:
// a conversation's turns recur in every Embed call on it (every request of
// an agent, every consolidation of a replay).
const textTermsBytes = 32 << 20

var textTermsMemo = memo.NewShared(textTermsBytes, func(text string, tcs []termCount) int {
	n := len(text) + 24
	for _, tc := range tcs {
		n += len(tc.term) + 24
	}
	return n
})

// textTerms returns the index terms of text, each once, in order of first
// occurrence, with their counts: the raw words of scanWords through
// term.Stem (possessive cut, stopwords and one-letter words dropped, Porter
// stems). Callers must not modify the result.
func textTerms(text string) []termCount {
	if tcs, ok := textTermsMemo.Get(text); ok {
		return tcs
	}
	var tcs []termCount
	at := map[string]int{} // term → index in tcs
	var words map[string]string
	scanWords(text, func(raw []byte) {
		st, seen := words[string(raw)]
		if !seen {
			var keep bool
			st, keep = term.StemBytes(raw)
			if !keep {
				st = ""
			}
			if words == nil {
				words = map[string]string{}
			}
			words[string(raw)] = st
		}
		if st == "" {
			return
		}
		if i, ok := at[st]; ok {
			tcs[i].tf++
			return
		}
		at[st] = len(tcs)
		tcs = append(tcs, termCount{st, 1})
	})
	textTermsMemo.Put(text, tcs)
	return tcs
}

// vocab numbers the index terms of a batch in order of first occurrence.
type vocab struct {
	ids map[string]int32
	n   int32
}

// vocabs holds emptied vocabs for reuse: a conversation's vocabulary is a
// few thousand terms, and its map is the biggest allocation of an Embed
// call.
var vocabs = sync.Pool{New: func() any { return &vocab{ids: map[string]int32{}} }}

// release empties v and returns it to vocabs.
func (v *vocab) release() {
	clear(v.ids)
	v.n = 0
	vocabs.Put(v)
}

// id returns the id of term t, numbering a new term next.
func (v *vocab) id(t string) int32 {
	id, ok := v.ids[t]
	if !ok {
		id = v.n
		v.ids[t] = id
		v.n++
	}
	return id
}

// terms returns the index terms of text in order, repeats included (for
// tests).
func terms(text string) []string {
	var out []string
	scanWords(text, func(raw []byte) {
		if st, keep := term.StemBytes(raw); keep {
			out = append(out, st)
		}
	})
	return out
}

func nextIsLetter(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r)
}
