package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/swcmem/swc"
)

const rememberDoc = "Append a note to a conversation (created when new), as a message of the speaker (\"Note\" " +
	"when omitted), dated now. It is stored as any appended message: search finds it, the " +
	"conversation's contexts and consolidation include it."

const conversationsDoc = "List the tenant's conversations: id, messages, sessions, last activity; the most " +
	"recently active first, at most 200 (\"total\" counts them all)."

// MaxList bounds the conversations the conversations tool lists.
const MaxList = 200

// RememberInput is remember's arguments.
type RememberInput struct {
	Conversation string `json:"conversation" jsonschema:"the conversation id to append to (created when new): 1 to 128 letters, digits, '.', '_', ':', '-'"`
	Text         string `json:"text" jsonschema:"the note"`
	Speaker      string `json:"speaker,omitempty" jsonschema:"who says it (default Note)"`
}

// RememberOutput says where the note went.
type RememberOutput struct {
	// Handle is recall's argument for the note ("" in the rare case that
	// 100 messages were appended to the conversation since: search finds
	// it).
	Handle       string `json:"handle"`
	Conversation string `json:"conversation"`
	Message      string `json:"message"` // the note's message id
	Seq          int64  `json:"seq"`
	Session      int    `json:"session"` // the 0-based stored session it joined
	Messages     int    `json:"messages"`
	Sessions     int    `json:"sessions"`
}

// DefaultSpeaker names a note's speaker when the call names none.
const DefaultSpeaker = "Note"

func (m *Memory) remember(ctx context.Context, tenant string, in RememberInput) (RememberOutput, error) {
	var out RememberOutput
	if err := checkConversation("conversation", in.Conversation); err != nil {
		return out, err
	}
	if strings.TrimSpace(in.Text) == "" {
		return out, swc.Errorf(swc.EINVALID, "text: empty; want the note")
	}
	if max := m.maxNote(); len(in.Text) > max {
		return out, swc.Errorf(swc.EINVALID, "text: %d bytes; at most %d per note", len(in.Text), max)
	}
	speaker := strings.TrimSpace(in.Speaker)
	if speaker == "" {
		speaker = DefaultSpeaker
	}
	if len(speaker) > 100 || strings.ContainsAny(speaker, "\n\r:") {
		return out, swc.Errorf(swc.EINVALID, "speaker: %q; want a name of at most 100 characters, without ':' or line breaks", in.Speaker)
	}
	now := m.now()
	id := noteID(in.Conversation, speaker, in.Text, now)
	msg := swc.Message{Role: swc.RoleUser, Name: speaker, Content: in.Text, ID: id, Time: now}
	res, err := m.store.AppendMessages(ctx, tenant, in.Conversation, []swc.Message{msg},
		swc.AppendOptions{Stamp: swc.StampAll, Rule: m.Rule, Now: m.Now, Where: []string{"text"}})
	if err != nil {
		return out, err
	}
	if m.Appended != nil {
		m.Appended(ctx, tenant, in.Conversation, res)
	}
	// The note's seq: it is among the conversation's latest messages
	// (other appends may have come since).
	last, err := m.store.MessagesIn(ctx, tenant, in.Conversation, swc.MessageRange{Last: true, Limit: 100})
	if err != nil {
		return out, err
	}
	for i := len(last) - 1; i >= 0; i-- {
		if last[i].ID == id {
			return RememberOutput{Handle: MessageHandle(in.Conversation, last[i].Seq), Conversation: in.Conversation, Message: id,
				Seq: last[i].Seq, Session: last[i].SessionN, Messages: res.Conversation.Messages, Sessions: res.Sessions}, nil
		}
	}
	// Stored, but buried under 100 later messages already: said without
	// a handle rather than as an error an agent would retry.
	return RememberOutput{Conversation: in.Conversation, Message: id, Messages: res.Conversation.Messages, Sessions: res.Sessions}, nil
}

// noteID is a note's message id: "note-" and 12 hex digits of its
// conversation, speaker, text and time.
func noteID(conv, speaker, text string, at time.Time) string {
	sum := sha256.Sum256([]byte(conv + "\x00" + speaker + "\x00" + text + "\x00" + strconv.FormatInt(at.UnixNano(), 10)))
	return "note-" + hex.EncodeToString(sum[:6])
}

func (m *Memory) maxNote() int {
	if m.MaxNote > 0 {
		return m.MaxNote
	}
	return DefaultMaxNote
}

// ConversationsInput is conversations' arguments: none.
type ConversationsInput struct{}

// ConversationSummary is one conversation as conversations lists it.
type ConversationSummary struct {
	ID       string `json:"id"`
	Messages int    `json:"messages"`
	Sessions int    `json:"sessions"`
	// Created and LastActivity are RFC 3339 times: LastActivity the later
	// of the last message's time and when the service last stored one.
	Created      string `json:"created"`
	LastActivity string `json:"last_activity"`
}

// ConversationsOutput is conversations' answer.
type ConversationsOutput struct {
	Conversations []ConversationSummary `json:"conversations"`
	Total         int                   `json:"total"` // the tenant's conversations, listed or not
}

func (m *Memory) conversations(ctx context.Context, tenant string, _ ConversationsInput) (ConversationsOutput, error) {
	list, err := m.recent(ctx, tenant)
	if err != nil {
		return ConversationsOutput{}, err
	}
	out := ConversationsOutput{Conversations: make([]ConversationSummary, 0, min(len(list), MaxList)), Total: len(list)}
	for _, c := range list[:min(len(list), MaxList)] {
		out.Conversations = append(out.Conversations, ConversationSummary{ID: c.ID, Messages: c.Messages, Sessions: c.Sessions,
			Created: c.Created.UTC().Format(time.RFC3339), LastActivity: lastActivity(c).UTC().Format(time.RFC3339)})
	}
	return out, nil
}

// lastActivity is the later of c's last message time and last append.
func lastActivity(c swc.ConversationInfo) time.Time {
	if c.LastMessage.After(c.LastReceived) {
		return c.LastMessage
	}
	return c.LastReceived
}
