package selection

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/tokens"
)

// Weights say what a turn is worth beside the new content it covers; both
// are in the unit of the coverage term, inverse document frequency (a word
// said once in a conversation of 600 turns is worth ln 600 ≈ 6.4).
type Weights struct {
	// Salient is added per named entity or number in the turn.
	Salient float64
	// Dated is added when the turn holds a temporal expression.
	Dated float64
	// Recency is added in proportion to the turn's position in the
	// conversation (0 for the first turn, Recency for the last).
	Recency float64
	// Sentences selects single sentences of turns instead of whole turns.
	Sentences bool
	// IDFPower raises every term's inverse document frequency to this
	// power (1: plain IDF; 0: every new term is worth 1).
	IDFPower float64
	// Impersonal is the share of its value a unit without a first-person
	// pronoun loses (the speaker not telling of themselves); Question the
	// share a unit ending with a question mark loses. 0 leaves the value.
	Impersonal float64
	Question   float64
	// TokenPower raises a unit's cost to this power in its value per
	// token: below 1 a long unit pays less than its tokens (0 counts as
	// 1, the plain value per token).
	TokenPower float64
	// LongTokens is where TokenPower's discount stops: a unit longer than
	// this many tokens pays LongTokens^TokenPower for its first
	// LongTokens tokens and in proportion for the rest. A sentence that
	// long is pasted material (a table, code, a log) whose many new terms
	// and numbers would otherwise outbid every sentence a person said of
	// themselves. 0: no limit.
	LongTokens int
}

// DefaultWeights are the weights swc-select uses, chosen by measurement on
// LoCoMo (see docs/benchmark.md).
func DefaultWeights() Weights {
	return Weights{Salient: 3, Dated: 10, Recency: 3, IDFPower: 1, Sentences: true, Impersonal: 0.4, Question: 0.3, TokenPower: 0.6, LongTokens: 64}
}

// Select is the swc-select strategy. Build it with New.
type Select struct {
	name     string
	Analyzer *Analyzer
	Weights  Weights
}

var _ swc.Strategy = (*Select)(nil)

// New returns a Select strategy named name over the analyses of a, with
// DefaultWeights.
func New(name string, a *Analyzer) *Select {
	return &Select{name: name, Analyzer: a, Weights: DefaultWeights()}
}

// Name returns the condition name.
func (s *Select) Name() string { return s.name }

// Compress selects turns of c for their value per token until the budget is
// spent and renders them in order under their session headers, with "…"
// where turns of a shown session were left out and "[Session N omitted]"
// for sessions left out entirely. A budget the whole conversation fits
// keeps every turn. It returns EINVALID for a non-positive budget, one
// below the tokens of a context that keeps nothing (the omission marker),
// or a conversation without sessions.
func (s *Select) Compress(ctx context.Context, c *swc.Conversation, opts swc.CompressOptions) (*swc.Context, error) {
	if opts.Budget <= 0 {
		return nil, swc.Errorf(swc.EINVALID, "%s needs a positive token budget", s.name)
	}
	c = c.Upto(opts.Upto)
	if len(c.Sessions) == 0 {
		return nil, swc.Errorf(swc.EINVALID, "conversation %s has no sessions", c.ID)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.compress(c, opts.Budget, recalled{}, s.name)
}

// compress is Compress of a checked conversation with the turns of seed
// kept first (see fit), reported under name.
func (s *Select) compress(c *swc.Conversation, budget int, seed recalled, name string) (*swc.Context, error) {
	x := s.Analyzer.Analyze(c)
	ch, text := s.fit(x, budget, seed)
	n := tokens.Count(text)
	if n > budget {
		return nil, swc.BudgetErrorf("%s: a budget of %d tokens is below the %d of a context that keeps nothing of %s", name, budget, n, c.ID)
	}
	out := report(ch, text, n, budget)
	out.Strategy = name
	return out, nil
}

// fit runs the greedy selection with the whole budget as its allowance
// and, while the rendering (headers, markers and separators the greedy
// counts only roughly) overflows, again with the allowance lowered by the
// overflow (by twice the last step when that is more); after a few rounds
// it trims. When the rendering that fits leaves more than a hundredth of
// the budget unused (the greedy counts a sentence's leading space, which
// the tokenizer mostly merges), it bisects between that allowance and the
// last one that overflowed, or one above it, and keeps the fullest that
// fits. The turns of seed are kept first (see choose). A
// budget the whole conversation fits keeps every turn. It returns the
// choice and its text, which is over the budget only when nothing is kept
// (the omission marker alone is over it).
func (s *Select) fit(x *Analysis, budget int, seed recalled) (*choice, string) {
	if x.fitsWhole(budget) {
		ch := x.all()
		return ch, ch.render()
	}
	allow, over, step := budget, 0, 0
	for range 6 {
		ch := s.choose(x, allow, budget, seed)
		text := ch.render()
		n := tokens.Count(text)
		if n <= budget {
			return s.fuller(x, budget, seed, allow, over, ch, text, n)
		}
		// An overflow that does not shrink doubles the step.
		over, step = allow, max(n-budget, 2*step)
		allow -= step
	}
	ch := s.choose(x, allow, budget, seed)
	text := ch.render()
	for n := tokens.Count(text); n > budget && ch.any(); n = tokens.Count(text) {
		ch.trim(n - budget)
		text = ch.render()
	}
	return ch, text
}

// fuller returns ch and its text (n tokens, made with allowance fits), or
// a fuller choice within budget found by bisecting the allowance between
// fits and over (one that overflowed; 0: none did, and the allowances
// tried go above fits by up to twice the room left).
func (s *Select) fuller(x *Analysis, budget int, seed recalled, fits, over int, ch *choice, text string, n int) (*choice, string) {
	if over == 0 { // nothing overflowed: try allowances above the budget
		over = fits + 2*(budget-n) + 1
	}
	for range 4 {
		if over-fits <= 1 || budget-n <= budget/100 {
			break
		}
		mid := (fits + over) / 2
		c := s.choose(x, mid, budget, seed)
		t := c.render()
		if m := tokens.Count(t); m <= budget {
			fits = mid
			if m > n {
				ch, text, n = c, t, m
			}
		} else {
			over = mid
		}
	}
	return ch, text
}

// any reports whether anything is kept.
func (c *choice) any() bool {
	for _, k := range c.kept {
		if k {
			return true
		}
	}
	return false
}

// item is a candidate sentence in the greedy queue.
type item struct {
	unit  int
	ratio float64 // value per token when last computed
}

type queue []item

func (q queue) Len() int { return len(q) }
func (q queue) Less(i, j int) bool {
	if q[i].ratio != q[j].ratio {
		return q[i].ratio > q[j].ratio
	}
	return q[i].unit < q[j].unit
}
func (q queue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(v any)   { *q = append(*q, v.(item)) }
func (q *queue) Pop() any {
	old := *q
	v := old[len(old)-1]
	*q = old[:len(old)-1]
	return v
}

// choice is a selection: which sentences of which turns are kept.
type choice struct {
	x      *Analysis
	units  [][]Unit // per turn: its sentences, or the whole turn
	first  []int    // first[t] = index of turn t's first unit; first[len(Turns)] = total
	turnOf []int    // unit → turn
	kept   []bool
}

func newChoice(x *Analysis, sentences bool) *choice {
	if sentences {
		x.SentenceUnits()
	}
	c := &choice{x: x, first: make([]int, len(x.Turns)+1), units: make([][]Unit, len(x.Turns))}
	for t := range x.Turns {
		c.first[t] = len(c.turnOf)
		c.units[t] = []Unit{x.Turns[t].Whole}
		if sentences {
			c.units[t] = x.Turns[t].Units
		}
		for range c.units[t] {
			c.turnOf = append(c.turnOf, t)
		}
	}
	c.first[len(x.Turns)] = len(c.turnOf)
	c.kept = make([]bool, len(c.turnOf))
	return c
}

func (c *choice) unit(u int) *Unit {
	t := c.turnOf[u]
	return &c.units[t][u-c.first[t]]
}

// turnKept reports whether any sentence of turn t is kept; turnWhole
// whether all are.
func (c *choice) turnKept(t int) bool {
	for u := c.first[t]; u < c.first[t+1]; u++ {
		if c.kept[u] {
			return true
		}
	}
	return false
}

func (c *choice) turnWhole(t int) bool {
	for u := c.first[t]; u < c.first[t+1]; u++ {
		if !c.kept[u] {
			return false
		}
	}
	return c.first[t+1] > c.first[t]
}

func (c *choice) sessionKept(i int) bool {
	for t := c.x.First[i]; t < c.x.First[i+1]; t++ {
		if c.turnKept(t) {
			return true
		}
	}
	return false
}

// choose runs the lazy greedy selection: the sentence with the best value
// per token (the inverse document frequency of the terms it adds to what
// is kept, plus salience, lessened by Impersonal and Question, over its
// tokens and, when it opens a turn or a session, the speaker prefix's and
// the header's, to the power TokenPower) is taken while it fits.
// An assistant's sentence (see Assistant) has its value divided by the
// square root of its turn's sentence count: a long answer is one piece of
// information spread over many sentences, and one the assistant can give
// again.
// The turns of seed are kept first, in order, whole or as the sentences
// seed.part marks, each while it fits room (the budget itself: an
// allowance lowered because the greedy's rough counts overflowed takes
// from the greedy's part, not from the recalled turns'); the greedy then
// values the rest by what they add to them.
func (s *Select) choose(x *Analysis, budget, room int, seed recalled) *choice {
	if !s.Weights.Sentences {
		x.wholeUnits()
	}
	ch := newChoice(x, s.Weights.Sentences)
	turnOpen := make([]bool, len(x.Turns))
	sesOpen := make([]bool, len(x.First)-1)
	covered := make([]bool, len(x.idf))
	left := budget
	tw := x.idf
	if s.Weights.IDFPower != 1 {
		tw = make([]float64, len(x.idf))
		for i, v := range x.idf {
			tw[i] = math.Pow(v, s.Weights.IDFPower)
		}
	}
	nu := float64(len(ch.turnOf))
	value := func(u int) float64 {
		un := ch.unit(u)
		v := s.Weights.Salient*float64(un.Salient) + s.Weights.Recency*float64(u)/nu
		if un.Dated {
			v += s.Weights.Dated
		}
		for _, id := range un.ids {
			if !covered[id] {
				v += tw[id]
			}
		}
		if !un.Personal {
			v *= 1 - s.Weights.Impersonal
		}
		if un.Asks {
			v *= 1 - s.Weights.Question
		}
		if t := ch.turnOf[u]; Assistant(x.Turns[t].Turn.Speaker) {
			v /= math.Sqrt(float64(len(ch.units[t])))
		}
		return v
	}
	// per is the cost a unit's value is divided by (powers remembered by
	// cost: the costs are a few hundred small integers).
	var pows []float64
	per := func(c int) float64 {
		p := s.Weights.TokenPower
		if p == 0 || p == 1 || c <= 0 {
			return float64(c)
		}
		if c >= len(pows) {
			pows = append(pows, make([]float64, c+1-len(pows))...)
		}
		if pows[c] == 0 {
			pows[c] = math.Pow(float64(c), p)
			if k := s.Weights.LongTokens; k > 0 && c > k {
				pows[c] = math.Pow(float64(k), p) * float64(c) / float64(k)
			}
		}
		return pows[c]
	}
	cost := func(u int) int {
		t := ch.turnOf[u]
		c := ch.unit(u).Tokens
		if !turnOpen[t] {
			c += x.Turns[t].Prefix
			if ses := x.Turns[t].Session; !sesOpen[ses] {
				c += x.Header[ses] + tokens.Separator
			}
		}
		return c
	}
	q := make(queue, 0, len(ch.turnOf))
	repush := func(from, to int) {
		for u := from; u < to; u++ {
			if !ch.kept[u] {
				heap.Push(&q, item{unit: u, ratio: value(u) / per(cost(u))})
			}
		}
	}
	// take keeps unit u at cost c; once the queue is built, the units
	// whose cost it lowers are queued again.
	queued := false
	take := func(u, c int) {
		ch.kept[u] = true
		left -= c
		for _, id := range ch.unit(u).ids {
			covered[id] = true
		}
		t := ch.turnOf[u]
		ses := x.Turns[t].Session
		switch {
		case !sesOpen[ses]:
			sesOpen[ses], turnOpen[t] = true, true
			// The session's other sentences no longer pay for its header.
			if queued {
				repush(ch.first[x.First[ses]], ch.first[x.First[ses+1]])
			}
		case !turnOpen[t]:
			turnOpen[t] = true
			if queued {
				repush(ch.first[t], ch.first[t+1])
			}
		}
	}
	for _, t := range seed.turns {
		// A turn kept whole is shown as its line: its cost is the line's
		// (addCost), which its sentences' counts, each tokenized apart,
		// overstate.
		part := seed.part[t]
		c := ch.addCost(t)
		if part != nil {
			c = ch.partCost(t, part)
		}
		if ch.turnWhole(t) || c > left+max(0, room-budget) {
			continue
		}
		for u := ch.first[t]; u < ch.first[t+1]; u++ {
			if !ch.kept[u] && (part == nil || part[u-ch.first[t]]) {
				take(u, 0)
			}
		}
		left -= c
	}
	for u := range ch.turnOf {
		if !ch.kept[u] {
			q = append(q, item{unit: u, ratio: value(u) / per(cost(u))})
		}
	}
	heap.Init(&q)
	queued = true
	least := x.leastUnit(s.Weights.Sentences)
	for q.Len() > 0 && left >= least {
		it := heap.Pop(&q).(item)
		if ch.kept[it.unit] {
			continue
		}
		r := value(it.unit) / per(cost(it.unit))
		if q.Len() > 0 && r < q[0].ratio {
			it.ratio = r
			heap.Push(&q, it)
			continue
		}
		// A unit worth nothing more (its terms all kept, no salience) is
		// still taken when it fits: it comes last, and a budget the whole
		// conversation fits then keeps every turn.
		if c := cost(it.unit); c <= left && r >= 0 {
			take(it.unit, c)
		}
	}
	return ch
}

// recalled are the turns a question recalls, kept first, best first
// (see choose). part[t], when set, says which sentences of turn t are
// kept (the rest shown as Gap); a turn without one is kept whole.
type recalled struct {
	turns []int
	part  map[int][]bool
}

// partCost estimates the tokens keeping the sentences of turn t that part
// marks adds: those not yet kept, the turn's prefix and its session's
// header when not yet shown, and a gap marker for every run left out and
// beside the turn.
func (c *choice) partCost(t int, part []bool) int {
	ti := &c.x.Turns[t]
	cost := gapCost
	if !c.turnKept(t) {
		cost += ti.Prefix
		if ses := ti.Session; !c.sessionKept(ses) {
			cost += c.x.Header[ses] + tokens.Separator
		}
	}
	gap := false
	for k, keep := range part {
		u := c.first[t] + k
		switch {
		case keep || c.kept[u]:
			if !c.kept[u] {
				cost += c.unit(u).Tokens
			}
			gap = false
		case !gap:
			cost += gapCost
			gap = true
		}
	}
	return cost
}

// gapCost is the tokens a recalled turn is estimated to add for the "…"
// marker beside it.
const gapCost = 2

// trim drops kept sentences, the least valuable per token first (by their
// stand-alone value), until about over tokens are freed.
func (c *choice) trim(over int) {
	var idx []int
	for u, k := range c.kept {
		if k {
			idx = append(idx, u)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool {
		return c.density(idx[a]) < c.density(idx[b])
	})
	freed := 0
	for _, u := range idx {
		if freed >= over {
			break
		}
		c.kept[u] = false
		freed += c.unit(u).Tokens
	}
}

func (c *choice) density(u int) float64 {
	v := 0.0
	un := c.unit(u)
	for _, t := range un.Terms {
		v += c.x.IDF[t]
	}
	return v / float64(un.Tokens)
}

// Gap stands for text left out: a line of its own for turns of a shown
// session, inside a line for sentences of a shown turn.
const Gap = "…"

// render returns the context of the kept sentences: each session with a
// kept sentence under its header; each turn with a kept sentence as its
// line — whole, or its kept sentences with Gap where sentences were left
// out; a Gap line where turns were left out; runs of sessions with nothing
// kept as one "[Session N omitted]" or "[Sessions N–M omitted]" line.
func (c *choice) render() string {
	x := c.x
	var blocks []string
	n := len(x.First) - 1
	for i := 0; i < n; {
		if !c.sessionKept(i) {
			k := i
			for k+1 < n && !c.sessionKept(k+1) {
				k++
			}
			blocks = append(blocks, swc.OmissionMarker(i, k))
			i = k + 1
			continue
		}
		var b strings.Builder
		b.WriteString(SessionHeader(&x.Conv.Sessions[i]))
		gap := false
		for t := x.First[i]; t < x.First[i+1]; t++ {
			if !c.turnKept(t) {
				gap = true
				continue
			}
			if gap {
				b.WriteString("\n" + Gap)
				gap = false
			}
			b.WriteByte('\n')
			b.WriteString(c.line(t))
		}
		if gap {
			b.WriteString("\n" + Gap)
		}
		blocks = append(blocks, b.String())
		i++
	}
	return strings.Join(blocks, swc.BlockSeparator) + "\n"
}

// line renders turn t with its kept sentences.
func (c *choice) line(t int) string {
	ti := &c.x.Turns[t]
	if c.turnWhole(t) {
		return ti.Line
	}
	var b strings.Builder
	b.WriteString(ti.Turn.Speaker)
	b.WriteString(":")
	gap := false
	for u := c.first[t]; u < c.first[t+1]; u++ {
		if !c.kept[u] {
			gap = true
			continue
		}
		if gap && u > c.first[t] {
			b.WriteString(" " + Gap)
		}
		gap = false
		b.WriteByte(' ')
		b.WriteString(c.unit(u).Text)
	}
	if gap {
		b.WriteString(" " + Gap)
	}
	return b.String()
}

// report builds the Context (without its Strategy). Verbatim lists the
// turns kept whole.
func report(c *choice, text string, n, budget int) *swc.Context {
	x := c.x
	out := &swc.Context{Budget: budget, Tokens: n, Text: text}
	for i := range x.Conv.Sessions {
		ses := &x.Conv.Sessions[i]
		ch := swc.ChunkReport{Session: i, Date: ses.DateText, Tokens: x.SessionTokens[i]}
		var ids []string
		whole := 0
		for t := x.First[i]; t < x.First[i+1]; t++ {
			if c.turnKept(t) {
				ids = append(ids, x.Turns[t].Turn.ID)
			}
			if c.turnWhole(t) {
				whole++
				out.Verbatim = append(out.Verbatim, x.Turns[t].Turn.ID)
			}
		}
		all := x.First[i+1] - x.First[i]
		switch {
		case len(ids) == 0:
			ch.Action, ch.Reason = swc.ActionDropped, "no sentence of it was worth its tokens"
			out.Dropped = append(out.Dropped, swc.Drop{Session: i, Reason: "nothing selected"})
		case whole == all:
			ch.Action, ch.Reason = swc.ActionVerbatim, "every turn selected whole"
		default:
			ch.Action, ch.KeptTurns = swc.ActionPartial, ids
			ch.Reason = fmt.Sprintf("%d of %d turns selected (%d whole)", len(ids), all, whole)
			if all > len(ids) {
				out.Dropped = append(out.Dropped, swc.Drop{Session: i, Turns: all - len(ids), Reason: "turns not selected"})
			}
		}
		out.Chunks = append(out.Chunks, ch)
	}
	return out
}
