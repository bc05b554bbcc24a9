package embed

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/swcmem/swc/porter"
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
	t := strings.TrimSuffix(w, "'s")
	if _, stop := stopwords[t]; !stop && !oneLetter(t) && t != "" {
		st := porter.Stem(strings.ReplaceAll(t, "'", ""))
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

// oneLetter reports whether w is a single letter (single digits count as
// words: "5 kids").
func oneLetter(w string) bool {
	r, n := utf8.DecodeRuneInString(w)
	return n == len(w) && unicode.IsLetter(r)
}

// stopwords is a small English list (function words, auxiliaries, common
// contractions) plus the chat fillers of casual dialogue ("yeah", "haha",
// "wow"), which carry no topic.
var stopwords = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range strings.Fields(`
a about above after again against all am an and any are as at be because
been before being below between both but by can could did do does doing down
during each few for from further had has have having he her here hers herself
him himself his how i if in into is it its itself just me more most my myself
no nor not now of off on once only or other our ours ourselves out over own
same she should so some such than that the their theirs them themselves then
there these they this those through to too under until up very was we were
what when where which while who whom why will with would you your yours
yourself yourselves also really much many lot lots thing things get got
i'm i've i'll i'd you're you've you'll you'd he's she's it's we're we've
we'll we'd they're they've they'll they'd that's there's what's let's
don't doesn't didn't isn't aren't wasn't weren't can't couldn't won't
wouldn't shouldn't haven't hasn't hadn't ain't gonna wanna
oh ok okay yeah yes yep hey hi hello wow haha hahaha lol um uh hmm
`) {
		m[w] = struct{}{}
	}
	return m
}()
