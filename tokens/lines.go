package tokens

import "strings"

// splitMin is the length from which Count splits a text into lines.
const splitMin = 256

// countLines returns the token count of s as the sum of the counts of its
// pieces — each a line with the newlines that end it — and true, or false
// when s has no place to split. It splits only before a printable ASCII
// character that follows a run of "\n": cl100k_base's pre-tokenizer never
// makes a piece that spans such a place (a run of newlines is a piece of
// its own or ends a punctuation piece, and no letter, digit or punctuation
// piece starts with a newline), and byte-pair merges stay inside pieces,
// so the sum equals the whole text's count. Whitespace-only lines,
// carriage returns and lines starting with other characters are never
// split before. TestCountLinesExact checks the equality on the LoCoMo
// transcripts and on such edge cases.
func countLines(s string) (int, bool) {
	n, start, split := 0, 0, false
	for i := 0; i < len(s); {
		k := strings.IndexByte(s[i:], '\n')
		if k < 0 {
			break
		}
		j := i + k
		for j < len(s) && s[j] == '\n' {
			j++
		}
		if j < len(s) && s[j] > ' ' && s[j] < 0x7F {
			n += CountCached(s[start:j])
			start, split = j, true
		}
		i = j
	}
	if !split {
		return 0, false
	}
	return n + CountCached(s[start:]), true
}
