package mcp

import (
	"slices"
	"testing"

	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/selection"
)

// TestLinesRankAsAnalysis: search's light analysis scores every turn as
// swc-recall's full one does.
func TestLinesRankAsAnalysis(t *testing.T) {
	convs, err := locomo.Sample()
	if err != nil {
		t.Fatal(err)
	}
	c := convs[0]
	r := &selection.Recall{Reply: selection.DefaultReply}
	full := (&selection.Analyzer{}).Analyze(c)
	light := lines(c)
	for _, q := range []string{"When did Caroline go to the LGBTQ support group?", "What did Melanie paint?", "pottery class", "zzz"} {
		a, b := r.Scores(full, q), r.Scores(light, q)
		if !slices.Equal(a, b) {
			t.Errorf("%q: the light analysis scores %v, the full one %v", q, b, a)
		}
		if q != "zzz" && !slices.ContainsFunc(a, func(s float64) bool { return s > 0 }) {
			t.Errorf("%q matches no turn of the sample", q)
		}
	}
}
