package bench

import (
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/internal/locomotest"
	"github.com/swcmem/swc/locomo"
)

// locomoFile is the shared LoCoMo file, relative to this package.
var locomoFile = locomotest.Path()

// TestGoldForAdversarial: every category-5 question is judged against the
// decline, even the one LoCoMo gives an answer ("Is Oscar Melanie's
// pet?" → "No"); other categories keep their answer.
func TestGoldForAdversarial(t *testing.T) {
	for _, tt := range []struct {
		q    swc.Question
		want string
	}{
		{swc.Question{Category: swc.Adversarial}, AdversarialGold},
		{swc.Question{Category: swc.Adversarial, Answer: "No"}, AdversarialGold},
		{swc.Question{Category: swc.Adversarial, AdversarialAnswer: "a cat"}, AdversarialGold},
		{swc.Question{Category: swc.Temporal, Answer: "7 May 2023"}, "7 May 2023"},
	} {
		if got := GoldFor(tt.q); got != tt.want {
			t.Errorf("GoldFor(%+v) = %q, want %q", tt.q, got, tt.want)
		}
	}
	locomotest.Need(t) // the LoCoMo half
	convs, _, err := locomo.LoadFile(locomoFile)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range convs {
		for _, q := range c.Questions {
			if q.Category != swc.Adversarial || !locomo.TextOnly(q) {
				continue
			}
			n++
			if g := GoldFor(q); g != AdversarialGold {
				t.Errorf("%s %q: judged against %q", q.ID, q.Question, g)
			}
		}
	}
	if n != 434 {
		t.Errorf("%d text-only category-5 questions, want 434", n)
	}
}
