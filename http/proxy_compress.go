package http

import (
	"context"
	"strings"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/memory"
)

// proxyOut is what compression made of one proxied request.
type proxyOut struct {
	body                     []byte // nil: send the request as it came
	before, after            int    // message tokens (memory.MessageOverhead rule)
	mode                     string // fits, stateless, stored, prefix
	fallback, fallbackReason string // why the offline engines stood in
	compacted                int    // conversation messages the memory holds
	passthrough              string // why the request went unchanged (X-SWC-Passthrough)
	tools                    int    // tokens of the tool definitions, when toolsKnown
	toolsKnown               bool
	overBudget               int            // tokens over the budget nothing more could remove (memory.Result.OverBudget)
	res                      *memory.Result // the compression (stateless and stored modes; nil otherwise)
	compression              string         // HeaderCompression's value ("" when the request was not compressed)
}

// prefixKey names a rendered memory: one conversation's life at one
// consolidation, over its first messages, at one budget.
type prefixKey struct {
	tenant, conv, generation string
	at                       time.Time
	messages                 int
	limit                    int
	budget                   int
}

// compressor returns the compressor of budget for protocol p (one whose
// codec wants it keeps messages starting at a user message), whose chat
// memories show history handles when handles is set (a request that goes
// out with swc_recall).
func (s *Server) compressor(budget int, p protocol, handles bool) (*memory.Compressor, error) {
	key := budget * 4
	if p.alignUser() {
		key++
	}
	if handles {
		key += 2
	}
	s.proxy.mu.Lock()
	c, ok := s.proxy.compressors[key]
	s.proxy.mu.Unlock()
	if ok {
		return c, nil
	}
	base, err := s.baseCompressor()
	if err != nil {
		return nil, err
	}
	if c, err = base.WithBudget(budget); err != nil {
		return nil, err
	}
	if p.alignUser() {
		c = c.WithAlignUser()
	}
	if handles {
		c = c.WithHistoryHandles()
	}
	s.proxy.mu.Lock()
	if len(s.proxy.compressors) > 256 {
		clear(s.proxy.compressors)
	}
	s.proxy.compressors[key] = c
	s.proxy.mu.Unlock()
	return c, nil
}

// baseCompressor returns the compressor of the proxy's settings that every
// budget's compressor is a copy of: they share its memos, so memory stays
// bounded however many budgets clients ask for.
func (s *Server) baseCompressor() (*memory.Compressor, error) {
	s.proxy.mu.Lock()
	defer s.proxy.mu.Unlock()
	if s.proxy.base != nil {
		return s.proxy.base, nil
	}
	o := memory.DefaultOptions()
	if s.Proxy.Strategy != "" {
		o.Strategy = s.Proxy.Strategy
	}

	if s.Proxy.Tokenizer != "" {
		o.Tokenizer = s.Proxy.Tokenizer
	}
	switch {
	case s.Proxy.KeepRecent > 0:
		o.KeepRecent = s.Proxy.KeepRecent
	case s.Proxy.KeepRecent < 0:
		o.KeepRecent = 0
	}
	o.Embedder = s.Proxy.Embedder
	o.MemoBytes = s.Proxy.MemoBytes
	o.SessionGap, o.SessionTurns = s.Rule.Gap, s.Rule.Turns
	if s.Proxy.Compaction != "" {
		o.Compaction = s.Proxy.Compaction
	}
	if s.Proxy.MemoryShare > 0 {
		o.MemoryShare = s.Proxy.MemoryShare
	}
	if s.Proxy.RestartShare > 0 {
		o.RestartShare = s.Proxy.RestartShare
	}
	o.LoopKeep, o.LoopEvery = s.Proxy.LoopKeep, s.Proxy.LoopEvery
	if s.Proxy.StubTokens > 0 {
		o.StubTokens = s.Proxy.StubTokens
	}
	o.TurnTokens = s.Proxy.TurnTokens
	o.HoldBudget = s.Proxy.HoldBudget
	if s.Proxy.CacheBreakpoints != "" {
		o.CacheBreakpoints = s.Proxy.CacheBreakpoints
	}
	c, err := memory.New(o)
	if err != nil {
		return nil, err
	}
	s.proxy.base = c
	return c, nil
}

// spliceOptions are how requests compressed by c are written.
func (s *Server) spliceOptions(c *memory.Compressor) memory.SpliceOptions {
	return memory.SpliceOptions{CacheBreakpoints: c.Options().CacheBreakpoints}
}

func (s *Server) compressTimeout() time.Duration {
	if s.Proxy.CompressTimeout > 0 {
		return s.Proxy.CompressTimeout
	}
	return DefaultCompressTimeout
}

// compressRequest compresses in's messages to budget: statelessly without
// a conversation id; with one, after storing the new messages, from the
// memory consolidation made (the same bytes until the next consolidation)
// followed by the messages since. It returns an EINVALID error when the
// messages are invalid; a request that cannot be brought within the budget
// goes out over it (out.overBudget).
func (s *Server) compressRequest(ctx context.Context, p protocol, in *chat.Input, budget int, tenant, conv string, handles bool) (*proxyOut, error) {
	c, err := s.compressor(budget, p, handles)
	if err != nil {
		return nil, err
	}
	if conv == "" {
		return s.stateless(ctx, c, in, "stateless")
	}
	return s.stateful(ctx, c, p, in, budget, tenant, conv)
}

// stateless compresses with the compressor's engines under the compress
// timeout; past it, or when an engine fails, the offline engines do
// (memory.Compressor's fallback), and out.fallback says why.
func (s *Server) stateless(ctx context.Context, c *memory.Compressor, in *chat.Input, mode string) (*proxyOut, error) {
	// The deadline from the server's clock (Server.Now), so a test can
	// put it in the past rather than race a timer.
	cctx, cancel := context.WithDeadline(ctx, s.now().Add(s.compressTimeout()))
	defer cancel()
	res, err := c.Compress(cctx, in.Messages)
	if err != nil {
		return nil, err
	}
	out := &proxyOut{before: res.TokensBefore, after: res.Tokens, mode: mode, compacted: res.Compacted, overBudget: res.OverBudget}
	if res.Fallback != "" {
		out.fallback, out.fallbackReason = res.Fallback, "engine"
		if strings.HasPrefix(res.Fallback, "deadline") {
			out.fallbackReason = "deadline"
		}
		if res.Plan == memory.CheapPlan {
			out.fallbackReason = "truncation"
		}
	}
	if res.Fits {
		out.mode = "fits"
		return out, nil
	}
	if out.body, err = memory.SpliceRequestWith(in, res, s.spliceOptions(c)); err != nil {
		return nil, err
	}
	out.res, out.compression = res, compressionSummary(c, in, res)
	return out, nil
}

// stateful stores the request's messages in conversation conv (the
// stored conversation follows the request: swc.AppendHistory) and
// compresses the request: in epochs (storedEpoch) or, under Replan, from
// what consolidation made of it. There the memory covers the sessions
// consolidated at the last consolidation, minus the last KeepRecent
// messages it saw (rounded back to a session start), so it depends on
// that consolidation only: every request until the next one sends the
// same memory, byte for byte, followed by the messages since. When nothing
// is consolidated yet, the memory and the messages since exceed the
// budget, or the store fails, the request is compressed statelessly.
func (s *Server) stateful(ctx context.Context, c *memory.Compressor, p protocol, in *chat.Input, budget int, tenant, conv string) (*proxyOut, error) {
	if err := chat.Validate(in.Messages, in.Where); err != nil {
		return nil, err
	}
	if err := s.checkStored(in); err != nil {
		return nil, err
	}
	info, storeErr := s.storeProxied(ctx, in, tenant, conv)
	if storeErr != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		s.logger().Error("proxy: store messages", "err", storeErr)
		out, err := s.stateless(ctx, c, in, "stateless")
		if err == nil && out.fallback == "" {
			out.fallback, out.fallbackReason = "store: "+storeErr.Error(), "store"
		}
		return out, err
	}
	before := c.CountMessages(in.Messages)
	if before <= budget {
		return &proxyOut{before: before, after: before, mode: "fits"}, nil
	}
	if c.Options().Compaction == memory.Epoch {
		return s.storedEpoch(ctx, c, in, info, tenant, conv)
	}
	out, ok, err := s.fromPrefix(ctx, c, p, in, info, budget, tenant, conv, before)
	if err != nil {
		return nil, err
	}
	if ok {
		return out, nil
	}
	return s.stateless(ctx, c, in, "stored")
}

// storeProxied stores the request's history in the conversation
// (swc.AppendHistory: what the stored conversation shares with the request
// is found by content, without reading it; a stored tail the request no
// longer holds is superseded; the rest is appended; instructions are the
// client's, not history) and returns the conversation after it. The
// history of a conversation seen for the first time is undated; the new
// tail of a known one takes the server's clock.
func (s *Server) storeProxied(ctx context.Context, in *chat.Input, tenant, conv string) (swc.ConversationInfo, error) {
	res, err := s.store.AppendMessages(ctx, tenant, conv, in.Messages, swc.AppendOptions{
		Mode: swc.AppendHistory, Rule: s.Rule, Now: s.now, Where: in.Where})
	if err != nil {
		return swc.ConversationInfo{}, err
	}
	if s.needsJob(res) {
		at := s.now()
		if s.Schedule.Window > 0 {
			at = at.Add(s.Schedule.Window)
		}
		if err := s.queue.Enqueue(ctx, tenant, conv, at); err != nil {
			s.logger().Error("enqueue consolidation", "err", err)
		}
	}
	return res.Conversation, nil
}

// prefix is a rendered memory with where it ends: the sessions it covers
// and the conversation messages of the request it stands for.
type prefix struct {
	text     string
	sessions int // 0: no memory to send
	covered  int // conversation (not instruction) messages in those sessions
}

// fromPrefix assembles the request from the memory of the consolidated
// sessions and the request's messages after them. ok=false asks for
// stateless compression (nothing consolidated, no room, or the memory
// could not be rendered in time). info is the conversation after the
// request's messages were stored: its first messages are the request's.
func (s *Server) fromPrefix(ctx context.Context, c *memory.Compressor, p protocol, in *chat.Input, info swc.ConversationInfo, budget int, tenant, conv string, before int) (*proxyOut, bool, error) {
	keep := c.Options().KeepRecent
	limit := info.ConsolidatedMessages - keep // messages the memory may cover
	if info.ConsolidatedMessages == 0 || limit < 1 || info.Messages <= limit {
		return nil, false, nil
	}

	// The request: instructions first, then the conversation from the
	// first message the memory does not cover (moved back so that a tool
	// result keeps its call, and for Anthropic to a user message).
	var instr, convIdx []int
	for i, m := range in.Messages {
		if chat.IsInstruction(m) {
			instr = append(instr, i)
		} else {
			convIdx = append(convIdx, i)
		}
	}
	instrCost := 0
	for _, i := range instr {
		instrCost += c.Cost(in.Messages[i])
	}
	share := s.Proxy.PrefixShare
	if share <= 0 || share > 1 {
		share = 0.5
	}
	memBudget := int(share*float64(budget-instrCost)) - memory.MessageOverhead - c.Cost(swc.Message{Content: memory.Preamble}) - 2
	if memBudget < 50 {
		return nil, false, nil
	}
	key := prefixKey{tenant, conv, info.Generation, info.ConsolidatedAt, info.ConsolidatedMessages, limit, memBudget}
	pre, ok := s.proxy.prefixes.Get(key)
	if !ok {
		var err error
		if pre, err = s.renderPrefix(ctx, tenant, conv, limit, memBudget); err != nil {
			if ctx.Err() != nil {
				return nil, false, ctx.Err()
			}
			// Compressed statelessly instead (offline engines past the
			// deadline): counted as a fallback.
			s.logger().Warn("proxy: render memory", "err", err)
			s.proxy.metrics.fallbacks.WithLabelValues("memory").Inc()
			return nil, false, nil
		}
		s.proxy.prefixes.Put(tenant, key, pre, int64(len(pre.text)+256))
	}
	if pre.sessions == 0 {
		return nil, false, nil
	}
	start := convStart(in.Messages, convIdx, pre.covered)
	for start > 0 && start < len(convIdx) && in.Messages[convIdx[start]].Role == swc.RoleTool {
		start--
	}
	if p.alignUser() {
		for start > 0 && start < len(convIdx) && in.Messages[convIdx[start]].Role != swc.RoleUser {
			start--
		}
	}
	if start == 0 || start >= len(convIdx) {
		return nil, false, nil
	}
	text := pre.text

	res := &memory.Result{Memory: text, TokensBefore: before, Budget: budget}
	for _, i := range instr {
		res.Messages = append(res.Messages, in.Messages[i])
		res.Source = append(res.Source, i)
	}
	res.Messages = append(res.Messages, swc.Message{Role: swc.RoleSystem, Content: text})
	res.Source = append(res.Source, -1)
	for _, i := range convIdx[start:] {
		res.Messages = append(res.Messages, in.Messages[i])
		res.Source = append(res.Source, i)
	}
	res.Tokens = c.CountMessages(res.Messages)
	if res.Tokens > budget {
		return nil, false, nil // the messages since outgrew the room: compress them all
	}
	body, err := memory.SpliceRequestWith(in, res, s.spliceOptions(c))
	if err != nil {
		return nil, false, err
	}
	return &proxyOut{body: body, before: before, after: res.Tokens, mode: "prefix"}, true, nil
}

// renderPrefix reads the stored conversation (once per consolidation and
// memory budget: the result is cached) and renders the memory of the
// sessions wholly within its first limit messages to memBudget. A prefix
// of no sessions says there is nothing to send.
func (s *Server) renderPrefix(ctx context.Context, tenant, conv string, limit, memBudget int) (prefix, error) {
	stored, err := s.store.Messages(ctx, tenant, conv)
	if err != nil {
		return prefix{}, err
	}
	if len(stored) <= limit {
		return prefix{}, nil
	}
	pre := prefix{sessions: stored[limit].SessionN} // sessions wholly within the limit
	if pre.sessions == 0 {
		return pre, nil
	}
	var covered []swc.StoredMessage
	for _, m := range stored {
		if m.SessionN >= pre.sessions {
			break
		}
		covered = append(covered, m)
		if !chat.IsInstruction(m.Message) {
			pre.covered++
		}
	}
	gists, err := s.store.Gists(ctx, tenant, conv)
	if err != nil {
		return prefix{}, err
	}
	rctx, cancel := context.WithTimeout(ctx, s.compressTimeout())
	defer cancel()
	hc, err := s.memory.Render(rctx, conv, covered, gists, memBudget)
	if err != nil {
		return prefix{}, err
	}
	pre.text = memory.Preamble + hc.Text
	return pre, nil
}

// convStart returns the position in convIdx (the request's conversation
// messages, mid-conversation system messages among them) of the stored
// conversation message n (the store keeps a mid-conversation system
// message as an instruction: swc.PlanAppend), len(convIdx) past the end.
func convStart(msgs []swc.Message, convIdx []int, n int) int {
	k := 0
	for j, i := range convIdx {
		if msgs[i].InPlace {
			continue
		}
		if k == n {
			return j
		}
		k++
	}
	return len(convIdx)
}

// storedCount returns how many of the first n conversation messages of
// msgs the store counts (mid-conversation system messages aside).
func storedCount(msgs []swc.Message, n int) int {
	k, seen := 0, 0
	for _, m := range msgs {
		if seen == n {
			break
		}
		if chat.IsInstruction(m) {
			continue
		}
		seen++
		if !m.InPlace {
			k++
		}
	}
	return k
}
