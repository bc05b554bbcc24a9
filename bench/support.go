package bench

import (
	"strings"

	"github.com/swcmem/swc/bm25"
	"github.com/swcmem/swc/internal/memo"
)

// SupportK is the k of support_recall@k in the benchmark.
const SupportK = 5

// SupportWindow is the most words one line of a context may hold in the
// support_recall metric; longer lines are cut into windows of this size,
// so that one huge line (a bag of words) cannot count as one "line".
// LoCoMo turns are shorter than this (mean about 20 words).
const SupportWindow = 48

// Support is a context prepared for support_recall@k: its lines, each
// carrying its block's header, indexed with BM25. Build it once per context
// with NewSupport; it is safe for concurrent reads.
type Support struct {
	lines  []string
	info   []*lineInfo
	avgLen float64
}

// NewSupport splits context into lines and indexes them. Blocks are
// separated by blank lines; a block's first line is its header when it
// starts with "[" (a session header, "[Summary of sessions …]", an
// omission marker). Every other line is one line of the metric — a turn —
// except in summary blocks (header ending in "(summary)" or starting with
// "[Summary"), whose text is split into sentences. Each line is prefixed
// with its block's header, so session dates count; lines longer than
// SupportWindow words are cut into windows.
func NewSupport(context string) *Support {
	s := &Support{}
	for _, block := range strings.Split(context, "\n\n") {
		lines := strings.Split(strings.Trim(block, "\n"), "\n")
		header := ""
		if len(lines) > 0 && strings.HasPrefix(lines[0], "[") {
			header, lines = lines[0], lines[1:]
		}
		summary := strings.HasSuffix(header, "(summary)") || strings.HasPrefix(header, "[Summary")
		for _, l := range lines {
			l = strings.TrimSpace(l)
			if l == "" || l == "…" || l == "[…]" {
				continue // an omission marker holds nothing
			}
			units := []string{l}
			if summary {
				units = sentences(l)
			}
			for _, u := range units {
				for _, w := range windows(u, SupportWindow) {
					if header != "" {
						w = header + " " + w
					}
					s.lines = append(s.lines, w)
				}
			}
		}
	}
	s.info = make([]*lineInfo, len(s.lines))
	total := 0
	for i, l := range s.lines {
		s.info[i] = analyzeLine(l)
		total += s.info[i].n
	}
	if len(s.lines) > 0 {
		s.avgLen = float64(total) / float64(len(s.lines))
	}
	return s
}

// lineInfo is the analysis of one line: its BM25 terms and its set of
// normalised tokens. Lines recur across the contexts of one conversation
// (every condition and, for question-aware ones, every question), so
// they are memoised process-wide.
type lineInfo struct {
	tf   map[string]int // BM25 term → count
	n    int            // BM25 terms, with repetition
	toks map[string]bool
}

// LineMemoBytes is the bytes per generation of each of the bench's line
// memos (the analyses of support_recall and the tokens of retention): a
// memo holds about twice that, whatever the number of conversations.
const LineMemoBytes = 32 << 20

// lineMemo remembers analyzeLine, bounded in bytes.
var lineMemo = memo.New(LineMemoBytes, func(l string, li *lineInfo) int { return 2*len(l) + 48*(len(li.tf)+len(li.toks)) })

func analyzeLine(l string) *lineInfo {
	if li, ok := lineMemo.Get(l); ok {
		return li
	}
	terms := bm25.Terms(l)
	li := &lineInfo{tf: make(map[string]int, len(terms)), n: len(terms), toks: map[string]bool{}}
	for _, t := range terms {
		li.tf[t]++
	}
	for _, t := range retentionTokens(l) {
		li.toks[t] = true
	}
	lineMemo.Put(l, li)
	return li
}

// Lines returns the metric's lines, each with its header.
func (s *Support) Lines() []string { return s.lines }

// Top returns the indexes of the k lines BM25 ranks best for question,
// best first (fewer when fewer lines share a term with it).
//
// Scores are BM25 (package bm25, default k1 and b) over the lines of this
// context, computed directly from each line's term counts: no index is
// built, as each context meets few questions.
func (s *Support) Top(question string, k int) []int {
	scores := make([]float64, len(s.lines))
	seen := map[string]bool{}
	for _, t := range bm25.Terms(question) {
		if seen[t] {
			continue
		}
		seen[t] = true
		df := 0
		for _, li := range s.info {
			if li.tf[t] > 0 {
				df++
			}
		}
		if df == 0 {
			continue
		}
		idf := bm25.IDF(len(s.lines), df)
		for i, li := range s.info {
			if tf := li.tf[t]; tf > 0 {
				scores[i] += bm25.TermScore(idf, float64(tf), float64(li.n), s.avgLen, bm25.DefaultK1, bm25.DefaultB)
			}
		}
	}
	hits := bm25.TopOf(scores, k)
	out := make([]int, len(hits))
	for i, h := range hits {
		out[i] = h.Doc
	}
	return out
}

// Recall returns support_recall@k: the share of the gold answer's content
// tokens (as TokenRecall counts them) found in the k lines BM25 ranks best
// for question. A gold answer with no tokens, or a question sharing no
// term with any line, scores 0.
func (s *Support) Recall(question, gold string, k int) float64 {
	g := contentTokens(retentionTokens(gold))
	if len(g) == 0 {
		return 0
	}
	top := s.Top(question, k)
	hit := 0
	for _, t := range g {
		for _, i := range top {
			if s.info[i].toks[t] {
				hit++
				break
			}
		}
	}
	return float64(hit) / float64(len(g))
}

// SupportRecall is NewSupport(context).Recall(question, gold, k).
func SupportRecall(context, question, gold string, k int) float64 {
	return NewSupport(context).Recall(question, gold, k)
}

// sentences splits text after ".", "!" or "?" followed by a space.
func sentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i+1 < len(text); i++ {
		if (text[i] == '.' || text[i] == '!' || text[i] == '?') && text[i+1] == ' ' {
			if s := strings.TrimSpace(text[start : i+1]); s != "" {
				out = append(out, s)
			}
			start = i + 2
		}
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// windows cuts text into pieces of at most n words.
func windows(text string, n int) []string {
	words := strings.Fields(text)
	if len(words) <= n {
		return []string{text}
	}
	var out []string
	for i := 0; i < len(words); i += n {
		out = append(out, strings.Join(words[i:min(i+n, len(words))], " "))
	}
	return out
}
