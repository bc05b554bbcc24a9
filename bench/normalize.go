package bench

// This file: LoCoMo's answer normalisation. The metrics (F1, retention)
// and statistics (bootstrap) files of the package do no I/O; the runner,
// store, lock and summary writer do.

import (
	"strings"
	"unicode"
)

// NormalizeAnswer returns s normalised as LoCoMo's normalize_answer does
// (task_eval/evaluation.py): commas removed, lower-cased, ASCII punctuation
// (Python's string.punctuation) removed, the words "a", "an", "the" and
// "and" replaced by spaces (regex \b(a|an|the|and)\b, where a word is a
// maximal run of Unicode letters, marks, digits and connector punctuation),
// and whitespace runs collapsed to single spaces with no leading or
// trailing space.
func NormalizeAnswer(s string) string {
	return strings.Join(Tokens(s), " ")
}

// Tokens returns the tokens of NormalizeAnswer(s): what LoCoMo's
// normalize_answer(s).split() yields. It returns nil for text without
// tokens.
func Tokens(s string) []string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range strings.ToLower(s) {
		if r < 128 && isASCIIPunct(byte(r)) { // covers the comma too
			continue
		}
		b.WriteRune(r)
	}
	fields := strings.FieldsFunc(b.String(), isPySpace)
	out := fields[:0]
	for _, f := range fields {
		if allWordChars(f) {
			if !isArticle(f) {
				out = append(out, f)
			}
			continue
		}
		// A field such as "the—end" holds several regex words; remove the
		// articles among them and split again where they were.
		out = append(out, splitArticles(f)...)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// asciiPunct is Python's string.punctuation.
const asciiPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

var punctTable = func() (t [128]bool) {
	for i := 0; i < len(asciiPunct); i++ {
		t[asciiPunct[i]] = true
	}
	return t
}()

func isASCIIPunct(c byte) bool { return c < 128 && punctTable[c] }

// isPySpace reports whether Python's str.split() splits on r: Unicode
// white space plus the separators U+001C–U+001F.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// isWordChar approximates the regex module's \w for str patterns.
func isWordChar(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) ||
		unicode.Is(unicode.Pc, r) || r == 0x200c || r == 0x200d
}

func allWordChars(s string) bool {
	for _, r := range s {
		if !isWordChar(r) {
			return false
		}
	}
	return true
}

func isArticle(w string) bool {
	return w == "a" || w == "an" || w == "the" || w == "and"
}

// splitArticles blanks out the article words of f (a field holding
// non-word characters) and returns the remaining pieces.
func splitArticles(f string) []string {
	var b strings.Builder
	rs := []rune(f)
	for i := 0; i < len(rs); {
		if !isWordChar(rs[i]) {
			b.WriteRune(rs[i])
			i++
			continue
		}
		j := i
		for j < len(rs) && isWordChar(rs[j]) {
			j++
		}
		w := string(rs[i:j])
		if isArticle(w) {
			b.WriteByte(' ')
		} else {
			b.WriteString(w)
		}
		i = j
	}
	return strings.FieldsFunc(b.String(), isPySpace)
}
