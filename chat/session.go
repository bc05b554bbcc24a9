package chat

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/swcmem/swc"
)

// Default session rules.
const (
	DefaultSessionGap   = 30 * time.Minute
	DefaultSessionTurns = 20
)

// SessionOptions say how messages are grouped into sessions.
type SessionOptions struct {
	// Gap of silence that starts a new session when messages have
	// timestamps but no session ids (default DefaultSessionGap).
	Gap time.Duration
	// Turns is the session length, in messages, when messages have neither
	// session ids nor timestamps (default DefaultSessionTurns).
	Turns int
	// Index, when set, gives each message's index in the caller's list:
	// turn ids are "m" + that index (default: the position in msgs).
	Index []int
	// ID names the conversation (default "chat").
	ID string
}

// Span is the messages [First, End) of a session, as positions in the list
// given to Sessionize.
type Span struct{ First, End int }

// Grouping is the result of Sessionize.
type Grouping struct {
	Conversation *swc.Conversation
	// Spans[s] holds the messages of Conversation.Sessions[s].
	Spans []Span
	// TurnMessages[s][t] is the position of the first message of turn t
	// of session s (a tool call and its results form one turn).
	TurnMessages [][]int
	// Rule says how sessions were found: "session ids", "gaps of 30m0s",
	// or "every 20 messages".
	Rule string
	// Warnings, at most one of each kind, for stderr.
	Warnings []string
}

// Sessionize groups msgs (no system or developer messages; Validate them
// first) into the sessions of a conversation: by explicit session ids when
// any message has one; else a new session after a silence longer than
// opts.Gap; with no timestamps at all, every opts.Turns messages, with a
// warning that relative dates cannot be anchored. An assistant message with
// tool calls and the tool messages answering it form one turn, never split
// between sessions. A session's Start is its first timestamp; its DateText
// is that time in LoCoMo's form ("2:30 pm on 7 May, 2024"), or "date
// unknown".
func Sessionize(msgs []swc.Message, opts SessionOptions) *Grouping {
	if opts.Gap <= 0 {
		opts.Gap = DefaultSessionGap
	}
	if opts.Turns <= 0 {
		opts.Turns = DefaultSessionTurns
	}
	if opts.ID == "" {
		opts.ID = "chat"
	}
	explicit, timed := false, 0
	for _, m := range msgs {
		explicit = explicit || m.Session != ""
		if !m.Time.IsZero() {
			timed++
		}
	}
	g := &Grouping{Conversation: &swc.Conversation{ID: opts.ID}}
	switch {
	case explicit:
		g.Rule = "session ids"
	case timed > 0:
		g.Rule = "gaps of " + opts.Gap.String()
	default:
		g.Rule = fmt.Sprintf("every %d messages", opts.Turns)
	}
	if timed == 0 && len(msgs) > 0 {
		w := "messages have no timestamps, so relative dates cannot be anchored"
		if !explicit {
			w = fmt.Sprintf("messages have no timestamps or session ids: a new session every %d messages, and relative dates cannot be anchored", opts.Turns)
		}
		g.Warnings = append(g.Warnings, w)
	} else if timed < len(msgs) {
		g.Warnings = append(g.Warnings, fmt.Sprintf("%d of %d messages have no timestamp; they take the time of the message before", len(msgs)-timed, len(msgs)))
	}

	var (
		cur      *swc.Session
		curSpan  Span
		curID    string
		lastTime time.Time
		turnMsgs []int
	)
	speakers := []string{}
	closeSession := func(end int) {
		if cur == nil {
			return
		}
		curSpan.End = end
		g.Conversation.Sessions = append(g.Conversation.Sessions, *cur)
		g.Spans = append(g.Spans, curSpan)
		g.TurnMessages = append(g.TurnMessages, turnMsgs)
		cur, turnMsgs = nil, nil
	}
	for i := 0; i < len(msgs); {
		// One unit: a message, plus the tool results answering its calls.
		end := i + 1
		if len(msgs[i].ToolCalls) > 0 {
			for end < len(msgs) && msgs[end].Role == swc.RoleTool {
				end++
			}
		}
		m := msgs[i]
		newSession := cur == nil
		switch {
		case cur == nil:
		case explicit:
			newSession = m.Session != "" && m.Session != curID
		case timed > 0:
			newSession = !m.Time.IsZero() && !lastTime.IsZero() && m.Time.Sub(lastTime) > opts.Gap
		default:
			newSession = i-curSpan.First >= opts.Turns
		}
		if newSession {
			closeSession(i)
			guess := 16
			if !explicit && timed == 0 { // sessions of opts.Turns messages
				guess = min(opts.Turns, len(msgs)-i)
			}
			cur = &swc.Session{Index: len(g.Conversation.Sessions), Turns: make([]swc.Turn, 0, guess)}
			turnMsgs = make([]int, 0, guess)
			curSpan = Span{First: i}
			if m.Session != "" {
				curID = m.Session
			}
		}
		for k := i; k < end; k++ {
			if t := msgs[k].Time; !t.IsZero() {
				if cur.Start.IsZero() {
					cur.Start = t
				}
				lastTime = t
			}
		}
		t := swc.Turn{ID: turnID(opts.Index, i), Speaker: Speaker(m), Text: unitText(msgs[i:end])}
		cur.Turns = append(cur.Turns, t)
		turnMsgs = append(turnMsgs, i)
		if !contains(speakers, t.Speaker) {
			speakers = append(speakers, t.Speaker)
		}
		i = end
	}
	closeSession(len(msgs))
	for k := range g.Conversation.Sessions {
		s := &g.Conversation.Sessions[k]
		s.DateText = DateText(s.Start)
	}
	if len(speakers) > 0 {
		g.Conversation.SpeakerA = speakers[0]
	}
	if len(speakers) > 1 {
		g.Conversation.SpeakerB = speakers[1]
	}
	return g
}

// DateText writes t as LoCoMo writes session dates ("2:30 pm on 7 May,
// 2024"), or "date unknown" for the zero time.
func DateText(t time.Time) string {
	if t.IsZero() {
		return "date unknown"
	}
	return strings.ToLower(t.Format("3:04 PM")) + " on " + t.Format("2 January, 2006")
}

// Speaker returns the name a message's turn is shown under: its Name, or
// its role capitalised ("User", "Assistant").
func Speaker(m swc.Message) string {
	if m.Name == "" {
		if n, ok := roleNames[m.Role]; ok {
			return n
		}
	} else if n := strings.Join(strings.Fields(m.Name), " "); n != "" {
		return n
	}
	r := string(m.Role)
	if r == "" {
		return "Unknown"
	}
	return strings.ToUpper(r[:1]) + r[1:]
}

// roleNames are Speaker's names of the usual roles, made once.
var roleNames = map[swc.Role]string{swc.RoleUser: "User", swc.RoleAssistant: "Assistant", swc.RoleTool: "Tool", swc.RoleSystem: "System", swc.RoleDeveloper: "Developer"}

// unitText is the turn text of a message and the tool results answering
// it: the message's text, then each call as
// "[tool NAME(ARGS) → RESULT]".
func unitText(unit []swc.Message) string {
	m := unit[0]
	if len(m.ToolCalls) == 0 {
		return m.Content
	}
	var b strings.Builder
	b.WriteString(m.Content)
	for _, tc := range m.ToolCalls {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "[tool %s(%s)", tc.Name, tc.Arguments)
		for _, r := range unit[1:] {
			if r.ToolCallID == tc.ID {
				b.WriteString(" → ")
				b.WriteString(r.Content)
			}
		}
		b.WriteByte(']')
	}
	return b.String()
}

func turnID(index []int, i int) string {
	if i < len(index) {
		i = index[i]
	}
	if ids := turnIDs(); i >= 0 && i < len(ids) {
		return ids[i]
	}
	return "m" + strconv.Itoa(i)
}

// turnIDs returns the first turn ids, made on first use ("m0", "m1", …).
var turnIDs = sync.OnceValue(func() []string {
	ids := make([]string, 4096)
	for i := range ids {
		ids[i] = "m" + strconv.Itoa(i)
	}
	return ids
})

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// FromConversation returns c as chat messages, for tests, examples and
// benchmarks: the first speaker as the user and the other as the assistant
// (names kept), each session's turns one minute apart from its start,
// session ids "S1", "S2", …, and a shared image as "[image: caption]".
func FromConversation(c *swc.Conversation) []swc.Message {
	var out []swc.Message
	for _, s := range c.Sessions {
		for j, t := range s.Turns {
			role := swc.RoleAssistant
			if t.Speaker == c.SpeakerA {
				role = swc.RoleUser
			}
			text := t.Text
			if t.Image != nil && t.Image.Caption != "" {
				text = strings.TrimSpace(text + " [image: " + t.Image.Caption + "]")
			}
			m := swc.Message{Role: role, Name: t.Speaker, Content: text, ID: t.ID, Session: "S" + strconv.Itoa(s.Index+1)}
			if !s.Start.IsZero() {
				m.Time = s.Start.Add(time.Duration(j) * time.Minute)
			}
			out = append(out, m)
		}
	}
	return out
}
