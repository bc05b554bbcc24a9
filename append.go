package swc

import "time"

// This file holds the append rules every Store follows, written once:
// PlanAppend decides, without touching a database, what an append of a
// batch stores; a store reads the conversation's AppendState and the ids
// it holds in its transaction, calls PlanAppend, and writes the plan.

// AppendState is what the append rules read of a stored conversation, and
// what a store keeps of it for the next append: its size and its last
// message.
type AppendState struct {
	Messages    int       // messages stored (0: a new conversation)
	Sessions    int       // sessions so far
	LastTime    time.Time // the last message's time
	LastSession string    // the last message's explicit session id
	SessionLen  int       // messages in the last session
}

// AppendPlan is what an append stores.
type AppendPlan struct {
	// Messages are the messages to insert, in order, numbered on from the
	// conversation's last (Seq), with their session (SessionN) and
	// Received set.
	Messages []StoredMessage
	// State is the conversation's after the append (st unchanged when
	// nothing is appended).
	State AppendState
	// Result counts what the append did.
	Result AppendResult
}

// LookupIDs returns the ids of msgs a store must look up for PlanAppend:
// the non-empty ones, none when the conversation is new. Stores read which
// of them they hold in one query.
func LookupIDs(st AppendState, msgs []Message) []string {
	if st.Messages == 0 {
		return nil
	}
	var ids []string
	for _, m := range msgs {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	return ids
}

// PlanAppend applies the append rules to msgs over a conversation in
// state st (Store.AppendMessages documents them): a message whose non-empty
// ID is stored (in stored, which holds those of LookupIDs the conversation
// has) or came earlier in msgs is skipped; every message needs a non-zero
// Time no earlier than the conversation's last message; sessions follow
// rule. It returns an EINVALID error naming the first bad message, and
// nothing to store then.
func PlanAppend(st AppendState, msgs []Message, rule SessionRule, received time.Time, stored map[string]bool) (AppendPlan, error) {
	for i, m := range msgs {
		if m.Time.IsZero() {
			return AppendPlan{}, Errorf(EINVALID, "messages[%d]: no time", i)
		}
	}
	p := AppendPlan{State: st}
	seen := make(map[string]bool, len(msgs))
	prev := StoredMessage{Message: Message{Time: st.LastTime, Session: st.LastSession}}
	for i, m := range msgs {
		if m.ID != "" {
			if seen[m.ID] {
				p.Result.Skipped++
				continue
			}
			seen[m.ID] = true
			if stored[m.ID] {
				p.Result.Skipped++
				continue
			}
		}
		s := &p.State
		if s.Messages > 0 && m.Time.Before(prev.Time) {
			return AppendPlan{}, Errorf(EINVALID, "messages[%d]: timestamp %s is before the conversation's last message (%s)",
				i, m.Time.UTC().Format(time.RFC3339), prev.Time.UTC().Format(time.RFC3339))
		}
		switch {
		case s.Messages == 0:
			s.Sessions, s.SessionLen = 1, 0
		case rule.NewSession(prev, s.SessionLen, m):
			s.Sessions, s.SessionLen = s.Sessions+1, 0
		}
		s.Messages++
		s.SessionLen++
		s.LastTime, s.LastSession = m.Time, m.Session
		prev = StoredMessage{Message: m, Seq: int64(s.Messages), SessionN: s.Sessions - 1, Received: received}
		p.Messages = append(p.Messages, prev)
	}
	p.Result.Appended = len(p.Messages)
	p.Result.Sessions = p.State.Sessions
	return p, nil
}
