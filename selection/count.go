package selection

import (
	"strings"

	"github.com/swcmem/swc/tokens"
)

// countText returns tokens.Count(text), computed as the sum of the
// memoised counts of its lines, each with the newlines that follow it.
// cl100k_base's pre-tokenizer never joins a newline with the letter,
// digit or punctuation that starts the next line, so no token crosses
// these pieces and the sum is exact (TestCountTextExact checks it); the
// lines of a conversation recur across budgets and questions, so the
// memo makes each count cheap.
func countText(text string) int {
	n := 0
	for len(text) > 0 {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			return n + tokens.CountCached(text)
		}
		j := i
		for j < len(text) && text[j] == '\n' {
			j++
		}
		n += tokens.CountCached(text[:j])
		text = text[j:]
	}
	return n
}
