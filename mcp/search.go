package mcp

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bm25"
	"github.com/swcmem/swc/selection"
	"github.com/swcmem/swc/sleep"
)

const searchDoc = "Search the stored conversations for the messages that answer a query, best first. Ranked " +
	"as swc-recall ranks turns: Okapi BM25 over each message as shown (\"Speaker: text\"), and " +
	"a message replying to a matching question shares its score (between people: not an " +
	"assistant's message, nor one replying to an assistant). Without \"conversation\" it " +
	"searches the tenant's most recently active conversations. Each passage carries a handle: " +
	"recall returns the message whole."

// SearchInput is search's arguments.
type SearchInput struct {
	Query        string `json:"query" jsonschema:"the words to look for"`
	Conversation string `json:"conversation,omitempty" jsonschema:"a conversation id to search in; omitted: every conversation of the tenant (the most recently active, bounded)"`
	Limit        int    `json:"limit,omitempty" jsonschema:"at most this many passages, 1 to 50 (default 10)"`
}

// Passage is one message search found.
type Passage struct {
	// Handle names the message for recall.
	Handle       string `json:"handle" jsonschema:"recall's argument: the message whole"`
	Conversation string `json:"conversation"`
	// Message is the message's id: its own, or "m" and its sequence
	// number (the turn id the service's contexts show).
	Message string `json:"message" jsonschema:"the message's id: its own, or m and its sequence number"`
	Seq     int64  `json:"seq"`
	// Session is the 0-based session of the message in its conversation,
	// as the service's contexts number them; Date the session's date
	// ("3:04 pm on 2 January, 2006", or "date unknown").
	Session int    `json:"session" jsonschema:"the 0-based session of the message in its conversation"`
	Date    string `json:"date" jsonschema:"the session's date, or date unknown"`
	Speaker string `json:"speaker"`
	// Text is the message as shown (tool calls written out), cut to
	// PassageChars with "…" when longer (Cut): recall has it whole.
	Text  string  `json:"text"`
	Cut   bool    `json:"cut,omitempty" jsonschema:"the text was cut at 600 characters: recall has it whole"`
	Score float64 `json:"score" jsonschema:"BM25 relevance: higher is better; comparable within one search"`
}

// SearchOutput is search's answer.
type SearchOutput struct {
	Passages []Passage `json:"passages"`
	// Conversations and Messages count what was searched; Bounded says
	// that the bounds (conversations, messages) left older ones out.
	Conversations int  `json:"conversations"`
	Messages      int  `json:"messages"`
	Bounded       bool `json:"bounded,omitempty" jsonschema:"the bounds left older conversations or messages unsearched"`
}

func (m *Memory) search(ctx context.Context, tenant string, in SearchInput) (SearchOutput, error) {
	out := SearchOutput{Passages: []Passage{}}
	if strings.TrimSpace(in.Query) == "" {
		return out, swc.Errorf(swc.EINVALID, "query: empty; want the words to look for")
	}
	if len(in.Query) > 4096 {
		return out, swc.Errorf(swc.EINVALID, "query: %d bytes; at most 4096", len(in.Query))
	}
	if len(bm25.Terms(in.Query)) == 0 {
		return out, swc.Errorf(swc.EINVALID, "query: %q has no words to search by (only stopwords or punctuation)", in.Query)
	}
	limit := in.Limit
	switch {
	case limit == 0:
		limit = DefaultLimit
	case limit < 1 || limit > MaxLimit:
		return out, swc.Errorf(swc.EINVALID, "limit: %d; want 1 to %d", in.Limit, MaxLimit)
	}
	var convs []string
	if in.Conversation != "" {
		if err := checkConversation("conversation", in.Conversation); err != nil {
			return out, err
		}
		convs = []string{in.Conversation}
	}
	scan, err := m.scan(ctx, tenant, convs)
	if err != nil {
		return out, err
	}
	out.Conversations, out.Messages, out.Bounded = len(scan.convs), len(scan.msgs), scan.bounded
	if len(scan.msgs) == 0 {
		return out, nil
	}
	x := lines(scan.conv)
	scores := (&selection.Recall{Reply: selection.DefaultReply}).Scores(x, in.Query)
	for _, h := range bm25.TopOf(scores, limit) {
		t := x.Turns[h.Doc]
		ref := scan.msgs[h.Doc]
		ses := scan.conv.Sessions[t.Session]
		text := t.Turn.Text
		p := Passage{Handle: MessageHandle(ref.conv, ref.msg.Seq), Conversation: ref.conv, Message: t.Turn.ID, Seq: ref.msg.Seq,
			Session: t.Session - ref.first, Date: ses.DateText, Speaker: t.Turn.Speaker, Score: h.Score}
		p.Text, p.Cut = cut(text, PassageChars)
		out.Passages = append(out.Passages, p)
	}
	return out, nil
}

// lines returns the part of c's analysis swc-recall's ranking reads
// (Recall.Scores): each turn's session, text and line as shown ("Speaker:
// text"), which its BM25 index is built over. The rest of an analysis
// (token counts, sentences, salience), which a search does not use, would
// cost it ten times as much (TestLinesRankAsAnalysis holds the two to the
// same scores).
func lines(c *swc.Conversation) *selection.Analysis {
	x := &selection.Analysis{Conv: c}
	for i, ses := range c.Sessions {
		for j, t := range ses.Turns {
			x.Turns = append(x.Turns, selection.TurnInfo{Session: i, Pos: j, Turn: t, Line: swc.RenderTurn(t)})
		}
	}
	return x
}

// cut returns s, or its first n characters (at a rune boundary) and "…".
func cut(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…", true
}

// scanned is what a search reads: the messages of the conversations as
// one conversation (their sessions one after the other), and for each of
// its turns the stored message it is.
type scanned struct {
	conv    *swc.Conversation
	msgs    []msgRef // msgs[i] is turn i's message
	convs   []string
	bounded bool
}

type msgRef struct {
	conv  string
	msg   swc.StoredMessage
	first int // the scan's index of the conversation's first session
}

// scan reads the latest messages of the conversations ids names (nil:
// the tenant's most recently active ones), within MaxConversations,
// MaxScan and MaxScanBytes. A conversation named but not stored is
// ENOTFOUND.
func (m *Memory) scan(ctx context.Context, tenant string, ids []string) (*scanned, error) {
	s := &scanned{conv: &swc.Conversation{ID: "mcp-search"}}
	if ids == nil {
		list, err := m.recent(ctx, tenant)
		if err != nil {
			return nil, err
		}
		if len(list) > m.maxConversations() {
			list, s.bounded = list[:m.maxConversations()], true
		}
		for _, c := range list {
			ids = append(ids, c.ID)
		}
	}
	left, bytes := m.maxScan(), m.maxScanBytes()
	for _, id := range ids {
		if left == 0 || bytes <= 0 {
			s.bounded = true
			break
		}
		msgs, err := m.store.MessagesIn(ctx, tenant, id, swc.MessageRange{Last: true, Limit: left + 1})
		if err != nil {
			return nil, err
		}
		if len(msgs) > left {
			msgs, s.bounded = msgs[len(msgs)-left:], true
		}
		// The latest messages within the bytes left.
		keep := len(msgs)
		for keep > 0 && bytes-size(msgs[keep-1]) >= 0 {
			keep--
			bytes -= size(msgs[keep])
		}
		if keep > 0 {
			msgs, s.bounded, bytes = msgs[keep:], true, 0
		}
		left -= len(msgs)
		s.add(id, msgs)
	}
	return s, nil
}

// size is a message's bytes: its content and its tool calls'.
func size(m swc.StoredMessage) int {
	n := len(m.Content)
	for _, tc := range m.ToolCalls {
		n += len(tc.Name) + len(tc.Arguments)
	}
	return n
}

// add appends the conversation's messages: its sessions as sessions of
// the scan, each turn's message beside it (sleep.Conversation makes a
// turn of every message but the instructions, in order).
func (s *scanned) add(id string, msgs []swc.StoredMessage) {
	s.convs = append(s.convs, id)
	c, _ := sleep.Conversation(id, msgs)
	first := len(s.conv.Sessions)
	for _, ses := range c.Sessions {
		ses.Index = len(s.conv.Sessions)
		s.conv.Sessions = append(s.conv.Sessions, ses)
	}
	for _, msg := range msgs {
		if msg.Role != swc.RoleSystem && msg.Role != swc.RoleDeveloper {
			s.msgs = append(s.msgs, msgRef{conv: id, msg: msg, first: first})
		}
	}
}

// recent returns the tenant's conversations, the most recently active
// first.
func (m *Memory) recent(ctx context.Context, tenant string) ([]swc.ConversationInfo, error) {
	list, err := m.store.Conversations(ctx, tenant)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(list, func(a, b swc.ConversationInfo) int { return lastActivity(b).Compare(lastActivity(a)) })
	return list, nil
}

func (m *Memory) maxConversations() int {
	if m.MaxConversations > 0 {
		return m.MaxConversations
	}
	return DefaultMaxConversations
}

func (m *Memory) maxScanBytes() int {
	if m.MaxScanBytes > 0 {
		return m.MaxScanBytes
	}
	return DefaultMaxScanBytes
}

func (m *Memory) maxScan() int {
	if m.MaxScan > 0 {
		return m.MaxScan
	}
	return DefaultMaxScan
}
