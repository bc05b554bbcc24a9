package sleep

import (
	"fmt"
	"strings"

	"github.com/swcmem/swc"
)

// DateLayout is how a session's start is shown in its header, LoCoMo's form
// ("1:56 pm on 8 May, 2023"), so the temporal tooling reads it.
const DateLayout = "3:04 pm on 2 January, 2006"

// UnknownDate is a session's date when none of its messages is dated.
const UnknownDate = "date unknown"

// Conversation groups stored messages into a conversation. System and
// developer messages are instructions, not history: they are returned
// apart, in order, and never compressed. Sessions are numbered densely in
// order of appearance (a stored session holding only instructions makes
// none); a session starts at its first dated message, and reads
// UnknownDate when it has none (its relative dates stay unanchored). A
// turn's id is the message's id, or "m" and its sequence number. A tool
// call shows whether its result came: "[calls f(args)]", or with
// ": pending" while the conversation waits for it, or ": no result".
func Conversation(id string, msgs []swc.StoredMessage) (*swc.Conversation, []swc.StoredMessage) {
	c := &swc.Conversation{ID: id}
	var instr []swc.StoredMessage
	last := -1
	state := callStates(msgs)
	for i, m := range msgs {
		if m.Role == swc.RoleSystem || m.Role == swc.RoleDeveloper {
			instr = append(instr, m)
			continue
		}
		if m.SessionN != last || len(c.Sessions) == 0 {
			last = m.SessionN
			c.Sessions = append(c.Sessions, swc.Session{Index: len(c.Sessions), DateText: UnknownDate})
		}
		s := &c.Sessions[len(c.Sessions)-1]
		if s.Start.IsZero() && !m.Time.IsZero() {
			s.Start, s.DateText = m.Time, m.Time.UTC().Format(DateLayout)
		}
		s.Turns = append(s.Turns, turn(m, state[i]))
	}
	return c, instr
}

// callStates returns, for each message with tool calls, what became of
// each call: "" answered, "pending" (no result yet, none may still come),
// "no result" (the conversation went on without one).
func callStates(msgs []swc.StoredMessage) map[int][]string {
	out := map[int][]string{}
	last := -1
	for i, m := range msgs {
		switch {
		case m.Role == swc.RoleTool:
			if last >= 0 {
				for k, tc := range msgs[last].ToolCalls {
					if tc.ID == m.ToolCallID {
						out[last][k] = ""
					}
				}
			}
		case m.Role == swc.RoleSystem || m.Role == swc.RoleDeveloper:
		default:
			if last >= 0 {
				for k, st := range out[last] {
					if st == "pending" {
						out[last][k] = "no result"
					}
				}
			}
			last = -1
			if len(m.ToolCalls) > 0 {
				last = i
				out[i] = make([]string, len(m.ToolCalls))
				for k := range out[i] {
					out[i][k] = "pending"
				}
			}
		}
	}
	return out
}

func turn(m swc.StoredMessage, calls []string) swc.Turn {
	id := m.ID
	if id == "" {
		id = fmt.Sprintf("m%d", m.Seq)
	}
	text := m.Content
	for k, tc := range m.ToolCalls {
		if text != "" {
			text += " "
		}
		if k < len(calls) && calls[k] != "" {
			text += fmt.Sprintf("[calls %s(%s): %s]", tc.Name, tc.Arguments, calls[k])
		} else {
			text += fmt.Sprintf("[calls %s(%s)]", tc.Name, tc.Arguments)
		}
	}
	return swc.Turn{ID: id, Speaker: Speaker(m.Message), Text: text}
}

// Speaker returns the message's name, or its role capitalised ("User").
func Speaker(m swc.Message) string {
	if m.Name != "" {
		return m.Name
	}
	r := string(m.Role)
	if r == "" {
		return "User"
	}
	return strings.ToUpper(r[:1]) + r[1:]
}

// logID is the id of the conversations the Service builds for its
// strategies. Strategies name a conversation's id in their errors, and
// errors are logged, where no tenant's conversation id may appear.
const logID = "stored"
