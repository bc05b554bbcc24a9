package selection_test

import (
	"context"
	"os"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/mention"
	"github.com/swcmem/swc/selection"
)

const locomoPath = "../../shared/data/locomo/locomo10.json"

func salient(text string, sp []string) int {
	return len(mention.Entities(text, sp)) + len(mention.Numbers(text))
}

func newAnalyzer() *selection.Analyzer {
	return &selection.Analyzer{Anchor: mention.Anchor, Salient: salient, Dated: mention.HasTemporal}
}

// BenchmarkRecallQuestion is swc-recall's per-question assembly on a
// LoCoMo conversation, the question-independent work cached: one op is
// one question's context.
func BenchmarkRecallQuestion(b *testing.B) {
	if _, err := os.Stat(locomoPath); err != nil {
		b.Skipf("LoCoMo data not found at %s: %v", locomoPath, err)
	}
	convs, _, err := locomo.LoadFile(locomoPath)
	if err != nil {
		b.Fatal(err)
	}
	c := convs[0]
	r := selection.NewRecall("swc-recall", selection.New("swc-select", newAnalyzer()))
	opts := swc.CompressOptions{Budget: 4000, Query: c.Questions[0].Question}
	if _, err := r.Compress(context.Background(), c, opts); err != nil { // warm the caches
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		opts.Query = c.Questions[i%len(c.Questions)].Question
		i++
		if _, err := r.Compress(context.Background(), c, opts); err != nil {
			b.Fatal(err)
		}
	}
}
