package memory

import (
	"math/rand/v2"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/observe"
)

// TestLoopMemos: each remembered function answers as the function it
// remembers, asked once or again, on both forms of a generated loop.
func TestLoopMemos(t *testing.T) {
	c := mustNew(t, DefaultOptions())
	for _, text := range []bool{false, true} {
		msgs := genLoop(rand.New(rand.NewPCG(3, 4)), 30, text, 12)
		for round := range 2 {
			for i, m := range msgs {
				if got, want := isObservation(m.Content), observe.IsObservation(m.Content); got != want {
					t.Fatalf("round %d: isObservation(message %d) = %v, want %v", round, i, got, want)
				}
				if got, want := c.commandOf(m.Content), command(m.Content); got != want {
					t.Fatalf("round %d: commandOf(message %d) = %q, want %q", round, i, got, want)
				}
				for _, tc := range m.ToolCalls {
					s := tc.Name + " " + tc.Arguments
					if got, want := c.looksAtCall(s), looksAt.MatchString(s); got != want {
						t.Fatalf("round %d: looksAtCall(%q) = %v, want %v", round, s, got, want)
					}
				}
				if m.Role == swc.RoleAssistant || i == 0 {
					continue
				}
				ob := observe.Observation{Output: m.Content, Tool: "execute_bash", Arguments: `{"command":"ls"}`, IsError: i%3 == 0}
				h := c.handle(m.ToolCallID, m.Content)
				if want := observe.Handle(m.ToolCallID, m.Content); h != want {
					t.Fatalf("round %d: handle of message %d = %q, want %q", round, i, h, want)
				}
				if got, want := c.dropLineOf(ob, h), c.dropLine(ob, h); got != want {
					t.Fatalf("round %d: dropLineOf(message %d) = %q, want %q", round, i, got, want)
				}
			}
		}
	}
}
