package gist

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// sentence is one sentence of a gister's input, with its attribution.
type sentence struct {
	speaker string // "" for prose lines (an earlier summary, say)
	text    string
	turn    int // index of the turn (line) it came from
	pos     int // index among all sentences
}

// speakerLine splits "Speaker: text" into its parts, or reports false.
// A speaker is one to four space-separated words, each starting with an
// uppercase letter and made of letters, marks, apostrophes, dots and
// hyphens (no digits), ending in a colon.
func speakerLine(line string) (speaker, text string, ok bool) {
	i := strings.IndexByte(line, ':')
	if i <= 0 || i > 60 {
		return "", "", false
	}
	speaker = line[:i]
	words := strings.Split(speaker, " ")
	if len(words) > 4 {
		return "", "", false
	}
	for _, w := range words {
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsUpper(r) {
			return "", "", false
		}
		for _, r := range w {
			if !unicode.IsLetter(r) && !unicode.Is(unicode.M, r) && !strings.ContainsRune("'’.-", r) {
				return "", "", false
			}
		}
	}
	return speaker, strings.TrimSpace(line[i+1:]), true
}

// parse splits a rendered chunk into sentences. Lines "Speaker: text" are
// turns. Any other line is a header — counted, not kept — when it has at
// most 15 words and does not end in sentence punctuation, or starts with
// '#', '[' or '='; otherwise it continues the previous turn (or, before
// any turn, stands as prose with no speaker). It returns the sentences and
// the number of header lines.
func parse(text string) (sents []sentence, headers int) {
	turn := -1
	speaker := ""
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		body := line
		if sp, rest, ok := speakerLine(line); ok {
			speaker, body = sp, rest
			turn++
		} else if isHeader(line) {
			headers++
			speaker = ""
			turn++ // a header ends the turn before it
			continue
		} else if turn < 0 {
			turn = 0
		}
		for _, s := range splitSentences(body) {
			sents = append(sents, sentence{speaker: speaker, text: s, turn: turn, pos: len(sents)})
		}
	}
	return sents, headers
}

func isHeader(line string) bool {
	switch line[0] {
	case '#', '[', '=':
		return true
	}
	last, _ := utf8.DecodeLastRuneInString(line)
	return len(strings.Fields(line)) <= 15 && !strings.ContainsRune(".!?…\"”)", last)
}

// abbreviations that end in a period without ending a sentence.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "st": true, "jr": true,
	"sr": true, "vs": true, "etc": true, "e.g": true, "i.e": true, "approx": true,
	"prof": true, "mt": true, "no": true, "a.m": true, "p.m": true, "u.s": true,
}

// splitSentences splits s after runs of . ! ? … (with any closing quotes or
// brackets) that are followed by a space, except after abbreviations and
// single-letter initials, or when the next word starts in lowercase.
func splitSentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !strings.ContainsRune(".!?…", r) {
			i += n
			continue
		}
		end := i + n
		for end < len(s) {
			r2, n2 := utf8.DecodeRuneInString(s[end:])
			if !strings.ContainsRune(".!?…\"'”’)]", r2) {
				break
			}
			end += n2
		}
		if end < len(s) {
			if r2, _ := utf8.DecodeRuneInString(s[end:]); !unicode.IsSpace(r2) {
				i = end
				continue
			}
		}
		if nextIsLower(s[end:]) || (r == '.' && isAbbreviation(s[start:i])) {
			i = end
			continue
		}
		if t := strings.TrimSpace(s[start:end]); t != "" {
			out = append(out, t)
		}
		start = end
		i = end
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

// nextIsLower reports whether the first non-space rune of s is a lowercase
// letter: `She said "wow!" and left` is one sentence.
func nextIsLower(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) {
			return unicode.IsLower(r)
		}
	}
	return false
}

// isAbbreviation reports whether the text before a period ends in a known
// abbreviation or a single capital initial ("J. K. Rowling").
func isAbbreviation(before string) bool {
	w := before[strings.LastIndexAny(before, " (\t")+1:]
	if abbreviations[strings.ToLower(w)] {
		return true
	}
	r, n := utf8.DecodeRuneInString(w)
	return n == len(w) && unicode.IsUpper(r)
}
