package http

import (
	"testing"

	"github.com/swcmem/swc"
)

// TestStoredPositions: the store keeps mid-conversation system messages
// as instructions (swc.PlanAppend), so positions in the stored conversation
// skip them: storedCount maps the request's first n conversation messages
// to the store's count, convStart the store's n-th message back to the
// request.
func TestStoredPositions(t *testing.T) {
	sys := swc.Message{Role: swc.RoleSystem, Content: "s"}
	mid := swc.Message{Role: swc.RoleSystem, Content: "m", InPlace: true}
	u := swc.Message{Role: swc.RoleUser, Content: "u"}
	a := swc.Message{Role: swc.RoleAssistant, Content: "a"}
	msgs := []swc.Message{sys, u, mid, a, u, a, mid, u}
	var conv []int
	for i, m := range msgs {
		if !swc.IsInstruction(m) {
			conv = append(conv, i)
		}
	}
	if len(conv) != 7 {
		t.Fatalf("%d conversation messages; want 7", len(conv))
	}
	for n, want := range []int{0, 1, 1, 2, 3, 4, 4, 5} {
		if got := storedCount(msgs, n); got != want {
			t.Errorf("storedCount(%d) = %d; want %d", n, got, want)
		}
	}
	// stored message n → position in conv: u(0)→0, a(1)→2, u(2)→3, a(3)→4, u(4)→6
	for n, want := range []int{0, 2, 3, 4, 6, 7, 7} {
		if got := convStart(msgs, conv, n); got != want {
			t.Errorf("convStart(%d) = %d; want %d", n, got, want)
		}
	}
}
