package tokens

import (
	"github.com/swcmem/swc"
	memopkg "github.com/swcmem/swc/internal/memo"
)

// The token costs of the parts of a rendered context (swc.Render), which
// strategies add up while they fit a budget. A rendered context's exact
// count can differ from the sum by a token or two where BPE merges across
// a boundary; strategies check the exact count last.

// Separator is the cost of the blank line between two blocks,
// Count(swc.BlockSeparator), which TestSeparator checks. It is a constant
// so that nothing loads the tokenizer at program start.
const Separator = 1

// newline is Count("\n") (TestSeparator checks it).
const newline = 1

// Header returns the cost of a session's header line.
func Header(s *swc.Session) int { return CountCached(swc.SessionHeader(s)) }

// Omission returns the cost of the marker Render puts where sessions first
// to last are missing between two blocks, with its separator.
func Omission(first, last int) int {
	return CountCached(swc.OmissionMarker(first, last)) + Separator
}

// Turn returns the cost of a turn in a block: its line and the newline
// before it.
func Turn(t swc.Turn) int {
	k := turnKey{speaker: t.Speaker, text: t.Text}
	if t.Image != nil {
		k.caption = t.Image.Caption
	}
	if n, ok := turnMemo.Get(k); ok {
		return n
	}
	// A line starting with printable ASCII is a piece after the newline,
	// as countLines splits: its own count (remembered as strategies count
	// the line alone too) and the newline's.
	line := swc.RenderTurn(t)
	var n int
	if line != "" && line[0] > ' ' && line[0] < 0x7F {
		n = CountCached(line) + newline
	} else {
		n = CountCached("\n" + line)
	}
	turnMemo.Put(k, n)
	return n
}

// turnKey is what a turn's rendered line is made of (swc.RenderTurn), so
// Turn can look its cost up without rendering it.
type turnKey struct{ speaker, text, caption string }

var turnMemo = memopkg.NewShared(MemoBytes, func(k turnKey, _ int) int { return len(k.speaker) + len(k.text) + len(k.caption) })

// Session returns the cost of a whole session block: its header and every
// turn.
func Session(s *swc.Session) int {
	n := Header(s)
	for _, t := range s.Turns {
		n += Turn(t)
	}
	return n
}
