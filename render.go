package swc

import (
	"fmt"
	"strings"
)

// Block is one piece of a rendered context: a session's verbatim turns (all
// or some of them), a gist standing for a session, or a running summary
// standing for several sessions.
type Block struct {
	// Session is the session the block comes from; nil only for a running
	// summary (see First/Last).
	Session *Session
	// Turns are the verbatim turns to show, in order.
	Turns []Turn
	// Gist, when non-empty, is shown as a summary of Session instead of
	// turns (Turns must then be empty).
	Gist string
	// First and Last are the session indexes a running summary covers.
	First, Last int
}

// SessionHeader returns the header line of a session: "[Session 3 — 1:56 pm
// on 8 May, 2023]". Sessions are numbered from 1 in the text, as in LoCoMo's
// turn ids (D3:…).
func SessionHeader(s *Session) string {
	return fmt.Sprintf("[Session %d — %s]", s.Index+1, s.DateText)
}

// RenderTurn returns one turn as "Speaker: text", with a shared image
// described after the text as "[shares an image: caption]".
func RenderTurn(t Turn) string {
	var b strings.Builder
	writeTurn(&b, t)
	return b.String()
}

func writeTurn(b *strings.Builder, t Turn) {
	b.WriteString(t.Speaker)
	b.WriteString(": ")
	b.WriteString(oneLine(t.Text))
	if t.Image != nil && t.Image.Caption != "" {
		if t.Text != "" {
			b.WriteByte(' ')
		}
		b.WriteString("[shares an image: ")
		b.WriteString(oneLine(t.Image.Caption))
		b.WriteByte(']')
	}
}

// RenderBlock returns one block's text without a trailing newline.
func RenderBlock(b Block) string {
	var sb strings.Builder
	writeBlock(&sb, b)
	return sb.String()
}

func writeBlock(sb *strings.Builder, b Block) {
	switch {
	case b.Session == nil:
		fmt.Fprintf(sb, "[Summary of sessions %d–%d]\n%s", b.First+1, b.Last+1, oneParagraph(b.Gist))
	case b.Gist != "":
		fmt.Fprintf(sb, "%s (summary)\n%s", SessionHeader(b.Session), oneParagraph(b.Gist))
	default:
		sb.WriteString(SessionHeader(b.Session))
		for _, t := range b.Turns {
			sb.WriteByte('\n')
			writeTurn(sb, t)
		}
	}
}

// BlockSeparator goes between rendered blocks.
const BlockSeparator = "\n\n"

// OmissionMarker returns the line that stands where sessions first to last
// (0-based indexes, first <= last) were left out of a context: "[Session 4
// omitted]" or "[Sessions 2–3 omitted]", numbered from 1 as headers are, so
// that a reader, or a model, knows something is missing. Render puts it
// between blocks; chat renderings of compressed conversations use it too.
func OmissionMarker(first, last int) string {
	if first == last {
		return fmt.Sprintf("[Session %d omitted]", first+1)
	}
	return fmt.Sprintf("[Sessions %d–%d omitted]", first+1, last+1)
}

// Gap returns the sessions left out between two consecutive blocks, a and
// b, and whether there are any: a session block covers its session, a
// running summary First..Last.
func Gap(a, b Block) (first, last int, ok bool) {
	end, start := a.Last, b.First
	if a.Session != nil {
		end = a.Session.Index
	}
	if b.Session != nil {
		start = b.Session.Index
	}
	return end + 1, start - 1, start > end+1
}

// Render returns the context text of blocks: each block rendered, separated
// by a blank line, ending with a newline. Where sessions are missing
// between two blocks, an OmissionMarker line stands for them (as a block of
// its own). Every strategy renders through it so that token counts compare
// fairly.
func Render(blocks []Block) string {
	if len(blocks) == 0 {
		return ""
	}
	n := 0
	for _, b := range blocks {
		n += 64 + len(b.Gist)
		for _, t := range b.Turns {
			n += len(t.Speaker) + len(t.Text) + 4
		}
	}
	var sb strings.Builder
	sb.Grow(n)
	for i, b := range blocks {
		if i > 0 {
			sb.WriteString(BlockSeparator)
			if first, last, ok := Gap(blocks[i-1], b); ok {
				sb.WriteString(OmissionMarker(first, last))
				sb.WriteString(BlockSeparator)
			}
		}
		writeBlock(&sb, b)
	}
	sb.WriteByte('\n')
	return sb.String()
}

// RenderConversation returns the full transcript of c: every session, every
// turn.
func RenderConversation(c *Conversation) string {
	blocks := make([]Block, len(c.Sessions))
	for i := range c.Sessions {
		blocks[i] = Block{Session: &c.Sessions[i], Turns: c.Sessions[i].Turns}
	}
	return Render(blocks)
}

// oneLine folds newlines and runs of spaces so that a turn stays on its line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") && !strings.Contains(s, "  ") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// oneParagraph trims a gist and drops blank lines inside it.
func oneParagraph(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	out := lines[:0]
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
