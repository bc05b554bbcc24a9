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
// The speaker is what comes before the line's first colon, which must be
// followed by a space or end the line (a full-width "：" needs no space):
// one to four space-separated words of letters (any script or case),
// digits, marks and - _ . ' ’, with at least one letter — "Caroline",
// "user", "User1", "Bot-2", "王伟", "Zoë", "Mary Ann O'Neil". Session
// headers ("Session 3: …", see isSessionHeader) are not speaker lines.
func speakerLine(line string) (speaker, text string, ok bool) {
	i := strings.IndexAny(line, ":：")
	if i <= 0 || i > 80 {
		return "", "", false
	}
	rest := line[i+1:]
	if line[i] == ':' {
		if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
			return "", "", false // "2:10 pm", "https://…"
		}
	} else {
		rest = line[i+len("："):]
	}
	speaker = strings.TrimSpace(line[:i])
	words := strings.Fields(speaker)
	if len(words) == 0 || len(words) > 4 {
		return "", "", false
	}
	letter := false
	for _, w := range words {
		for _, r := range w {
			switch {
			case unicode.IsLetter(r):
				letter = true
			case unicode.IsDigit(r) || unicode.Is(unicode.M, r) || strings.ContainsRune("-_.'’", r):
			default:
				return "", "", false
			}
		}
	}
	if !letter || sessionWords(words) {
		return "", "", false
	}
	return strings.Join(words, " "), strings.TrimSpace(rest), true
}

// isSessionHeader reports whether line is a structural header whatever
// its length: a line starting with '#', '[' or '=' (swc.SessionHeader's
// "[Session 3 — 1:56 pm on 8 May, 2023]", a gist block's "[Session 3 —
// …] (summary)", a running summary's "[Summary of sessions 1–5]",
// markdown headings), or one starting "Session N" or "Summary of
// sessions".
func isSessionHeader(line string) bool {
	switch line[0] {
	case '#', '[', '=':
		return true
	}
	f := strings.Fields(line)
	if len(f) > 3 {
		f = f[:3]
	}
	return sessionWords(f)
}

// sessionWords reports whether words start like a session header:
// "Session 3", "Sessions 1–5", "Summary of sessions".
func sessionWords(words []string) bool {
	if len(words) < 2 {
		return false
	}
	w0 := strings.ToLower(words[0])
	if w0 == "session" || w0 == "sessions" {
		r, _ := utf8.DecodeRuneInString(words[1])
		return unicode.IsDigit(r)
	}
	return w0 == "summary" && len(words) >= 3 && strings.EqualFold(words[1], "of") &&
		strings.HasPrefix(strings.ToLower(words[2]), "session")
}

// parse splits a rendered chunk into sentences and counts its header
// lines. Lines "Speaker: text" (see speakerLine) are turns. Any other line
// is a header — counted, not kept — when isSessionHeader says so, or when
// it has at most 15 words and does not end in sentence punctuation;
// otherwise it continues the previous turn (or, before any turn, stands
// as prose with no speaker).
//
// When no line is a turn (a transcript in a format it does not know, or
// plain prose), only isSessionHeader lines are headers and every other
// non-empty line is text of an unknown speaker (""), one turn per line,
// so text never goes unread. Only input with no text at all (blank or
// headers only) yields no sentences.
func parse(text string) (sents []sentence, headers int) {
	turn := -1
	speaker := ""
	turns := 0
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		body := line
		if sp, rest, ok := speakerLine(line); ok {
			speaker, body = sp, rest
			turn++
			turns++
		} else if isSessionHeader(line) || isHeader(line) {
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
	if turns > 0 {
		return sents, headers
	}
	return parseProse(text)
}

// parseProse is parse's fallback for input without turns: every non-empty
// line that is not a session header is one turn with no speaker.
func parseProse(text string) (sents []sentence, headers int) {
	turn := -1
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		turn++
		if isSessionHeader(line) {
			headers++
			continue
		}
		for _, s := range splitSentences(line) {
			sents = append(sents, sentence{text: s, turn: turn, pos: len(sents)})
		}
	}
	return sents, headers
}

// isHeader reports whether a line that is not a turn is a short title: at
// most 15 words, not ending in sentence punctuation.
func isHeader(line string) bool {
	last, _ := utf8.DecodeLastRuneInString(line)
	return len(strings.Fields(line)) <= 15 && !strings.ContainsRune(terminators+closers, last)
}

// abbreviations that end in a period without ending a sentence.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "st": true, "jr": true,
	"sr": true, "vs": true, "etc": true, "e.g": true, "i.e": true, "approx": true,
	"prof": true, "mt": true, "no": true, "a.m": true, "p.m": true, "u.s": true,
}

const (
	// terminators end a sentence; fullWidth ones (Chinese, Japanese) need
	// no space after them.
	terminators = ".!?…" + fullWidth
	fullWidth   = "。！？｡"
	// closers may follow a terminator within its sentence.
	closers = "\"'”’)]」』）】〉》"
)

// splitSentences splits s after runs of terminators (. ! ? … 。 ！ ？,
// with any closing quotes or brackets) followed by a space, except after
// abbreviations and single-letter initials, or when the next word starts
// in lowercase. A run holding a full-width terminator, or followed by
// Chinese, Japanese or Korean text, needs no space after it — unless it
// ends in a closing quote that the text runs on from (「はい。」と言った),
// rather than a new quote opening (「本当？」「うん。」).
func splitSentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !strings.ContainsRune(terminators, r) {
			i += n
			continue
		}
		end := i + n
		wide := strings.ContainsRune(fullWidth, r)
		closed := false
		for end < len(s) {
			r2, n2 := utf8.DecodeRuneInString(s[end:])
			if strings.ContainsRune(fullWidth, r2) {
				wide = true
			} else if strings.ContainsRune(closers, r2) {
				closed = true
			} else if !strings.ContainsRune(terminators, r2) {
				break
			}
			end += n2
		}
		if end < len(s) {
			r2, _ := utf8.DecodeRuneInString(s[end:])
			cjk := wide || isCJK(r2)
			if !unicode.IsSpace(r2) && !(cjk && (!closed || unicode.In(r2, unicode.Ps, unicode.Pi))) {
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

// isCJK reports whether r is written without spaces between sentences:
// Han, kana or Hangul.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
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
