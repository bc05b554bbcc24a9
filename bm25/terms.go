package bm25

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/swcmem/swc/porter"
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
		w := strings.TrimSuffix(string(buf), "'s")
		buf = buf[:0]
		if stopwords[w] || w == "" {
			return
		}
		if r, n := utf8.DecodeRuneInString(w); n == len(w) && unicode.IsLetter(r) {
			return
		}
		w = strings.ReplaceAll(w, "'", "")
		out = append(out, porter.Stem(w))
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

// stopwords are English function words and chat fillers; a question's
// "when", "what", "did" carry no topic.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
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
		m[w] = true
	}
	return m
}()
