package http

import (
	"context"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/memory"
	"github.com/swcmem/swc/strategy"
)

// Stored conversations in epochs. The boundary and the verbatim tail are
// the stateless path's (a function of the request's history); what stored
// mode adds is where the memory comes from. When the proxy's strategy is
// the one the service consolidates with and a consolidation has covered
// every message the memory holds, the memory is rendered from the gists
// that consolidation made (X-SWC-Mode: prefix), and the same rendering is
// used for the rest of the epoch: the gists of sessions wholly before the
// boundary do not change (they are keyed by content), so an idle
// consolidation replaces the memory at most once an epoch, and the
// replacement is itself a stable prefix. Otherwise the memory is the
// stateless one (X-SWC-Mode: stored).

// epochKey names the memory of one epoch of a stored conversation: its
// first messages messages at a room of room tokens.
type epochKey struct {
	tenant, conv, generation string
	edits, messages, room    int
}

// storedEpoch compresses a request of a stored conversation (info: after
// its messages were stored) in epochs.
func (s *Server) storedEpoch(ctx context.Context, c *memory.Compressor, in *chat.Input, info swc.ConversationInfo, tenant, conv string) (*proxyOut, error) {
	if info.ConsolidatedMessages == 0 || c.Options().Strategy != s.serviceStrategy() {
		return s.stateless(ctx, c, in, "stored")
	}
	used := false
	src := func(ctx context.Context, n, room int) (string, bool) {
		n = storedCount(in.Messages, n) // the store counts no mid-conversation system message
		if n > info.ConsolidatedMessages {
			return "", false // not every message of the memory consolidated yet
		}
		text, ok := s.epochMemory(ctx, c, epochKey{tenant, conv, info.Generation, info.Edits, n, room})
		used = ok
		return text, ok
	}
	out, err := s.stateless(ctx, c.WithMemory(src), in, "stored")
	if err == nil && used && out.mode == "stored" {
		out.mode = "prefix"
	}
	return out, err
}

// serviceStrategy is the strategy the service consolidates with.
func (s *Server) serviceStrategy() string {
	if s.memory == nil || s.memory.Strategy == "" {
		return strategy.Default
	}
	return s.memory.Strategy
}

// epochMemory returns the memory of the first k.messages stored messages
// rendered from the stored gists in k.room tokens (the whole message),
// remembered per epoch; ok=false when it cannot be had (a store or render
// failure, counted as a fallback, or no room).
func (s *Server) epochMemory(ctx context.Context, c *memory.Compressor, k epochKey) (string, bool) {
	text, ok := s.proxy.epochs.Get(k)
	if ok {
		return text, true
	}
	budget := k.room - c.Cost(swc.Message{Role: swc.RoleSystem, Content: memory.Preamble}) - 2
	if budget < 50 {
		return "", false
	}
	fail := func(err error) (string, bool) {
		if ctx.Err() == nil {
			s.logger().Warn("proxy: render memory", "err", err)
			s.proxy.metrics.fallbacks.WithLabelValues("memory").Inc()
		}
		return "", false
	}
	stored, err := s.store.Messages(ctx, k.tenant, k.conv)
	if err != nil {
		return fail(err)
	}
	n, end := 0, 0
	for end < len(stored) && n < k.messages {
		if !chat.IsInstruction(stored[end].Message) {
			n++
		}
		end++
	}
	if n < k.messages {
		return "", false
	}
	gists, err := s.store.Gists(ctx, k.tenant, k.conv)
	if err != nil {
		return fail(err)
	}
	rctx, cancel := context.WithTimeout(ctx, s.compressTimeout())
	defer cancel()
	hc, err := s.memory.Render(rctx, k.conv, stored[:end], gists, budget)
	if err != nil {
		return fail(err)
	}
	text = memory.Preamble + hc.Text
	s.proxy.epochs.Put(k.tenant, k, text, int64(len(text)+256))
	return text, true
}
