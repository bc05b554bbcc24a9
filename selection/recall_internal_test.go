package selection

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
)

// TestFillLimit holds fill to its rule: the turns standing out first and
// unchanged, then other turns of the ranking in order of score per cost,
// their tokens with the standing-out ones' within Fill × the budget, and
// every ranked turn left out one that would have gone over it.
func TestFillLimit(t *testing.T) {
	day := time.Date(2023, 5, 1, 13, 0, 0, 0, time.UTC)
	var turns []swc.Turn
	for i := range 40 {
		sp := []string{"user", "assistant"}[i%2]
		text := fmt.Sprintf("The bike trip %d went along the river.", i) + strings.Repeat(" We stopped for coffee and cake.", (i*7)%23)
		if i == 6 {
			text = "I painted my bike green; the colour of the bike is green now."
		}
		turns = append(turns, swc.Turn{ID: fmt.Sprintf("D1:%d", i+1), Speaker: sp, Text: text})
	}
	c := &swc.Conversation{ID: "f", SpeakerA: "user", SpeakerB: "assistant", Sessions: []swc.Session{{Start: day, DateText: "1 May, 2023", Turns: turns}}}
	r := NewRecall("swc-recall", New("swc-select", &Analyzer{}))
	x := r.Select.Analyzer.Analyze(c)
	const q = "What colour is my bike?"
	out, score, err := r.recall(context.Background(), x, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 || len(out) > 3 {
		t.Fatalf("fixture: %d turns stand out, want 1 to 3", len(out))
	}
	k := float64(r.Select.Weights.LongTokens)
	perCost := func(t int) float64 { return score[t] / max(1, float64(x.Turns[t].Tokens)/k) }
	for _, fill := range []float64{0, 0.25, DefaultFill, 1} {
		for _, budget := range []int{200, 400, 1000} {
			r.Fill = fill
			got := r.fill(x, slices.Clone(out), score, budget)
			if !slices.Equal(got[:len(out)], out) {
				t.Fatalf("Fill %v, budget %d: the turns standing out changed: %v, want %v first", fill, budget, got, out)
			}
			limit := int(fill * float64(budget))
			used, in := 0, map[int]bool{}
			for i, tu := range got {
				if in[tu] {
					t.Fatalf("Fill %v, budget %d: turn %d twice", fill, budget, tu)
				}
				in[tu] = true
				used += x.Turns[tu].Tokens
				if i > len(out) && perCost(tu) > perCost(got[i-1]) {
					t.Errorf("Fill %v, budget %d: turn %d (%.3f per cost) after turn %d (%.3f)", fill, budget, tu, perCost(tu), got[i-1], perCost(got[i-1]))
				}
			}
			if len(got) > len(out) && used > limit {
				t.Errorf("Fill %v, budget %d: %d tokens recalled, limit %d", fill, budget, used, limit)
			}
			for tu := range score {
				if score[tu] > 0 && !in[tu] && used+x.Turns[tu].Tokens <= limit {
					t.Errorf("Fill %v, budget %d: turn %d (%d tokens) left out with %d of %d used", fill, budget, tu, x.Turns[tu].Tokens, used, limit)
				}
			}
			if fill == 0 && len(got) != len(out) {
				t.Errorf("Fill 0: %d turns, want the %d standing out", len(got), len(out))
			}
			if fill >= 0.5 && budget >= 400 && len(got) == len(out) {
				t.Errorf("Fill %v, budget %d: nothing filled (fixture)", fill, budget)
			}
		}
	}
}
