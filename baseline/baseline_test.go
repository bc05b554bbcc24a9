package baseline

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/mock"
	"github.com/swcmem/swc/tokens"
)

// summaryGister answers a fixed summary and records the requests in *reqs.
func summaryGister(reqs *[]swc.GistRequest) *mock.Gister {
	return &mock.Gister{ID: "fake", GistFn: func(_ context.Context, req swc.GistRequest) (string, error) {
		*reqs = append(*reqs, req)
		return "Summary: Ana and Ben talked about many things.", nil
	}}
}

func conv(sessions, turns int) *swc.Conversation {
	c := &swc.Conversation{ID: "t", SpeakerA: "Ana", SpeakerB: "Ben"}
	start := time.Date(2023, 5, 1, 10, 0, 0, 0, time.UTC)
	for i := range sessions {
		d := start.AddDate(0, 0, 7*i)
		s := swc.Session{Index: i, Start: d, DateText: d.Format("3:04 pm on 2 January, 2006")}
		for j := range turns {
			s.Turns = append(s.Turns, swc.Turn{ID: fmt.Sprintf("D%d:%d", i+1, j+1), Speaker: []string{"Ana", "Ben"}[j%2],
				Text: fmt.Sprintf("Session %d turn %d: we talked about the garden and the trip to Lisbon.", i+1, j+1)})
		}
		c.Sessions = append(c.Sessions, s)
	}
	return c
}

func TestFull(t *testing.T) {
	c := conv(3, 4)
	x, err := Full{}.Compress(context.Background(), c, swc.CompressOptions{Budget: 10})
	if err != nil {
		t.Fatal(err)
	}
	if x.Text != swc.RenderConversation(c) || x.Budget != 0 || len(x.Verbatim) != 12 {
		t.Errorf("full context: budget %d, %d verbatim turns", x.Budget, len(x.Verbatim))
	}
}

func TestTruncation(t *testing.T) {
	c := conv(6, 10)
	x, err := Truncation{}.Compress(context.Background(), c, swc.CompressOptions{Budget: 600})
	if err != nil {
		t.Fatal(err)
	}
	if x.Tokens > 600 || tokens.Count(x.Text) != x.Tokens {
		t.Fatalf("%d tokens", x.Tokens)
	}
	if x.Chunks[0].Action != swc.ActionVerbatim || !x.Chunks[0].Pinned {
		t.Errorf("session 0 not pinned: %s", x.Chunks[0].Action)
	}
	if x.Chunks[5].Action == swc.ActionDropped {
		t.Error("the last session was dropped")
	}
	// Kept turns are session 0 plus a contiguous most-recent run.
	last := x.Verbatim[len(x.Verbatim)-1]
	if last != "D6:10" {
		t.Errorf("the most recent turn %s is not kept last", last)
	}
	if !strings.HasPrefix(x.Text, "[Session 1 —") {
		t.Errorf("text starts %q", x.Text[:30])
	}
	for i := 1; i < 5; i++ {
		if x.Chunks[i].Action == swc.ActionVerbatim && x.Chunks[i+1].Action != swc.ActionVerbatim {
			t.Errorf("session %d kept whole but a later one is not", i)
		}
	}
}

func TestTruncationTinyBudget(t *testing.T) {
	c := conv(3, 10)
	x, err := Truncation{}.Compress(context.Background(), c, swc.CompressOptions{Budget: 60})
	if err != nil {
		t.Fatal(err)
	}
	if x.Tokens > 60 {
		t.Fatalf("%d tokens", x.Tokens)
	}
	if _, err := (Truncation{}).Compress(context.Background(), c, swc.CompressOptions{}); swc.ErrorCode(err) != swc.EINVALID {
		t.Errorf("zero budget: %v", err)
	}
}

func TestSliding(t *testing.T) {
	c := conv(8, 10)
	var reqs []swc.GistRequest
	s := NewSliding("sliding", summaryGister(&reqs), swc.GistSummary)
	x, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: 800})
	if err != nil {
		t.Fatal(err)
	}
	if x.Tokens > 800 {
		t.Fatalf("%d tokens", x.Tokens)
	}
	if len(reqs) != 1 || reqs[0].Variant != swc.GistSummary {
		t.Fatalf("gister requests %+v", reqs)
	}
	if !strings.HasPrefix(x.Text, "[Summary of sessions 1–") || !strings.Contains(x.Text, "Summary: Ana and Ben") {
		t.Errorf("no running summary first:\n%s", x.Text)
	}
	// The summary covers exactly the turns not in the window.
	if len(x.Gists) != 1 {
		t.Fatalf("%d gist records", len(x.Gists))
	}
	inSummary := map[string]bool{}
	for _, id := range x.Gists[0].Turns {
		inSummary[id] = true
	}
	for _, id := range x.Verbatim {
		if inSummary[id] {
			t.Errorf("turn %s is both summarised and verbatim", id)
		}
	}
	if len(inSummary)+len(x.Verbatim) != 80 {
		t.Errorf("%d summarised + %d verbatim turns of 80", len(inSummary), len(x.Verbatim))
	}
	if !strings.Contains(reqs[0].Date, " to ") {
		t.Errorf("summary date %q should span sessions", reqs[0].Date)
	}
}

func TestSlidingFitsWhole(t *testing.T) {
	c := conv(2, 3)
	var reqs []swc.GistRequest
	g := summaryGister(&reqs)
	x, err := NewSliding("sliding", g, swc.GistSummary).Compress(context.Background(), c, swc.CompressOptions{Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	if g.Calls.Load() != 0 || x.Text != swc.RenderConversation(c) {
		t.Error("a conversation within the budget should be kept whole, without a summary")
	}
}

func TestSlidingLongSummaryAndErrors(t *testing.T) {
	c := conv(8, 10)
	long := &mock.Gister{GistFn: func(context.Context, swc.GistRequest) (string, error) {
		return strings.Repeat("A very long summary sentence. ", 300), nil
	}}
	x, err := NewSliding("sliding", long, swc.GistSummary).Compress(context.Background(), c, swc.CompressOptions{Budget: 500})
	if err != nil {
		t.Fatal(err)
	}
	if x.Tokens > 500 {
		t.Fatalf("%d tokens with an oversized summary", x.Tokens)
	}
	boom := errors.New("boom")
	bad := &mock.Gister{GistFn: func(context.Context, swc.GistRequest) (string, error) { return "", boom }}
	if _, err := NewSliding("sliding", bad, swc.GistSummary).Compress(context.Background(), c, swc.CompressOptions{Budget: 500}); !errors.Is(err, boom) {
		t.Errorf("gister failure: %v", err)
	}
}

func TestBudgetProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 40 {
		c := conv(2+rng.IntN(15), 1+rng.IntN(15))
		budget := 1 + rng.IntN(3000)
		if trial%4 == 0 {
			budget = 1 + rng.IntN(12) // smaller than a header
		}
		for _, s := range []swc.Strategy{Truncation{}, NewSliding("sliding", summaryGister(new([]swc.GistRequest)), swc.GistSummary)} {
			x, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: budget})
			if err != nil {
				t.Fatal(err)
			}
			if n := tokens.Count(x.Text); n > budget || n != x.Tokens {
				t.Fatalf("trial %d %s: %d tokens (reported %d), budget %d", trial, s.Name(), n, x.Tokens, budget)
			}
		}
	}
}
