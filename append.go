package swc

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
)

// This file holds the append rules every Store follows, written once:
// PlanAppend decides, without touching a database, what an append of a
// batch stores; a store reads the conversation's AppendState in its
// transaction (after locking the conversation), answers the plan's
// questions through an AppendLookup, and writes the plan. docs/live.md
// states the rules for people.

// AppendMode says what the messages of an append are.
type AppendMode int

const (
	// AppendLog (the append API): the messages are the conversation's
	// next messages, in order. A message whose non-empty ID the
	// conversation holds (or that came earlier in the batch) is skipped.
	AppendLog AppendMode = iota
	// AppendHistory (the proxy): the messages are the conversation's
	// whole history, as a client resends it with every request. System and
	// developer messages are the client's, not history: they are left out.
	// The stored conversation follows the request: the part both share
	// (compared by content, through each message's Chain) is kept, a
	// stored tail that differs from the request is superseded, and the
	// rest of the request is appended. A request that is a part of the
	// stored conversation (an older request, retried) changes nothing.
	// IDs are not used.
	AppendHistory
)

// Stamp says which untimed messages take the server's clock.
type Stamp int

const (
	// StampLive (the default): untimed messages of a conversation that
	// already holds messages are its live tail and take the server's
	// clock; the append that creates a conversation (the first sight of a
	// history) leaves them undated.
	StampLive Stamp = iota
	// StampNone leaves every untimed message undated (old history).
	StampNone
	// StampAll gives every untimed message the server's clock.
	StampAll
)

// AppendOptions are the settings of one append.
type AppendOptions struct {
	Mode  AppendMode
	Stamp Stamp
	// Rule groups messages into sessions.
	Rule SessionRule
	// Now is the server's clock (default time.Now). Stores read it once,
	// after locking the conversation: it stamps untimed messages and is
	// the messages' Received time.
	Now func() time.Time
	// Where names each message in the caller's own terms for errors
	// ("messages[3].content[1]"); "messages[i]" when nil.
	Where []string
}

// Clock returns o.Now, or time.Now when it is nil.
func (o AppendOptions) Clock() func() time.Time {
	if o.Now == nil {
		return time.Now
	}
	return o.Now
}

func (o AppendOptions) where(i int) string {
	if i < len(o.Where) {
		return o.Where[i]
	}
	return fmt.Sprintf("messages[%d]", i)
}

// AppendState is what the append rules read of a stored conversation, and
// what a store keeps of it for the next append. Superseded messages are
// not part of it.
type AppendState struct {
	Messages    int       // live messages (0: a new or empty conversation)
	Seq         int64     // the last seq used (superseded messages keep theirs)
	Sessions    int       // sessions so far
	LastTime    time.Time // the latest time of a timed conversation message: none may be earlier
	LastClient  time.Time // the latest time a client gave: its own times must not go backwards
	LastSession string    // the last message's explicit session id
	SessionLen  int       // messages in the last session
	// OpenCalls are the ids of the calls of the last assistant message
	// that have no result yet; results may still come, in later appends.
	OpenCalls []string
	Head      string // Chain of the last live conversation message ("": none)
	ChainLen  int    // live conversation (not system or developer) messages
}

// AppendPlan is what an append stores.
type AppendPlan struct {
	// Supersede, when > 0, asks the store to mark every live message with
	// a seq above it superseded (SupersedeAll: every live message) before
	// inserting Messages: the stored tail the request no longer holds.
	Supersede int64
	// Superseded counts the messages Supersede marks; Kept and
	// KeptSessions are the live messages and the whole sessions left
	// before the new ones (a consolidation covers no more after an edit).
	Superseded   int
	Kept         int
	KeptSessions int
	// Messages are the messages to insert, in order, numbered on from the
	// conversation's last seq, with their session (SessionN), Chain,
	// Stamped and Received set.
	Messages []StoredMessage
	// State is the conversation's after the append (unchanged when nothing
	// is appended).
	State AppendState
	// Result counts what the append did.
	Result AppendResult
}

// SupersedeAll is AppendPlan.Supersede when every live message goes.
const SupersedeAll = -1

// AppendLookup answers what PlanAppend asks of the stored conversation.
// PlanAppend asks only when the conversation holds messages.
type AppendLookup interface {
	// StoredIDs reports which of ids the conversation's live messages
	// hold (AppendLog).
	StoredIDs(ids []string) (map[string]bool, error)
	// Live returns the conversation's live messages in order, without
	// their text (Content may be empty): PlanAppend asks only when a
	// proxied history differs from the stored one (AppendHistory).
	Live() ([]StoredMessage, error)
}

// Chain returns the chain hash of message m after a message whose chain
// is prev ("" for the first): a hash of prev and m's content (role, name,
// text, tool calls, the call it answers; not its id, time or session), so
// two histories share a chain exactly where they share every message up
// to it.
func Chain(prev string, m Message) string {
	h := sha256.New()
	w := func(s string) { fmt.Fprintf(h, "%d:%s", len(s), s) }
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
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// IsInstruction reports whether m is a system or developer message that
// is not InPlace: an instruction, not history. Instructions take no part
// in time ordering, tool pairing or the chain.
func IsInstruction(m Message) bool {
	return (m.Role == RoleSystem || m.Role == RoleDeveloper) && !m.InPlace
}

// PlanAppend applies the append rules to msgs over a conversation in
// state st, with now the server's clock read after locking it. The rules
// (docs/live.md):
//
//   - Time: a conversation message's client time may not be earlier than
//     the conversation's latest client time (EINVALID); one earlier than a
//     server-stamped time is clamped to it (Stamped). An untimed message
//     takes the server's clock when o.Stamp says so, never earlier than the
//     conversation's latest time, and is undated (zero Time) otherwise.
//     System and developer messages take no part in time ordering.
//   - Tools: an assistant message's calls need ids, unique within the
//     message; a tool message answers an open call of the last assistant
//     message before it (that call is then answered); a later non-tool
//     message closes the calls left open (they stay unanswered). Ids may
//     repeat across assistant messages.
//   - Sessions follow o.Rule.
//   - A mid-conversation system message (InPlace) is taken as an
//     instruction: stores keep no mark of it, and the plan must be what
//     they read back.
//
// It returns an EINVALID error naming the first bad message (o.Where), and
// nothing is to be stored then; or lookup's error.
func PlanAppend(st AppendState, msgs []Message, o AppendOptions, now time.Time, lookup AppendLookup) (AppendPlan, error) {
	msgs = notInPlace(msgs)
	p := &planner{st: st, o: o, now: now, plan: AppendPlan{State: st}}
	var err error
	if o.Mode == AppendHistory {
		err = p.history(msgs, lookup)
	} else {
		err = p.log(msgs, lookup)
	}
	if err != nil {
		return AppendPlan{}, err
	}
	p.plan.Result.Appended = len(p.plan.Messages)
	p.plan.Result.Superseded = p.plan.Superseded
	p.plan.Result.Sessions = p.plan.State.Sessions
	return p.plan, nil
}

// notInPlace returns msgs with InPlace cleared (a copy when any is set).
func notInPlace(msgs []Message) []Message {
	var out []Message
	for i := range msgs {
		if msgs[i].InPlace {
			if out == nil {
				out = append([]Message(nil), msgs...)
			}
			out[i].InPlace = false
		}
	}
	if out == nil {
		return msgs
	}
	return out
}

type planner struct {
	st   AppendState // as stored, before the append
	o    AppendOptions
	now  time.Time
	live bool // untimed messages take the server's clock
	plan AppendPlan
}

// stamps reports whether untimed messages take the server's clock over a
// conversation holding n live messages before the append.
func (p *planner) stamps(n int) bool {
	switch p.o.Stamp {
	case StampNone:
		return false
	case StampAll:
		return true
	}
	return n > 0
}

func (p *planner) log(msgs []Message, lookup AppendLookup) error {
	var have map[string]bool
	if p.st.Messages > 0 && lookup != nil {
		var ids []string
		for _, m := range msgs {
			if m.ID != "" {
				ids = append(ids, m.ID)
			}
		}
		if len(ids) > 0 {
			var err error
			if have, err = lookup.StoredIDs(ids); err != nil {
				return err
			}
		}
	}
	p.live = p.stamps(p.st.Messages)
	seen := make(map[string]bool, len(msgs))
	for i, m := range msgs {
		if m.ID != "" {
			if seen[m.ID] || have[m.ID] {
				p.plan.Result.Skipped++
				continue
			}
			seen[m.ID] = true
		}
		if err := p.add(i, m, nil); err != nil {
			return err
		}
	}
	return nil
}

// history is AppendHistory: find where the request and the stored
// conversation part, supersede the stored rest, append the request's.
func (p *planner) history(msgs []Message, lookup AppendLookup) error {
	var idx []int // the request's conversation messages
	var chains []string
	prev := ""
	for i, m := range msgs {
		if IsInstruction(m) {
			continue
		}
		prev = Chain(prev, m)
		idx = append(idx, i)
		chains = append(chains, prev)
	}
	n, stored := len(chains), p.st.ChainLen
	common := 0 // conversation messages both share
	var replaced []StoredMessage
	switch {
	case stored == 0 && p.st.Messages == 0:
	case stored > 0 && stored <= n && chains[stored-1] == p.st.Head:
		common = stored // the request goes on from the stored end: nothing to read
	default:
		live, err := lookup.Live()
		if err != nil {
			return err
		}
		// cut is the index in live of the last message kept: the shared
		// conversation messages and the instructions among them.
		cut, k := -1, 0
		for j, m := range live {
			if !IsInstruction(m.Message) {
				if k >= n || m.Chain != chains[k] {
					break
				}
				k++
			}
			cut = j
		}
		common = k
		if common == n && n < stored {
			p.plan.Result.Skipped = n // an older request: nothing changes
			return nil
		}
		for _, m := range live[cut+1:] {
			if !IsInstruction(m.Message) {
				replaced = append(replaced, m)
			}
		}
		if cut+1 < len(live) {
			p.plan.Superseded = len(live) - cut - 1
			p.plan.Supersede = SupersedeAll
			if cut >= 0 {
				p.plan.Supersede = live[cut].Seq
			}
			st := ReplayState(live[:cut+1])
			st.Seq = p.st.Seq
			p.plan.State = st
			p.plan.Kept, p.plan.KeptSessions = st.Messages, max(st.Sessions-1, 0)
		}
	}
	p.plan.Result.Skipped = common
	p.live = p.stamps(p.plan.State.Messages + len(replaced))
	for k := common; k < n; k++ {
		m := msgs[idx[k]]
		m.ID = ""
		var was *StoredMessage
		if j := k - common; j < len(replaced) {
			was = &replaced[j]
		}
		if err := p.add(idx[k], m, was); err != nil {
			return err
		}
	}
	return nil
}

// add places message m (msgs[i]) after the plan's state. was, when set,
// is the stored message m replaces: an untimed m takes its time.
func (p *planner) add(i int, m Message, was *StoredMessage) error {
	s := &p.plan.State
	prev := StoredMessage{Message: Message{Time: s.LastTime, Session: s.LastSession}}
	sm := StoredMessage{Message: m, Received: p.now}
	instr := IsInstruction(m)
	if instr {
		sm.Time = m.Time.UTC()
		if m.Time.IsZero() {
			sm.Time = time.Time{}
		}
	} else {
		if err := p.time(i, &sm, was); err != nil {
			return err
		}
		if err := p.pair(i, m); err != nil {
			return err
		}
	}
	switch {
	case s.Messages == 0:
		s.Sessions, s.SessionLen = 1, 0
	case p.o.Rule.NewSession(prev, s.SessionLen, sm.Message):
		s.Sessions, s.SessionLen = s.Sessions+1, 0
	}
	s.Messages++
	s.SessionLen++
	s.Seq++
	s.LastSession = m.Session
	if !instr {
		s.Head = Chain(s.Head, m)
		s.ChainLen++
	}
	sm.Seq, sm.SessionN, sm.Chain = s.Seq, s.Sessions-1, s.Head
	p.plan.Messages = append(p.plan.Messages, sm)
	return nil
}

// time applies the time rule to a conversation message.
func (p *planner) time(i int, sm *StoredMessage, was *StoredMessage) error {
	s := &p.plan.State
	switch {
	case !sm.Time.IsZero():
		t := sm.Time.UTC()
		if !s.LastClient.IsZero() && t.Before(s.LastClient) {
			return Errorf(EINVALID, "%s.timestamp: %s is before %s, the conversation's latest timestamp (a client's timestamps must not go backwards)",
				p.o.where(i), t.Format(time.RFC3339), s.LastClient.UTC().Format(time.RFC3339))
		}
		s.LastClient = t
		if t.Before(s.LastTime) { // behind a server-stamped time: clamped
			t, sm.Stamped = s.LastTime, true
		}
		sm.Time = t
	case was != nil:
		if was.Time.IsZero() {
			return nil // replaces an undated message: undated too
		}
		sm.Time, sm.Stamped = maxTime(was.Time, s.LastTime), was.Stamped
	case p.live:
		sm.Time, sm.Stamped = maxTime(p.now.UTC().Truncate(time.Millisecond), s.LastTime), true
	default:
		return nil // undated
	}
	s.LastTime = sm.Time
	return nil
}

func maxTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return b
	}
	return a
}

// pair applies the tool rule to a conversation message.
func (p *planner) pair(i int, m Message) error {
	s := &p.plan.State
	if len(m.ToolCalls) > 0 && m.Role != RoleAssistant {
		return Errorf(EINVALID, "%s.tool_calls: only assistant messages call tools (role is %s)", p.o.where(i), m.Role)
	}
	field := "tool_call_id"
	if strings.Contains(p.o.where(i), ".content[") { // an Anthropic tool_result block
		field = "tool_use_id"
	}
	if m.Role != RoleTool {
		if m.ToolCallID != "" {
			return Errorf(EINVALID, "%s.tool_call_id: set on a %s message (only tool messages answer calls)", p.o.where(i), m.Role)
		}
		var open []string
		for k, tc := range m.ToolCalls {
			if tc.ID == "" {
				return Errorf(EINVALID, "%s.tool_calls[%d].id: missing", p.o.where(i), k)
			}
			if slices.Contains(open, tc.ID) {
				return Errorf(EINVALID, "%s.tool_calls[%d].id: %q is used by an earlier call of the same message", p.o.where(i), k, tc.ID)
			}
			open = append(open, tc.ID)
		}
		s.OpenCalls = open // calls left open before are closed unanswered
		return nil
	}
	k := slices.Index(s.OpenCalls, m.ToolCallID)
	if m.ToolCallID == "" || k < 0 {
		what := "no call is open"
		if len(s.OpenCalls) > 0 {
			what = fmt.Sprintf("the open calls are %q", s.OpenCalls)
		}
		return Errorf(EINVALID, "%s.%s: %q answers no open tool call of the assistant message before it (%s)", p.o.where(i), field, m.ToolCallID, what)
	}
	s.OpenCalls = slices.Delete(slices.Clone(s.OpenCalls), k, k+1)
	return nil
}

// ReplayState returns the AppendState of a conversation whose live
// messages are msgs (in order, Content not needed); Seq is the last
// message's.
func ReplayState(msgs []StoredMessage) AppendState {
	var s AppendState
	for _, m := range msgs {
		if s.Messages == 0 || m.SessionN != s.Sessions-1 {
			s.SessionLen = 0
		}
		s.Messages++
		s.SessionLen++
		s.Sessions = m.SessionN + 1
		s.Seq = m.Seq
		s.LastSession = m.Session
		if IsInstruction(m.Message) {
			continue
		}
		if !m.Time.IsZero() {
			s.LastTime = m.Time
			if !m.Stamped {
				s.LastClient = m.Time
			}
		}
		switch {
		case m.Role == RoleTool:
			if k := slices.Index(s.OpenCalls, m.ToolCallID); k >= 0 {
				s.OpenCalls = slices.Delete(s.OpenCalls, k, k+1)
			}
		default:
			s.OpenCalls = nil
			for _, tc := range m.ToolCalls {
				s.OpenCalls = append(s.OpenCalls, tc.ID)
			}
		}
		s.Head = m.Chain
		s.ChainLen++
	}
	return s
}
