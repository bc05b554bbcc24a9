// Package term turns English words into the index terms that swc's
// lexical engines share: the TF-IDF embedder (embed/) and BM25 (bm25/).
// Both scan text into lowercased runs of letters and digits on their own
// (the embedder with an ASCII fast path); a raw word then becomes a term
// here, so the two agree on what a term is.
package term

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/swcmem/swc/porter"
)

// Stem returns the index term of raw, a lowercased run of letters and
// digits that may hold apostrophes, and true; or "" and false when raw is
// dropped. A trailing possessive "'s" is cut; stopwords, single letters and
// the empty word are dropped (single digits are kept); the remaining
// apostrophes are removed and the word is Porter-stemmed. Recent words'
// terms are remembered (a fixed-size cache), so a repeated word is not
// stemmed again.
func Stem(raw string) (string, bool) {
	e := stems.Get(raw, stemOf)
	return e.term, e.keep
}

// stem is Stem without the cache.
func stem(raw string) (string, bool) {
	w := strings.TrimSuffix(raw, "'s")
	if w == "" || Stopword(w) || oneLetter(w) {
		return "", false
	}
	return porter.Stem(strings.ReplaceAll(w, "'", "")), true
}

// Stopword reports whether w (lowercased) is on the stopword list: English
// function words, auxiliaries, common contractions and the fillers of
// casual chat ("yeah", "haha", "wow"), which carry no topic.
func Stopword(w string) bool {
	_, ok := stopwords[w]
	return ok
}

// oneLetter reports whether w is a single letter (single digits count as
// words: "5 kids").
func oneLetter(w string) bool {
	r, n := utf8.DecodeRuneInString(w)
	return n == len(w) && unicode.IsLetter(r)
}

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
