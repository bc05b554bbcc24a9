package selection_test

import (
	"context"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/internal/locomotest"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/mention"
	"github.com/swcmem/swc/selection"
)

var locomoPath = locomotest.Path()

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
	convs, _, err := locomo.LoadFile(locomotest.Need(b))
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
