package sleep_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/gist"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/mock"
	"github.com/swcmem/swc/sleep"
	"github.com/swcmem/swc/sqlite"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// setup returns a memory over a fresh SQLite store holding the built-in
// LoCoMo sample's first n sessions as tenant t's conversation "c".
func setup(t *testing.T, sched consolidate.Schedule, n int) (*sleep.Service, *sqlite.DB, *clock, []swc.Message) {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "swc.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	convs, err := locomo.Sample()
	if err != nil {
		t.Fatal(err)
	}
	msgs := chat.FromConversation(convs[0].Upto(n))
	clk := &clock{t: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	m := &sleep.Service{Store: db, Gister: gist.NewExtractive(), Fallback: gist.NewExtractive(),
		Strategy: "swc-anchored", Budget: 4000, Schedule: sched, Now: clk.now}
	return m, db, clk, msgs
}

func appendAll(t *testing.T, db *sqlite.DB, msgs []swc.Message, at time.Time) {
	t.Helper()
	if _, err := db.AppendMessages(context.Background(), "t", "c", msgs, swc.AppendOptions{Rule: swc.DefaultSessionRule(), Now: func() time.Time { return at }}); err != nil {
		t.Fatal(err)
	}
}

func TestDueBySchedule(t *testing.T) {
	ctx := context.Background()
	type step struct {
		sessions int           // sessions stored so far (appended in order)
		advance  time.Duration // clock moves after the append
		wantOK   bool
		wantWait time.Duration
	}
	cases := []struct {
		name  string
		sched consolidate.Schedule
		steps []step
	}{
		{"idle:10m", consolidate.Schedule{Kind: consolidate.Idle, Window: 10 * time.Minute}, []step{
			{sessions: 2, advance: 0, wantOK: true, wantWait: 10 * time.Minute},
			{sessions: 2, advance: 4 * time.Minute, wantOK: true, wantWait: 6 * time.Minute},
			{sessions: 3, advance: 0, wantOK: true, wantWait: 10 * time.Minute}, // a new message restarts the wait
			{sessions: 3, advance: 11 * time.Minute, wantOK: true, wantWait: 0},
		}},
		{"every-3", consolidate.Schedule{Kind: consolidate.EveryK, K: 3}, []step{
			{sessions: 2, wantOK: false},
			{sessions: 3, wantOK: true},
		}},
		{"reactive:1500", consolidate.Schedule{Kind: consolidate.Reactive, Threshold: 1500}, []step{
			{sessions: 1, wantOK: false},
			{sessions: 4, wantOK: true},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, db, clk, _ := setup(t, tc.sched, 0)
			convs, _ := locomo.Sample()
			all := chat.FromConversation(convs[0])
			stored := 0
			for i, st := range tc.steps {
				var add []swc.Message
				for _, msg := range all[stored:] {
					if sessionNumber(msg) > st.sessions {
						break
					}
					add = append(add, msg)
				}
				if len(add) > 0 {
					appendAll(t, db, add, clk.t)
					stored += len(add)
				}
				clk.t = clk.t.Add(st.advance)
				wait, ok, err := m.Due(ctx, "t", "c")
				if err != nil {
					t.Fatal(err)
				}
				if ok != st.wantOK || (ok && wait != st.wantWait) {
					t.Errorf("step %d (%d sessions): due %v wait %v; want %v %v", i, st.sessions, ok, wait, st.wantOK, st.wantWait)
				}
			}
		})
	}
}

func sessionNumber(m swc.Message) int {
	var n int
	fmt.Sscanf(m.Session, "S%d", &n)
	return n
}

func TestConsolidateThenRead(t *testing.T) {
	ctx := context.Background()
	m, db, clk, msgs := setup(t, consolidate.Schedule{Kind: consolidate.Idle, Window: time.Minute}, 0)
	appendAll(t, db, msgs, clk.t)
	// Nothing consolidated: all sessions pending, read path works.
	r, err := m.Context(ctx, "t", "c", sleep.Request{Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	if r.ConsolidatedThrough != 0 || r.PendingSessions == 0 || r.Tokens > 4000 {
		t.Fatalf("before: through %d pending %d tokens %d", r.ConsolidatedThrough, r.PendingSessions, r.Tokens)
	}
	out, err := m.Consolidate(ctx, "t", "c")
	if err != nil {
		t.Fatal(err)
	}
	if !out.Consolidated || out.Gists == 0 {
		t.Fatalf("consolidation: %+v", out)
	}
	// Nothing new: a second call does nothing.
	if again, _ := m.Consolidate(ctx, "t", "c"); again.Consolidated {
		t.Error("consolidated again with nothing new")
	}
	if _, ok, _ := m.Due(ctx, "t", "c"); ok {
		t.Error("due with nothing new")
	}
	// The read path uses the stored gists and no gister at all.
	m.Fallback = &mock.Gister{GistFn: func(context.Context, swc.GistRequest) (string, error) {
		return "", fmt.Errorf("the read path called a gister")
	}}
	r2, err := m.Context(ctx, "t", "c", sleep.Request{Budget: 4000})
	if err != nil {
		t.Fatalf("read after consolidation needed a gister: %v", err)
	}
	if r2.PendingSessions != 0 || r2.ConsolidatedThrough != out.Through {
		t.Errorf("after: %+v", r2)
	}
	gists := 0
	for _, ch := range r2.Chunks {
		if ch.Action == swc.ActionGist {
			gists++
		}
	}
	if gists == 0 {
		t.Error("no gist in the context after consolidation")
	}
	// A request is owed until the next consolidation.
	if err := db.RequestConsolidation(ctx, "t", "c", clk.t.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if wait, ok, _ := m.Due(ctx, "t", "c"); !ok || wait != 0 {
		t.Errorf("requested: due %v wait %v", ok, wait)
	}
	clk.t = clk.t.Add(2 * time.Second)
	if _, err := m.Consolidate(ctx, "t", "c"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := m.Due(ctx, "t", "c"); ok {
		t.Error("request still owed after consolidation")
	}
}

// TestDefaultStrategy: a Service without a Strategy consolidates with and
// serves strategy.Default (swc-anchored); strategies it does not serve are
// refused, naming those it does.
func TestDefaultStrategy(t *testing.T) {
	m, db, _, msgs := setup(t, consolidate.Schedule{Kind: consolidate.Idle, Window: time.Minute}, 3)
	m.Strategy = ""
	r, err := m.Normalize(sleep.Request{})
	if err != nil || r.Strategy != "swc-anchored" {
		t.Fatalf("Normalize = %+v, %v", r, err)
	}
	ctx := context.Background()
	if _, err := db.AppendMessages(ctx, "t", "c", msgs, swc.AppendOptions{Rule: swc.DefaultSessionRule(), Now: func() time.Time { return time.Date(2026, 1, 1, 11, 0, 0, 0, time.UTC) }}); err != nil {
		t.Fatal(err)
	}
	res, err := m.Context(ctx, "t", "c", sleep.Request{})
	if err != nil || res.Strategy != "swc-anchored" {
		t.Fatalf("Context: %v, %v", res, err)
	}
	if _, err := m.Normalize(sleep.Request{Strategy: "swc-recall"}); err == nil || !strings.Contains(err.Error(), "want one of full, truncation, swc-full, swc-temporal, swc-anchored") {
		t.Errorf("swc-recall: %v", err)
	}
}
