package bench

import (
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/locomo"
)

// TestComputeDataStats counts the built-in sample: its text-only questions
// (52 in categories 1–4, 58 in all) and totals equal to the one
// conversation's counts.
func TestComputeDataStats(t *testing.T) {
	convs, err := locomo.Sample()
	if err != nil {
		t.Fatal(err)
	}
	s := ComputeDataStats(convs)
	if len(s.Conversations) != 1 || s.Totals.Conversations != 1 || s.Tokenizer == "" {
		t.Fatalf("stats %+v", s)
	}
	c, tot := s.Conversations[0], s.Totals
	if c.Sessions != len(convs[0].Sessions) || c.Turns != convs[0].TurnCount() || c.Tokens <= c.Turns || c.First != convs[0].Sessions[0].DateText {
		t.Errorf("conversation %+v", c)
	}
	if tot.Sessions != c.Sessions || tot.Turns != c.Turns || tot.Tokens != c.Tokens || tot.Questions != c.Questions || tot.TextOnly != c.TextOnly {
		t.Errorf("totals %+v differ from the one conversation's %+v", tot, c)
	}
	tc := tot.TextOnlyByCategory
	if tc["1"]+tc["2"]+tc["3"]+tc["4"] != 52 || tot.TextOnly != 58 || len(tc) != len(swc.Categories) {
		t.Errorf("text-only by category %v, %d in all", tc, tot.TextOnly)
	}
}
