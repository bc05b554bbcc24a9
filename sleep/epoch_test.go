package sleep_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/sleep"
)

// TestContextEpochs: the format=openai and format=anthropic contexts of a
// stored conversation are compressed in epochs, as the proxy's requests
// are. As the conversation grows by appends, each context is within the
// budget, and between two compactions its messages (and Anthropic's
// system, which holds the memory) are the context before's, byte for
// byte, plus the new messages. With a read limit of 100 messages (the
// bounded read past it, a consolidation half way) the same holds but for
// the window's moves, once every 50 messages.
func TestContextEpochs(t *testing.T) {
	ctx := context.Background()
	const budget = 1500
	for _, limit := range []int{0, 100} {
		for _, format := range []string{"openai", "anthropic"} {
			t.Run(fmt.Sprint(format, "/limit=", limit), func(t *testing.T) {
				m, db, clk, msgs := setup(t, consolidate.Schedule{Kind: consolidate.Idle, Window: time.Hour}, 0)
				m.ReadLimit = limit
				var prev []json.RawMessage
				prevSys := ""
				compressed, extends := 0, 0
				for end := 2; end <= len(msgs); end += 2 {
					appendAll(t, db, msgs[end-2:end], clk.t)
					if limit > 0 && end == len(msgs)/4*2 {
						if _, err := m.Consolidate(ctx, "t", "c"); err != nil {
							t.Fatal(err)
						}
					}
					r, err := m.Context(ctx, "t", "c", sleep.Request{Budget: budget, Format: format})
					if err != nil {
						t.Fatalf("%d messages: %v", end, err)
					}
					if r.Tokens > budget {
						t.Fatalf("%d messages: %d tokens over the budget %d", end, r.Tokens, budget)
					}
					b, err := json.Marshal(r.Messages)
					if err != nil {
						t.Fatal(err)
					}
					var cur []json.RawMessage
					if err := json.Unmarshal(b, &cur); err != nil {
						t.Fatal(err)
					}
					if len(r.Chunks) > 0 { // compressed: a memory is sent
						compressed++
						if prev != nil && r.System == prevSys && len(cur) > len(prev) && prefixOf(prev, cur) {
							extends++
						}
					}
					prev, prevSys = cur, r.System
				}
				t.Logf("%d messages; %d compressed contexts, %d the one before plus the new messages", len(msgs), compressed, extends)
				if compressed < 20 || extends < compressed*3/4 {
					t.Errorf("%d of %d compressed contexts extend the one before; want ≥ 3/4", extends, compressed)
				}
			})
		}
	}
}

func prefixOf(a, b []json.RawMessage) bool {
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
