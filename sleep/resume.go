package sleep

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/tokens"
)

// This file is the read path of long conversations: a context resumed
// from the plan the last consolidation stored, reading only the messages
// it needs (see Service.ReadLimit).

// DefaultReadLimit is the default of Service.ReadLimit.
const DefaultReadLimit = 2000

// reachFactor times the budget is the verbatim tokens of the most recent
// sessions a bounded read takes in: the sessions the budget can reach.
const reachFactor = 4

// storedPlan is what Consolidate stores beside the gists
// (swc.Consolidation.Plan, gob-encoded: an uncached context of a
// consolidated 20,000-message conversation took 19 ms with the plan in
// JSON, 7 ms in gob): its strategy's decisions for every session, and
// where each session's messages are.
type storedPlan struct {
	// Strategy and Settings are what it was decided with (Settings: the
	// engines and their configuration, see Service.planSettings).
	Strategy, Settings string
	// Messages, Edits and Sessions are the conversation's live messages,
	// edits and stored sessions the consolidation read; Next is the seq
	// after its last message.
	Messages int
	Edits    int
	Sessions int
	Next     int64
	// Seqs are each session's first and last seq (instructions aside).
	Seqs    [][2]int64
	Decided *consolidate.Decided
}

// sessionSeqs returns the first and last seq of each session of
// Conversation(msgs), instructions aside.
func sessionSeqs(msgs []swc.StoredMessage) [][2]int64 {
	var out [][2]int64
	last := -1
	for _, m := range msgs {
		if m.Role == swc.RoleSystem || m.Role == swc.RoleDeveloper {
			continue
		}
		if m.SessionN != last || len(out) == 0 {
			last = m.SessionN
			out = append(out, [2]int64{m.Seq, m.Seq})
		}
		out[len(out)-1][1] = m.Seq
	}
	return out
}

// planOf returns the plan to store for a consolidation of msgs with
// strategy strat, nil when strat has none to give (a strategy other than
// SWC's).
func (m *Service) planOf(ctx context.Context, strat swc.Strategy, name string, c *swc.Conversation, info swc.ConversationInfo, msgs []swc.StoredMessage) ([]byte, error) {
	sw, ok := strat.(*consolidate.SWC)
	if !ok || len(msgs) == 0 {
		return nil, nil
	}
	d, err := sw.Decide(ctx, c)
	if err != nil {
		return nil, err
	}
	p := storedPlan{Strategy: name, Settings: m.planSettings(), Messages: len(msgs), Edits: info.Edits, Sessions: msgs[len(msgs)-1].SessionN + 1,
		Next: msgs[len(msgs)-1].Seq + 1, Seqs: sessionSeqs(msgs), Decided: d}
	if len(p.Seqs) != len(d.Sessions) {
		return nil, fmt.Errorf("sleep: plan of %d sessions for %d", len(d.Sessions), len(p.Seqs))
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(p); err != nil {
		return nil, fmt.Errorf("sleep: encode plan: %w", err)
	}
	return b.Bytes(), nil
}

// readPlan returns the stored plan of the conversation when it was made
// with strategy name over the history as it still is (no edit since),
// else nil.
func (m *Service) readPlan(ctx context.Context, tenant, conv string, info swc.ConversationInfo, name string) (*storedPlan, error) {
	b, err := m.Store.Plan(ctx, tenant, conv)
	if err != nil || b == nil {
		return nil, err
	}
	var p storedPlan
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&p); err != nil {
		return nil, nil // a plan this build cannot read: planned again
	}
	if p.Strategy != name || p.Settings != m.planSettings() || p.Edits != info.Edits || p.Messages > info.Messages || p.Decided == nil || len(p.Seqs) != len(p.Decided.Sessions) {
		return nil, nil
	}
	return &p, nil
}

// planSettings names what a plan depends on besides the conversation
// and the strategy: the embedder and SWC's configuration.
func (m *Service) planSettings() string {
	e := "lexical"
	if m.Embedder != nil {
		e = m.Embedder.Name()
	}
	return fmt.Sprintf("%s\x00%+v", e, m.Config)
}

func (m *Service) readLimit() int {
	if m.ReadLimit <= 0 {
		return DefaultReadLimit
	}
	return m.ReadLimit
}

// buildResumed builds a text context of an SWC strategy from the stored
// plan and the messages after it, reading only the sessions it needs: when
// the plan covers every message (the context is then the one planning
// every session gives), or when the conversation has more than ReadLimit
// messages (a bounded read: see docs/service.md). ok is false when
// neither holds (build plans every session).
func (m *Service) buildResumed(ctx context.Context, tenant, conv string, info swc.ConversationInfo, r Request) (res *Result, ok bool, err error) {
	plan, err := m.readPlan(ctx, tenant, conv, info, r.Strategy)
	if err != nil {
		return nil, false, err
	}
	whole := plan != nil && plan.Messages == info.Messages
	if !whole && info.Messages <= m.readLimit() {
		return nil, false, nil
	}
	sw, err := m.readerSWC(r)
	if sw == nil || err != nil {
		return nil, false, err
	}
	instr, err := m.Store.MessagesIn(ctx, tenant, conv, swc.MessageRange{Instructions: true})
	if err != nil {
		return nil, false, err
	}
	var sys []string
	budget := r.Budget
	for _, s := range instr {
		sys = append(sys, s.Content)
		budget -= tokens.Count(s.Content)
	}
	res = &Result{Strategy: r.Strategy, Budget: r.Budget, Format: r.Format, Version: info.Version, Chunks: []swc.ChunkReport{}}
	var d *consolidate.Decided
	var from int64
	var stored int
	if plan != nil {
		d, from, stored = plan.Decided, plan.Next, plan.Sessions
	}
	t := 0
	if d != nil {
		t = len(d.Sessions)
	}
	if !whole && t > 0 {
		// Messages that continue the last consolidated session make it
		// pending again: it is read with them.
		next, err := m.Store.MessagesIn(ctx, tenant, conv, swc.MessageRange{From: from, Limit: 1})
		if err != nil {
			return nil, false, err
		}
		if len(next) == 1 && next[0].SessionN < stored {
			t--
			d = &consolidate.Decided{Variant: d.Variant, Sessions: d.Sessions[:t]}
			from, stored = plan.Seqs[t][0], next[0].SessionN
		}
	}
	tail := &swc.Conversation{ID: logID}
	var first *swc.Session
	n := t
	if !whole {
		sessions, complete, err := m.readTail(ctx, tenant, conv, from, budget)
		if err != nil {
			return nil, false, err
		}
		n = t + len(sessions)
		if !complete { // the sessions between are counted, not read
			n = max(n, t+info.Sessions-stored)
		}
		for j := range sessions {
			sessions[j].Index = n - len(sessions) + j
		}
		tail.Sessions = sessions
		if t == 0 && len(sessions) > 0 && sessions[0].Index > 0 {
			if first, err = m.readFirst(ctx, tenant, conv); err != nil {
				return nil, false, err
			}
		}
	}
	through := min(info.ConsolidatedThrough, n)
	res.ConsolidatedThrough, res.PendingSessions = through, n-through
	if sysTokens := r.Budget - budget; n > 0 && budget <= 0 {
		return nil, false, swc.Errorf(swc.EINVALID, "system messages need %d tokens; budget is %d", sysTokens, r.Budget)
	}
	memText := ""
	if n > 0 {
		load := func(idx []int) ([]swc.Session, error) { return m.loadSessions(ctx, tenant, conv, plan, idx) }
		out, err := sw.Resume(ctx, d, n, tail, first, budget, load)
		if err != nil {
			return nil, false, fmt.Errorf("sleep: context: %w", err)
		}
		memText, res.Chunks = out.Text, out.Chunks
	}
	res.Text = strings.Join(append(sys, memText), "\n\n")
	res.Tokens = tokens.Count(res.Text)
	return res, true, nil
}

// readTail returns the last sessions of the messages from seq from on:
// whole sessions, read back from the newest until their verbatim tokens
// reach reachFactor × budget (and at least three sessions), and whether
// they are every session from there.
func (m *Service) readTail(ctx context.Context, tenant, conv string, from int64, budget int) ([]swc.Session, bool, error) {
	var msgs []swc.StoredMessage
	to := int64(0)
	for page := 256; ; page *= 2 {
		got, err := m.Store.MessagesIn(ctx, tenant, conv, swc.MessageRange{From: from, To: to, Limit: page, Last: true})
		if err != nil {
			return nil, false, err
		}
		msgs = append(got, msgs...)
		if len(got) < page { // every message from there on
			c, _ := Conversation(logID, msgs)
			return c.Sessions, true, nil
		}
		to = got[0].Seq
		c, _ := Conversation(logID, msgs)
		whole := c.Sessions[1:] // the first may have begun before
		reach, k := 0, len(whole)
		for k > 0 && reach < reachFactor*budget {
			k--
			reach += tokens.Session(&whole[k])
		}
		if reach >= reachFactor*budget && len(whole)-k >= 3 {
			return whole[k:], false, nil
		}
	}
}

// readFirst returns the conversation's first session, read alone.
func (m *Service) readFirst(ctx context.Context, tenant, conv string) (*swc.Session, error) {
	for page := 64; ; page *= 2 {
		got, err := m.Store.MessagesIn(ctx, tenant, conv, swc.MessageRange{Limit: page})
		if err != nil {
			return nil, err
		}
		c, _ := Conversation(logID, got)
		if len(c.Sessions) > 1 || len(got) < page {
			if len(c.Sessions) == 0 {
				return nil, fmt.Errorf("sleep: no first session")
			}
			return &c.Sessions[0], nil
		}
	}
}

// loadSessions returns the consolidated sessions idx of the plan, read
// by their seqs (and a few messages after each, which say whether a call
// at its end was answered).
func (m *Service) loadSessions(ctx context.Context, tenant, conv string, plan *storedPlan, idx []int) ([]swc.Session, error) {
	out := make([]swc.Session, 0, len(idx))
	for _, i := range idx {
		if plan == nil || i >= len(plan.Seqs) {
			return nil, fmt.Errorf("sleep: no stored messages of session %d", i+1)
		}
		sq := plan.Seqs[i]
		got, err := m.Store.MessagesIn(ctx, tenant, conv, swc.MessageRange{From: sq[0], To: sq[1] + 9})
		if err != nil {
			return nil, err
		}
		c, _ := Conversation(logID, got)
		if len(c.Sessions) == 0 {
			return nil, fmt.Errorf("sleep: no stored messages of session %d", i+1)
		}
		s := c.Sessions[0]
		s.Index = i
		out = append(out, s)
	}
	return out, nil
}

// planMap is the plan cache of one consolidation: Decide finds the plan
// Compress made.
type planMap map[[32]byte]any

func (p planMap) Get(k [32]byte) (any, bool)           { v, ok := p[k]; return v, ok }
func (p planMap) Put(k [32]byte, v any, _ int, _ bool) { p[k] = v }

// readerSWC returns the SWC strategy r names, as a read resuming from
// stored decisions builds it (the stored gists, consolidated at the end),
// or nil when r's strategy is not SWC; an error when it cannot be built.
func (m *Service) readerSWC(r Request) (*consolidate.SWC, error) {
	strat, err := m.newStrategy(r.Strategy, &storedGister{fallback: m.Fallback}, consolidate.Schedule{Kind: consolidate.End}, nil)
	if err != nil {
		return nil, err
	}
	sw, _ := strat.(*consolidate.SWC)
	return sw, nil
}
