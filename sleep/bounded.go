package sleep

import (
	"context"
	"fmt"
	"strconv"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/memory"
)

// This file is the bounded read of the openai and anthropic formats: past
// ReadLimit messages the epoch walk runs over the most recent messages
// only, and the memory of everything before its boundary is resumed from
// the stored plan and those messages, as the text format's bounded read
// is (see docs/operations.md).

// buildMessagesBounded answers format openai or anthropic of an SWC
// strategy for a conversation of more than ReadLimit messages, reading
// the instructions, the messages from the window's start on (see
// windowStart) and the stored plan. ok is false when it does not apply
// (build reads every message). It returns the store's errors, the
// compressor's, and the strategy's when the memory cannot be resumed.
func (m *Service) buildMessagesBounded(ctx context.Context, tenant, conv string, info swc.ConversationInfo, r Request) (res *Result, ok bool, err error) {
	if info.Messages <= m.readLimit() || r.Strategy == "full" {
		return nil, false, nil
	}
	sw, err := m.readerSWC(r)
	if sw == nil || err != nil {
		return nil, false, err
	}
	last, err := m.Store.MessagesIn(ctx, tenant, conv, swc.MessageRange{Limit: 1, Last: true})
	if err != nil || len(last) == 0 {
		return nil, false, err
	}
	from := windowStart(last[0].Seq, m.readLimit())
	read, err := m.Store.MessagesIn(ctx, tenant, conv, swc.MessageRange{From: from})
	if err != nil {
		return nil, false, err
	}
	// The walk starts at the first user message of the window: a tail
	// never starts at a tool result, nor an Anthropic one at the assistant.
	k := 0
	for k < len(read) && read[k].Role != swc.RoleUser {
		k++
	}
	if k == len(read) {
		return nil, false, nil
	}
	instr, err := m.Store.MessagesIn(ctx, tenant, conv, swc.MessageRange{Instructions: true})
	if err != nil {
		return nil, false, err
	}
	given := make([]swc.StoredMessage, 0, len(instr)+len(read)-k)
	given = append(given, instr...)
	for _, sm := range read[k:] {
		if !chat.IsInstruction(sm.Message) {
			given = append(given, sm)
		}
	}
	// Answered leaves messages out: each one's index rides in its ID, so
	// that the seq of every message kept is known.
	plain := make([]swc.Message, len(given))
	for i, sm := range given {
		plain[i] = sm.Message
		plain[i].ID = strconv.Itoa(i)
	}
	plain = chat.Answered(plain)
	var seqs []int64 // of the conversation messages kept, in order
	for j := range plain {
		i, _ := strconv.Atoi(plain[j].ID)
		plain[j].ID = given[i].ID
		if !chat.IsInstruction(plain[j]) {
			seqs = append(seqs, given[i].Seq)
		}
	}

	res = &Result{Strategy: r.Strategy, Budget: r.Budget, Format: r.Format, Version: info.Version, Chunks: []swc.ChunkReport{}}
	through := min(info.ConsolidatedThrough, info.Sessions)
	res.ConsolidatedThrough, res.PendingSessions = through, info.Sessions-through
	comp, err := m.messagesCompressor(res, &storedGister{fallback: m.Fallback}, consolidate.Schedule{Kind: consolidate.End})
	if err != nil {
		return nil, false, err
	}
	plan, err := m.readPlan(ctx, tenant, conv, info, r.Strategy)
	if err != nil {
		return nil, false, err
	}
	preamble := comp.Cost(swc.Message{Role: swc.RoleSystem, Content: memory.Preamble}) + 2
	var memErr error
	var chunks []swc.ChunkReport
	memText := ""
	src := func(ctx context.Context, n, room int) (string, bool) {
		end := last[0].Seq + 1
		if n < len(seqs) {
			end = seqs[n]
		}
		budget := room - preamble
		if budget < 50 {
			return "", false
		}
		out, err := m.resumeBefore(ctx, tenant, conv, sw, plan, read, from, end, budget)
		if err != nil {
			memErr = err
			return "", false
		}
		if out == nil {
			return "", false
		}
		chunks, memText = out.Chunks, memory.Preamble+out.Text
		return memText, true
	}
	out, err := comp.After(src).Compress(ctx, plain)
	if err == nil {
		err = memErr
	}
	if err != nil {
		return nil, false, err
	}
	switch {
	case out.Memory != "" && out.Memory == memText:
		res.Chunks = chunks // the memory resumed
	case out.Context != nil:
		res.Chunks = out.Context.Chunks // the messages given, consolidated
	}
	if res.Chunks == nil {
		res.Chunks = []swc.ChunkReport{}
	}
	setMessages(res, out, comp)
	return res, true, nil
}

// windowStart returns the first seq a bounded read of the openai and
// anthropic formats reads, for a conversation whose last message is at
// seq last: a multiple of half the read limit, between one and two halves
// before the end. It moves once every half limit of appends, so that
// between two moves the epoch walk over the window is the walk over a
// growing history, and its boundary stays put until the next jump.
func windowStart(last int64, limit int) int64 {
	w := int64(max(limit/2, 1))
	return max(0, (last+1)/w*w-w)
}

// resumeBefore returns the memory of the conversation's messages before
// seq end in budget tokens, resumed from the stored plan (nil: none) and
// read (the messages from seq from on): the plan's sessions wholly before
// end keep its decisions, the read messages after them are its pending
// sessions, and the sessions between the plan and from are counted, not
// read. It returns nil when there is no history before end.
func (m *Service) resumeBefore(ctx context.Context, tenant, conv string, sw *consolidate.SWC, plan *storedPlan, read []swc.StoredMessage, from, end int64, budget int) (*swc.Context, error) {
	var d *consolidate.Decided
	t, start, stored := 0, int64(0), 0 // stored: the store's session number at start, -1 inside a session
	if plan != nil {
		for t < len(plan.Seqs) && plan.Seqs[t][1] < end {
			t++
		}
		if t > 0 {
			start, stored = plan.Next, plan.Sessions
			if t < len(plan.Seqs) {
				start, stored = plan.Seqs[t][0], -1
			}
		}
		// Messages read that continue the last session kept make it
		// pending again: it is read with them.
		if t > 0 && t == len(plan.Seqs) && start >= from {
			for _, sm := range read {
				if sm.Seq >= start && sm.Seq < end && !chat.IsInstruction(sm.Message) {
					if sm.SessionN < plan.Sessions {
						t--
						start, stored = plan.Seqs[t][0], -1
					}
					break
				}
			}
		}
		if t > 0 {
			d = &consolidate.Decided{Variant: plan.Decided.Variant, Sessions: plan.Decided.Sessions[:t]}
		}
	}
	var tail []swc.StoredMessage
	firstRead := -1 // the store's session number of the first message read
	for _, sm := range read {
		if chat.IsInstruction(sm.Message) {
			continue
		}
		if firstRead < 0 {
			firstRead = sm.SessionN
		}
		if sm.Seq >= start && sm.Seq < end {
			tail = append(tail, sm)
		}
	}
	c, _ := Conversation(logID, tail)
	sessions := c.Sessions
	n := t + len(sessions)
	if start < from && stored >= 0 && firstRead > stored { // the sessions between are counted, not read
		n += firstRead - stored
	}
	if n == 0 {
		return nil, nil
	}
	for j := range sessions {
		sessions[j].Index = n - len(sessions) + j
	}
	var first *swc.Session
	if t == 0 && (len(sessions) == 0 || sessions[0].Index > 0) {
		var err error
		if first, err = m.readFirst(ctx, tenant, conv); err != nil {
			return nil, err
		}
	}
	load := func(idx []int) ([]swc.Session, error) { return m.loadSessions(ctx, tenant, conv, plan, idx) }
	out, err := sw.Resume(ctx, d, n, &swc.Conversation{ID: logID, Sessions: sessions}, first, budget, load)
	if err != nil {
		return nil, fmt.Errorf("sleep: context: %w", err)
	}
	return out, nil
}
