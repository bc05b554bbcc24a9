package selection

import (
	"context"
	"fmt"
	"sync"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bm25"
	"github.com/swcmem/swc/tokens"
	"github.com/swcmem/swc/vector"
)

// Recall is the swc-recall strategy (consolidate + recall): the
// question-agnostic selection of Select made at a share of the budget,
// plus the archived turns BM25 ranks best for the question, merged in
// conversation order, all within the budget. Without a query it is Select
// at the whole budget. Build it with NewRecall.
type Recall struct {
	name string
	// Select makes the consolidated part.
	Select *Select
	// Share is the part of the budget the consolidated context gets; the
	// rest goes to recalled turns. Default DefaultShare.
	Share float64
	// Embedder, when set, ranks the turns by cosine similarity to the
	// query too, and the two rankings are fused by reciprocal rank (k =
	// RRFK). It embeds every turn of a conversation once (one call) and
	// the query per call; nil ranks by BM25 alone. The CLI sets it only for
	// a model embedder: the lexical one fits its weights on the batch, so a
	// lone query has no meaningful vector.
	Embedder swc.Embedder

	mu    sync.Mutex
	bases map[baseKey]base
	vecs  map[*Analysis][][]float32
}

// RRFK is the k of reciprocal rank fusion: a turn at rank r (from 1) in a
// ranking scores 1 / (RRFK + r).
const RRFK = 60

// DefaultShare is the consolidated part of swc-recall's budget, chosen by
// measurement on LoCoMo (see docs/benchmark.md).
const DefaultShare = 0.65

// base is a cached consolidated part and its token count.
type base struct {
	ch     *choice
	tokens int
}

type baseKey struct {
	first  *swc.Session
	n      int
	budget int
}

var _ swc.QueryAware = (*Recall)(nil)

// NewRecall returns a Recall strategy named name over sel.
func NewRecall(name string, sel *Select) *Recall {
	return &Recall{name: name, Select: sel, Share: DefaultShare}
}

// Name returns the condition name.
func (r *Recall) Name() string { return r.name }

// QueryAware reports true: the context depends on the query.
func (r *Recall) QueryAware() bool { return true }

// Compress returns the consolidated context merged with the turns
// recalled for opts.Query. The consolidated part and the turn index are
// cached per conversation and budget, so each further question costs one
// BM25 ranking and one rendering. It returns EINVALID for a non-positive
// budget or a conversation without sessions.
func (r *Recall) Compress(ctx context.Context, c *swc.Conversation, opts swc.CompressOptions) (*swc.Context, error) {
	if opts.Query == "" {
		x, err := r.Select.Compress(ctx, c, opts)
		if x != nil {
			x.Strategy = r.name
		}
		return x, err
	}
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
	x := r.Select.Analyzer.Analyze(c)
	b := r.cached(x, opts.Budget)
	ch := b.ch.clone()
	ranked, err := r.rank(ctx, x, opts.Query)
	if err != nil {
		return nil, err
	}
	text, n := ch.fill(ranked, b.tokens, opts.Budget)
	out := report(ch, text, n, opts.Budget)
	out.Strategy = r.name
	return out, nil
}

// cached returns the consolidated choice at the budget's share, making it
// on first use.
func (r *Recall) cached(x *Analysis, budget int) base {
	share := r.Share
	if share <= 0 || share > 1 {
		share = DefaultShare
	}
	key := baseKey{first: &x.Conv.Sessions[0], n: len(x.Conv.Sessions), budget: budget}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bases == nil {
		r.bases = map[baseKey]base{}
	}
	b, ok := r.bases[key]
	if !ok {
		ch, text := r.Select.fit(x, int(float64(budget)*share))
		b = base{ch: ch, tokens: tokens.Count(text)}
		r.bases[key] = b
	}
	return b
}

func (c *choice) clone() *choice {
	cp := *c
	cp.kept = append([]bool(nil), c.kept...)
	return &cp
}

// addCost estimates the tokens keeping all of turn t adds: its sentences
// not yet kept, its prefix when none was, its session's header when the
// session was omitted, and a gap marker.
func (c *choice) addCost(t int) int {
	ti := &c.x.Turns[t]
	if !c.turnKept(t) {
		cost := ti.Tokens + 2 // a gap marker
		if ses := ti.Session; !c.sessionKept(ses) {
			cost += c.x.Header[ses] + tokens.Separator
		}
		return cost
	}
	cost := 0
	for u := c.first[t]; u < c.first[t+1]; u++ {
		if !c.kept[u] {
			cost += c.unit(u).Tokens
		}
	}
	return cost
}

// keepTurn keeps every sentence of turn t.
func (c *choice) keepTurn(t int) {
	for u := c.first[t]; u < c.first[t+1]; u++ {
		c.kept[u] = true
	}
}

// restore gives turn t back its state in base.
func (c *choice) restore(base *choice, t int) {
	copy(c.kept[c.first[t]:c.first[t+1]], base.kept[c.first[t]:c.first[t+1]])
}

// rank returns the turns to recall for query, best first: BM25's ranking
// (turns sharing a term with the query), fused with the embedder's by
// reciprocal rank when one is set.
func (r *Recall) rank(ctx context.Context, x *Analysis, query string) ([]int, error) {
	hits := x.Index().Top(bm25.Terms(query), 0)
	if r.Embedder == nil {
		out := make([]int, len(hits))
		for i, h := range hits {
			out[i] = h.Doc
		}
		return out, nil
	}
	vecs, err := r.turnVectors(ctx, x)
	if err != nil {
		return nil, err
	}
	qv, err := r.Embedder.Embed(ctx, []string{query})
	if err != nil {
		return nil, fmt.Errorf("selection: embed the query: %w", err)
	}
	if len(qv) != 1 {
		return nil, fmt.Errorf("selection: embedder %s returned %d vectors for 1 text", r.Embedder.Name(), len(qv))
	}
	sims := make([]float64, len(vecs))
	for i, v := range vecs {
		sims[i] = vector.Cosine(qv[0], v)
	}
	fused := make([]float64, len(vecs))
	for rank, h := range hits {
		fused[h.Doc] += 1 / float64(RRFK+rank+1)
	}
	for rank, h := range bm25.TopOf(sims, 0) {
		fused[h.Doc] += 1 / float64(RRFK+rank+1)
	}
	top := bm25.TopOf(fused, 0)
	out := make([]int, len(top))
	for i, h := range top {
		out[i] = h.Doc
	}
	return out, nil
}

// turnVectors embeds every turn of x in one call, once.
func (r *Recall) turnVectors(ctx context.Context, x *Analysis) ([][]float32, error) {
	r.mu.Lock()
	v, ok := r.vecs[x]
	r.mu.Unlock()
	if ok {
		return v, nil
	}
	texts := make([]string, len(x.Turns))
	for i, t := range x.Turns {
		texts[i] = t.Whole.Text
	}
	v, err := r.Embedder.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("selection: embed %s: %w", x.Conv.ID, err)
	}
	if len(v) != len(texts) {
		return nil, fmt.Errorf("selection: embedder %s returned %d vectors for %d texts", r.Embedder.Name(), len(v), len(texts))
	}
	r.mu.Lock()
	if r.vecs == nil {
		r.vecs = map[*Analysis][][]float32{}
	}
	r.vecs[x] = v
	r.mu.Unlock()
	return v, nil
}
