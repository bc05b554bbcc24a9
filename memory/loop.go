package memory

import (
	"slices"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// Tool loops. An agent's request is a tool loop when, after its task (the
// user messages before the agent's first turn: the last of them is the
// task, an earlier one a demonstration, as SWE-agent sends), observations
// (tool results, and the user messages that carry a text-acting agent's
// command output) outnumber the user messages a person wrote (see
// remindersOnly), and number loopMinObservations at least, or, where tool
// calls were answered and no person wrote after the task, one at least
// (an agent's first steps: its task must not be folded into a memory
// because its instructions are long; see early). Such a history is not
// consolidated into sessions: the instructions, the task, every later
// user text and every assistant turn's calls go verbatim; the latest
// observations go verbatim, older ones are replaced in place by a stub
// (observe.Stub: handle, outcome and the output's most useful lines; the
// call is in the turn above), their turns' prose clipped (loop_turns.go),
// and past that the oldest whole exchanges are dropped and listed in the
// memory message.
// The masking boundary moves in jumps, as a function of the history alone
// (see loopWalk), so the requests of one epoch share their prefix byte
// for byte.

// loopMinObservations is how many observations a history where a person
// wrote after the task holds at least to be a tool loop: a chat whose
// assistant checks a date or two is not one.
const loopMinObservations = 3

// loopUnit is one step of a loop after its task: an exchange (an
// assistant turn, then its tool results or its observation message) or a
// person's user message.
type loopUnit struct {
	msgs []int // input indexes, in order
	obs  []int // the observations among msgs
	user bool  // a person's text: verbatim, never dropped
	// pinned: an exchange never dropped (its observations may be stubbed)
	// because a user unit follows it and the provider wants roles to
	// alternate (Options.AlignUser): dropping it would leave two user
	// messages side by side.
	pinned bool
}

// kept reports whether the unit stays whatever the drop point.
func (u *loopUnit) kept() bool { return u.user || u.pinned }

// loopShape is a tool loop's messages: instructions, the head (the
// conversation up to the agent's first turn, the task its last user
// message), then the units.
type loopShape struct {
	instr []int
	head  []int
	units []loopUnit
	users int // the user units of role user: texts a person wrote after the task
	texts int // the user units of role user, reminders (remindersOnly) included
	obs   int // the observations
	// at[u] is the masking boundary the walk (loopWalk) moved to when it
	// passed unit u: the stubs of u know the assistant turns before it.
	at []int
}

// asLoop returns the shape of msgs when they are a tool loop, or nil when
// they are a chat history (which keeps the session path).
func asLoop(msgs []swc.Message) *loopShape {
	l := &loopShape{}
	task := -1
	nObs, nUser, nTool := 0, 0, 0
	for i, m := range msgs {
		if chat.IsInstruction(m) {
			l.instr = append(l.instr, i)
			continue
		}
		if task < 0 || len(l.units) == 0 && m.Role == swc.RoleUser {
			// The head runs up to the agent's first turn: a user message
			// before it is the task, or part of it (SWE-agent sends a
			// demonstration, then the task), never a person's later text.
			l.head = append(l.head, i)
			if m.Role == swc.RoleUser {
				task = i
			}
			continue
		}
		last := len(l.units) - 1
		inExchange := last >= 0 && !l.units[last].user
		switch {
		case m.Role == swc.RoleAssistant:
			l.units = append(l.units, loopUnit{msgs: []int{i}})
		case m.Role == swc.RoleTool && inExchange:
			l.units[last].msgs = append(l.units[last].msgs, i)
			l.units[last].obs = append(l.units[last].obs, i)
			nObs++
			nTool++
		case m.Role == swc.RoleUser && inExchange && (isObservation(m.Content) || attachedMedia(m) && slices.Contains(l.units[last].obs, i-1)):
			// A text-acting agent's output, or media a tool returned
			// after its result (Gemini CLI's read_file of a picture: an
			// inlineData part after the functionResponse; Qwen Code's, in
			// Chat Completions, where a tool message holds text alone: a
			// user message "(attached media from previous tool call)"
			// with the picture).
			l.units[last].msgs = append(l.units[last].msgs, i)
			l.units[last].obs = append(l.units[last].obs, i)
			nObs++
		default:
			l.units = append(l.units, loopUnit{msgs: []int{i}, user: true})
			if m.Role == swc.RoleUser {
				l.texts++
				if !remindersOnly(m.Content) {
					nUser++
				}
			}
		}
	}
	if task < 0 || nObs <= nUser || nObs < loopMinObservations && (nUser > 0 || nTool == 0) {
		return nil
	}
	l.users, l.obs = nUser, nObs
	return l
}

// remindersOnly reports whether s is nothing but <system-reminder> blocks
// (Claude Code writes them beside tool results: "the file was modified",
// "the task list is empty"). Such a user text is mostly the agent's: it
// does not count as a person's when telling a loop from a chat, or a loop
// with a reminder beside each result would be a chat. It is kept
// verbatim and never dropped all the same (Claude Code wraps a message
// the person queued while it worked in one too), and when such texts
// leave the loop over budget it is consolidated as a conversation, as
// with a person's (userTexts).
func remindersOnly(s string) bool {
	const open, end = "<system-reminder>", "</system-reminder>"
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	for s != "" {
		rest, ok := strings.CutPrefix(s, open)
		if !ok {
			return false
		}
		i := strings.Index(rest, end)
		if i < 0 {
			return false
		}
		s = strings.TrimSpace(rest[i+len(end):])
	}
	return true
}

// userTexts reports whether the loop holds user texts after its task
// (kept verbatim, never dropped), a person's or reminders: when they
// leave it over budget, the history is consolidated as a conversation.
func (l *loopShape) userTexts() bool { return l.texts > 0 }

// early reports whether the loop is one only for having no person's text
// after its task (fewer than loopMinObservations observations) and its
// head alone costs more than budget: a document pasted with a question
// and a tool call or two, not an agent's task, which the conversation's
// path may cut to fit.
func (l *loopShape) early(costs []int, budget int) bool {
	if l.obs >= loopMinObservations {
		return false
	}
	head := 0
	for _, i := range l.head {
		head += costs[i]
	}
	return head > budget
}

// loopCosts are the budget costs of a loop's messages (by input index)
// and what a stub costs at most.
type loopCosts struct {
	msgs    []swc.Message
	cost    []int
	stubCap int     // a stub's least most-tokens with MessageOverhead (see limit)
	share   float64 // Options.StubShare (0: stubs of stubCap)
}

// capped is message i's cost as a stub when it is stubbed: a stub is
// written only for an observation that costs more than one may.
func (lc *loopCosts) capped(i int) int {
	if !lc.stubbable(i) {
		return lc.cost[i]
	}
	return lc.limit(i) + MessageOverhead
}

// limit is the most tokens of observation i's stub: the larger of the
// least (stubCap less the message overhead) and share of the output's
// tokens, at most loopStubRange times the least.
func (lc *loopCosts) limit(i int) int {
	n := lc.stubCap - MessageOverhead
	if lc.share > 0 {
		n = min(max(n, int(lc.share*float64(lc.cost[i]))), loopStubRange*n)
	}
	return n
}

// loopStubRange bounds a stub of a long output: at most this many times
// Options.StubTokens.
const loopStubRange = 3

// stubbable reports whether observation i is replaced by a stub before
// the boundary: it costs more than a stub, and it is not a screenshot the
// provider wants there (keepsMedia).
func (lc *loopCosts) stubbable(i int) bool {
	return lc.cost[i] > lc.stubCap && !keepsMedia(lc.msgs[i]) && !loadsTools(lc.msgs[i])
}

// loadsTools reports whether message m loads deferred tools
// (swc.Message.LoadsTools: an Anthropic tool_result with tool_reference
// blocks, which the API expands into the definitions of tools the request
// declares with defer_loading, as Claude Code's ToolSearch returns for its
// MCP tools; a Responses tool_search_output; an assistant turn holding
// the result of a tool search the provider ran). Such a message goes as
// it came and its exchange is never dropped (Compressor.pin): without it
// the model would lose the schemas of tools it goes on calling.
func loadsTools(m swc.Message) bool { return m.LoadsTools }

// keepsMedia reports whether observation m must keep its media: it holds
// media and no text (its content nothing but chat's placeholders, one a
// line), one of them a "[computer_screenshot]", the output of a Responses
// computer_call_output, which the API wants a screenshot. Any other
// media alone (an image or a PDF a tool read) is stubbed like text: the
// call stays in the assistant turn above, and the agent can make it
// again.
func keepsMedia(m swc.Message) bool {
	return mediaOnly(m) && strings.Contains(m.Content, "[computer_screenshot]")
}

// attachedMedia reports whether m has the shape of media a client
// attached to a tool's result: it holds media, and beside chat's
// placeholders at most one line of text, a label (attachedLabel), not
// what a person wrote beside a picture (Claude Code labels a pasted one
// "[Image #1]").
func attachedMedia(m swc.Message) bool {
	if m.MediaTokens == 0 {
		return false
	}
	text := 0
	for line := range strings.SplitSeq(m.Content, "\n") {
		if line = strings.TrimSpace(line); line == "" || chat.IsPlaceholder(line) {
			continue
		}
		if text++; text > 1 || !attachedLabel(line) {
			return false
		}
	}
	return true
}

// attachedLabel reports whether line (trimmed, not empty) labels media a
// client attached to a tool's result: at most attachedCaption bytes, in
// parentheses or brackets and naming a tool ("(attached media from
// previous tool call)"), or ending in a colon and naming a tool result
// (pi's "Tool result image:", "Attached image(s) from tool result:"); a
// person's caption, "The toolbar is cut off, look:", is neither.
func attachedLabel(line string) bool {
	if len(line) > attachedCaption {
		return false
	}
	lower := strings.ToLower(line)
	first, last := line[0], line[len(line)-1]
	if first == '(' && last == ')' || first == '[' && last == ']' {
		return strings.Contains(lower, "tool")
	}
	return last == ':' && strings.Contains(lower, "tool result")
}

// attachedCaption is the longest label of attached media.
const attachedCaption = 80

// mediaOnly reports whether m holds media and no text: its content is
// nothing but chat's placeholders, one a line.
func mediaOnly(m swc.Message) bool {
	if m.MediaTokens == 0 {
		return false
	}
	for line := range strings.SplitSeq(m.Content, "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		if !chat.IsPlaceholder(line) {
			return false
		}
	}
	return true
}

// loopLineCap bounds the tokens of one line of the memory message's list
// of dropped calls (with its newline and a margin for how lines join).
const loopLineCap = loopLineTokens + 3

// loopLineTokens is the most tokens of one dropped call's line.
const loopLineTokens = 48

// loopMaxLines is how many lines the memory of a loop lists at most (the
// calls before them are counted in one line): as many as RestartShare of
// the budget after the instructions and the head (fixed, their tokens)
// holds, at least one.
func (c *Compressor) loopMaxLines(fixed int) int {
	room := int(c.opts.RestartShare * float64(max(c.opts.Budget-fixed, 0)))
	return max((room-MessageOverhead-c.counter.CountCached(LoopPreamble)-loopLineCap)/loopLineCap, 1)
}

// loopMemoryCap bounds the cost of a loop's memory message listing lines
// dropped calls (0 for none), at most maxLines of them, the earlier ones
// in the count line with the handles of the latest loopMaxHandles.
func loopMemoryCap(c *Compressor, lines, maxLines int) int {
	if lines == 0 {
		return 0
	}
	n := MessageOverhead + c.counter.CountCached(LoopPreamble) + 2 + loopLineCap*min(lines, maxLines)
	if lines > maxLines {
		n += loopLineCap + loopHandleCap*min(lines-maxLines, loopMaxHandles(maxLines))
	}
	return n
}

// loopHandleCap is the most tokens a handle costs in the count line (" h"
// and 10 hex digits: 11 at most, about 7 on average, cl100k_base).
const loopHandleCap = 11

// loopMaxHandles is how many handles of earlier calls the count line
// lists at most: as many as the lines' own room holds.
func loopMaxHandles(maxLines int) int { return max(maxLines*loopLineCap/loopHandleCap, 1) }

// LoopPreamble opens the memory message of a tool loop whose oldest steps
// were dropped, before one line per dropped call.
const LoopPreamble = "Earlier steps of this tool loop, left out to fit the budget (one line per call: handle, call, outcome):\n"

// loopWalk returns the masking boundary b (the observations of units
// before b are stubbed) and the drop point d (the exchanges before d are
// dropped, the user units kept), walking the units message by message
// from the start: while the request fits the budget nothing moves; when a
// message makes it outgrow the budget, b jumps so that the verbatim
// observations (the current unit's at least) hold at most RestartShare of
// the budget after the instructions and the head (which every request
// keeps: a head that takes most of the budget leaves the loop its room,
// not a share of the whole); if the request is still over, (a) b
// moves to the current unit, then (b) the oldest exchanges are dropped
// until the request leaves RestartShare free again, or none but the
// current is left. fixed is the tokens of the instructions and the head.
// Costs are upper bounds (a stub costs stubCap), so no
// stub is written to walk. The walk over a prefix depends on that prefix
// alone. over reports that the last message left the request over budget.
func (c *Compressor) loopWalk(l *loopShape, lc *loopCosts, fixed int) (b, d int, over bool) {
	o := c.opts
	budget := o.Budget
	total := fixed
	limit := int(o.RestartShare * float64(max(budget-total, 0)))
	lines, maxLines := 0, c.loopMaxLines(total)
	memCost := func() int { return loopMemoryCap(c, lines, maxLines) }
	saving := func(u int) int { // what stubbing unit u's observations saves
		s := 0
		for _, i := range l.units[u].obs {
			s += lc.cost[i] - lc.capped(i)
		}
		return s
	}
	// The turns of the units before the boundary of the last jump that
	// stubbed an observation are clipped (clipTo): what that saves
	// counts too, but for dropped units, whose turns are gone, and for
	// the loop's last turn, whose calls go whole (compressLoop). Which
	// turn is last is what the walk has seen so far, so that the walk
	// over a prefix depends on that prefix alone: a turn reached while no
	// later assistant turn is walked (a user text after its results) is
	// pending, its saving counted once the next turn is walked.
	clipped := make([]int, len(l.units)) // per unit, what clipping its turn saved
	clipUpTo := 0                        // the units before it are clipped
	cur, pending := 0, -1                // the unit walked; a clipped turn not yet counted
	latest := func(k int) bool {         // no assistant turn walked after unit k's
		for v := k + 1; v <= cur; v++ {
			if !l.units[v].user {
				return false
			}
		}
		return true
	}
	count := func(k int) {
		clipped[k] = c.turnSavingOf(lc.msgs[l.units[k].msgs[0]])
		total -= clipped[k]
	}
	l.at = make([]int, len(l.units))
	moveB := func(nb int) {
		stubs := false
		for ; b < nb; b++ {
			total -= saving(b)
			l.at[b] = nb
			stubs = stubs || slices.ContainsFunc(l.units[b].obs, lc.stubbable)
		}
		for ; stubs && clipUpTo < nb; clipUpTo++ {
			un := &l.units[clipUpTo]
			switch {
			case un.user || len(un.obs) == 0 || clipUpTo < d && !un.kept():
			case latest(clipUpTo):
				pending = clipUpTo
			default:
				count(clipUpTo)
			}
		}
	}
	for u := range l.units {
		cur = u
		if pending >= 0 && !l.units[u].user {
			if pending >= d || l.units[pending].kept() {
				count(pending)
			}
			pending = -1
		}
		uObs := 0 // the current unit's observations walked so far
		for _, i := range l.units[u].msgs {
			total += lc.cost[i]
			if len(l.units[u].obs) > 0 && i != l.units[u].msgs[0] {
				uObs += lc.cost[i]
			}
			if over = total > budget; !over {
				continue
			}
			// The restart: the last units whose observations hold at
			// most limit stay verbatim, the current one at least.
			nb, t := u, uObs
			for nb > b {
				var v int
				for _, j := range l.units[nb-1].obs {
					v += lc.cost[j]
				}
				if t+v > limit {
					break
				}
				t += v
				nb--
			}
			moveB(nb)
			if total > budget { // (a) every observation but the current unit's
				moveB(u)
			}
			if total > budget { // (b) drop the oldest exchanges
				// Never the newest: a user text walked after it (a
				// reminder, a "continue") leaves its observations the
				// latest of the request, as the current unit's are.
				stop := u // the units before it may go
				for stop > d && l.units[stop].user {
					stop--
				}
				for ; d < stop && total > budget-limit; d++ {
					un := &l.units[d]
					if un.kept() {
						continue
					}
					total -= lc.cost[un.msgs[0]] - clipped[d] // the assistant turn, clipped or not
					for _, j := range un.obs {
						total -= lc.capped(j) // before b: stubbed
					}
					total -= memCost()
					lines += max(1, len(un.obs))
					total += memCost()
				}
			}
			over = total > budget
		}
		if k := o.LoopKeep; k > 0 && len(l.units[u].obs) > 0 {
			// The window: once LoopKeep+LoopEvery exchanges hold
			// verbatim observations, all but the last LoopKeep go.
			var ex []int
			for v := b; v <= u; v++ {
				if len(l.units[v].obs) > 0 {
					ex = append(ex, v)
				}
			}
			if len(ex) >= k+o.LoopEvery {
				moveB(ex[len(ex)-k])
			}
		}
	}
	return b, d, over
}
