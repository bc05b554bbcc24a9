package consolidate

import (
	"context"
	"testing"

	"github.com/swcmem/swc"
)

// TestTiersHandComputed: with recency as the only weight, session i of 10
// scores exactly i/10, so the tiers can be written down by hand, including
// both boundaries (0.3 is mid, 0.6 is mid, 0.7 is high) (docs/method.md, tiers).
func TestTiersHandComputed(t *testing.T) {
	c := testConversation(10, 3)
	s := newTest(lineGister())
	s.Config.Weights = Weights{Recency: 1}
	x, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: 100000})
	if err != nil {
		t.Fatal(err)
	}
	H, M, L := swc.TierHigh, swc.TierMid, swc.TierLow
	want := []struct {
		score float64
		tier  swc.Tier
	}{
		{0, H}, // pinned: session 0
		{0.1, L}, {0.2, L},
		{0.3, M}, {0.4, M}, {0.5, M}, {0.6, M},
		{0.7, H},
		{0.8, H}, {0.9, H}, // pinned: the last two
	}
	for i, ch := range x.Chunks {
		if ch.Score != want[i].score || ch.Tier != want[i].tier {
			t.Errorf("session %d: score %v tier %s, want %v %s", i, ch.Score, ch.Tier, want[i].score, want[i].tier)
		}
		wantAction := map[swc.Tier]swc.Action{H: swc.ActionVerbatim, M: swc.ActionGist, L: swc.ActionDropped}[want[i].tier]
		if ch.Action != wantAction {
			t.Errorf("session %d: action %s, want %s", i, ch.Action, wantAction)
		}
	}
}
