package memory

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestOfflineDeadline: the offline engines are bounded by ctx's deadline
// too (they ran to the end whatever it was: --compress-timeout had no
// effect without an LLM or a remote embedder). Past it the history is
// compressed by the truncation plan, within the budget, and the result
// says so.
func TestOfflineDeadline(t *testing.T) {
	msgs := sampleMessages(t)
	for _, c := range []struct {
		name     string
		deadline time.Duration // 0: none
		wantPlan string
	}{
		{"no deadline", 0, ""},
		{"past the deadline", -time.Second, CheapPlan},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := DefaultOptions()
			o.Budget = 2000
			comp := mustNew(t, o) // fresh memos: nothing remembered
			ctx := context.Background()
			if c.deadline != 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, time.Now().Add(c.deadline))
				defer cancel()
			}
			start := time.Now()
			res, err := comp.Compress(ctx, msgs)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d messages → %d tokens in %v (plan %q, fallback %q)", len(msgs), res.Tokens, time.Since(start), res.Plan, res.Fallback)
			if res.Plan != c.wantPlan {
				t.Errorf("Plan = %q, want %q", res.Plan, c.wantPlan)
			}
			if res.Tokens > o.Budget {
				t.Errorf("%d tokens over the budget of %d", res.Tokens, o.Budget)
			}
			if c.wantPlan != "" && (!strings.HasPrefix(res.Fallback, "deadline") || !strings.Contains(res.Memory, "[Session 1 ")) {
				t.Errorf("truncation plan: fallback %q; want a deadline, and the first session pinned in the memory:\n%s", res.Fallback, res.Memory)
			}
		})
	}
}
