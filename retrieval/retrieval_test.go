package retrieval_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/internal/locomotest"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/mention"
	"github.com/swcmem/swc/retrieval"
	"github.com/swcmem/swc/selection"
	"github.com/swcmem/swc/tokens"
)

func day(d int) time.Time { return time.Date(2023, 5, d, 13, 0, 0, 0, time.UTC) }

// conv is three sessions of two turns each.
func conv() *swc.Conversation {
	ses := func(i int, turns ...swc.Turn) swc.Session {
		return swc.Session{Index: i, Start: day(1 + 7*i), DateText: day(1 + 7*i).Format("2 January, 2006"), Turns: turns}
	}
	return &swc.Conversation{ID: "c", SpeakerA: "Ann", SpeakerB: "Bob", Sessions: []swc.Session{
		ses(0, swc.Turn{ID: "D1:1", Speaker: "Ann", Text: "I adopted a puppy named Rex yesterday."},
			swc.Turn{ID: "D1:2", Speaker: "Bob", Text: "Congratulations! What breed?"}),
		ses(1, swc.Turn{ID: "D2:1", Speaker: "Bob", Text: "How was the weekend?"},
			swc.Turn{ID: "D2:2", Speaker: "Ann", Text: "Quiet. I read a novel about sailing."}),
		ses(2, swc.Turn{ID: "D3:1", Speaker: "Ann", Text: "Rex chewed my shoes last week."},
			swc.Turn{ID: "D3:2", Speaker: "Bob", Text: "Puppies do that."}),
	}}
}

func TestCompress(t *testing.T) {
	plain := retrieval.New("rag-bm25", &selection.Analyzer{})
	anchored := retrieval.New("rag-bm25-anchored", &selection.Analyzer{Anchor: mention.Anchor})
	for _, tt := range []struct {
		name   string
		s      *retrieval.BM25
		budget int
		query  string
		want   string
	}{
		{"best turn, sessions omitted around it", plain, 40, "What book did Ann read?",
			"[Session 1 omitted]\n\n[Session 2 — 8 May 2023]\n…\nAnn: Quiet. I read a novel about sailing.\n\n[Session 3 omitted]\n"},
		{"two hits in conversation order", plain, 65, "When did Ann adopt Rex?",
			"[Session 1 — 1 May 2023]\nAnn: I adopted a puppy named Rex yesterday.\n…\n\n[Session 2 omitted]\n\n[Session 3 — 15 May 2023]\nAnn: Rex chewed my shoes last week.\n…\n"},
		{"anchored lines, a turn without a query term fills", anchored, 55, "When did Ann adopt Rex?",
			"[Session 1 — 1 May 2023]\nAnn: I adopted a puppy named Rex yesterday [30 April 2023].\nBob: Congratulations! What breed?\n\n[Sessions 2–3 omitted]\n"},
		{"no query: the most recent turns", plain, 45, "",
			"[Sessions 1–2 omitted]\n\n[Session 3 — 15 May 2023]\nAnn: Rex chewed my shoes last week.\nBob: Puppies do that.\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			x, err := tt.s.Compress(context.Background(), conv(), swc.CompressOptions{Budget: tt.budget, Query: tt.query})
			if err != nil {
				t.Fatal(err)
			}
			if x.Text != tt.want {
				t.Errorf("context\n%s\nwant\n%s", x.Text, tt.want)
			}
			if n := tokens.Count(x.Text); n != x.Tokens || n > tt.budget {
				t.Errorf("tokens %d, counted %d, budget %d", x.Tokens, n, tt.budget)
			}
			if x.Strategy != tt.s.Name() {
				t.Errorf("strategy %q", x.Strategy)
			}
		})
	}
}

func TestCompressErrors(t *testing.T) {
	s := retrieval.New("rag-bm25", &selection.Analyzer{})
	for _, tt := range []struct {
		c      *swc.Conversation
		budget int
	}{
		{conv(), 0},
		{&swc.Conversation{ID: "empty"}, 100},
	} {
		_, err := s.Compress(context.Background(), tt.c, swc.CompressOptions{Budget: tt.budget, Query: "q"})
		var e *swc.Error
		if !errors.As(err, &e) || e.Code != swc.EINVALID {
			t.Errorf("budget %d, %d sessions: %v, want EINVALID", tt.budget, len(tt.c.Sessions), err)
		}
	}
}

// TestLoCoMo checks on every LoCoMo conversation, for some questions and
// budgets: within the budget with an exact count; a budget above the
// conversation's size keeps every turn; the best-ranked turn is kept.
func TestLoCoMo(t *testing.T) {
	convs, _, err := locomo.LoadFile(locomotest.Wide(t))
	if err != nil {
		t.Fatal(err)
	}
	a := &selection.Analyzer{Anchor: mention.Anchor}
	s := retrieval.New("rag-bm25-anchored", a)
	for _, c := range convs {
		x := a.Analyze(c)
		all := 0
		for i := range c.Sessions {
			all += len(c.Sessions[i].Turns)
		}
		whole := x.WholeTokens()
		for k, q := range c.Questions[:5] {
			for _, budget := range []int{1000, 4000, whole + k} {
				ctx, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: budget, Query: q.Question})
				if err != nil {
					t.Fatal(err)
				}
				if n := tokens.Count(ctx.Text); n != ctx.Tokens || n > budget {
					t.Fatalf("%s %s budget %d: %d tokens, counted %d", c.ID, q.ID, budget, ctx.Tokens, n)
				}
				if budget >= whole && (len(ctx.Verbatim) != all || ctx.Tokens != whole) {
					t.Errorf("%s budget %d above its size: %d of %d turns", c.ID, budget, len(ctx.Verbatim), all)
				}
				best := x.Turns[retrieval.Rank(x, q.Question)[0]]
				if !strings.Contains(ctx.Text, best.Line) {
					t.Errorf("%s %s budget %d: the best turn %q is not in the context", c.ID, q.ID, budget, best.Line)
				}
			}
		}
	}
}
