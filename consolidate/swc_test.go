package consolidate

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/mock"
	"github.com/swcmem/swc/tokens"
)

func newTest(g swc.Gister) *SWC {
	return New("swc-full", hashEmbedder(), g, swc.GistFull, countCaps)
}

func TestSignalsAndPins(t *testing.T) {
	c := testConversation(8, 6)
	s := newTest(lineGister())
	x, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: 100000})
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Chunks) != 8 {
		t.Fatalf("%d chunk reports", len(x.Chunks))
	}
	for i, ch := range x.Chunks {
		if want := float64(i) / 8; ch.Signals.Recency != want {
			t.Errorf("session %d recency = %v, want %v", i, ch.Signals.Recency, want)
		}
		for _, v := range []float64{ch.Signals.Downstream, ch.Signals.Recency, ch.Signals.Density} {
			if v < 0 || v > 1 {
				t.Errorf("session %d signal out of [0,1]: %+v", i, ch.Signals)
			}
		}
		want := 0.4*ch.Signals.Downstream + 0.3*ch.Signals.Recency + 0.3*ch.Signals.Density
		if d := ch.Score - want; d > 1e-9 || d < -1e-9 {
			t.Errorf("session %d score %v, want %v", i, ch.Score, want)
		}
		pinned := i == 0 || i >= 6
		if ch.Pinned != pinned {
			t.Errorf("session %d pinned = %v", i, ch.Pinned)
		}
		if pinned && (ch.Tier != swc.TierHigh || ch.Action != swc.ActionVerbatim) {
			t.Errorf("pinned session %d: tier %s action %s", i, ch.Tier, ch.Action)
		}
	}
	if x.Chunks[7].Signals.Downstream != 0 {
		t.Errorf("last chunk downstream = %v, want 0", x.Chunks[7].Signals.Downstream)
	}
	maxD := 0.0
	for _, ch := range x.Chunks {
		maxD = max(maxD, ch.Signals.Density)
	}
	if maxD != 1 {
		t.Errorf("max density = %v, want 1 (normalised)", maxD)
	}
}

func TestTiers(t *testing.T) {
	c := testConversation(10, 4)
	g := lineGister()
	s := newTest(g)
	// Density only, so the tiers follow the capitalised-word counts; make
	// them differ by session.
	s.Config.Weights = Weights{Density: 1}
	for i := range c.Sessions {
		for j := range c.Sessions[i].Turns {
			c.Sessions[i].Turns[j].Text = "x" + strings.Repeat(" Word", i) + strings.Repeat(" word", 20-i)
		}
	}
	x, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: 100000})
	if err != nil {
		t.Fatal(err)
	}
	for i, ch := range x.Chunks {
		var want swc.Tier
		switch {
		case ch.Pinned || ch.Score > 0.6:
			want = swc.TierHigh
		case ch.Score >= 0.3:
			want = swc.TierMid
		default:
			want = swc.TierLow
		}
		if ch.Tier != want {
			t.Errorf("session %d score %.3f: tier %s, want %s", i, ch.Score, ch.Tier, want)
		}
		if (ch.Tier == swc.TierMid) != (ch.Action == swc.ActionGist) || (ch.Tier == swc.TierLow) != (ch.Action == swc.ActionDropped) {
			t.Errorf("session %d: tier %s but action %s", i, ch.Tier, ch.Action)
		}
		if ch.Action == swc.ActionGist && (ch.Gist == "" || ch.GistTokens == 0) {
			t.Errorf("session %d gisted without a gist", i)
		}
	}
	if !strings.Contains(x.Text, "(summary)") || !strings.Contains(x.Text, "(full)") {
		t.Errorf("gists not rendered:\n%s", x.Text)
	}
}

func TestMinMaxCalibration(t *testing.T) {
	c := testConversation(12, 4)
	s := newTest(lineGister())
	s.Config.Calibration = MinMax
	x, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: 100000})
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := 1.0, 0.0
	for _, ch := range x.Chunks {
		lo, hi = min(lo, ch.Score), max(hi, ch.Score)
	}
	for i, ch := range x.Chunks {
		scaled := (ch.Score - lo) / (hi - lo)
		if !ch.Pinned && scaled > 0.6 && ch.Tier != swc.TierHigh {
			t.Errorf("session %d scaled %.3f not high", i, scaled)
		}
		if !ch.Pinned && scaled < 0.3 && ch.Tier != swc.TierLow {
			t.Errorf("session %d scaled %.3f not low", i, scaled)
		}
	}
}

func TestBudgetOrder(t *testing.T) {
	c := testConversation(10, 8)
	s := newTest(lineGister())
	s.Config.High = 0.0 // everything high: the budget must drop verbatim chunks
	s.Config.Low = 0.0
	x, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: 1200})
	if err != nil {
		t.Fatal(err)
	}
	if x.Tokens > 1200 || tokens.Count(x.Text) != x.Tokens {
		t.Fatalf("tokens %d (recount %d), budget 1200", x.Tokens, tokens.Count(x.Text))
	}
	// Dropped non-pinned chunks must all score below the kept non-pinned ones.
	minKept, maxDropped := 2.0, -1.0
	for _, ch := range x.Chunks {
		if ch.Pinned {
			if ch.Action != swc.ActionVerbatim {
				t.Errorf("pinned session %d was %s although pins fit", ch.Session, ch.Action)
			}
			continue
		}
		if ch.Action == swc.ActionVerbatim {
			minKept = min(minKept, ch.Score)
		} else {
			maxDropped = max(maxDropped, ch.Score)
		}
	}
	if maxDropped > minKept {
		t.Errorf("dropped a chunk scoring %.3f but kept one scoring %.3f", maxDropped, minKept)
	}
	if len(x.Dropped) == 0 {
		t.Error("no drops reported")
	}
}

func TestPinnedAloneExceedBudget(t *testing.T) {
	c := testConversation(5, 10)
	s := newTest(lineGister())
	x, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: 300})
	if err != nil {
		t.Fatal(err)
	}
	if x.Tokens > 300 {
		t.Fatalf("tokens %d > 300", x.Tokens)
	}
	// Session 0's turns are cut last: it is intact if the others were
	// not cut to nothing.
	s0 := x.Chunks[0]
	for _, ch := range x.Chunks[3:] {
		if ch.Action != swc.ActionDropped && s0.Action != swc.ActionVerbatim {
			t.Errorf("session 0 was cut (%s) while session %d still has turns (%s)", s0.Action, ch.Session, ch.Action)
		}
	}
	// The kept turns of a partial chunk are its most recent ones.
	for _, ch := range x.Chunks {
		if ch.Action == swc.ActionPartial {
			last := c.Sessions[ch.Session].Turns[len(c.Sessions[ch.Session].Turns)-1].ID
			if ch.KeptTurns[len(ch.KeptTurns)-1] != last {
				t.Errorf("session %d kept %v, not its latest turns", ch.Session, ch.KeptTurns)
			}
		}
	}
}

func TestBudgetProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 60 {
		c := testConversation(3+rng.IntN(20), 2+rng.IntN(12))
		s := newTest(lineGister())
		s.Config.Weights = Weights{rng.Float64(), rng.Float64(), rng.Float64()}
		budget := 50 + rng.IntN(4000)
		x, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		if got := tokens.Count(x.Text); got > budget || got != x.Tokens {
			t.Fatalf("trial %d: %d tokens (reported %d), budget %d", trial, got, x.Tokens, budget)
		}
	}
}

func TestSchedules(t *testing.T) {
	c := testConversation(10, 6)
	// Gaps: sessions are 3 days apart except 4→5, which is 2 hours.
	c.Sessions[5].Start = c.Sessions[4].Start.Add(2 * time.Hour)
	tests := []struct {
		sched string
		want  []int
	}{
		{"end", []int{10}},
		{"every-k", []int{3, 6, 9}},
		{"every-4", []int{4, 8}},
		{"idle", []int{1, 2, 3, 4, 6, 7, 8, 9}},
		{"idle:100h", []int{6}}, // only the gap 5→6 (142 h) is longer
	}
	for _, tt := range tests {
		sc, err := ParseSchedule(tt.sched)
		if err != nil {
			t.Fatal(err)
		}
		g := lineGister()
		s := newTest(g)
		s.Schedule = sc
		x, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: 1500})
		if err != nil {
			t.Fatal(err)
		}
		if !equalInts(x.Consolidations, tt.want) {
			t.Errorf("%s: consolidations %v, want %v", tt.sched, x.Consolidations, tt.want)
		}
		if x.Tokens > 1500 {
			t.Errorf("%s: %d tokens over budget", tt.sched, x.Tokens)
		}
		last := 0
		if len(tt.want) > 0 {
			last = tt.want[len(tt.want)-1]
		}
		for _, ch := range x.Chunks {
			if ch.Session >= last && !ch.Pinned && ch.Action == swc.ActionGist {
				t.Errorf("%s: session %d arrived after the last consolidation but was gisted", tt.sched, ch.Session)
			}
		}
	}
	// Reactive fires once the context passes the threshold.
	sc, _ := ParseSchedule("reactive")
	s := newTest(lineGister())
	s.Schedule = sc
	x, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: 800})
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Consolidations) == 0 || x.Consolidations[0] == 1 {
		t.Errorf("reactive consolidations %v: want the first after a few sessions", x.Consolidations)
	}
}

func TestScheduleString(t *testing.T) {
	for in, want := range map[string]string{"idle": "idle:6h", "idle:90m": "idle:1h30m", "idle:45s": "idle:45s", "every-k": "every-3", "reactive:5000": "reactive:5000", "end": "end"} {
		sc, err := ParseSchedule(in)
		if err != nil || sc.String() != want {
			t.Errorf("ParseSchedule(%q).String() = %q, %v; want %q", in, sc.String(), err, want)
		}
	}
}

func TestParseScheduleErrors(t *testing.T) {
	for _, bad := range []string{"weekly", "every-0", "every-x", "reactive:-5", "idle:soon", "end:3", "reactive:50x", "every-3:9", "every-k:2x"} {
		if _, err := ParseSchedule(bad); err == nil || swc.ErrorCode(err) != swc.EINVALID {
			t.Errorf("ParseSchedule(%q) = %v, want an invalid error", bad, err)
		}
	}
	for _, good := range []string{"end", "every-k", "every-3", "every-k:5", "reactive", "reactive:5000", "idle", "idle:12h"} {
		sc, err := ParseSchedule(good)
		if err != nil {
			t.Errorf("ParseSchedule(%q): %v", good, err)
			continue
		}
		if again, err := ParseSchedule(sc.String()); err != nil || again.String() != sc.String() {
			t.Errorf("%q does not round-trip: %q", good, sc.String())
		}
	}
}

func TestReplayMemoisesGists(t *testing.T) {
	c := testConversation(12, 5)
	g := lineGister()
	s := newTest(g)
	s.Config.High, s.Config.Low = 2, 0 // every unpinned chunk is mid: gisted
	s.Schedule = Schedule{Kind: EveryK, K: 2}
	if _, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: 100000}); err != nil {
		t.Fatal(err)
	}
	// Consolidations after sessions 2, 4, …, 12 gist the unpinned sessions
	// 1..upto−3: 0 + 1 + 3 + 5 + 7 + 9 = 25 requests, of 9 distinct
	// chunks (sessions 1–9). Each is asked once.
	if n := g.Calls.Load(); n != 9 {
		t.Errorf("%d gister calls, want 9 (one per distinct chunk)", n)
	}
}

func TestAnchoredInput(t *testing.T) {
	c := testConversation(6, 4)
	var inputs []string
	g := &mock.Gister{GistFn: func(_ context.Context, req swc.GistRequest) (string, error) {
		inputs = append(inputs, req.Text)
		if req.Date == "" {
			t.Error("gister got no date")
		}
		return "gist", nil
	}}
	s := newTest(g)
	s.Config.Concurrency = 1
	s.Config.High, s.Config.Low = 2, 0 // everything unpinned is mid
	s.Anchor = func(text string, ref time.Time) string { return text + " [" + ref.Format("2 January 2006") + "]" }
	x, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: 100000})
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) == 0 || !strings.Contains(inputs[0], "[") {
		t.Fatalf("gister input not anchored: %q", inputs)
	}
	if !strings.Contains(x.Text, "[1 May 2023]") {
		t.Error("verbatim turns not anchored")
	}
}

func TestErrors(t *testing.T) {
	c := testConversation(4, 3)
	boom := errors.New("boom")
	s := newTest(&mock.Gister{GistFn: func(context.Context, swc.GistRequest) (string, error) { return "", boom }})
	s.Config.High = 2
	if _, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: 1000}); !errors.Is(err, boom) {
		t.Errorf("gister failure: %v", err)
	}
	s = New("x", &mock.Embedder{EmbedFn: func(context.Context, []string) ([][]float32, error) { return nil, boom }}, lineGister(), swc.GistFull, countCaps)
	if _, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: 1000}); !errors.Is(err, boom) {
		t.Errorf("embedder failure: %v", err)
	}
	s = newTest(lineGister())
	if _, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: 0}); swc.ErrorCode(err) != swc.EINVALID {
		t.Errorf("zero budget: %v", err)
	}
	s.Config.Low, s.Config.High = 0.9, 0.1
	if _, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: 100}); swc.ErrorCode(err) != swc.EINVALID {
		t.Errorf("bad thresholds: %v", err)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDemote(t *testing.T) {
	c := testConversation(10, 8)
	for _, demote := range []bool{false, true} {
		s := newTest(lineGister())
		s.Config.High, s.Config.Low = 0, 0 // everything high
		s.Config.Demote = demote
		x, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: 1500})
		if err != nil {
			t.Fatal(err)
		}
		if x.Tokens > 1500 {
			t.Fatalf("demote=%v: %d tokens", demote, x.Tokens)
		}
		gists := 0
		for _, ch := range x.Chunks {
			if ch.Action == swc.ActionGist {
				gists++
				if ch.Tier != swc.TierHigh || ch.Pinned {
					t.Errorf("demote=%v: session %d gisted with tier %s pinned %v", demote, ch.Session, ch.Tier, ch.Pinned)
				}
			}
		}
		if demote != (gists > 0) {
			t.Errorf("demote=%v: %d gists", demote, gists)
		}
		if demote != (len(x.Gists) > 0) {
			t.Errorf("demote=%v: %d gist records", demote, len(x.Gists))
		}
	}
}
