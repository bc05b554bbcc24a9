package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/longmemeval"
)

// countingStrategy is wholeStrategy counting its Compress calls.
type countingStrategy struct {
	wholeStrategy
	calls *atomic.Int64
}

func (c countingStrategy) Compress(ctx context.Context, conv *swc.Conversation, opts swc.CompressOptions) (*swc.Context, error) {
	c.calls.Add(1)
	x, err := c.wholeStrategy.Compress(ctx, conv, opts)
	if err == nil {
		x.Chunks = []swc.ChunkReport{{Session: 0, Action: swc.ActionVerbatim, Tier: swc.TierHigh}}
	}
	return x, err
}

// leanRun runs strategies over the first n conversations of convs,
// streamed and lean, into dir, and returns the summary's bytes.
func leanRun(t *testing.T, dir string, convs []*swc.Conversation, n int, calls *atomic.Int64) []byte {
	t.Helper()
	st, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	lean, err := OpenLeanStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	done := 0
	r := &Runner{
		Strategies: []swc.Strategy{countingStrategy{wholeStrategy{"a"}, calls}, countingStrategy{wholeStrategy{"b"}, calls}},
		Store:      st, Budget: 4000, Lean: lean, Parallel: 2, Total: n,
		Source: func(yield func(*swc.Conversation) error) error {
			for _, c := range convs[:n] {
				if err := yield(c); err != nil {
					return err
				}
			}
			return nil
		},
		Done: func(*swc.Conversation) { done++ },
	}
	ctxs, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := lean.Close(); err != nil {
		t.Fatal(err)
	}
	if done != n {
		t.Errorf("Done called %d times for %d conversations", done, n)
	}
	for _, byConv := range ctxs {
		for id, x := range byConv {
			if x.Text != "" {
				t.Errorf("lean run kept the text of %s", id)
			}
		}
	}
	sum := Summarize(SummaryInput{Order: []string{"a", "b"}, Conversations: convs[:n], Rows: st.Rows(), Contexts: ctxs,
		Resamples: 100, Seed: 1, Types: longmemeval.Types})
	b, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLeanResume: a lean run stopped after two of three conversations and
// run again compresses only the third, and summarises as a run in one go.
func TestLeanResume(t *testing.T) {
	convs, err := longmemeval.LoadFile("../longmemeval/testdata/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	var whole, parts atomic.Int64
	ref := leanRun(t, t.TempDir(), convs, 3, &whole)
	if whole.Load() != 6 {
		t.Errorf("%d compress calls for 3 conversations × 2 conditions", whole.Load())
	}
	dir := t.TempDir()
	leanRun(t, dir, convs, 2, &parts)
	parts.Store(0)
	got := leanRun(t, dir, convs, 3, &parts)
	if parts.Load() != 2 {
		t.Errorf("the rerun compressed %d times, want 2 (the third conversation under each condition)", parts.Load())
	}
	if !bytes.Equal(got, ref) {
		t.Errorf("resumed summary differs:\n%s\nwant\n%s", got, ref)
	}
}

// TestSummarizeTypes: a typed run's summary has a row per question type,
// abstention apart and the aggregate without it.
func TestSummarizeTypes(t *testing.T) {
	convs, err := longmemeval.LoadFile("../longmemeval/testdata/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	var sum Summary
	if err := json.Unmarshal(leanRun(t, t.TempDir(), convs, 3, &calls), &sum); err != nil {
		t.Fatal(err)
	}
	cats := sum.Conditions["a"].Categories
	for key, n := range map[string]int{"single-session-user": 1, "temporal-reasoning": 1, KeyAll: 2} {
		if got := cats[key][MetricAnswerTokenRecall].N; got != n {
			t.Errorf("%s: answer-token recall over %d questions, want %d", key, got, n)
		}
	}
	if _, ok := cats[KeyAbstention][MetricAnswerTokenRecall]; ok {
		t.Error("abstention questions have answer-token recall")
	}
	if got := cats[KeyAbstention][MetricEvidenceRetention]; got.N != 1 || got.Mean != 1 {
		t.Errorf("abstention evidence retention %+v, want 1 over 1", got)
	}
	if _, ok := cats["knowledge-update"]; ok {
		t.Error("the abstention question counts in its type")
	}
	if sum.Matched.ByCategory[KeyAbstention] != 1 || sum.Matched.N != 3 {
		t.Errorf("matched %+v", sum.Matched)
	}
	if b := sum.Breakdown(); !b.Typed || b.Primary != KeyAll {
		t.Errorf("breakdown %+v", b)
	}
}
