package trajectory

import (
	"encoding/json"

	"github.com/swcmem/swc"
)

// A plan is what a baseline makes of a request: messages dropped whole and
// observation texts replaced, with the tokens that leaves.
type plan struct {
	q     *Request
	drop  []bool
	text  map[int]string
	costs []int
	total int
}

func newPlan(q *Request) *plan {
	p := &plan{q: q, drop: make([]bool, len(q.costs)), text: map[int]string{}, costs: append([]int(nil), q.costs...), total: q.Tokens}
	return p
}

// observations returns the indexes of the request's observations in order.
func (p *plan) observations() []int {
	var out []int
	for i, k := range p.q.kinds {
		if k == observation {
			out = append(out, i)
		}
	}
	return out
}

// rewrite replaces message i's text by text.
func (p *plan) rewrite(i int, text string) {
	m := p.q.Input.Messages[i]
	m.Content, m.MediaTokens = text, 0
	c := p.q.Replay.cost(m)
	p.total += c - p.costs[i]
	p.costs[i] = c
	p.text[i] = text
}

// units returns the groups of messages truncation drops whole, oldest
// first: after the head (the instructions and the task), each assistant
// message with everything up to the next one (its tool results and
// observations), and before the first assistant message the messages
// after the task, if any. A tool call never loses its result, and an
// Anthropic list keeps alternating.
func (p *plan) units() [][]int {
	kinds := p.q.kinds
	head := 0
	for i, k := range kinds {
		if k == task {
			head = i + 1
		}
	}
	var out [][]int
	for i := head; i < len(kinds); i++ {
		if kinds[i] == assistant || len(out) == 0 {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], i)
	}
	return out
}

// truncate drops the oldest units until the messages fit budget or one
// unit is left (the request's latest turn is never dropped: an agent's
// request ends with what it must answer).
func (p *plan) truncate(budget int) {
	units := p.units()
	for u := 0; p.total > budget && u < len(units)-1; u++ {
		for _, i := range units[u] {
			p.drop[i] = true
			p.total -= p.costs[i]
		}
	}
}

// body writes the request body the plan makes: kept items byte for byte,
// rewritten ones with their new texts, every other field as it came.
func (p *plan) body() ([]byte, error) {
	in, c := p.q.Input, p.q.Replay.codec
	parts := map[int][]int{} // item → its messages
	for i, o := range in.Origin {
		if o >= 0 {
			parts[o] = append(parts[o], i)
		}
	}
	var items []json.RawMessage
	for j, raw := range in.Raw {
		ms := parts[j]
		if len(ms) > 0 && p.drop[ms[0]] {
			continue
		}
		texts := map[string]string{}
		var calls []string
		for _, i := range ms {
			key := ""
			if in.Messages[i].Role == swc.RoleTool {
				key = in.Messages[i].ToolCallID
				calls = append(calls, key)
			}
			if t, ok := p.text[i]; ok {
				texts[key] = t
			}
		}
		if len(texts) > 0 {
			var err error
			if raw, err = c.rewrite(raw, calls, texts); err != nil {
				return nil, err
			}
		}
		items = append(items, raw)
	}
	return p.q.Replay.top.with(c.list, items), nil
}
