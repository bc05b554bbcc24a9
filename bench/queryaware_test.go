package bench

import (
	"slices"
	"testing"

	"github.com/swcmem/swc"
)

// askingStrategy is wholeStrategy that says whether it reads the query.
type askingStrategy struct {
	wholeStrategy
	aware bool
}

func (a askingStrategy) QueryAware() bool { return a.aware }

// TestSummarizeQueryAware: the conditions whose strategy says it reads
// the question are marked in the summary, the others not.
func TestSummarizeQueryAware(t *testing.T) {
	ss := []swc.Strategy{wholeStrategy{"plain"}, askingStrategy{wholeStrategy{"asks"}, true}, askingStrategy{wholeStrategy{"declines"}, false}}
	names := QueryAwareNames(ss)
	if !slices.Equal(names, []string{"asks"}) {
		t.Fatalf("QueryAwareNames = %q, want [asks]", names)
	}
	var rows []Row
	for _, c := range []string{"plain", "asks", "declines"} {
		rows = append(rows, Row{Condition: c, Conversation: "c", QuestionID: "c:q0", Category: 2, Metrics: map[string]float64{"f1": 1}})
	}
	s := Summarize(SummaryInput{Order: []string{"plain", "asks", "declines"}, Conversations: []*swc.Conversation{{ID: "c"}},
		Rows: rows, Resamples: 20, Seed: 1, QueryAware: names})
	for c, want := range map[string]bool{"plain": false, "asks": true, "declines": false} {
		if got := s.Conditions[c].QueryAware; got != want {
			t.Errorf("%s: QueryAware %v, want %v", c, got, want)
		}
	}
}
