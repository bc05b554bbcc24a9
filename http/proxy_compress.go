package http

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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
}

// prefixKey names a rendered memory: one conversation at one consolidation,
// over its first sessions, at one budget.
type prefixKey struct {
	tenant, conv string
	at           time.Time
	messages     int
	sessions     int
	budget       int
}

// compressor returns the compressor of budget for protocol p (Anthropic's
// keeps messages starting at a user message).
func (s *Server) compressor(budget int, p protocol) (*memory.Compressor, error) {
	key := budget * 2
	if p == protoAnthropic {
		key++
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
	if p == protoAnthropic {
		c = c.WithAlignUser()
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
	o.SessionGap, o.SessionTurns = s.Rule.Gap, s.Rule.Turns
	c, err := memory.New(o)
	if err != nil {
		return nil, err
	}
	s.proxy.base = c
	return c, nil
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
// messages are invalid or their protected part alone exceeds the budget.
func (s *Server) compressRequest(ctx context.Context, p protocol, in *chat.Input, budget int, tenant, conv string) (*proxyOut, error) {
	c, err := s.compressor(budget, p)
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
	cctx, cancel := context.WithTimeout(ctx, s.compressTimeout())
	defer cancel()
	res, err := c.Compress(cctx, in.Messages)
	if err != nil {
		return nil, err
	}
	out := &proxyOut{before: res.TokensBefore, after: res.Tokens, mode: mode}
	if res.Fallback != "" {
		out.fallback, out.fallbackReason = res.Fallback, "engine"
		if strings.HasPrefix(res.Fallback, "deadline") {
			out.fallbackReason = "deadline"
		}
	}
	if res.Fits {
		out.mode = "fits"
		return out, nil
	}
	if out.body, err = memory.SpliceRequest(in, res); err != nil {
		return nil, err
	}
	return out, nil
}

// stateful stores the request's new messages in conversation conv and
// compresses the request from what consolidation made of it. The memory
// covers the sessions consolidated at the last consolidation, minus the
// last KeepRecent messages it saw (rounded back to a session start), so it
// depends on that consolidation only: every request until the next one
// sends the same memory, byte for byte, followed by the messages since. When
// nothing is consolidated yet, the memory and the messages since exceed the
// budget, or the store fails, the request is compressed statelessly.
func (s *Server) stateful(ctx context.Context, c *memory.Compressor, p protocol, in *chat.Input, budget int, tenant, conv string) (*proxyOut, error) {
	if err := chat.Validate(in.Messages, in.Where); err != nil {
		return nil, err
	}
	ids, st, storeErr := s.storeProxied(ctx, in.Messages, tenant, conv)
	for try := 0; try < 3 && swc.ErrorCode(storeErr) == swc.EINVALID && ctx.Err() == nil; try++ {
		// A concurrent request of the conversation appended messages
		// stamped after ours were: stamp again from what is stored now.
		ids, st, storeErr = s.storeProxied(ctx, in.Messages, tenant, conv)
	}
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
	out, ok, err := s.fromPrefix(ctx, c, p, in, ids, st, budget, tenant, conv, before)
	if err != nil {
		return nil, err
	}
	if ok {
		return out, nil
	}
	return s.stateless(ctx, c, in, "stored")
}

// storeProxied appends the request's conversation messages (instructions
// are the client's, not history) to the stored conversation and returns
// the id given to each message of in (""for instructions). A client
// resends its whole history with every request, so each message gets an
// id chained from the ids before it: a resent history is skipped as
// already stored, and only the new messages are appended. Messages
// without a timestamp take the server's clock (never earlier than the
// conversation's last message).
func (s *Server) storeProxied(ctx context.Context, msgs []swc.Message, tenant, conv string) ([]string, *storedConv, error) {
	var last time.Time
	st := &storedConv{}
	var err error
	st.info, err = s.store.Conversation(ctx, tenant, conv)
	switch {
	case err == nil:
		last = st.info.LastMessage
		if st.msgs, err = s.store.Messages(ctx, tenant, conv); err != nil {
			return nil, nil, err
		}
	case swc.ErrorCode(err) != swc.ENOTFOUND:
		return nil, nil, err
	}
	known := make(map[string]bool, len(st.msgs))
	for _, m := range st.msgs {
		known[m.ID] = true
	}
	now := s.now().UTC()
	ids := make([]string, len(msgs))
	var batch []swc.Message
	prev := ""
	for i, m := range msgs {
		if chat.IsInstruction(m) {
			continue
		}
		id := m.ID
		if id == "" {
			id = chainID(prev, m)
		}
		ids[i], prev = id, id
		if known[id] {
			continue // stored by an earlier request: no write
		}
		m.ID = id
		if m.Time.IsZero() || m.Time.After(now.Add(FutureSlack)) {
			m.Time = now
		}
		if m.Time.Before(last) {
			m.Time = last
		}
		last = m.Time
		batch = append(batch, m)
	}
	if len(batch) == 0 {
		return ids, st, nil
	}
	res, err := s.store.AppendMessages(ctx, tenant, conv, batch, s.Rule, now)
	if err != nil {
		return nil, nil, err
	}
	if res.Appended > 0 {
		at := now
		if s.Schedule.Window > 0 {
			at = now.Add(s.Schedule.Window)
		}
		if err := s.queue.Enqueue(ctx, tenant, conv, at); err != nil {
			s.logger().Error("enqueue consolidation", "err", err)
		}
	}
	return ids, st, nil
}

// storedConv is a stored conversation as a request found it.
type storedConv struct {
	info swc.ConversationInfo
	msgs []swc.StoredMessage
}

// chainID is the id of message m after the message with id prev: a hash of
// both, so a message's id names its place in the history.
func chainID(prev string, m swc.Message) string {
	h := sha256.New()
	w := func(s string) { h.Write([]byte(s)); h.Write([]byte{0}) }
	w(prev)
	w(string(m.Role))
	w(m.Name)
	w(m.Content)
	w(m.ToolCallID)
	for _, tc := range m.ToolCalls {
		w(tc.ID)
		w(tc.Name)
		w(tc.Arguments)
	}
	return "px_" + hex.EncodeToString(h.Sum(nil)[:12])
}

// fromPrefix assembles the request from the memory of the consolidated
// sessions and the request's messages after them. ok=false asks for
// stateless compression (nothing consolidated, no room, or the memory
// could not be rendered in time).
func (s *Server) fromPrefix(ctx context.Context, c *memory.Compressor, p protocol, in *chat.Input, ids []string, st *storedConv, budget int, tenant, conv string, before int) (*proxyOut, bool, error) {
	// The conversation as it was before this request's messages were
	// appended: the memory covers consolidated messages only, and the
	// request's new messages are its tail in any case.
	info, stored := st.info, st.msgs
	keep := c.Options().KeepRecent
	limit := info.ConsolidatedMessages - keep // messages the memory may cover
	if info.ConsolidatedMessages == 0 || limit < 1 {
		return nil, false, nil
	}
	if len(stored) <= limit {
		return nil, false, nil
	}
	sessions := stored[limit].SessionN // sessions wholly within the limit
	if sessions == 0 {
		return nil, false, nil
	}
	session := make(map[string]int, len(stored))
	var covered []swc.StoredMessage
	for _, m := range stored {
		session[m.ID] = m.SessionN
		if m.SessionN < sessions {
			covered = append(covered, m)
		}
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
	start := len(convIdx)
	for k, i := range convIdx {
		if n, ok := session[ids[i]]; !ok || n >= sessions {
			start = k
			break
		}
	}
	for start > 0 && start < len(convIdx) && in.Messages[convIdx[start]].Role == swc.RoleTool {
		start--
	}
	if p == protoAnthropic {
		for start > 0 && start < len(convIdx) && in.Messages[convIdx[start]].Role != swc.RoleUser {
			start--
		}
	}
	if start == 0 || start == len(convIdx) {
		return nil, false, nil
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
	key := prefixKey{tenant, conv, info.ConsolidatedAt, info.ConsolidatedMessages, sessions, memBudget}
	s.proxy.mu.Lock()
	text, ok := s.proxy.prefixes[key]
	s.proxy.mu.Unlock()
	if !ok {
		gists, err := s.store.Gists(ctx, tenant, conv)
		if err != nil {
			return nil, false, nil
		}
		rctx, cancel := context.WithTimeout(ctx, s.compressTimeout())
		hc, err := s.memory.Render(rctx, conv, covered, gists, memBudget)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil, false, ctx.Err()
			}
			// Compressed statelessly instead (offline engines past the
			// deadline): counted as a fallback.
			s.logger().Warn("proxy: render memory", "err", err)
			s.proxy.metrics.fallbacks.WithLabelValues("memory").Inc()
			return nil, false, nil
		}
		text = memory.Preamble + hc.Text
		s.proxy.mu.Lock()
		if len(s.proxy.prefixes) >= 4096 {
			for k := range s.proxy.prefixes {
				delete(s.proxy.prefixes, k)
				break
			}
		}
		s.proxy.prefixes[key] = text
		s.proxy.mu.Unlock()
	}

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
	body, err := memory.SpliceRequest(in, res)
	if err != nil {
		return nil, false, err
	}
	return &proxyOut{body: body, before: before, after: res.Tokens, mode: "prefix"}, true, nil
}
