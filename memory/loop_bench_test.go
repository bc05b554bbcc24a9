package memory

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/swcmem/swc"
)

// loopOf returns a generated tool loop of about n tokens (the next
// request's exchange left out: the second result) and the whole loop.
func loopOf(b *testing.B, c *Compressor, n int, seed uint64) (prev, next []swc.Message) {
	rng := rand.New(rand.NewPCG(seed, 9))
	msgs := genLoop(rng, 2000, false, 40)
	total := 0
	for k, m := range msgs {
		total += c.Cost(m)
		if total >= n && m.Role == swc.RoleAssistant {
			next = msgs[:k]
			break
		}
	}
	for k := len(next) - 1; k > 0; k-- {
		if next[k].Role == swc.RoleAssistant {
			return next[:k], next
		}
	}
	b.Fatal("no loop")
	return nil, nil
}

// BenchmarkLoop: a 100k-token tool loop at a 16k budget, new to the
// compressor (its memos empty; token counts stay cached process-wide), and
// the next request of the same loop (one exchange more).
func BenchmarkLoop(b *testing.B) {
	ctx := context.Background()
	for _, size := range []int{25_000, 100_000} {
		o := DefaultOptions()
		o.Budget = 16000
		base := mustNew(b, o)
		prev, next := loopOf(b, base, size, uint64(size))
		b.Run(fmt.Sprintf("new/%dk", size/1000), func(b *testing.B) {
			for b.Loop() {
				c := mustNew(b, o)
				if _, err := c.Compress(ctx, next); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("next/%dk", size/1000), func(b *testing.B) {
			c := mustNew(b, o)
			if _, err := c.Compress(ctx, prev); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := c.Compress(ctx, next); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
