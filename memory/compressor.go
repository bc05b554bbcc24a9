package memory

import (
	"context"
	"errors"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/gist"
	"github.com/swcmem/swc/internal/memo"
	"github.com/swcmem/swc/mention"
	"github.com/swcmem/swc/observe"
	"github.com/swcmem/swc/selection"
	"github.com/swcmem/swc/strategy"
	"github.com/swcmem/swc/tokens"
	"github.com/swcmem/swc/usage"
)

// Compressor compresses chat histories to a budget. Build it with New; it
// is safe for concurrent use.
type Compressor struct {
	opts    Options
	counter *tokens.Counter
	online  bool // the engines may call an LLM (deadline fallback applies)
	memos   *memos
	source  MemorySource // WithMemory's or After's
	after   bool         // After's: the messages given continue a history
}

// New returns a Compressor for opts, or an EINVALID error naming a bad
// option (unknown strategy or tokenizer, negative budget or keep-recent).
func New(opts Options) (*Compressor, error) {
	def := DefaultOptions()
	if opts.Strategy == "" {
		opts.Strategy = def.Strategy
	}
	if opts.Budget == 0 {
		opts.Budget = def.Budget
	}
	if opts.Budget < 0 {
		return nil, swc.Errorf(swc.EINVALID, "budget must be positive (got %d)", opts.Budget)
	}
	if opts.KeepRecent < 0 {
		return nil, swc.Errorf(swc.EINVALID, "keep-recent must not be negative (got %d)", opts.KeepRecent)
	}
	if opts.SessionGap < 0 || opts.SessionTurns < 0 {
		return nil, swc.Errorf(swc.EINVALID, "session gap and session turns must not be negative")
	}
	if opts.Config == (consolidate.Config{}) {
		opts.Config = def.Config
	}
	if err := opts.Config.Validate(); err != nil {
		return nil, err
	}
	if opts.FallbackReserve <= 0 {
		opts.FallbackReserve = def.FallbackReserve
	}
	switch opts.Compaction {
	case "":
		opts.Compaction = def.Compaction
	case Epoch, Replan:
	default:
		return nil, swc.Errorf(swc.EINVALID, "unknown compaction %q (want %s or %s)", opts.Compaction, Epoch, Replan)
	}
	if opts.MemoryShare == 0 {
		opts.MemoryShare = def.MemoryShare
	}
	if opts.RestartShare == 0 {
		opts.RestartShare = def.RestartShare
	}
	if !(opts.MemoryShare > 0 && opts.MemoryShare < 1) || !(opts.RestartShare > 0 && opts.RestartShare < 1) {
		return nil, swc.Errorf(swc.EINVALID, "memory share and restart share must be between 0 and 1 (got %g and %g)", opts.MemoryShare, opts.RestartShare)
	}
	switch opts.CacheBreakpoints {
	case "":
		opts.CacheBreakpoints = def.CacheBreakpoints
	case BreakpointsAuto, BreakpointsOff:
	default:
		return nil, swc.Errorf(swc.EINVALID, "unknown cache breakpoints %q (want %s or %s)", opts.CacheBreakpoints, BreakpointsAuto, BreakpointsOff)
	}
	counter, err := tokens.Get(opts.Tokenizer)
	if err != nil {
		return nil, err
	}
	opts.Tokenizer = counter.Name()
	if _, err := strategy.Find(opts.Strategy, strategy.ForCompressor); err != nil {
		return nil, err
	}
	if opts.LoopKeep == 0 {
		opts.LoopKeep = DefaultLoopKeep
	}
	if opts.LoopEvery <= 0 {
		opts.LoopEvery = DefaultLoopEvery
	}
	if opts.StubTokens < 0 {
		return nil, swc.Errorf(swc.EINVALID, "stub tokens must not be negative (got %d)", opts.StubTokens)
	}
	if opts.StubTokens == 0 {
		opts.StubTokens = observe.DefaultStubTokens
	}
	if opts.TurnTokens == 0 {
		opts.TurnTokens = DefaultTurnTokens
	}
	if opts.StubShare == 0 {
		opts.StubShare = DefaultStubShare
	}
	if opts.StubValue == 0 {
		opts.StubValue = DefaultStubValue
	}
	if opts.MemoBytes <= 0 {
		opts.MemoBytes = DefaultMemoBytes
	}
	c := &Compressor{opts: opts, counter: counter, memos: newMemos(opts.MemoBytes)}
	c.online = opts.Gister != nil || opts.LLM != nil || opts.Embedder != nil
	return c, nil
}

// Options returns the compressor's options with defaults filled in.
func (c *Compressor) Options() Options { return c.opts }

// Result is what Compress returns.
type Result struct {
	// Messages are the messages to send: system and developer messages,
	// then the memory message (when there is history to hold), then the
	// kept recent messages, unchanged.
	Messages []swc.Message `json:"messages"`
	// Source[i] is the index in the input of Messages[i], or -1 for the
	// memory message.
	Source []int `json:"source"`
	// Memory is the memory message's content ("" when nothing was older
	// than the kept messages).
	Memory string `json:"memory,omitempty"`
	// Recent is the input index where the kept recent messages start
	// (len(input) when none are kept).
	Recent int `json:"recent"`
	// Context is the compressed history with its per-session report (nil
	// when there was no history).
	Context *swc.Context `json:"context,omitempty"`
	// Sessions says how the history's messages were grouped.
	Sessions []SessionSpan `json:"sessions,omitempty"`
	// Rule is how sessions were found ("gaps of 30m0s", …).
	Rule string `json:"rule,omitempty"`
	// Tokens counts Messages as MessageOverhead documents; TokensBefore
	// counts the input the same way. Budget and Tokenizer are the settings.
	Tokens       int    `json:"tokens"`
	TokensBefore int    `json:"tokens_before"`
	Budget       int    `json:"budget"`
	Tokenizer    string `json:"tokenizer"`
	Strategy     string `json:"strategy"`
	// Compaction is the Options' (epoch or replan); Compacted is how many
	// conversation messages the memory message holds (0 without one).
	// Under Epoch it changes only when the boundary jumps.
	Compaction string `json:"compaction"`
	Compacted  int    `json:"compacted"`
	// Usage is the LLM usage of this call (Options.LLM only).
	Usage usage.Summary `json:"usage"`
	// Fits reports that the input already fit the budget: Messages are
	// the input, unchanged.
	Fits bool `json:"fits,omitempty"`
	// Fallback, when non-empty, says why the offline engines compressed
	// the history instead of the configured ones.
	Fallback string `json:"fallback,omitempty"`
	// Plan is "truncation" when even the offline engines ran past ctx's
	// deadline and the history's memory is the cheaper truncation plan
	// (the first session pinned, then the most recent turns that fit).
	Plan string `json:"plan,omitempty"`
	// Truncated lists the input indexes of history messages cut because
	// each alone exceeded the history's budget, or of a tool loop's newest
	// outputs cut to hold the budget (Options.HoldBudget; Rewritten holds
	// their stubs).
	Truncated []int `json:"truncated,omitempty"`
	// Warnings are usable oddities (no timestamps, …).
	Warnings []string `json:"warnings,omitempty"`
	// Rewritten maps an input message index to the text that replaces its
	// content in the request as sent: an old observation of a tool loop (a
	// tool result, or a text-acting agent's observation message) kept in
	// place as a stub, or of an old assistant turn of a tool loop clipped
	// (Options.TurnTokens: its text only, never its tool calls). The message keeps its role, ids and every other
	// field; splicing writes only its content. Messages holds the new
	// content already.
	Rewritten map[int]string `json:"rewritten,omitempty"`
	// Calls maps the input index of an old assistant turn of a tool loop
	// to its tool calls as sent when their long arguments were clipped
	// (Options.TurnTokens: a string value of a call's arguments over
	// TurnTokens+16 tokens keeps its leading lines and a line naming the
	// turn's handle); each call keeps its id and name, and the turn its
	// content (Rewritten) and every other field. Messages holds the new
	// calls already; the turn being answered is never listed.
	Calls map[int][]swc.ToolCall `json:"calls,omitempty"`
	// Recall lists the pieces of the history the memory message shows by
	// handle instead of whole (sessions gisted, partly kept or left out;
	// see Recallable), in the order it shows them, and the assistant turns
	// of a tool loop it clipped (Options.TurnTokens): Original of their
	// messages is what each handle stands for.
	Recall []Recallable `json:"recall,omitempty"`
	// OverBudget is how many tokens the messages exceed the budget by
	// when nothing more could be removed without breaking the provider's
	// rules (0 when within budget). Compress never fails for the budget.
	OverBudget int `json:"over_budget,omitempty"`
}

// SessionSpan is one session of the history: its 0-based index (as in
// swc.ChunkReport; people are shown Session+1), its messages [First, Last]
// (input indexes), its date, and the explicit id when the messages had one.
type SessionSpan struct {
	Session  int    `json:"session"`
	Date     string `json:"date"`
	First    int    `json:"first"`
	Last     int    `json:"last"`
	Messages int    `json:"messages"`
	ID       string `json:"id,omitempty"`
}

// Cost returns m's tokens as the budget counts them: content, tool call
// names and arguments, its images (MediaTokens), the reasoning it carries
// unshown (ReasoningTokens) and MessageOverhead.
func (c *Compressor) Cost(m swc.Message) int {
	n := c.countText(m.Content) + MessageOverhead + m.MediaTokens + m.ReasoningTokens
	for _, tc := range m.ToolCalls {
		n += c.counter.CountCached(tc.Name) + c.counter.CountCached(tc.Arguments)
	}
	return n
}

// CountMessages returns the budget cost of msgs.
func (c *Compressor) CountMessages(msgs []swc.Message) int {
	n := 0
	for _, m := range msgs {
		n += c.Cost(m)
	}
	return n
}

// Compress returns msgs within the budget. Messages that already fit are
// returned unchanged (Result.Fits). Otherwise: system and developer messages
// first and verbatim, one system message holding the consolidated history,
// then the kept recent messages unchanged. The input is not modified.
//
// Under Epoch (the default) the history is cut at a boundary that depends
// on the messages alone (see Options.Compaction): the same messages give
// the same bytes in any process, and a history grown by appends keeps its
// memory message byte for byte until the boundary jumps. The memory of a
// boundary is remembered, so that the requests of one epoch consolidate
// nothing. Under Replan the memory takes all the room the instructions and
// the last KeepRecent messages leave.
//
// A tool loop (see asLoop) keeps its instructions, task, user texts and
// assistant turns' calls verbatim, clips the prose of old turns
// (Options.TurnTokens) and stubs or drops its old observations instead
// (compressLoop).
//
// It returns an EINVALID error when msgs fail chat.Validate (the message
// names the index and field), and never fails for the budget: when the
// instructions and the kept messages alone exceed it, the kept tail
// shrinks to the shortest the provider's rules allow (a tool call keeps
// its results; with AlignUser the tail starts at a user message, or at an
// assistant turn after the task) and the request goes out over budget,
// Result.OverBudget saying by how much. It never fails because an engine
// did: past ctx's deadline, or when the configured gister or embedder
// fails, the history is compressed by the offline engines and
// Result.Fallback says why. A history message that alone exceeds the
// history's budget is truncated with a visible marker (Result.Truncated).
func (c *Compressor) Compress(ctx context.Context, msgs []swc.Message) (*Result, error) {
	if err := chat.Validate(msgs, nil); err != nil {
		return nil, err
	}
	o := c.opts
	costs := make([]int, len(msgs))
	before := 0
	for i := range msgs {
		costs[i] = c.Cost(msgs[i])
		before += costs[i]
	}
	res := c.newResult(before)
	if res.TokensBefore <= o.Budget && !c.after && o.LoopKeep > 0 {
		// A tool loop's window stubs old observations within the budget too.
		if l := asLoop(msgs); l != nil {
			if lr := c.compressLoop(msgs, costs, l, c.newResult(before)); lr.Compacted > 0 {
				return lr, nil
			}
		}
	}
	if res.TokensBefore <= o.Budget && !c.after {
		res.Fits, res.Messages, res.Tokens, res.Recent = true, msgs, res.TokensBefore, 0
		for i := range msgs {
			res.Source = append(res.Source, i)
		}
		return res, nil
	}
	if !c.after {
		if l := asLoop(msgs); l != nil {
			lr := c.compressLoop(msgs, costs, l, res)
			if lr.OverBudget == 0 || !l.userTexts() && !l.early(costs, o.Budget) {
				return c.holdBudget(msgs, costs, l, lr), nil
			}
			// The loop keeps every user text a person wrote verbatim, and
			// its head; when that leaves it over budget, the history is
			// consolidated as a conversation instead if that fits (a
			// loop whose last exchange alone is over stays a loop), as
			// is one of a tool call or two after a head over the budget
			// (loopShape.early).
			hr, err := c.compressHistory(ctx, msgs, costs, c.newResult(before), o.HistoryHandles)
			if err != nil || hr.OverBudget > 0 {
				return c.holdBudget(msgs, costs, l, lr), nil
			}
			return hr, nil
		}
	}
	return c.compressHistory(ctx, msgs, costs, res, o.HistoryHandles)
}

// newResult returns the Result a compression of a history of before
// tokens fills.
func (c *Compressor) newResult(before int) *Result {
	o := c.opts
	return &Result{Budget: o.Budget, Tokenizer: o.Tokenizer, Strategy: o.Strategy, Compaction: o.Compaction, TokensBefore: before}
}

// compressHistory is Compress of a history that is not a tool loop (or
// of one whose user texts outgrow the budget): the instructions, the
// memory of the history before the boundary, the recent messages. With
// handles (Options.HistoryHandles) the memory shows the handle of every
// piece it does not hold whole (withHandles).
func (c *Compressor) compressHistory(ctx context.Context, msgs []swc.Message, costs []int, res *Result, handles bool) (*Result, error) {
	o := c.opts
	// Instructions first; then the conversation, split into history and
	// the recent window.
	var instr, conv []int
	instrCost := 0
	for i, m := range msgs {
		if chat.IsInstruction(m) {
			instr = append(instr, i)
			instrCost += costs[i]
		} else {
			conv = append(conv, i)
		}
	}
	// The turns that loaded deferred tools are sent wherever the
	// boundary falls (loaderPins): the boundary and the tail count them
	// as they count the instructions (twice when in the tail: an upper
	// bound, which moves only when a search is made).
	fixed := instrCost
	allLoaders, loaderTask := c.loaderPins(msgs, conv, len(conv))
	for _, k := range allLoaders {
		fixed += costs[conv[k]]
	}
	var start, room int
	if o.Compaction == Epoch {
		start, room = c.boundary(msgs, conv, fixed)
	} else {
		start = c.recentStart(msgs, conv)
	}
	protected := fixed
	for _, i := range conv[start:] {
		protected += costs[i]
	}
	if protected > o.Budget {
		// Never refuse: the shortest tail the provider's rules allow
		// that fits, else the shortest one (over budget).
		start = c.shrinkTail(msgs, conv, start, fixed)
	}
	recent := conv[start:]
	history := conv[:start]
	pin := c.pinnedTask(msgs, conv, start)
	// Those before the tail (a tail never starts at a tool result, so a
	// turn and its results are on one side of it).
	var loaders []int
	for _, k := range allLoaders {
		if k < start {
			loaders = append(loaders, k)
		}
	}
	if len(loaders) == 0 {
		loaderTask = -1
	}
	if pin < 0 {
		pin = loaderTask
	}
	if pin >= 0 || len(loaders) > 0 {
		kept := map[int]bool{pin: true}
		for _, k := range loaders {
			kept[k] = true
		}
		history = nil
		for k := range start {
			if !kept[k] {
				history = append(history, conv[k])
			}
		}
	}
	res.Recent = len(msgs)
	if len(recent) > 0 {
		res.Recent = recent[0]
	}
	protected = instrCost
	for _, i := range recent {
		protected += c.Cost(msgs[i])
	}
	if pin >= 0 {
		protected += c.Cost(msgs[conv[pin]])
	}
	for _, k := range loaders {
		protected += c.Cost(msgs[conv[k]])
	}
	if o.Compaction == Replan || protected+room > o.Budget {
		// Replan, or a tail that outgrew its room with no boundary to
		// jump to: the memory takes what is left (this request only).
		room = o.Budget - protected
	}
	res.Compacted = len(history)

	emit := func(memory string) {
		res.Messages, res.Source = res.Messages[:0], res.Source[:0]
		for _, i := range instr {
			res.Messages = append(res.Messages, msgs[i])
			res.Source = append(res.Source, i)
		}
		res.Memory = memory
		if memory != "" {
			res.Messages = append(res.Messages, swc.Message{Role: swc.RoleSystem, Content: memory})
			res.Source = append(res.Source, -1)
		}
		if pin >= 0 {
			res.Messages = append(res.Messages, msgs[conv[pin]])
			res.Source = append(res.Source, conv[pin])
		}
		for _, k := range loaders {
			res.Messages = append(res.Messages, msgs[conv[k]])
			res.Source = append(res.Source, conv[k])
		}
		for _, i := range recent {
			res.Messages = append(res.Messages, msgs[i])
			res.Source = append(res.Source, i)
		}
		res.Tokens = c.CountMessages(res.Messages)
		res.OverBudget = max(res.Tokens-o.Budget, 0)
	}
	if len(history) == 0 && !c.after || room <= 0 { // no history, or no room for its memory
		emit("")
		return res, nil
	}
	blk, err := c.memoryOf(ctx, msgs, history, start, room, handles)
	if err != nil {
		return nil, err
	}
	emit(blk.text)
	res.Context, res.Rule, res.Warnings, res.Fallback, res.Usage = blk.context, blk.rule, blk.warnings, blk.fallback, blk.usage
	res.Plan = blk.plan
	for _, sp := range blk.sessions {
		sp.First, sp.Last = history[sp.First], history[sp.Last]
		res.Sessions = append(res.Sessions, sp)
	}
	for _, k := range blk.truncated {
		res.Truncated = append(res.Truncated, history[k])
	}
	for _, sp := range blk.recall {
		r := Recallable{Handle: sp.handle, First: sp.first, Last: sp.last}
		for k := sp.from; k < sp.to; k++ {
			r.Messages = append(r.Messages, history[k])
		}
		res.Recall = append(res.Recall, r)
	}
	return res, nil
}

// memBlock is the memory message of one history at one room, with what
// Result reports of it; message positions are positions in the history.
type memBlock struct {
	text      string // the memory message's content ("" for none)
	context   *swc.Context
	sessions  []SessionSpan
	rule      string
	warnings  []string
	truncated []int
	recall    []recallSpan // the pieces the text shows by handle
	fallback  string
	plan      string // CheapPlan when the deadline cut the strategy short
	usage     usage.Summary
}

// memoryOf returns the memory message of the history messages (input
// indexes; before is how many conversation messages precede the kept
// tail, the pinned ones among them, which is what a MemorySource's
// memory covers) whose whole cost (content and MessageOverhead) fits room:
// consolidated by the strategy, or an omission marker alone, or nothing.
// Under Epoch it is remembered by content (a fallback's is not), so every
// request of an epoch gets it without consolidating again.
func (c *Compressor) memoryOf(ctx context.Context, msgs []swc.Message, history []int, before, room int, handles bool) (*memBlock, error) {
	if c.source != nil && (c.opts.Compaction == Epoch || c.after) {
		if text, ok := c.source(ctx, before, room); ok && c.Cost(swc.Message{Role: swc.RoleSystem, Content: text}) <= room {
			return &memBlock{text: text, context: &swc.Context{Strategy: c.opts.Strategy, Budget: room, Text: text}}, nil
		}
	}
	if len(history) == 0 { // After's, with no memory from its source
		return &memBlock{}, nil
	}
	var key [32]byte
	if c.opts.Compaction == Epoch {
		key = c.memoryKey(msgs, history, room)
		if !handles {
			key[0] ^= 1 // a memory without handles is another memory
		}
		if b, ok := c.memos.blocks.Get(key); ok {
			return b, nil
		}
	}
	b, err := c.consolidate(ctx, msgs, history, room, handles)
	if err != nil {
		return nil, err
	}
	if c.opts.Compaction == Epoch && b.fallback == "" {
		b.usage = usage.Summary{} // a remembered block costs nothing again
		c.memos.blocks.Put(key, b)
	}
	return b, nil
}

// consolidate compresses the history messages with the strategy into a
// memory message of at most room tokens.
func (c *Compressor) consolidate(ctx context.Context, msgs []swc.Message, history []int, room int, handles bool) (*memBlock, error) {
	o := c.opts
	blk := &memBlock{}
	var histMsgs []swc.Message
	if first, last := history[0], history[len(history)-1]; last-first == len(history)-1 {
		histMsgs = msgs[first : last+1] // no instruction among them: no copy
	} else {
		histMsgs = make([]swc.Message, len(history))
		for k, i := range history {
			histMsgs[k] = msgs[i]
		}
	}
	g := chat.Sessionize(histMsgs, chat.SessionOptions{Gap: o.SessionGap, Turns: o.SessionTurns, Index: history})
	blk.rule, blk.warnings = g.Rule, g.Warnings
	for s, sp := range g.Spans {
		blk.sessions = append(blk.sessions, SessionSpan{
			Session: s, Date: g.Conversation.Sessions[s].DateText,
			First: sp.First, Last: sp.End - 1, Messages: sp.End - sp.First, ID: histMsgs[sp.First].Session,
		})
	}

	// The history's budget: the room less the memory message's own cost.
	// Strategies count cl100k_base; the final count uses the chosen
	// tokenizer, and the history budget shrinks until the message fits.
	histBudget := room - (MessageOverhead + c.counter.Count(Preamble) + 2)
	blk.truncated = truncateLong(g, histBudget, identity(len(history)))

	engines := c.engines()
	run := func(ctx context.Context, e engineSet, budget int) (*swc.Context, error) {
		name := o.Strategy
		if e.cheap {
			name, blk.plan = CheapPlan, CheapPlan
		}
		strat, err := strategy.New(name, strategy.Engines{
			Embedder: e.embedder, Gister: e.gister, Config: o.Config, Schedule: o.Schedule,
			Plans: c.memos.plans, Salient: c.memos.salientCount, Anchor: c.memos.anchor,
			Analyzer: &selection.Analyzer{Anchor: c.memos.anchor, Salient: c.memos.salientCount, Dated: mention.HasTemporal, Terms: c.memos.terms},
		})
		if err != nil {
			return nil, err
		}
		return strat.Compress(ctx, g.Conversation, swc.CompressOptions{Budget: budget})
	}
	cost := func(memory string) int { return c.Cost(swc.Message{Role: swc.RoleSystem, Content: memory}) }
	for attempt := 0; histBudget > 0 && attempt < 8; attempt++ {
		hc, err := c.runWithFallback(ctx, engines, &blk.fallback, func(ctx context.Context, e engineSet) (*swc.Context, error) { return run(ctx, e, histBudget) })
		if errors.Is(err, swc.ErrBudgetTooSmall) {
			// A budget below what the strategy's emptiest context costs
			// (its omission marker): nothing of the history fits, and
			// the request goes without it rather than refused. Any other
			// error (an engine's) is returned.
			break
		}
		if err != nil {
			return nil, err
		}
		text := withOmissions(hc.Text, len(g.Conversation.Sessions))
		var spans []recallSpan
		if handles {
			text, spans = withHandles(text, g, histMsgs, wholeSessions(hc, g, blk.truncated))
		}
		if n := cost(Preamble + text); n > room {
			histBudget -= n - room + 2
			continue
		}
		hc.Text = text
		blk.text, blk.context, blk.recall = Preamble+text, hc, spans
		blk.usage = engines.meter.Summary()
		return blk, nil
	}
	// Nothing of the history fits: a marker alone, or no memory at all.
	if n := len(g.Conversation.Sessions); n > 0 {
		marker := Preamble + omitted(1, n)
		all := recallSpan{first: 0, last: n - 1, from: 0, to: len(histMsgs)}
		withHandle := ""
		if handles {
			all.handle = HistoryHandle(histMsgs)
			withHandle = marker + " " + handleMark(all.handle)
		}
		switch {
		case withHandle != "" && cost(withHandle) <= room:
			blk.text, blk.recall = withHandle, []recallSpan{all}
		case cost(marker) <= room:
			blk.text = marker
		}
	}
	blk.context = &swc.Context{Strategy: o.Strategy, Budget: max(histBudget, 0), Text: blk.text}
	for s := range g.Conversation.Sessions {
		blk.context.Dropped = append(blk.context.Dropped, swc.Drop{Session: s, Reason: "no room left by the kept messages"})
	}
	blk.usage = engines.meter.Summary()
	return blk, nil
}

func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// recentStart returns the position in conv where the kept window starts:
// the last KeepRecent messages, moved back so that it does not start with
// a tool result (its call comes along), and with AlignUser back to a user
// message.
func (c *Compressor) recentStart(msgs []swc.Message, conv []int) int {
	start := max(len(conv)-c.opts.KeepRecent, 0)
	if start == len(conv) {
		if !c.opts.AlignUser || start == 0 {
			return start
		}
		start-- // Anthropic needs at least one message
	}
	for start > 0 && msgs[conv[start]].Role == swc.RoleTool {
		start--
	}
	if c.opts.AlignUser {
		for start > 0 && msgs[conv[start]].Role != swc.RoleUser {
			start--
		}
	}
	return start
}

// engineSet is the gister and embedder of one run, with the meter of its
// LLM calls.
type engineSet struct {
	gister   swc.Gister
	embedder swc.Embedder
	meter    *usage.Meter
	cheap    bool // the truncation plan instead of the strategy (CheapPlan)
}

// CheapPlan is the strategy a history is compressed with when even the
// offline engines run past the deadline: it costs a pass over the turns.
const CheapPlan = "truncation"

// engines returns the configured engines for one Compress call: its own
// meter, and a memo so that budget retries never pay for a gist twice.
func (c *Compressor) engines() engineSet {
	o := c.opts
	e := engineSet{gister: o.Gister, embedder: o.Embedder, meter: &usage.Meter{}}
	off, offEmb := offline()
	if e.gister == nil && o.LLM != nil {
		llm := gist.NewLLM(usage.Metered(o.LLM, e.meter))
		e.gister = llm
		if o.Cache != nil {
			e.gister = gist.Cached(llm, o.Cache, llm.PromptHash)
		}
	}
	if e.gister == nil {
		e.gister = off
	}
	if e.embedder == nil {
		e.embedder = offEmb
	}
	e.gister = memo.NewGister(e.gister, c.memos.gists)
	return e
}

// runWithFallback runs f with the configured engines; when they may call
// an LLM, the attempt ends FallbackReserve before ctx's deadline, and any
// failure of theirs (deadline, provider error) is answered by running f
// with the offline engines, recorded in *fallback. The offline engines
// are bounded by ctx's deadline too: past it, f runs the cheaper
// CheapPlan without a deadline (runOffline). Input errors (EINVALID) are
// returned as they are.
func (c *Compressor) runWithFallback(ctx context.Context, e engineSet, fallback *string, f func(context.Context, engineSet) (*swc.Context, error)) (*swc.Context, error) {
	if !c.online || *fallback != "" {
		if *fallback != "" {
			g, emb := offline()
			e = engineSet{gister: memo.NewGister(g, c.memos.gists), embedder: emb, meter: e.meter}
		}
		return c.runOffline(ctx, e, fallback, f)
	}
	actx := ctx
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		actx, cancel = context.WithDeadline(ctx, dl.Add(-c.opts.FallbackReserve))
		defer cancel()
	}
	out, err := f(actx, e)
	if err == nil {
		return out, nil
	}
	if swc.ErrorCode(err) == swc.EINVALID {
		return nil, err
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded) || actx.Err() != nil:
		*fallback = "deadline: " + err.Error()
	default:
		*fallback = "engine failed: " + err.Error()
	}
	g, emb := offline()
	return c.runOffline(ctx, engineSet{gister: memo.NewGister(g, c.memos.gists), embedder: emb, meter: e.meter}, fallback, f)
}

// cheapNote ends a fallback that went on to CheapPlan.
const cheapNote = "; the " + CheapPlan + " plan compressed the history"

// runOffline runs f with offline engines e until ctx's deadline; past it
// (or once a budget retry of the same call got there; or ctx canceled) f
// runs CheapPlan, which waits on nothing, without a deadline, and
// *fallback says so.
func (c *Compressor) runOffline(ctx context.Context, e engineSet, fallback *string, f func(context.Context, engineSet) (*swc.Context, error)) (*swc.Context, error) {
	if !strings.HasSuffix(*fallback, cheapNote) {
		// A deadline already past goes straight to CheapPlan: whether
		// the strategy would notice it depends on what its memos hold.
		if ctx.Err() == nil {
			out, err := f(ctx, e)
			if err == nil || swc.ErrorCode(err) == swc.EINVALID || ctx.Err() == nil {
				return out, err
			}
		}
		if *fallback == "" {
			*fallback = "deadline: the offline engines ran past it"
		} else {
			*fallback += "; the offline engines ran past the deadline too"
		}
		*fallback += cheapNote
	}
	e.cheap = true
	return f(context.WithoutCancel(ctx), e)
}

// AsSent returns input message m (at index i) as the request sends it:
// its content as Rewritten gives it (a stub, media and all, or a clipped
// turn's text) and its tool calls as Calls gives them; changed reports
// whether either did. A message the request leaves out is not told apart
// (Source says which are sent).
func (r *Result) AsSent(i int, m swc.Message) (sent swc.Message, changed bool) {
	if s, ok := r.Rewritten[i]; ok {
		m.Content, changed = s, true
		if m.Role != swc.RoleAssistant {
			m.MediaTokens = 0
		}
	}
	if cs, ok := r.Calls[i]; ok {
		m.ToolCalls, changed = cs, true
	}
	return m, changed
}
