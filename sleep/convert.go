package sleep

import (
	"fmt"
	"strings"

	"github.com/swcmem/swc"
)

// DateLayout is how a session's start is shown in its header, LoCoMo's form
// ("1:56 pm on 8 May, 2023"), so the temporal tooling reads it.
const DateLayout = "3:04 pm on 2 January, 2006"

// Conversation groups stored messages into a conversation. System and
// developer messages are instructions, not history: they are returned
// apart, in order, and never compressed. Sessions are numbered densely in
// order of appearance (a stored session holding only instructions makes
// none). A turn's id is the message's id, or "m" and its sequence number.
func Conversation(id string, msgs []swc.StoredMessage) (*swc.Conversation, []swc.StoredMessage) {
	c := &swc.Conversation{ID: id}
	var instr []swc.StoredMessage
	last := -1
	for _, m := range msgs {
		if m.Role == swc.RoleSystem || m.Role == swc.RoleDeveloper {
			instr = append(instr, m)
			continue
		}
		if m.SessionN != last || len(c.Sessions) == 0 {
			last = m.SessionN
			c.Sessions = append(c.Sessions, swc.Session{
				Index: len(c.Sessions), Start: m.Time, DateText: m.Time.UTC().Format(DateLayout),
			})
		}
		s := &c.Sessions[len(c.Sessions)-1]
		s.Turns = append(s.Turns, turn(m))
	}
	return c, instr
}

func turn(m swc.StoredMessage) swc.Turn {
	id := m.ID
	if id == "" {
		id = fmt.Sprintf("m%d", m.Seq)
	}
	text := m.Content
	for _, tc := range m.ToolCalls {
		if text != "" {
			text += " "
		}
		text += fmt.Sprintf("[calls %s(%s)]", tc.Name, tc.Arguments)
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
