package consolidate

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
)

// loader returns Resume's load over c's sessions, counting the sessions
// asked for.
func loader(c *swc.Conversation, asked *int) func([]int) ([]swc.Session, error) {
	return func(idx []int) ([]swc.Session, error) {
		var out []swc.Session
		for _, i := range idx {
			out = append(out, c.Sessions[i])
		}
		*asked += len(idx)
		return out, nil
	}
}

func anchorDay(text string, ref time.Time) string {
	return strings.ReplaceAll(text, "session", "session ["+ref.Format("2 Jan")+"]")
}

func TestResumeEveryConsolidatedIsCompress(t *testing.T) {
	ctx := context.Background()
	c := testConversation(12, 6)
	for _, tc := range []struct {
		name   string
		demote bool
		anchor bool
	}{{"plain", false, false}, {"demote", true, false}, {"anchored", false, true}} {
		s := newTest(lineGister())
		s.Config.Demote = tc.demote
		if tc.anchor {
			s.Anchor = anchorDay
		}
		d, err := s.Decide(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		for _, budget := range []int{40, 150, 400, 900, 100000} {
			want, err := s.Compress(ctx, c, swc.CompressOptions{Budget: budget})
			if err != nil {
				t.Fatal(err)
			}
			asked := 0
			got, err := s.Resume(ctx, d, len(c.Sessions), &swc.Conversation{}, nil, budget, loader(c, &asked))
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != want.Text || got.Tokens != want.Tokens || !reflect.DeepEqual(got.Chunks, want.Chunks) {
				t.Errorf("%s, budget %d: resumed context differs:\n%s\nwant\n%s", tc.name, budget, got.Text, want.Text)
			}
			verbatim := 0
			for _, ch := range want.Chunks {
				if ch.Action == swc.ActionVerbatim || ch.Action == swc.ActionPartial {
					verbatim++
				}
			}
			if asked > verbatim+3 { // the pinned ones are loaded before the cut
				t.Errorf("%s, budget %d: loaded %d sessions for %d verbatim", tc.name, budget, asked, verbatim)
			}
		}
	}
}

func TestResumeNothingConsolidatedIsCompress(t *testing.T) {
	ctx := context.Background()
	c := testConversation(9, 5)
	s := newTest(lineGister())
	s.Schedule = Schedule{Kind: Through, At: 0}
	for _, budget := range []int{60, 300, 100000} {
		want, err := s.Compress(ctx, c, swc.CompressOptions{Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Resume(ctx, nil, len(c.Sessions), c, nil, budget, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != want.Text || !reflect.DeepEqual(got.Chunks, want.Chunks) {
			t.Errorf("budget %d: resumed context differs:\n%s\nwant\n%s", budget, got.Text, want.Text)
		}
	}
}

func TestResumeTail(t *testing.T) {
	ctx := context.Background()
	c := testConversation(20, 4)
	s := newTest(lineGister())
	n := len(c.Sessions)

	// Nothing consolidated: session 0 and the last three read.
	tail := &swc.Conversation{ID: c.ID, Sessions: c.Sessions[n-3:]}
	first := c.Sessions[0]
	got, err := s.Resume(ctx, nil, n, tail, &first, 100000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Chunks) != n {
		t.Fatalf("%d chunk reports for %d sessions", len(got.Chunks), n)
	}
	for i, ch := range got.Chunks {
		read := i == 0 || i >= n-3
		if read != (ch.Action == swc.ActionVerbatim) || !read && !strings.HasPrefix(ch.Reason, "not read") {
			t.Errorf("session %d: %s (%s)", i, ch.Action, ch.Reason)
		}
	}
	if !strings.Contains(got.Text, "[Sessions 2–17 omitted]") || !strings.HasPrefix(got.Text, swc.SessionHeader(&c.Sessions[0])) {
		t.Errorf("context:\n%s", got.Text)
	}

	// Fifteen consolidated, the last five pending and read: the
	// consolidated sessions keep their tiers, and nothing is cut at a
	// large budget, so the text is Compress's under the same schedule.
	d, err := s.Decide(ctx, c.Upto(15))
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	got, err = s.Resume(ctx, d, n, &swc.Conversation{ID: c.ID, Sessions: c.Sessions[15:]}, nil, 100000, loader(c, &asked))
	if err != nil {
		t.Fatal(err)
	}
	s.Schedule = Schedule{Kind: Through, At: 15}
	want, err := s.Compress(ctx, c, swc.CompressOptions{Budget: 100000})
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != want.Text {
		t.Errorf("resumed:\n%s\nwant\n%s", got.Text, want.Text)
	}
	for i := range want.Chunks {
		g, w := got.Chunks[i], want.Chunks[i]
		if g.Tier != w.Tier || g.Action != w.Action || g.Reason != w.Reason || g.Signals.Recency != w.Signals.Recency {
			t.Errorf("session %d: %+v, want %+v", i, g, w)
		}
	}
	// At a small budget it keeps to the budget.
	for _, budget := range []int{30, 120} {
		got, err := s.Resume(ctx, d, n, &swc.Conversation{ID: c.ID, Sessions: c.Sessions[15:]}, nil, budget, loader(c, &asked))
		if err != nil {
			t.Fatal(err)
		}
		if got.Tokens > budget && got.Tokens != 0 {
			t.Errorf("budget %d: %d tokens", budget, got.Tokens)
		}
	}
	// A session changed since its consolidation is an error, not a wrong
	// context.
	changed := *c
	changed.Sessions = append([]swc.Session(nil), c.Sessions...)
	changed.Sessions[0].Turns = append([]swc.Turn{{ID: "x", Speaker: "Ana", Text: "an extra turn"}}, c.Sessions[0].Turns...)
	if _, err := s.Resume(ctx, d, n, &swc.Conversation{Sessions: c.Sessions[15:]}, nil, 100000, loader(&changed, &asked)); err == nil {
		t.Error("a changed session was resumed from")
	}
}

// TestEstimatorFollowsEstimate checks the running estimate against
// plan.estimate after every removal, down to nothing, with and without
// demotion.
func TestEstimatorFollowsEstimate(t *testing.T) {
	ctx := context.Background()
	for _, demote := range []bool{false, true} {
		c := testConversation(15, 4)
		s := newTest(lineGister())
		s.Config.Demote = demote
		p, err := s.planWith(ctx, c, newGistMemo(s.Gister), true, s.newCalls(c, mapCache{}))
		if err != nil {
			t.Fatal(err)
		}
		e := newEstimator(p)
		next := p.steps()
		steps := 0
		for i := next(); i >= 0; i = next() {
			e.update(i)
			steps++
			if want := p.estimate(); e.est != want {
				t.Fatalf("demote %v, step %d (chunk %d): estimator %d, estimate %d", demote, steps, i, e.est, want)
			}
		}
		if steps < 15 || e.est != 0 {
			t.Errorf("demote %v: %d steps, estimate %d at the end", demote, steps, e.est)
		}
	}
}
