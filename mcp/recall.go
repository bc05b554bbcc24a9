package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/sleep"
)

const recallDoc = "Return a stored message whole by its handle: one search gave (\"m12@conv-1\": message 12 " +
	"of conversation conv-1), or one the compressing proxy left in place of a long tool " +
	"output (\"h\" and 10 hex digits). \"conversation\" narrows the look-up of a tool-output " +
	"handle to one conversation."

// Handles name stored messages:
//
//   - "m" SEQ "@" CONVERSATION names the message of that sequence number
//     in the conversation (MessageHandle): what search gives. It resolves
//     in one read, and stays valid while the message is live (an edited
//     history superseding it, or the conversation deleted, ends it).
//   - "h" and 10 hex digits names a tool output by its content:
//     ToolOutputHandle(call id, output), the handle the compressing proxy
//     shows in place of an output it shortened. Recall finds it by
//     computing that handle for the stored tool messages (the output as
//     the client sent it, which the service stores) of the conversation
//     given, or of the tenant's most recently active ones, within
//     MaxConversations and MaxScan.
var (
	messageHandle = regexp.MustCompile(`^m([0-9]{1,18})@([A-Za-z0-9._:-]{1,128})$`)
	outputHandle  = regexp.MustCompile(`^h[0-9a-f]{10}$`)
)

// MessageHandle returns the handle of the message of sequence number seq
// in conversation conv.
func MessageHandle(conv string, seq int64) string {
	return "m" + strconv.FormatInt(seq, 10) + "@" + conv
}

// ToolOutputHandle returns the handle of a tool output: "h" and the first
// 10 hex digits of SHA-256(callID, NUL, output). It must stay the
// proxy's, which shows it in the stub of an output it shortened.
func ToolOutputHandle(callID, output string) string {
	sum := sha256.Sum256([]byte(callID + "\x00" + output))
	return "h" + hex.EncodeToString(sum[:5])
}

// RecallInput is recall's arguments.
type RecallInput struct {
	Handle       string `json:"handle" jsonschema:"the handle of a message: from search (m12@conv-1) or from a shortened tool output (h and 10 hex digits)"`
	Conversation string `json:"conversation,omitempty" jsonschema:"for a tool-output handle: the conversation to look in (omitted: the tenant's most recently active)"`
}

// RecallOutput is a stored message whole.
type RecallOutput struct {
	Handle       string `json:"handle"`
	Conversation string `json:"conversation"`
	Message      string `json:"message"` // its id, or "m" and its seq
	Seq          int64  `json:"seq"`
	Role         string `json:"role"`
	Speaker      string `json:"speaker"`
	// Time is when the message was sent, RFC 3339 ("" when undated).
	Time string `json:"time,omitempty"`
	// Text is the content as stored; ToolCalls the calls an assistant
	// message made; ToolCallID the call a tool message answers.
	Text       string         `json:"text"`
	ToolCalls  []swc.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

func (m *Memory) recall(ctx context.Context, tenant string, in RecallInput) (RecallOutput, error) {
	h := strings.TrimSpace(in.Handle)
	if in.Conversation != "" {
		if err := checkConversation("conversation", in.Conversation); err != nil {
			return RecallOutput{}, err
		}
	}
	switch {
	case h == "":
		return RecallOutput{}, swc.Errorf(swc.EINVALID, "handle: empty; want one search gave (m12@conv-1) or a tool output's (h and 10 hex digits)")
	case messageHandle.MatchString(h):
		sm := messageHandle.FindStringSubmatch(h)
		seq, err := strconv.ParseInt(sm[1], 10, 64)
		if err != nil || seq < 1 {
			return RecallOutput{}, swc.Errorf(swc.EINVALID, "handle: %q: the sequence number must be 1 or more", h)
		}
		if in.Conversation != "" && in.Conversation != sm[2] {
			return RecallOutput{}, swc.Errorf(swc.EINVALID, "conversation: %q, but handle %q names conversation %q", in.Conversation, h, sm[2])
		}
		msgs, err := m.store.MessagesIn(ctx, tenant, sm[2], swc.MessageRange{From: seq, To: seq + 1})
		if err != nil {
			return RecallOutput{}, err
		}
		if len(msgs) == 0 {
			return RecallOutput{}, swc.Errorf(swc.ENOTFOUND, "handle: %q: conversation %q holds no live message %d", h, sm[2], seq)
		}
		return recalled(h, sm[2], msgs[0]), nil
	case outputHandle.MatchString(h):
		return m.recallOutput(ctx, tenant, h, in.Conversation)
	}
	return RecallOutput{}, swc.Errorf(swc.EINVALID, "handle: %q is not a handle (want m12@conv-1 or h and 10 lowercase hex digits)", h)
}

// recallOutput finds the stored tool message whose ToolOutputHandle is h.
func (m *Memory) recallOutput(ctx context.Context, tenant, h, conv string) (RecallOutput, error) {
	var ids []string
	if conv != "" {
		ids = []string{conv}
	}
	scan, err := m.scan(ctx, tenant, ids)
	if err != nil {
		return RecallOutput{}, err
	}
	// The latest first: an output sent again (the same call id and text)
	// is the same output.
	for i := len(scan.msgs) - 1; i >= 0; i-- {
		r := scan.msgs[i]
		if r.msg.Role == swc.RoleTool && ToolOutputHandle(r.msg.ToolCallID, r.msg.Content) == h {
			return recalled(h, r.conv, r.msg), nil
		}
	}
	where := "the tenant's conversations"
	if conv != "" {
		where = "conversation " + strconv.Quote(conv)
	}
	if scan.bounded {
		where += " (the latest " + strconv.Itoa(len(scan.msgs)) + " messages)"
	}
	return RecallOutput{}, swc.Errorf(swc.ENOTFOUND, "handle: no tool output with handle %q in %s", h, where)
}

func recalled(h, conv string, msg swc.StoredMessage) RecallOutput {
	id := msg.ID
	if id == "" {
		id = "m" + strconv.FormatInt(msg.Seq, 10)
	}
	out := RecallOutput{Handle: h, Conversation: conv, Message: id, Seq: msg.Seq, Role: string(msg.Role),
		Speaker: sleep.Speaker(msg.Message), Text: msg.Content, ToolCalls: msg.ToolCalls, ToolCallID: msg.ToolCallID}
	if !msg.Time.IsZero() {
		out.Time = msg.Time.UTC().Format(time.RFC3339)
	}
	return out
}
