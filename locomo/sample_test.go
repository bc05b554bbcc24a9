package locomo

import (
	"testing"
	"time"

	"github.com/swcmem/swc"
)

func TestSample(t *testing.T) {
	convs, err := Sample()
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 1 {
		t.Fatalf("sample has %d conversations", len(convs))
	}
	c := convs[0]
	if len(c.Sessions) < 8 {
		t.Errorf("sample has %d sessions, want ≥ 8", len(c.Sessions))
	}
	if span := c.Sessions[len(c.Sessions)-1].Start.Sub(c.Sessions[0].Start); span < 60*24*time.Hour {
		t.Errorf("sample spans %v, want several months", span)
	}
	cats := map[swc.Category]int{}
	textOnly := 0
	for _, q := range c.Questions {
		cats[q.Category]++
		if len(q.Evidence) == 0 {
			t.Errorf("%s has no evidence", q.ID)
		}
		if TextOnly(q) {
			textOnly++
		}
	}
	if len(c.Questions) < 30 {
		t.Errorf("sample has %d questions, want ≥ 30", len(c.Questions))
	}
	for _, cat := range swc.Categories {
		if cats[cat] == 0 {
			t.Errorf("no question of category %d", cat)
		}
	}
	if textOnly == len(c.Questions) {
		t.Error("the sample should exercise the text-only filter with at least one image question")
	}
}
