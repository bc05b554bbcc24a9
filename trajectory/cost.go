package trajectory

import "github.com/swcmem/swc/chat"

// What a request costs with prompt caching, in uncached input tokens. A
// provider bills the part of a request its cache serves at a fraction of
// the input price and the rest in full, Anthropic with a premium for
// writing it to the cache (the client marks its last message, so all of
// it is written). The cached part is the sent message list's bytes the
// cache serves (Row.CachedBytes, under Anthropic's rules
// Row.MarkCachedBytes) as a share of its bytes, applied to the request's
// tokens. Minimum cacheable lengths and lifetimes are left out: each
// request follows the one before at once.

// priceRule is how a provider bills input tokens against its cache, in
// multiples of the uncached input price.
type priceRule struct{ read, write float64 }

// priceRuleOf returns format f's rule: Anthropic's (read 0.1×, write
// 1.25×); for the others OpenAI's for its current models (cached input
// 0.1×, no write premium), applied to Responses and Gemini bodies too
// (Gemini's implicit caching discount depends on the model: the figure
// is the rule's, not a Gemini bill).
func priceRuleOf(f chat.Format) priceRule {
	if f == chat.Anthropic {
		return priceRule{read: 0.1, write: 1.25}
	}
	return priceRule{read: 0.1, write: 1}
}

// cost returns what a request of tokens costs when cached of its list's
// total bytes are served from the cache.
func (p priceRule) cost(tokens, cached, total int) float64 {
	share := 0.0
	if total > 0 {
		share = min(float64(cached)/float64(total), 1)
	}
	return float64(tokens) * (p.read*share + p.write*(1-share))
}

// rawCosts follows a run's requests as the agent sent them, uncompressed:
// what each costs with caching, the reference Cell.CostRatio divides by.
type rawCosts struct {
	rule  priceRule
	list  string
	marks bool // Anthropic's rules (markCache)
	prev  *sent
	mc    markCache
}

func newRawCosts(rp *Replay) *rawCosts {
	return &rawCosts{rule: priceRuleOf(rp.Format), list: rp.codec.list, marks: rp.Format == chat.Anthropic}
}

// next returns the cost of request q as the agent sent it.
func (rc *rawCosts) next(q *Request) float64 {
	cur := q.decode(q.Body)
	var served int
	if rc.marks {
		served = rc.mc.serve(cur, rc.list)
	}
	cached, total := 0, 0
	if rc.prev != nil {
		cached, total = cachedPrefix(rc.prev, cur, rc.list)
		if rc.marks {
			cached = served
		}
	}
	rc.prev = cur
	return rc.rule.cost(q.Tokens, cached, total)
}
