// Package observe reduces an old tool output of a coding agent's tool loop
// to a stub: a first line naming a stable handle, the call (unless
// OmitCall) and its outcome,
// then the output's most useful lines as they stood (error and
// failing-test lines, lines holding identifiers the request does not hold
// yet, definitions), in their original order, elided runs marked. memory/
// writes stubs in place of old observations; the agent's next turn most
// often names a path, a line number or a name that an old output held, and
// a stub keeps those inside the line they came from.
//
// A stub is budget-bound: a few lines of code and their markers fill it,
// so it is written to spend few tokens on anything but lines: the call in
// its header clipped (the request holds it whole in the turn above), a
// long line cut at 80 bytes, "[…37 lines]" markers, and in a file view a
// bare "[…]" where the line numbers around it say what it stands for.
// docs/method.md gives the rules and what they keep over the shared
// trajectories (TestTrajectories, TestReuseRates).
//
// The package is pure: it depends on the standard library and tokens/.
package observe

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Observation is one tool output (or the observation message of an agent
// that acts in text), with its call.
type Observation struct {
	Tool      string // tool name; "" when the agent acts in text
	Arguments string // the call's arguments as JSON text, or the command text a text-acting agent ran
	Output    string // the output as the provider carried it
	IsError   bool   // the provider marked it as an error (Anthropic is_error); Output may then open with "[error] ", the mark chat/ writes for it, which is not read as output
}

// errorMark is what chat/ writes before an output its provider marked as
// an error.
const errorMark = "[error] "

// output returns o's output without the error mark.
func (o Observation) output() string {
	if o.IsError {
		return strings.TrimPrefix(o.Output, errorMark)
	}
	return o.Output
}

// StubOptions say how Stub writes a stand-in.
type StubOptions struct {
	Handle    string               // short stable handle written into the stub (Handle's result)
	MaxTokens int                  // the stub's most tokens (cl100k_base); 0 = DefaultStubTokens
	Known     func(id string) bool // identifiers already present in the kept request (instructions, task, assistant turns): not repeated; nil = none known
	Focus     func(id string) bool // identifiers the loop marks as salient (named by the task, read/edited/grepped by calls, failing tests); ranked first when not Known, a Known one weighs a little (context); nil = none
	// MinValue is the least value per token (see Stub) a line needs to be
	// chosen after the diagnostic and Focus rounds: 0 fills the stub up to
	// MaxTokens with whatever line is worth most.
	MinValue float64
	// OmitCall leaves the call out of the first line, which then names
	// the handle and the outcome alone, "[swc:h3f9a2c1b0 → exit 1, 3
	// failed]": for a request that holds the call right before its
	// output (a tool loop's assistant turn), where the tokens are worth
	// more as lines of the output.
	OmitCall bool
	// Same is the handle of an earlier observation of the same call that
	// gave the same output, whose stub the request holds: the stub of an
	// output that does not fit whole is then its first line and a line
	// naming that handle (the first line alone when both do not fit
	// MaxTokens); "" or Handle itself (a text-acting agent's identical
	// outputs share a handle): none.
	Same string
}

// DefaultStubTokens is a stub's most tokens when StubOptions.MaxTokens is 0.
const DefaultStubTokens = 160

// Handle returns the short stable handle of an observation's original:
// "h" + 10 lowercase hex characters of sha256(callID + "\x00" + output).
// Same input, same handle, in any process.
func Handle(callID, output string) string {
	h := sha256.New()
	// Through a buffer on the stack: []byte(output) would copy the whole
	// output (hundreds of kilobytes of a long loop's) on the heap.
	var buf [4096]byte
	for _, s := range [...]string{callID, "\x00", output} {
		for len(s) > 0 {
			n := copy(buf[:], s)
			h.Write(buf[:n])
			s = s[n:]
		}
	}
	var sum [sha256.Size]byte
	return "h" + hex.EncodeToString(h.Sum(sum[:0])[:5])
}
