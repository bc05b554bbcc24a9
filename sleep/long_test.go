package sleep_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/gist"
	"github.com/swcmem/swc/memory"
	"github.com/swcmem/swc/postgres"
	"github.com/swcmem/swc/postgres/pgtest"
	"github.com/swcmem/swc/sleep"
	"github.com/swcmem/swc/sqlite"
)

// longStore opens an empty store of the backend: "sqlite", or "postgres"
// (skipped without $SWC_TEST_POSTGRES, failed in CI).
func longStore(tb testing.TB, backend string) swc.Store {
	tb.Helper()
	ctx := context.Background()
	if backend == "postgres" {
		pgtest.DSN(tb)
		db, err := postgres.Open(ctx, pgtest.Schema(tb), postgres.Config{})
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { db.Close() })
		return db
	}
	db, err := sqlite.Open(ctx, filepath.Join(tb.TempDir(), "swc.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

var longWords = strings.Fields("Ana Lisbon nurse hospital Rex shelter marathon Boston April Coach Lee Priya budget Atlas project Dune desert Porto boiler plumber euros invoice meeting Tuesday deadline report launch")

// longMessages returns messages from through to-1 of a long agent
// conversation, of about size bytes each, a minute apart from start (20
// messages to a session under the default rule), a system message first.
// With per > 0 they carry session ids, per messages to a session.
func longMessages(from, to, size, per int, start time.Time) []swc.Message {
	out := make([]swc.Message, 0, to-from)
	for i := from; i < to; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "Note %d: ", i)
		for j := 0; b.Len() < size; j++ {
			fmt.Fprintf(&b, "%s %d ", longWords[(i*7+j*3)%len(longWords)], (i*31+j)%997)
		}
		m := swc.Message{ID: fmt.Sprint("m", i), Role: swc.RoleUser, Content: b.String(), Time: start.Add(time.Duration(i) * time.Minute)}
		if per > 0 {
			m.Session = fmt.Sprint("s", i/per)
		}
		switch {
		case i == 0:
			m.Role, m.Content = swc.RoleSystem, "You are a helpful assistant."
		case i%2 == 1:
			m.Role = swc.RoleAssistant
		}
		out = append(out, m)
	}
	return out
}

var longStart = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// appendLong stores messages from to to-1 of longMessages as tenant t's
// conversation conv, through the store's API in batches of 1,000.
func appendLong(tb testing.TB, s swc.Store, conv string, from, to, size, per int) {
	tb.Helper()
	ctx := context.Background()
	for off := from; off < to; off += 1000 {
		msgs := longMessages(off, min(off+1000, to), size, per, longStart)
		now := msgs[len(msgs)-1].Time
		if _, err := s.AppendMessages(ctx, "t", conv, msgs, swc.AppendOptions{Rule: swc.DefaultSessionRule(), Now: func() time.Time { return now }}); err != nil {
			tb.Fatal(err)
		}
	}
}

func longService(s swc.Store) *sleep.Service {
	return &sleep.Service{Store: s, Gister: gist.NewExtractive(), Fallback: gist.NewExtractive(), Budget: 4000,
		Schedule: consolidate.Schedule{Kind: consolidate.Idle, Window: 10 * time.Minute}, Now: func() time.Time { return longStart }}
}

// readUncached returns the default context of conv from a service with
// an empty cache, and how long it took (its JSON included: Context
// encodes it to size the cache entry).
func readUncached(tb testing.TB, s swc.Store, conv string) (*sleep.Result, time.Duration) {
	tb.Helper()
	return readFormat(tb, s, conv, "")
}

// readFormat is readUncached of the context in format (text, openai or
// anthropic; "" the default).
func readFormat(tb testing.TB, s swc.Store, conv, format string) (*sleep.Result, time.Duration) {
	tb.Helper()
	m := longService(s)
	t0 := time.Now()
	res, err := m.Context(context.Background(), "t", conv, sleep.Request{Format: format})
	if err != nil {
		tb.Fatal(err)
	}
	return res, time.Since(t0)
}

// TestContextLongConversation reads the default context of a stored
// conversation of 100,000 messages, uncached, on each store: before any
// consolidation (the sessions the budget reaches), after one over the
// first 99,000 messages (its plan and the messages after it) and after
// one over all of them (its plan alone). Each read is bounded by a
// generous second (a loaded 2-core CI machine; a quiet one takes tens of
// ms, see docs/operations.md). The consolidated conversation has sessions
// of 80 short messages (by session id): consolidating 5,000 sessions of 20
// takes the job most of a minute, 1,250 a few seconds.
func TestContextLongConversation(t *testing.T) {
	if testing.Short() {
		t.Skip("stores 100,000 messages")
	}
	const n, size, bound = 100_000, 200, time.Second
	ctx := context.Background()
	last := longMessages(n-1, n, size, 0, longStart)[0].Content[:30]
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			s := longStore(t, backend)
			check := func(conv, what string, wantThrough, wantPending int) {
				t.Helper()
				var res *sleep.Result
				var took time.Duration
				for range 2 { // the second as another replica reads it: the same bytes
					r, d := readUncached(t, s, conv)
					if res != nil && string(r.JSON()) != string(res.JSON()) {
						t.Errorf("%s: two reads differ", what)
					}
					res, took = r, d
				}
				t.Logf("%s: uncached context in %v (%d tokens, %d chunks)", what, took, res.Tokens, len(res.Chunks))
				if took > bound {
					t.Errorf("%s: uncached context took %v, over %v", what, took, bound)
				}
				if res.Tokens > 4000 || res.Tokens < 2000 {
					t.Errorf("%s: %d tokens for a budget of 4000", what, res.Tokens)
				}
				if !strings.HasPrefix(res.Text, "You are a helpful assistant.\n\n[Session 1 —") || !strings.Contains(res.Text, last) {
					t.Errorf("%s: context lacks the instructions, session 1 or the last message:\n%.300s\n…\n%s", what, res.Text, res.Text[max(0, len(res.Text)-600):])
				}
				if res.ConsolidatedThrough != wantThrough || res.PendingSessions != wantPending {
					t.Errorf("%s: consolidated through %d, %d pending; want %d, %d", what, res.ConsolidatedThrough, res.PendingSessions, wantThrough, wantPending)
				}
				for _, format := range []string{"openai", "anthropic"} {
					checkMessages(t, s, conv, format, what, last, bound)
				}
			}
			appendLong(t, s, "c", 0, n, size, 0)
			check("c", "not consolidated", 0, n/20)

			const per, small = 80, 40
			m := longService(s)
			appendLong(t, s, "s", 0, n-1000, small, per)
			t0 := time.Now()
			if _, err := m.Consolidate(ctx, "t", "s"); err != nil {
				t.Fatal(err)
			}
			t.Logf("consolidation of %d messages: %v", n-1000, time.Since(t0))
			appendLong(t, s, "s", n-1000, n, small, per)
			through := (n - 1000 + per - 1) / per
			check("s", "consolidated, then 1,000 messages", through, n/per-through)
			if _, err := m.Consolidate(ctx, "t", "s"); err != nil {
				t.Fatal(err)
			}
			check("s", "consolidated", n/per, 0)
		})
	}
}

// checkMessages reads the context of conv in format (openai or
// anthropic) twice, uncached, and checks that both reads give the same
// bytes within bound, under the budget, with the memory (the consolidated
// history from session 1 on) and the last message.
func checkMessages(t *testing.T, s swc.Store, conv, format, what, last string, bound time.Duration) {
	t.Helper()
	var res *sleep.Result
	var took time.Duration
	for range 2 {
		r, d := readFormat(t, s, conv, format)
		if res != nil && string(r.JSON()) != string(res.JSON()) {
			t.Errorf("%s, %s: two reads differ", what, format)
		}
		res, took = r, d
	}
	body := string(res.JSON())
	t.Logf("%s, %s: uncached context in %v (%d tokens, %d chunks, %d bytes)", what, format, took, res.Tokens, len(res.Chunks), len(body))
	if took > bound {
		t.Errorf("%s, %s: uncached context took %v, over %v", what, format, took, bound)
	}
	if res.Tokens > 4000 || res.Tokens < 1000 {
		t.Errorf("%s, %s: %d tokens for a budget of 4000", what, format, res.Tokens)
	}
	if !strings.Contains(body, "Earlier conversation, consolidated") || !strings.Contains(body, "[Session 1 —") || !strings.Contains(body, last) || len(res.Chunks) == 0 {
		t.Errorf("%s, %s: context lacks the memory, session 1, its chunks or the last message:\n%.600s\n…\n%s", what, format, body, body[max(0, len(body)-600):])
	}
	if format == "openai" && !strings.Contains(body, "You are a helpful assistant.") || format == "anthropic" && !strings.HasPrefix(res.System, "You are a helpful assistant.") {
		t.Errorf("%s, %s: context lacks the instructions", what, format)
	}
	if format == "openai" {
		// One system message, the instructions then the memory: strict
		// chat templates refuse a second.
		var msgs []struct{ Role, Content string }
		b, _ := json.Marshal(res.Messages)
		if err := json.Unmarshal(b, &msgs); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		for i, m := range msgs {
			if m.Role == "system" && (i > 0 || !strings.HasPrefix(m.Content, "You are a helpful assistant.\n\nEarlier conversation, consolidated")) {
				t.Errorf("%s, openai: message %d is a system message: %.80q", what, i, m.Content)
			}
		}
		// tokens counts the messages as listed, the memory inside the
		// system message.
		in, err := chat.Parse([]byte(`{"messages":`+string(b)+`}`), chat.OpenAI)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if c, _ := memory.New(memory.DefaultOptions()); c.CountMessages(in.Messages) != res.Tokens {
			t.Errorf("%s, openai: tokens %d; the messages listed count %d", what, res.Tokens, c.CountMessages(in.Messages))
		}
	}
}

// BenchmarkContextLong reads the default context of a stored
// conversation of each size, uncached (a new service each time), on
// SQLite: "pending" never consolidated, "consolidated" after a
// consolidation of every message; in each format.
func BenchmarkContextLong(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			s := longStore(b, "sqlite")
			appendLong(b, s, "pending", 0, n, 200, 0)
			appendLong(b, s, "consolidated", 0, n, 200, 0)
			t0 := time.Now()
			if _, err := longService(s).Consolidate(context.Background(), "t", "consolidated"); err != nil {
				b.Fatal(err)
			}
			b.Logf("consolidation of %d messages: %v", n, time.Since(t0))
			for _, conv := range []string{"pending", "consolidated"} {
				for _, format := range []string{"text", "openai", "anthropic"} {
					b.Run(conv+"/"+format, func(b *testing.B) {
						for b.Loop() {
							readFormat(b, s, conv, format)
						}
					})
				}
			}
		})
	}
}

// TestContextFromPlanIsPlanned checks that a context resumed from the
// stored plan of a consolidation covering every message is the one
// planning every session gives (Render plans them), at several budgets.
func TestContextFromPlanIsPlanned(t *testing.T) {
	ctx := context.Background()
	m, db, _, msgs := setup(t, consolidate.Schedule{Kind: consolidate.Idle, Window: time.Minute}, 12)
	appendAll(t, db, msgs, time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
	if _, err := m.Consolidate(ctx, "t", "c"); err != nil {
		t.Fatal(err)
	}
	if p, err := db.Plan(ctx, "t", "c"); err != nil || len(p) == 0 {
		t.Fatalf("no plan stored: %v", err)
	}
	stored, err := db.Messages(ctx, "t", "c")
	if err != nil {
		t.Fatal(err)
	}
	gists, err := db.Gists(ctx, "t", "c")
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int{300, 1000, 2500, 4000, 20000} {
		got, err := m.Context(ctx, "t", "c", sleep.Request{Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		want, err := m.Render(ctx, "c", stored, gists, budget)
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != want.Text || fmt.Sprint(got.Chunks) != fmt.Sprint(want.Chunks) {
			t.Errorf("budget %d: the context from the plan differs from the planned one:\n%s\nwant\n%s", budget, got.Text, want.Text)
		}
	}
}

// TestContextAfterEdit checks that a plan stored before an edit of the
// history is not resumed from: the edited message shows, the superseded
// one does not, whether the read plans every message or is bounded.
func TestContextAfterEdit(t *testing.T) {
	ctx := context.Background()
	for _, limit := range []int{0, 100} { // 0: the default, over this conversation's 300
		s := longStore(t, "sqlite")
		hist := longMessages(1, 301, 120, 0, longStart)
		at := func() time.Time { return longStart.Add(400 * time.Minute) }
		if _, err := s.AppendMessages(ctx, "t", "c", hist, swc.AppendOptions{Mode: swc.AppendHistory, Rule: swc.DefaultSessionRule(), Now: at}); err != nil {
			t.Fatal(err)
		}
		m := longService(s)
		m.ReadLimit = limit
		if _, err := m.Consolidate(ctx, "t", "c"); err != nil {
			t.Fatal(err)
		}
		old := hist[len(hist)-1].Content[:30]
		res, err := m.Context(ctx, "t", "c", sleep.Request{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Text, old) {
			t.Fatalf("limit %d: the last message is not in the context", limit)
		}
		edited := append([]swc.Message(nil), hist...)
		edited[len(edited)-1].Content = "Edited: the plumber is booked."
		r, err := s.AppendMessages(ctx, "t", "c", edited, swc.AppendOptions{Mode: swc.AppendHistory, Rule: swc.DefaultSessionRule(), Now: at})
		if err != nil || r.Superseded != 1 {
			t.Fatalf("limit %d: edit = %+v, %v", limit, r, err)
		}
		res, err = m.Context(ctx, "t", "c", sleep.Request{})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(res.Text, old) || !strings.Contains(res.Text, "Edited: the plumber is booked.") {
			t.Errorf("limit %d: after the edit the context shows the superseded message or not the edited one:\n…%s", limit, res.Text[max(0, len(res.Text)-400):])
		}
	}
}
