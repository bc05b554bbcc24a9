package memory

import (
	"maps"
	"slices"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// compressLoop fills res for a tool loop (see asLoop): the instructions,
// the memory message when exchanges were dropped, the head, then every
// unit from the drop point on (and the user units before it), each
// message as it came but the stubbed observations (Result.Rewritten).
// It never fails for the budget: a request that cannot be brought within
// it is sent as small as the provider's rules allow, with
// Result.OverBudget saying by how much.
func (c *Compressor) compressLoop(msgs []swc.Message, costs []int, l *loopShape, res *Result) *Result {
	lc := &loopCosts{msgs: msgs, cost: costs, stubCap: c.opts.StubTokens + MessageOverhead, share: max(c.opts.StubShare, 0)}
	c.pin(msgs, l)
	fixed := 0 // the instructions and the head, which every request keeps
	for _, i := range slices.Concat(l.instr, l.head) {
		fixed += lc.cost[i]
	}
	b, d, _ := c.loopWalk(l, lc, fixed)
	e := c.loopEpochOf(msgs, l, lc, b, d, c.loopMaxLines(fixed))
	answered := answeredTurn(msgs, l, e)
	last := lastTurn(l) // its calls go as they came: the request answers them

	n := len(l.instr) + len(l.head) + 1
	for _, u := range l.units {
		n += len(u.msgs)
	}
	res.Messages, res.Source = make([]swc.Message, 0, n), make([]int, 0, n)
	res.Tokens = 0
	put := func(i int) {
		m := msgs[i]
		s, text := e.rewritten[i]
		text = text && i != answered
		cs, calls := e.calls[i]
		calls = calls && i != last
		if text {
			m.Content, m.MediaTokens = s, 0
		}
		if calls {
			m.ToolCalls = cs
		}
		if text || calls {
			res.Tokens += c.Cost(m)
		} else {
			res.Tokens += costs[i]
		}
		res.Messages = append(res.Messages, m)
		res.Source = append(res.Source, i)
	}
	putMemory := func() {
		if e.memory != "" {
			res.Messages = append(res.Messages, swc.Message{Role: swc.RoleSystem, Content: e.memory})
			res.Source = append(res.Source, -1)
			res.Tokens += c.Cost(res.Messages[len(res.Messages)-1])
		}
	}
	for _, i := range l.instr {
		put(i)
	}
	// The memory goes after the head, where the list of dropped calls it
	// holds changes at each drop without touching the instructions and
	// the task before it (a prompt cache keeps them: a text-acting agent's
	// demonstration and task can be most of a small budget). Where the
	// provider wants roles to alternate (AlignUser), the codec writes it
	// into the task's message as a block of its own (Anthropic) or into
	// the request's system field (Gemini), so the messages alternate as
	// they are.
	for _, i := range l.head {
		put(i)
	}
	putMemory()
	for u := range l.units {
		un := &l.units[u]
		if u < d && !un.kept() {
			continue
		}
		for _, i := range un.msgs {
			put(i)
		}
	}
	if len(e.rewritten) > 0 {
		res.Rewritten = maps.Clone(e.rewritten)
		delete(res.Rewritten, answered)
	}
	if len(e.calls) > 0 {
		res.Calls = maps.Clone(e.calls)
		delete(res.Calls, last)
		if len(res.Calls) == 0 {
			res.Calls = nil
		}
	}
	res.Memory = e.memory
	for _, r := range e.recall {
		_, clipped := res.Rewritten[r.Messages[0]]
		if _, cut := res.Calls[r.Messages[0]]; clipped || cut {
			res.Recall = append(res.Recall, r)
		}
	}
	res.Recent = len(msgs)
	if b < len(l.units) {
		res.Recent = l.units[b].msgs[0]
	}
	res.Compacted = e.stubbed + e.dropped
	res.OverBudget = max(res.Tokens-c.opts.Budget, 0)
	return res
}

// pin marks as never dropped the exchanges a user unit follows when the
// provider wants roles to alternate (Options.AlignUser), and those whose
// messages load deferred tools (loadsTools: an observation, or an
// assistant turn holding a provider-run tool search).
func (c *Compressor) pin(msgs []swc.Message, l *loopShape) {
	for u := range l.units {
		un := &l.units[u]
		if un.user {
			continue
		}
		un.pinned = c.opts.AlignUser && u+1 < len(l.units) && l.units[u+1].user
		for _, i := range un.msgs {
			un.pinned = un.pinned || loadsTools(msgs[i])
		}
	}
}

// lastTurn returns the index of the loop's last assistant turn (-1 when
// none): the turn whose calls the request's last results answer.
func lastTurn(l *loopShape) int {
	for u := len(l.units) - 1; u >= 0; u-- {
		if !l.units[u].user {
			return l.units[u].msgs[0]
		}
	}
	return -1
}

// answeredTurn returns the index of the loop's last assistant turn when
// epoch e rewrote it without the reasoning it holds (-1 otherwise): it is
// the turn whose calls the request's last results answer, and the
// providers want its reasoning back (Anthropic rejects a final assistant
// message of a tool loop without its thinking blocks). The walk stubs its
// outputs when a user text follows them (Claude Code adds one beside its
// tool_result blocks) and the request is over budget; the turn then goes
// whole.
func answeredTurn(msgs []swc.Message, l *loopShape, e *loopEpoch) int {
	for u := len(l.units) - 1; u >= 0; u-- {
		if l.units[u].user {
			continue
		}
		i := l.units[u].msgs[0]
		if _, ok := e.rewritten[i]; ok {
			if _, had := chat.StripReasoning(msgs[i].Content); had { // turnHead's rewrite goes without it
				return i
			}
		}
		return -1
	}
	return -1
}
