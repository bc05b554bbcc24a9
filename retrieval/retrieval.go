// Package retrieval implements the retrieval baselines of the benchmark,
// rag-bm25 and rag-bm25-anchored: what memory products that feed a model
// retrieved turns do, as a question-aware peer for swc's strategies. The
// turns of the conversation are ranked against the question with Okapi
// BM25 (package bm25) and the best are kept while they fit the budget
// (cl100k_base, the rendering counted exactly), then shown in conversation
// order under their session headers, rendered as swc-select renders its
// contexts (package selection). rag-bm25-anchored ranks and shows the turn
// lines with swc's temporal anchors (each relative date followed by the
// date it resolves to); rag-bm25 the turns as written.
package retrieval

import (
	"context"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bm25"
	"github.com/swcmem/swc/selection"
	"github.com/swcmem/swc/tokens"
)

// BM25 is a retrieval baseline. Build it with New.
type BM25 struct {
	name string
	// Analyzer analyses the conversation's turns: their lines (anchored
	// when it has an Anchor function), token counts and BM25 index. Only
	// those are used.
	Analyzer *selection.Analyzer
}

var _ swc.QueryAware = (*BM25)(nil)

// New returns a BM25 retrieval strategy named name over the turn analyses
// of a; an a with an Anchor function makes the anchored baseline.
func New(name string, a *selection.Analyzer) *BM25 {
	return &BM25{name: name, Analyzer: a}
}

// Name returns the condition name.
func (r *BM25) Name() string { return r.name }

// QueryAware reports true: the context depends on the query.
func (r *BM25) QueryAware() bool { return true }

// Compress ranks the turns of c against opts.Query with BM25 over their
// lines as shown ("Speaker: text"; equal scores to the earlier turn) and
// keeps the best that fit opts.Budget; when every turn sharing a term with
// the query is kept and tokens are left, the others fill them, the most
// recent first. Without a query every turn scores zero: it keeps the most
// recent turns that fit. The kept turns are shown in conversation order
// under their session headers. The index is built once per conversation.
// It returns EINVALID for a non-positive budget, one below the tokens of a
// context that keeps nothing (the omission marker), or a conversation
// without sessions.
func (r *BM25) Compress(ctx context.Context, c *swc.Conversation, opts swc.CompressOptions) (*swc.Context, error) {
	if opts.Budget <= 0 {
		return nil, swc.Errorf(swc.EINVALID, "%s needs a positive token budget", r.name)
	}
	c = c.Upto(opts.Upto)
	if len(c.Sessions) == 0 {
		return nil, swc.Errorf(swc.EINVALID, "conversation %s has no sessions", c.ID)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	x := r.Analyzer.Analyze(c)
	set := x.NewTurnSet()
	text, n := set.Fill(Rank(x, opts.Query), tokens.Count(set.Render()), opts.Budget)
	if n > opts.Budget {
		return nil, swc.BudgetErrorf("%s: a budget of %d tokens is below the %d of a context that keeps nothing of %s", r.name, opts.Budget, n, c.ID)
	}
	return set.Context(r.name, text, n, opts.Budget), nil
}

// Rank returns every turn of x, best first for query: those BM25 scores
// above zero over their lines by score (ties to the earlier turn), then
// the rest, the most recent first.
func Rank(x *selection.Analysis, query string) []int {
	ranked := make([]int, 0, len(x.Turns))
	seen := make([]bool, len(x.Turns))
	if query != "" {
		for _, h := range x.LineIndex().Top(bm25.Terms(query), 0) {
			ranked = append(ranked, h.Doc)
			seen[h.Doc] = true
		}
	}
	for t := len(x.Turns) - 1; t >= 0; t-- {
		if !seen[t] {
			ranked = append(ranked, t)
		}
	}
	return ranked
}
