package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// Handles of a chat history's memory: every block of the memory message
// that stands for messages it does not hold whole — a session gisted or
// partly kept, a running summary, an omission marker — shows, at the end
// of its header line, the handle of those messages ("[Session 3 — 1:56 pm
// on 8 May, 2023] (summary) [swc:h3f9a2c1b0d]", "[Sessions 2–17 omitted]
// [swc:h…]"), the form a tool loop's stubs show. A session kept whole
// (its turns all there, none truncated) shows none: nothing of it is
// lost. The handle depends on the messages alone, so the memory message
// stays byte for byte the same across an epoch, and it resolves to
// Original of the messages (HistoryHandle).

// Recallable is a piece of the history the memory message shows by its
// handle in place of the messages themselves, or a tool loop's assistant
// turn clipped (Options.TurnTokens), whose clipped text shows it.
type Recallable struct {
	// Handle is HistoryHandle of the messages: "h" and 10 hex digits.
	Handle string `json:"handle"`
	// First and Last are the sessions the piece covers (0-based, as
	// SessionSpan.Session); -1 for a clipped turn.
	First int `json:"first"`
	Last  int `json:"last"`
	// Messages are the input indexes of the messages it stands for, in
	// order (under a pinned task not always consecutive).
	Messages []int `json:"messages"`
}

// HistoryHandle returns the handle of history messages the memory
// message left out or shortened: "h" and the first 10 hex digits of
// SHA-256("swc:history", NUL, Original(msgs)). The same messages give the
// same handle in any process; a handle names exactly the text it resolves
// to.
func HistoryHandle(msgs []swc.Message) string { return handleOfText(Original(msgs)) }

func handleOfText(original string) string {
	h := sha256.New()
	h.Write([]byte("swc:history\x00"))
	h.Write([]byte(original))
	return "h" + hex.EncodeToString(h.Sum(nil))[:10]
}

// Original returns what a history handle resolves to: the messages it
// stands for, each as a header line — "[role name, time]" (name and time
// when known; "calls" and "result of" naming tool calls) — then its
// content byte for byte as the client sent it, then a line
// "[calls name(arguments)]" per tool call; messages are separated by a
// blank line.
func Original(msgs []swc.Message) string {
	var b strings.Builder
	for k, m := range msgs {
		if k > 0 {
			b.WriteString("\n\n")
		}
		b.WriteByte('[')
		b.WriteString(string(m.Role))
		if m.Name != "" {
			b.WriteString(" " + m.Name)
		}
		if !m.Time.IsZero() {
			b.WriteString(", " + m.Time.Format(time.RFC3339))
		}
		if m.ToolCallID != "" {
			b.WriteString(", result of " + m.ToolCallID)
		}
		b.WriteString("]\n")
		b.WriteString(m.Content)
		for _, tc := range m.ToolCalls {
			b.WriteString("\n[calls " + tc.Name + "(" + tc.Arguments + ") " + tc.ID + "]")
		}
	}
	return b.String()
}

// handleMark is how a handle shows in a memory message.
func handleMark(h string) string { return "[swc:" + h + "]" }

// recallSpan is a Recallable in history positions.
type recallSpan struct {
	handle      string
	first, last int // sessions
	from, to    int // history positions [from, to)
}

// withHandles returns the memory text with the handle of the messages of
// every block that does not hold them whole at the end of the block's
// header line, and those pieces. g groups hist, the history messages;
// whole[s] says that session s is in the text verbatim and whole.
func withHandles(text string, g *chat.Grouping, hist []swc.Message, whole map[int]bool) (string, []recallSpan) {
	body := strings.TrimRight(text, "\n")
	if body == "" {
		return text, nil
	}
	blocks := strings.Split(body, swc.BlockSeparator)
	var spans []recallSpan
	for i, blk := range blocks {
		first, last, ok := covers(blk)
		if !ok || first < 1 || last > len(g.Spans) || first > last {
			continue
		}
		if first == last && whole[first-1] {
			continue
		}
		sp := recallSpan{first: first - 1, last: last - 1, from: g.Spans[first-1].First, to: g.Spans[last-1].End}
		sp.handle = HistoryHandle(hist[sp.from:sp.to])
		head, rest, multi := strings.Cut(blk, "\n")
		blocks[i] = head + " " + handleMark(sp.handle)
		if multi {
			blocks[i] += "\n" + rest
		}
		spans = append(spans, sp)
	}
	return strings.Join(blocks, swc.BlockSeparator) + "\n", spans
}

// wholeSessions returns the sessions a context holds verbatim and whole:
// reported verbatim, and none of their messages truncated.
func wholeSessions(hc *swc.Context, g *chat.Grouping, truncated []int) map[int]bool {
	cut := map[int]bool{}
	for _, k := range truncated {
		cut[k] = true
	}
	whole := map[int]bool{}
	for _, ch := range hc.Chunks {
		if ch.Action != swc.ActionVerbatim || ch.Session < 0 || ch.Session >= len(g.Spans) {
			continue
		}
		ok := true
		for k := g.Spans[ch.Session].First; k < g.Spans[ch.Session].End; k++ {
			if cut[k] {
				ok = false
			}
		}
		whole[ch.Session] = ok
	}
	return whole
}
