package selection

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bm25"
	"github.com/swcmem/swc/vector"
)

// Recall is the swc-recall strategy (consolidate + recall): the turns that
// stand out for the question, then the question-agnostic selection of
// Select filling the rest of the budget around them, in conversation
// order. Every turn standing out for the question is recalled, however
// much of the budget they take (each while it fits); when they take less
// than Fill of it, the question's next-best turns are recalled up to
// that share, and the consolidated part has the rest. Without a query it
// is Select. Build it with NewRecall.
//
// Turns are ranked by Okapi BM25 over their lines as shown (anchored, the
// speaker's name included), a day the question names weighing as a word
// of the turns held on it (Day); a turn that opens a run (the messages one
// person sends in a row) adds Reply × the best score of the questions
// (turns holding "?") of the run right before it in its session, since
// the answer to what matches the question is usually the reply, and in a
// chat it often comes after the asker's own follow-ups (see asked) —
// between people only: where either turn is an assistant's (see
// Assistant), each is recalled for its own words. The user's turn is what
// is remembered, and the assistant's answer, usually long, must not take
// its score; an assistant's question is mostly an offer closing a long
// answer ("Would you like more tips?"), whose words are the answer's, and
// the user's next turn a new request, not its answer. Instead a user's
// turn adds Prompt × the score of the assistant's answer right after it:
// the answer restates and elaborates what the user asked or told, so an
// answer that matches the question points at the user's turn, which is
// what is asked about later and costs a tenth of the answer. The turns scoring
// at least StandOut × the best are recalled, best per cost first, each
// while it fits, then the next ones of the ranking up to Fill × the
// budget; then the greedy of Select values every other turn by what it
// adds to them. A turn's cost is 1 up to Select's LongTokens and grows
// with its length past them (see recallCost): among the turns standing out,
// a user's 50-token line naming what was asked comes before a 600-token
// answer that scored a little higher, which at 1,000 tokens would have
// left room for nothing else.
type Recall struct {
	name string
	// Select makes the consolidated part.
	Select *Select
	// StandOut is the share of the best turn's score a turn needs to be
	// recalled (NewRecall sets DefaultStandOut).
	StandOut float64
	// Reply is the share of a question turn's score its reply inherits
	// (NewRecall sets DefaultReply; 0 ranks turns by their own words only).
	Reply float64
	// Prompt is the share of an assistant's turn's score the user's turn
	// before it in its session adds to its own (NewRecall sets
	// DefaultPrompt; 0: none).
	Prompt float64
	// Embedder, when set, ranks the turns by cosine similarity to the
	// query too: the turns standing out in either ranking are recalled,
	// ordered by their reciprocal-rank fusion of the two (k = RRFK) over
	// their cost (see recallCost). It embeds
	// every turn of a conversation once (one call) and the query per call;
	// nil ranks by BM25 alone. The CLI sets
	// it only for a model embedder: the lexical one fits its weights on
	// the batch, so a lone query has no meaningful vector.
	Embedder swc.Embedder

	// LongTurn is how many times the conversation's median turn (in
	// tokens) a recalled turn must exceed, and LongMin how many tokens,
	// to be long: a long turn is kept as its first sentence and those
	// holding a term of the query, with Around sentences either side of
	// each, and Gap for the rest; the tokens freed go to more recalled
	// turns and the consolidated part. A long turn none of whose
	// sentences holds a term of the query is kept whole. 0 (NewRecall's
	// default) keeps every recalled turn whole: measured, the rule
	// changes LoCoMo by at most 0.001 and the LongMemEval sample by one
	// question either way (docs/benchmark.md).
	LongTurn float64
	LongMin  int
	Around   int

	// Fill is the share of the budget the recalled turns fill: after the
	// turns standing out, the next turns of the same ranking, best per
	// cost, are recalled while their tokens (their lines', without the
	// session headers and gap markers the rendering adds, so the rendered
	// share is higher: about 0.6 of a 1,000-token context at 0.5) stay
	// within Fill × the budget (NewRecall sets DefaultFill; 0 recalls the turns
	// standing out alone). A question whose best turn stands far above the
	// rest recalls few turns; at a large budget the question-agnostic
	// selection then held nearly all of the context, and the question's
	// second-best matches (the later value of a fact that changed, an
	// answer the user's line points to) were left to it.
	Fill float64

	// Asked, when set (NewRecall sets it), ranks the turns for a question
	// asking what the assistant said (see AsksAssistant: "Can you remind
	// me…", "the recipe you gave me") by their own words: the user's turns
	// take no Prompt share of the answers after them, and among the turns
	// standing out an assistant's pays nothing for its length, since the
	// answer to such a question is in the assistant's words. The turns
	// filling the budget past them (Fill) keep the length's cost.
	Asked bool

	// Day is the weight of a calendar date the question names in full
	// ("What did Kevin watch on 10.01.2024?", "… on 7 July, 2023"; see
	// namedDays): every turn of a session held that day adds Day × the
	// inverse document frequency a term found in exactly those sessions'
	// turns would have — as if the session header's date were a word of
	// each of its turns, which BM25 over the lines cannot see; a turn
	// whose anchored line names the day ("last night [9 January 2024]")
	// holds it too. 0: none (NewRecall sets DefaultDay).
	Day float64

	mu   sync.Mutex
	vecs map[*Analysis][][]float32
}

// RRFK is the k of reciprocal rank fusion: a turn at rank r (from 1) in a
// ranking scores 1 / (RRFK + r).
const RRFK = 60

// DefaultStandOut and DefaultReply are swc-recall's settings, chosen by
// measurement on LoCoMo; DefaultPrompt on held-out LongMemEval questions,
// where 0.25 to 0.75 gain alike; DefaultFill taken a priori and measured
// on both LongMemEval and LoCoMo, 0.25 and 0.75 gaining too at 16,000
// tokens on LongMemEval; DefaultDay a priori, a named day weighing as a
// word of the turns held on it (see docs/benchmark.md).
const (
	DefaultStandOut = 0.35
	DefaultReply    = 1
	DefaultPrompt   = 0.5
	DefaultFill     = 0.5
	DefaultDay      = 1
)

var _ swc.QueryAware = (*Recall)(nil)

// NewRecall returns a Recall strategy named name over sel, with
// DefaultStandOut, DefaultReply, DefaultPrompt, DefaultFill and
// DefaultDay, and Asked set.
func NewRecall(name string, sel *Select) *Recall {
	return &Recall{name: name, Select: sel, StandOut: DefaultStandOut, Reply: DefaultReply, Prompt: DefaultPrompt, Fill: DefaultFill, Day: DefaultDay, Asked: true}
}

// Name returns the condition name.
func (r *Recall) Name() string { return r.name }

// QueryAware reports true: the context depends on the query.
func (r *Recall) QueryAware() bool { return true }

// Compress returns the turns recalled for opts.Query with the
// consolidated selection around them, in order under their session
// headers. The analysis and BM25 index of the conversation are made once;
// each question costs one ranking and one greedy selection. It returns
// EINVALID for a non-positive budget, one below the tokens of a context
// that keeps nothing (the omission marker), or a conversation without
// sessions, and the embedder's error when it fails.
func (r *Recall) Compress(ctx context.Context, c *swc.Conversation, opts swc.CompressOptions) (*swc.Context, error) {
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
	var seed recalled
	if opts.Query != "" {
		x := r.Select.Analyzer.Analyze(c)
		turns, score, err := r.recall(ctx, x, opts.Query)
		if err != nil {
			return nil, err
		}
		seed.turns = r.fill(x, turns, score, opts.Budget)
		seed.part = r.parts(x, seed.turns, opts.Query)
	}
	return r.Select.compress(c, opts.Budget, seed, r.name)
}

// Scores returns every turn's score for query: BM25 over the turns' lines
// (Analysis.LineIndex), plus, for a turn opening a run after a run of
// another person's holding questions, in its session, neither of them an
// assistant, Reply × the best question's own score (asked), and for a
// user's turn an assistant's answers next in its session, Prompt × the
// answer's own score (none for a question asking what the assistant said,
// with Asked).
func (r *Recall) Scores(x *Analysis, query string) []float64 {
	prompt := r.Prompt
	if r.Asked && AsksAssistant(query) {
		prompt = 0
	}
	own := x.LineIndex().Scores(bm25.Terms(query))
	if r.Day > 0 {
		dayScores(x, query, r.Day, own)
	}
	if r.Reply == 0 && prompt == 0 {
		return own
	}
	out := make([]float64, len(own))
	for t := range own {
		out[t] = own[t]
		if r.Reply > 0 {
			out[t] += r.Reply * asked(x, own, t)
		}
		if prompt > 0 && t+1 < len(own) && own[t+1] > 0 && x.Turns[t+1].Session == x.Turns[t].Session &&
			!Assistant(x.Turns[t].Turn.Speaker) && Assistant(x.Turns[t+1].Turn.Speaker) {
			out[t] += prompt * own[t+1]
		}
	}
	return out
}

// dayScores adds to scores, for the turns of the sessions held on a day
// query names and the turns whose line (anchored) names that day — "last
// night [9 January 2024]" — w × the IDF of a term found in all of those
// turns and no other (see Recall.Day).
func dayScores(x *Analysis, query string, w float64, scores []float64) {
	days := namedDays(query)
	if len(days) == 0 {
		return
	}
	held := make([]bool, len(x.Conv.Sessions))
	var texts []string
	for _, d := range days {
		texts = append(texts, d.time().Format("2 January 2006"))
		for i := range x.Conv.Sessions {
			if d.on(x.Conv.Sessions[i].Start) {
				held[i] = true
			}
		}
	}
	var on []int
	for t := range x.Turns {
		ti := &x.Turns[t]
		if held[ti.Session] || slices.ContainsFunc(texts, func(s string) bool { return namesDay(ti.Line, s) }) {
			on = append(on, t)
		}
	}
	bonus := w * bm25.IDF(len(x.Turns), len(on))
	for _, t := range on {
		scores[t] += bonus
	}
}

// namesDay reports whether line holds the date text ("9 January 2024")
// as a whole, not inside a longer number ("19 January 2024").
func namesDay(line, text string) bool {
	for i := 0; ; {
		k := strings.Index(line[i:], text)
		if k < 0 {
			return false
		}
		k += i
		if k == 0 || line[k-1] < '0' || line[k-1] > '9' {
			return true
		}
		i = k + 1
	}
}

// asked returns the best own score of the questions turn t answers:
// when t opens a run (the turns one person sends in a row in a session),
// the turns holding "?" of the run right before it in its session, said
// by someone else; 0 when t continues a run or either speaker is an
// assistant. In a chat people send one thought as several short
// messages, and the answer to a question often comes after the asker's
// own follow-ups ("What pasta dish did you learn to make? Did you take
// any photos?" … "We whipped up a pasta dish with ham and peas"); where
// speakers alternate (LoCoMo) a run is one turn, and this is the turn
// right before t.
func asked(x *Analysis, own []float64, t int) float64 {
	ti := &x.Turns[t]
	p := t - 1
	if Assistant(ti.Turn.Speaker) || p < 0 || sameRun(x, t, p) {
		return 0
	}
	if x.Turns[p].Session != ti.Session || Assistant(x.Turns[p].Turn.Speaker) {
		return 0
	}
	best := 0.0
	for q := p; q >= 0 && sameRun(x, p, q); q-- {
		if own[q] > best && strings.Contains(x.Turns[q].Turn.Text, "?") {
			best = own[q]
		}
	}
	return best
}

// sameRun reports whether turns t and n, next to each other or with only
// turns of the same run between them, are of one run: said in one
// session by one speaker who is not an assistant.
func sameRun(x *Analysis, t, n int) bool {
	a, b := &x.Turns[t], &x.Turns[n]
	return a.Session == b.Session && a.Turn.Speaker == b.Turn.Speaker && !Assistant(a.Turn.Speaker)
}

// recall returns the turns standing out for query, best per cost first
// (see perCost): those scoring at least StandOut × the best; and every
// turn's score in the ranking that ordered them. With an embedder, the
// turns whose cosine similarity to the query, less the mean over the
// turns, is at least StandOut × the best's stand out too, and both are
// ordered by the reciprocal-rank fusion of the two rankings over their
// cost (the fused scores are returned).
func (r *Recall) recall(ctx context.Context, x *Analysis, query string) ([]int, []float64, error) {
	scores := r.Scores(x, query)
	asked := r.Asked && AsksAssistant(query)
	if r.Embedder == nil {
		return r.perCost(x, standOut(bm25.TopOf(above(scores, r.StandOut), 0), r.StandOut), scores, asked), scores, nil
	}
	hits := bm25.TopOf(scores, 0)
	out := standOut(hits, r.StandOut)
	sims, err := r.similarities(ctx, x, query)
	if err != nil {
		return nil, nil, err
	}
	byCos := bm25.TopOf(sims, 0)
	in := map[int]bool{}
	for _, t := range append(out, standOut(byCos, r.StandOut)...) {
		in[t] = true
	}
	fused := make([]float64, len(sims))
	for rank, h := range hits {
		fused[h.Doc] += 1 / float64(RRFK+rank+1)
	}
	for rank, h := range byCos {
		fused[h.Doc] += 1 / float64(RRFK+rank+1)
	}
	out = out[:0]
	for _, h := range bm25.TopOf(fused, 0) {
		if in[h.Doc] {
			out = append(out, h.Doc)
		}
	}
	return r.perCost(x, out, fused, asked), fused, nil
}

// perCost orders turns (best first by score) by score over recallCost,
// keeping the order of equals; with asked, an assistant's turn costs 1.
func (r *Recall) perCost(x *Analysis, turns []int, score []float64, asked bool) []int {
	k := r.Select.Weights.LongTokens
	if k <= 0 {
		return turns
	}
	cost := func(t int) float64 {
		if asked && Assistant(x.Turns[t].Turn.Speaker) {
			return 1
		}
		return recallCost(x.Turns[t].Tokens, k)
	}
	slices.SortStableFunc(turns, func(a, b int) int {
		return cmp.Compare(score[b]/cost(b), score[a]/cost(a))
	})
	return turns
}

// askedRE matches a question about what the assistant said: "remind
// me", "did you", "our previous (earlier, last) conversation (chat,
// discussion)" — what was said between the two of us, the assistant's
// words included — or "you" ("you'd") before a past tense, two words
// between them at most ("you told", "you had previously recommended"):
// an irregular one of a few, or a word ending in "ed" but not "eed"
// ("need", "indeed"). Adjectives in -ed ("tired") match too.
var askedRE = regexp.MustCompile(`(?i)\b(?:remind me|did you|our (?:previous|earlier|last) (?:conversation|chat|discussion)|you(?:'d)?\s+(?:\w+\s+){0,2}?(?:told|said|gave|wrote|made|sent|found|chose|came|brought|showed|taught|\w+[^e\W]ed))\b`)

// AsksAssistant reports whether query asks what the assistant said
// earlier ("Can you remind me of the café you recommended?", "How many
// eggs did you say we need?"), by its words alone.
func AsksAssistant(query string) bool { return askedRE.MatchString(query) }

// recallCost is what a recalled turn of n tokens costs against its score:
// 1 up to long tokens, n / long past them. A turn of what people say
// (LoCoMo's are nearly all under 64 tokens) costs 1 whatever its length,
// so its score alone ranks it; a pasted list, recipe or long answer pays
// for its length.
func recallCost(n, long int) float64 { return max(1, float64(n)/float64(long)) }

// above returns scores with every score below share × the best set to 0
// (a copy).
func above(scores []float64, share float64) []float64 {
	best := 0.0
	for _, v := range scores {
		best = max(best, v)
	}
	out := make([]float64, len(scores))
	for i, v := range scores {
		if v >= share*best {
			out[i] = v
		}
	}
	return out
}

// standOut returns the documents of hits (best first) scoring at least
// share × the first's.
func standOut(hits []bm25.Hit, share float64) []int {
	var out []int
	for _, h := range hits {
		if h.Score < share*hits[0].Score {
			break
		}
		out = append(out, h.Doc)
	}
	return out
}

// similarities returns every turn's cosine similarity to query less their
// mean (so that the turns more similar than most are positive).
func (r *Recall) similarities(ctx context.Context, x *Analysis, query string) ([]float64, error) {
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
	mean := 0.0
	for i, v := range vecs {
		sims[i] = vector.Cosine(qv[0], v)
		mean += sims[i] / float64(len(vecs))
	}
	for i := range sims {
		sims[i] -= mean
	}
	return sims, nil
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

// parts returns, for every long turn of turns (see LongTurn), which of
// its sentences to keep: its first and those holding a term of query,
// with Around either side of each. A long turn without such a sentence,
// or whose sentences would all be kept, has no entry (it is kept whole).
func (r *Recall) parts(x *Analysis, turns []int, query string) map[int][]bool {
	if r.LongTurn <= 0 || !r.Select.Weights.Sentences || len(turns) == 0 {
		return nil
	}
	long := max(float64(r.LongMin), r.LongTurn*float64(x.MedianTokens()))
	q := map[string]bool{}
	for _, t := range bm25.Terms(query) {
		q[t] = true
	}
	x.SentenceUnits()
	var out map[int][]bool
	for _, t := range turns {
		ti := &x.Turns[t]
		if float64(ti.Tokens) <= long || len(ti.Units) < 2 {
			continue
		}
		keep := make([]bool, len(ti.Units))
		hit := false
		for k, u := range ti.Units {
			if !slices.ContainsFunc(u.Terms, func(term string) bool { return q[term] }) {
				continue
			}
			hit = true
			for j := max(0, k-r.Around); j <= min(len(keep)-1, k+r.Around); j++ {
				keep[j] = true
			}
		}
		keep[0] = true
		if !hit || !slices.Contains(keep, false) {
			continue
		}
		if out == nil {
			out = map[int][]bool{}
		}
		out[t] = keep
	}
	return out
}

// fill returns turns (the ones standing out) followed by the other turns
// score ranks, best per cost first, each while the turns' tokens stay
// within Fill × budget.
func (r *Recall) fill(x *Analysis, turns []int, score []float64, budget int) []int {
	limit := int(r.Fill * float64(budget))
	used := 0
	in := make(map[int]bool, len(turns))
	for _, t := range turns {
		in[t] = true
		used += x.Turns[t].Tokens
	}
	if used >= limit {
		return turns
	}
	var rest []int
	for _, h := range bm25.TopOf(score, 0) {
		if !in[h.Doc] {
			rest = append(rest, h.Doc)
		}
	}
	for _, t := range r.perCost(x, rest, score, false) {
		if n := x.Turns[t].Tokens; used+n <= limit {
			turns = append(turns, t)
			used += n
		}
	}
	return turns
}
