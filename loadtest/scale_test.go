package loadtest

import (
	"fmt"
	"testing"

	"github.com/swcmem/swc"
)

func TestSplitWarmup(t *testing.T) {
	conv := func(id string, n int) FeedConv {
		c := FeedConv{ID: id}
		for i := range n {
			c.Msgs = append(c.Msgs, swc.Message{ID: fmt.Sprint(id, i), Role: "user", Content: "x"})
		}
		return c
	}
	convs := []FeedConv{conv("a", 10), conv("b", 3), conv("c", 0)}
	for _, tc := range []struct {
		n        int
		warm     []int // messages per conversation (nil: no warm-up)
		measured int
	}{
		{0, nil, 13},
		{-1, nil, 13},
		{2, []int{2, 1, 0}, 10},
		{100, []int{5, 1, 0}, 7}, // at most half of each
	} {
		warm, rest := splitWarmup(convs, tc.n)
		if tc.warm == nil {
			if warm != nil || messages(rest) != 13 {
				t.Errorf("n=%d: warm %v, %d measured; want none, 13", tc.n, warm, messages(rest))
			}
			continue
		}
		for i, c := range warm {
			if len(c.Msgs) != tc.warm[i] || c.ID != convs[i].ID || rest[i].ID != convs[i].ID {
				t.Errorf("n=%d: %s warms %d messages, want %d", tc.n, c.ID, len(c.Msgs), tc.warm[i])
			}
			// The warm-up and the rest are the conversation in order.
			all := append(append([]swc.Message(nil), c.Msgs...), rest[i].Msgs...)
			for j, m := range all {
				if m.ID != convs[i].Msgs[j].ID {
					t.Fatalf("n=%d: %s message %d is %s, want %s", tc.n, c.ID, j, m.ID, convs[i].Msgs[j].ID)
				}
			}
		}
		if got := messages(rest); got != tc.measured {
			t.Errorf("n=%d: %d measured, want %d", tc.n, got, tc.measured)
		}
	}
}

// messages returns how many messages convs hold.
func messages(convs []FeedConv) int {
	n := 0
	for _, c := range convs {
		n += len(c.Msgs)
	}
	return n
}
