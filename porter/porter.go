// Package porter is the Porter stemmer as NLTK implements it
// (nltk.stem.porter.PorterStemmer in its default NLTK_EXTENSIONS mode):
// the stemmer LoCoMo's token F1 uses, and the one swc's lexical embedder
// uses too.
package porter

import (
	"strings"
	"unicode/utf8"
)

// Stem returns the Porter stem of word exactly as NLTK's
// nltk.stem.porter.PorterStemmer().stem(word) does in its default mode,
// PorterStemmer.NLTK_EXTENSIONS, which LoCoMo's evaluation uses. That mode
// differs from both Porter's 1980 paper and Snowball: words of one or two
// characters are returned lower-cased but unstemmed; a small table of
// irregular forms is looked up first ("dying" → "die", "skies" → "sky",
// "news" → "news", …); four-letter -ies/-ied words keep "ie" ("dies" →
// "die"); step 1c turns y into i only after a consonant that is not the
// first letter ("happy" → "happi", "they" → "they", "enjoy" → "enjoy");
// step 2 has the -alli recursion and the -fulli and -logi rules; the *o
// test also accepts a two-letter vowel–consonant stem.
//
// Characters are handled as code points, like Python's str. Lower-casing
// uses strings.ToLower, which agrees with Python's str.lower for everything
// but a few special cases outside ASCII (such as U+0130).
func Stem(word string) string {
	stem := strings.ToLower(word)
	// NLTK tests the pool with the word as given, then indexes it with the
	// lower-cased form; both are the same key for any word in the pool.
	if s, ok := porterIrregular[word]; ok {
		return s
	}
	if utf8.RuneCountInString(word) <= 2 {
		return stem
	}
	w := []rune(stem)
	w = step1a(w)
	w = step1b(w)
	w = step1c(w)
	w = step2(w)
	w = step3(w)
	w = step4(w)
	w = step5a(w)
	w = step5b(w)
	return string(w)
}

// porterIrregular is NLTK's irregular_forms table, inverted: each form maps
// to its paradigm, and stemming is bypassed for it.
var porterIrregular = map[string]string{
	"sky": "sky", "skies": "sky",
	"dying":   "die",
	"lying":   "lie",
	"tying":   "tie",
	"news":    "news",
	"innings": "inning", "inning": "inning",
	"outings": "outing", "outing": "outing",
	"cannings": "canning", "canning": "canning",
	"howe":    "howe",
	"proceed": "proceed",
	"exceed":  "exceed",
	"succeed": "succeed",
}

// isConsonant reports whether w[i] is a consonant: not a, e, i, o, u, and
// not a y that follows a consonant.
func isConsonant(w []rune, i int) bool {
	switch w[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		if i == 0 {
			return true
		}
		return !isConsonant(w, i-1)
	}
	return true
}

// measure returns Porter's m of stem: the number of vowel–consonant
// transitions in its c/v pattern.
func measure(stem []rune) int {
	m := 0
	for i := 0; i+1 < len(stem); i++ {
		if !isConsonant(stem, i) && isConsonant(stem, i+1) {
			m++
		}
	}
	return m
}

func positiveMeasure(stem []rune) bool { return measure(stem) > 0 }

func measureGT1(stem []rune) bool { return measure(stem) > 1 }

func containsVowel(stem []rune) bool {
	for i := range stem {
		if !isConsonant(stem, i) {
			return true
		}
	}
	return false
}

// endsDoubleConsonant is the paper's *d condition.
func endsDoubleConsonant(w []rune) bool {
	n := len(w)
	return n >= 2 && w[n-1] == w[n-2] && isConsonant(w, n-1)
}

// endsCVC is the paper's *o condition plus NLTK's two-letter extension.
func endsCVC(w []rune) bool {
	n := len(w)
	if n >= 3 && isConsonant(w, n-3) && !isConsonant(w, n-2) && isConsonant(w, n-1) {
		switch w[n-1] {
		case 'w', 'x', 'y':
		default:
			return true
		}
	}
	return n == 2 && !isConsonant(w, 0) && isConsonant(w, 1)
}

func hasSuffix(w []rune, suffix string) bool {
	if len(suffix) > len(w) {
		return false
	}
	off := len(w) - len(suffix)
	for i := 0; i < len(suffix); i++ { // suffixes are ASCII
		if w[off+i] != rune(suffix[i]) {
			return false
		}
	}
	return true
}

// withSuffix returns stem followed by the ASCII string s, in a new slice.
func withSuffix(stem []rune, s string) []rune {
	out := make([]rune, len(stem), len(stem)+len(s))
	copy(out, stem)
	for i := 0; i < len(s); i++ {
		out = append(out, rune(s[i]))
	}
	return out
}

// rule is one suffix rule of NLTK's _apply_rule_list. doubleC marks the
// special "*d" suffix; cond nil means unconditional.
type rule struct {
	suffix, repl string
	doubleC      bool
	cond         func(stem []rune) bool
}

// applyRules applies the first rule whose suffix matches; if its condition
// fails no further rule is tried (NLTK's _apply_rule_list).
func applyRules(w []rune, rules []rule) []rune {
	for _, r := range rules {
		if r.doubleC && endsDoubleConsonant(w) {
			stem := w[:len(w)-2]
			if r.cond == nil || r.cond(stem) {
				return withSuffix(stem, r.repl)
			}
			return w
		}
		suffix := r.suffix
		if r.doubleC {
			suffix = "*d" // NLTK then tests the literal suffix "*d"
		}
		if hasSuffix(w, suffix) {
			stem := w[:len(w)-len(suffix)]
			if r.cond == nil || r.cond(stem) {
				return withSuffix(stem, r.repl)
			}
			return w
		}
	}
	return w
}

var step1aRules = []rule{
	{suffix: "sses", repl: "ss"},
	{suffix: "ies", repl: "i"},
	{suffix: "ss", repl: "ss"},
	{suffix: "s", repl: ""},
}

func step1a(w []rune) []rune {
	if hasSuffix(w, "ies") && len(w) == 4 {
		return withSuffix(w[:1], "ie")
	}
	return applyRules(w, step1aRules)
}

func step1b(w []rune) []rune {
	if hasSuffix(w, "ied") {
		if len(w) == 4 {
			return withSuffix(w[:1], "ie")
		}
		return withSuffix(w[:len(w)-3], "i")
	}
	if hasSuffix(w, "eed") {
		stem := w[:len(w)-3]
		if measure(stem) > 0 {
			return withSuffix(stem, "ee")
		}
		return w
	}
	var inter []rune
	ok := false
	for _, suffix := range []string{"ed", "ing"} {
		if hasSuffix(w, suffix) {
			inter = w[:len(w)-len(suffix)]
			if containsVowel(inter) {
				ok = true
				break
			}
		}
	}
	if !ok {
		return w
	}
	last := inter[len(inter)-1]
	return applyRules(inter, []rule{
		{suffix: "at", repl: "ate"},
		{suffix: "bl", repl: "ble"},
		{suffix: "iz", repl: "ize"},
		{doubleC: true, repl: string(last), cond: func([]rune) bool {
			return last != 'l' && last != 's' && last != 'z'
		}},
		{suffix: "", repl: "e", cond: func(stem []rune) bool {
			return measure(stem) == 1 && endsCVC(stem)
		}},
	})
}

var step1cRules = []rule{
	{suffix: "y", repl: "i", cond: func(stem []rune) bool {
		return len(stem) > 1 && isConsonant(stem, len(stem)-1)
	}},
}

func step1c(w []rune) []rune { return applyRules(w, step1cRules) }

var step2Rules = []rule{
	{suffix: "ational", repl: "ate", cond: positiveMeasure},
	{suffix: "tional", repl: "tion", cond: positiveMeasure},
	{suffix: "enci", repl: "ence", cond: positiveMeasure},
	{suffix: "anci", repl: "ance", cond: positiveMeasure},
	{suffix: "izer", repl: "ize", cond: positiveMeasure},
	{suffix: "bli", repl: "ble", cond: positiveMeasure},
	{suffix: "alli", repl: "al", cond: positiveMeasure},
	{suffix: "entli", repl: "ent", cond: positiveMeasure},
	{suffix: "eli", repl: "e", cond: positiveMeasure},
	{suffix: "ousli", repl: "ous", cond: positiveMeasure},
	{suffix: "ization", repl: "ize", cond: positiveMeasure},
	{suffix: "ation", repl: "ate", cond: positiveMeasure},
	{suffix: "ator", repl: "ate", cond: positiveMeasure},
	{suffix: "alism", repl: "al", cond: positiveMeasure},
	{suffix: "iveness", repl: "ive", cond: positiveMeasure},
	{suffix: "fulness", repl: "ful", cond: positiveMeasure},
	{suffix: "ousness", repl: "ous", cond: positiveMeasure},
	{suffix: "aliti", repl: "al", cond: positiveMeasure},
	{suffix: "iviti", repl: "ive", cond: positiveMeasure},
	{suffix: "biliti", repl: "ble", cond: positiveMeasure},
	{suffix: "fulli", repl: "ful", cond: positiveMeasure},
	// NLTK tests the measure of word[:-3], i.e. the stem with the "l" kept.
	{suffix: "logi", repl: "log", cond: func(stem []rune) bool {
		return positiveMeasure(withSuffix(stem, "l"))
	}},
}

func step2(w []rune) []rune {
	if hasSuffix(w, "alli") && positiveMeasure(w[:len(w)-4]) {
		return step2(withSuffix(w[:len(w)-4], "al"))
	}
	return applyRules(w, step2Rules)
}

var step3Rules = []rule{
	{suffix: "icate", repl: "ic", cond: positiveMeasure},
	{suffix: "ative", repl: "", cond: positiveMeasure},
	{suffix: "alize", repl: "al", cond: positiveMeasure},
	{suffix: "iciti", repl: "ic", cond: positiveMeasure},
	{suffix: "ical", repl: "ic", cond: positiveMeasure},
	{suffix: "ful", repl: "", cond: positiveMeasure},
	{suffix: "ness", repl: "", cond: positiveMeasure},
}

func step3(w []rune) []rune { return applyRules(w, step3Rules) }

var step4Rules = []rule{
	{suffix: "al", cond: measureGT1},
	{suffix: "ance", cond: measureGT1},
	{suffix: "ence", cond: measureGT1},
	{suffix: "er", cond: measureGT1},
	{suffix: "ic", cond: measureGT1},
	{suffix: "able", cond: measureGT1},
	{suffix: "ible", cond: measureGT1},
	{suffix: "ant", cond: measureGT1},
	{suffix: "ement", cond: measureGT1},
	{suffix: "ment", cond: measureGT1},
	{suffix: "ent", cond: measureGT1},
	{suffix: "ion", cond: func(stem []rune) bool {
		return measure(stem) > 1 && (stem[len(stem)-1] == 's' || stem[len(stem)-1] == 't')
	}},
	{suffix: "ou", cond: measureGT1},
	{suffix: "ism", cond: measureGT1},
	{suffix: "ate", cond: measureGT1},
	{suffix: "iti", cond: measureGT1},
	{suffix: "ous", cond: measureGT1},
	{suffix: "ive", cond: measureGT1},
	{suffix: "ize", cond: measureGT1},
}

func step4(w []rune) []rune { return applyRules(w, step4Rules) }

// step5a tries both e-rules, unlike applyRules (see NLTK's comment).
func step5a(w []rune) []rune {
	if hasSuffix(w, "e") {
		stem := w[:len(w)-1]
		m := measure(stem)
		if m > 1 || (m == 1 && !endsCVC(stem)) {
			return stem
		}
	}
	return w
}

func step5b(w []rune) []rune {
	if hasSuffix(w, "ll") && measure(w[:len(w)-1]) > 1 {
		return w[:len(w)-1]
	}
	return w
}
