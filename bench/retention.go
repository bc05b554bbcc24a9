package bench

import (
	"strings"

	"github.com/swcmem/swc/internal/memo"
)

// The offline metrics. Contexts and gold answers are tokenised
// with Tokens (LoCoMo's normalize_answer, then a whitespace split) after
// WrittenDates (a date in digits, "31.12.2023", read as "31 December
// 2023"; see dates.go) and NOT Porter-stemmed: retention asks whether the
// answer's words survive in the context as written, and stemming would
// let "painting" in a context count for a gold "painted". Case,
// punctuation, articles and "and" are ignored, as in LoCoMo's F1.

// Index is a context prepared for many questions: its normalised token
// sequence and, for each distinct token, the positions where it occurs.
// Build it once per context with NewIndex; it is safe for concurrent reads.
type Index struct {
	tokens []string
	pos    map[string][]int32
}

// NewIndex tokenises context and indexes it. Tokens never span a line
// break, so the context is tokenised line by line, each line's tokens
// remembered process-wide (the lines of one conversation recur in every
// condition's and every question's context).
func NewIndex(context string) *Index {
	var toks []string
	for len(context) > 0 {
		line := context
		if i := strings.IndexByte(context, '\n'); i >= 0 {
			line, context = context[:i], context[i+1:]
		} else {
			context = ""
		}
		toks = append(toks, lineTokens(line)...)
	}
	pos := make(map[string][]int32, len(toks)/4+1)
	for i, t := range toks {
		pos[t] = append(pos[t], int32(i))
	}
	return &Index{tokens: toks, pos: pos}
}

// Len returns the number of tokens in the context.
func (x *Index) Len() int { return len(x.tokens) }

// Has reports whether the normalised token tok occurs in the context.
func (x *Index) Has(tok string) bool {
	_, ok := x.pos[tok]
	return ok
}

// Retention returns 1 when the normalised gold answer occurs as a
// contiguous token sequence in the context, else 0 (LoCoMo's has_answer
// idea). A gold answer with no tokens is never retained (0).
func (x *Index) Retention(gold string) float64 {
	g := retentionTokens(gold)
	if len(g) == 0 {
		return 0
	}
	// Anchor on the gold token with the fewest occurrences.
	anchor := 0
	for i, t := range g {
		ps, ok := x.pos[t]
		if !ok {
			return 0
		}
		if len(ps) < len(x.pos[g[anchor]]) {
			anchor = i
		}
	}
	for _, p := range x.pos[g[anchor]] {
		start := int(p) - anchor
		if start < 0 || start+len(g) > len(x.tokens) {
			continue
		}
		if matchAt(x.tokens, start, g) {
			return 1
		}
	}
	return 0
}

func matchAt(toks []string, start int, g []string) bool {
	for j, t := range g {
		if toks[start+j] != t {
			return false
		}
	}
	return true
}

// TokenRecall returns the share of the gold answer's content tokens (its
// normalised tokens that are not stopwords, see IsStopword, counted with repetition)
// that occur anywhere in the context. When every token of the gold is a
// stopword all its tokens count; a gold answer with no tokens scores 0.
func (x *Index) TokenRecall(gold string) float64 {
	g := contentTokens(retentionTokens(gold))
	if len(g) == 0 {
		return 0
	}
	hit := 0
	for _, t := range g {
		if x.Has(t) {
			hit++
		}
	}
	return float64(hit) / float64(len(g))
}

// AnswerRetention is NewIndex(context).Retention(gold); use an Index when
// asking several questions of one context.
func AnswerRetention(context, gold string) float64 {
	return NewIndex(context).Retention(gold)
}

// AnswerTokenRecall is NewIndex(context).TokenRecall(gold).
func AnswerTokenRecall(context, gold string) float64 {
	return NewIndex(context).TokenRecall(gold)
}

// IsStopword reports whether TokenRecall ignores the normalised token tok
// in a gold answer. The list is deliberately small (45 words): personal
// pronouns and possessives, forms of be/do/have, common prepositions, "or",
// "as", "it", "its", "this", "that", "not" and "no". Articles and "and"
// never reach it: normalisation removes them.
func IsStopword(tok string) bool { return stopwords[tok] }

var stopwords = map[string]bool{
	"or": true, "of": true, "in": true, "on": true, "at": true, "to": true,
	"for": true, "with": true, "by": true, "from": true, "as": true,
	"is": true, "was": true, "are": true, "were": true, "be": true, "been": true,
	"do": true, "did": true, "does": true, "has": true, "have": true, "had": true,
	"it": true, "its": true, "this": true, "that": true,
	"i": true, "you": true, "he": true, "she": true, "we": true, "they": true,
	"me": true, "him": true, "us": true, "them": true,
	"my": true, "your": true, "his": true, "her": true, "our": true, "their": true,
	"not": true, "no": true,
}

func contentTokens(toks []string) []string {
	var out []string
	for _, t := range toks {
		if !stopwords[t] {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return toks
	}
	return out
}

// VerbatimSet returns the set of turn ids in ids, such as a
// swc.Context's Verbatim list, for EvidenceRetention.
func VerbatimSet(ids []string) map[string]bool {
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	return set
}

// EvidenceRetention returns the share of the distinct evidence turn ids
// that are in kept (the turns kept verbatim), and ok = true. A question
// without evidence has no defined share: it returns 0, false, and callers
// exclude it from means.
func EvidenceRetention(kept map[string]bool, evidence []string) (share float64, ok bool) {
	seen := make(map[string]bool, len(evidence))
	hit := 0
	for _, id := range evidence {
		if seen[id] {
			continue
		}
		seen[id] = true
		if kept[id] {
			hit++
		}
	}
	if len(seen) == 0 {
		return 0, false
	}
	return float64(hit) / float64(len(seen)), true
}

// tokenMemo remembers lineTokens, bounded in bytes (about 2·LineMemoBytes):
// lines recur across the contexts of one conversation, rarely across
// conversations.
var tokenMemo = memo.New(LineMemoBytes, func(line string, t []string) int { return 2*len(line) + 16*len(t) })

// lineTokens is retentionTokens(line), remembered.
func lineTokens(line string) []string {
	if t, ok := tokenMemo.Get(line); ok {
		return t
	}
	t := retentionTokens(line)
	tokenMemo.Put(line, t)
	return t
}
