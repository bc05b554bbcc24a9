package preserve

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// normalize lower-cases s, straightens curly quotes and collapses every
// whitespace run to one space (trimming the ends).
func normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case r == '’' || r == '‘' || r == 'ʼ':
			r = '\''
		case r == '“' || r == '”':
			r = '"'
		default:
			r = unicode.ToLower(r)
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// containsWord reports whether needle occurs in hay (both normalized) with
// word boundaries where needle starts or ends with a letter or digit.
func containsWord(hay, needle string) bool {
	if needle == "" {
		return false
	}
	first, _ := utf8.DecodeRuneInString(needle)
	last, _ := utf8.DecodeLastRuneInString(needle)
	checkL, checkR := isWordRune(first), isWordRune(last)
	for off := 0; off <= len(hay); {
		i := strings.Index(hay[off:], needle)
		if i < 0 {
			return false
		}
		i += off
		j := i + len(needle)
		okL := true
		if checkL && i > 0 {
			r, _ := utf8.DecodeLastRuneInString(hay[:i])
			okL = !isWordRune(r)
		}
		okR := true
		if checkR && j < len(hay) {
			r, _ := utf8.DecodeRuneInString(hay[j:])
			okR = !isWordRune(r)
		}
		if okL && okR {
			return true
		}
		_, size := utf8.DecodeRuneInString(hay[i:])
		off = i + size
	}
	return false
}

// dayPhrase returns "20 May 2023" for the value "2023-05-20", or "".
func dayPhrase(value string) string {
	t, err := time.Parse("2006-01-02", value)
	if err != nil {
		return ""
	}
	return t.Format("2 January 2006")
}

// maxSentence bounds the sentence an example quotes, in bytes.
const maxSentence = 400

// sentenceAround returns the sentence of text containing text[start:end]:
// from after the previous ". ", "! ", "? " or newline to the next one.
func sentenceAround(text string, start, end int) string {
	if start < 0 || end > len(text) || start > end {
		return strings.TrimSpace(text)
	}
	lo := 0
	for i := start - 1; i > 0; i-- {
		c := text[i]
		if c == '\n' || (c == ' ' && strings.IndexByte(".!?", text[i-1]) >= 0) {
			lo = i + 1
			break
		}
	}
	hi := len(text)
	for i := end; i < len(text); i++ {
		c := text[i]
		if c == '\n' {
			hi = i
			break
		}
		if strings.IndexByte(".!?", c) >= 0 && (i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n') {
			hi = i + 1
			break
		}
	}
	s := strings.TrimSpace(text[lo:hi])
	if len(s) > maxSentence {
		s = clip(s, maxSentence)
	}
	return s
}

// clip shortens s to at most n bytes at a rune boundary, adding "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.TrimSpace(s[:n]) + "…"
}
