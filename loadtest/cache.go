package loadtest

import (
	"github.com/swcmem/swc"
)

// The prompt-cache cost model of swc replay. A provider caches prompt
// prefixes: a request's cached part is taken to be its longest prefix
// shared with the previous request, in tokens, and the rest is billed
// uncached (for Anthropic: written to the cache, the client marking its
// last message). Minimum cacheable lengths and cache lifetimes are left
// out: every request follows the previous one at once.

// PriceRule is how a provider bills input tokens against its prompt cache,
// in multiples of the uncached input price.
type PriceRule struct {
	Name string
	// Read is a token read from the cache; Write a token that was not
	// (Anthropic writes it to the cache at 1.25×; OpenAI bills it at 1×).
	Read, Write float64
}

// The rules replay reports: Anthropic's (cache read 0.1×, write 1.25×)
// and OpenAI's, whose cached input is 0.1× or 0.5× depending on the model,
// with no write premium.
var (
	RuleAnthropic = PriceRule{Name: "anthropic", Read: 0.1, Write: 1.25}
	RuleOpenAI10  = PriceRule{Name: "openai-0.1", Read: 0.1, Write: 1}
	RuleOpenAI50  = PriceRule{Name: "openai-0.5", Read: 0.5, Write: 1}
)

// PriceRules returns the rules replay reports, in report order.
func PriceRules() []PriceRule { return []PriceRule{RuleAnthropic, RuleOpenAI10, RuleOpenAI50} }

// Prompt is a request as a provider reads it: its messages in order, each
// with its token cost (content, tool calls and a per-message overhead).
type Prompt struct {
	segs   []segment
	Tokens int
}

type segment struct {
	head, text, tools string
	tokens            int
}

// NewPrompt returns msgs as a Prompt whose tokens count reports (count
// returns a text's tokens; overhead is added per message).
func NewPrompt(msgs []swc.Message, count func(string) int, overhead int) Prompt {
	p := Prompt{segs: make([]segment, len(msgs))}
	for i, m := range msgs {
		s := segment{head: string(m.Role) + "\x00" + m.Name + "\x00" + m.ToolCallID, text: m.Content}
		s.tokens = count(m.Content) + overhead
		for _, tc := range m.ToolCalls {
			s.tools += tc.ID + "\x00" + tc.Name + "\x00" + tc.Arguments + "\x00"
			s.tokens += count(tc.Name) + count(tc.Arguments)
		}
		p.segs[i] = s
		p.Tokens += s.tokens
	}
	return p
}

// Shared returns the tokens of b's longest prefix shared with a: its
// messages equal to a's, in order, and of the first that differs the
// tokens of the text both start with (count counts them).
func Shared(a, b Prompt, count func(string) int) int {
	n := 0
	for i := range min(len(a.segs), len(b.segs)) {
		x, y := a.segs[i], b.segs[i]
		if x == y {
			n += y.tokens
			continue
		}
		if x.head == y.head {
			k := 0
			for k < len(x.text) && k < len(y.text) && x.text[k] == y.text[k] {
				k++
			}
			n += min(count(y.text[:k]), y.tokens)
		}
		break
	}
	return n
}

// Cost returns the input bill of prompts sent in order under rule: each
// request's part shared with the one before at rule.Read, the rest at
// rule.Write. shared[k] is Shared(prompts[k-1], prompts[k]) (shared[0]
// is 0).
func Cost(prompts []Prompt, shared []int, rule PriceRule) float64 {
	c := 0.0
	for k, p := range prompts {
		c += rule.Read*float64(shared[k]) + rule.Write*float64(p.Tokens-shared[k])
	}
	return c
}
