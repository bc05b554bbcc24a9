package storetest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/swcmem/swc"
)

// The live-agent cases: what agents send turn by turn (untimed messages,
// tool calls split across appends, reused call ids, edited histories)
// and what deletes must leave behind.

// clock returns append options whose clock reads at.
func clockAt(rule swc.SessionRule, at time.Time) swc.AppendOptions {
	return swc.AppendOptions{Rule: rule, Now: func() time.Time { return at }}
}

// testLiveTime: the time rules, one table of appends per conversation.
func testLiveTime(t *testing.T, s swc.Store) {
	ctx := context.Background()
	a := tenant(t, s, "acme")
	rule := swc.DefaultSessionRule()
	user := func(minute int) swc.Message {
		m := swc.Message{Role: swc.RoleUser, Content: fmt.Sprintf("at %d", minute)}
		if minute >= 0 {
			m.Time = t0.Add(time.Duration(minute) * time.Minute)
		}
		return m
	}
	untimed := user(-1)
	system := swc.Message{Role: swc.RoleSystem, Content: "be brief"}
	type step struct {
		msgs  []swc.Message
		clock int                     // the server's clock, minutes after t0
		stamp swc.Stamp               //
		err   string                  // a part of the error, "" for none
		want  []int                   // the stored minutes of msgs (-1: undated)
		check func(swc.StoredMessage) // of the last stored message
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"a new conversation's untimed history is undated", []step{
			{msgs: []swc.Message{system, untimed, untimed}, clock: 100, want: []int{-1, -1, -1}},
			{msgs: []swc.Message{untimed}, clock: 101, want: []int{101}},
		}},
		{"an untimed system prompt does not block real times", []step{
			{msgs: []swc.Message{system, user(0), user(1)}, clock: 5000, want: []int{-1, 0, 1}},
			{msgs: []swc.Message{user(2)}, clock: 5000, want: []int{2}},
		}},
		{"stamped never before the last time", []step{
			{msgs: []swc.Message{user(50)}, clock: 60, want: []int{50}},
			{msgs: []swc.Message{untimed}, clock: 40, want: []int{50}}, // the server's clock behind the client's
		}},
		{"a client 3 minutes behind the server is clamped", []step{
			{msgs: []swc.Message{user(0)}, clock: 0, want: []int{0}},
			{msgs: []swc.Message{untimed}, clock: 10, want: []int{10}},
			{msgs: []swc.Message{user(7), user(8)}, clock: 10, want: []int{10, 10}, check: func(m swc.StoredMessage) {
				if !m.Stamped {
					t.Errorf("a clamped time is not marked stamped")
				}
			}},
			{msgs: []swc.Message{user(11)}, clock: 11, want: []int{11}},
		}},
		{"a client's own times going backwards", []step{
			{msgs: []swc.Message{user(10)}, clock: 10, want: []int{10}},
			{msgs: []swc.Message{user(9)}, clock: 10, err: "is before"},
		}},
		{"stamp none leaves old history undated", []step{
			{msgs: []swc.Message{untimed}, clock: 10, want: []int{-1}},
			{msgs: []swc.Message{untimed, untimed}, clock: 11, stamp: swc.StampNone, want: []int{-1, -1}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conv := strings.ReplaceAll(tc.name, " ", "-")
			stored := 0
			for k, st := range tc.steps {
				o := clockAt(rule, t0.Add(time.Duration(st.clock)*time.Minute))
				o.Stamp = st.stamp
				res, err := s.AppendMessages(ctx, a.ID, conv, st.msgs, o)
				if st.err != "" {
					if swc.ErrorCode(err) != swc.EINVALID || !strings.Contains(err.Error(), st.err) {
						t.Fatalf("step %d: err = %v, want EINVALID %q", k, err, st.err)
					}
					continue
				}
				if err != nil || res.Appended != len(st.msgs) {
					t.Fatalf("step %d: %+v, %v", k, counts(res), err)
				}
				ms, err := s.Messages(ctx, a.ID, conv)
				if err != nil {
					t.Fatal(err)
				}
				for i, m := range ms[stored:] {
					got := -1
					if !m.Time.IsZero() {
						got = int(m.Time.Sub(t0) / time.Minute)
					}
					if got != st.want[i] {
						t.Errorf("step %d message %d: stored at minute %d, want %d", k, i, got, st.want[i])
					}
				}
				if st.check != nil {
					st.check(ms[len(ms)-1])
				}
				stored = len(ms)
			}
		})
	}
}

// testLiveTools: calls and results split across appends, call ids reused
// every turn.
func testLiveTools(t *testing.T, s swc.Store) {
	ctx := context.Background()
	a := tenant(t, s, "acme")
	o := clockAt(swc.DefaultSessionRule(), t0)
	call := func(id string) swc.Message {
		return swc.Message{Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: id, Name: "lookup", Arguments: `{"q":1}`}}}
	}
	result := func(id string) swc.Message { return swc.Message{Role: swc.RoleTool, ToolCallID: id, Content: "found"} }
	user := swc.Message{Role: swc.RoleUser, Content: "and now?"}
	for k, b := range [][]swc.Message{{user}, {call("call_0")}, {result("call_0")}, {user, call("call_0")}, {result("call_0"), user}} {
		if _, err := s.AppendMessages(ctx, a.ID, "c", b, o); err != nil {
			t.Fatalf("append %d: %v", k, err)
		}
	}
	ms, _ := s.Messages(ctx, a.ID, "c")
	if len(ms) != 7 || ms[2].ToolCallID != "call_0" || len(ms[4].ToolCalls) != 1 || ms[4].ToolCalls[0].Arguments != `{"q":1}` {
		t.Fatalf("stored %+v", ms)
	}
	// A result no call is waiting for: rejected, nothing stored.
	_, err := s.AppendMessages(ctx, a.ID, "c", []swc.Message{user, result("call_0")}, o)
	code(t, err, swc.EINVALID)
	// The open calls survive between appends (a call ends this one).
	if _, err := s.AppendMessages(ctx, a.ID, "c", []swc.Message{call("x")}, o); err != nil {
		t.Fatal(err)
	}
	_, err = s.AppendMessages(ctx, a.ID, "c", []swc.Message{result("y")}, o)
	code(t, err, swc.EINVALID)
	if _, err := s.AppendMessages(ctx, a.ID, "c", []swc.Message{result("x")}, o); err != nil {
		t.Fatal(err)
	}
	if ms, _ := s.Messages(ctx, a.ID, "c"); len(ms) != 9 {
		t.Fatalf("%d messages stored, want 9", len(ms))
	}
}

// testLiveHistory: a proxied history (AppendHistory) stored as the
// stored conversation following the request.
func testLiveHistory(t *testing.T, s swc.Store) {
	ctx := context.Background()
	a := tenant(t, s, "acme")
	u := func(s string) swc.Message { return swc.Message{Role: swc.RoleUser, Content: s} }
	as := func(s string) swc.Message { return swc.Message{Role: swc.RoleAssistant, Content: s} }
	sys := swc.Message{Role: swc.RoleSystem, Content: "be brief"}
	hist := func(clock int, msgs ...swc.Message) swc.AppendResult {
		t.Helper()
		o := clockAt(swc.DefaultSessionRule(), t0.Add(time.Duration(clock)*time.Minute))
		o.Mode = swc.AppendHistory
		res, err := s.AppendMessages(ctx, a.ID, "p", msgs, o)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	live := func() []string {
		ms, err := s.Messages(ctx, a.ID, "p")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range ms {
			out = append(out, m.Content)
		}
		return out
	}
	steps := []struct {
		name    string
		clock   int
		msgs    []swc.Message
		want    swc.AppendResult // Appended, Skipped, Superseded
		live    string
		stamped bool // the last message is server-stamped
	}{
		{"first sight: undated", 0, []swc.Message{sys, u("1"), as("2"), u("3")}, swc.AppendResult{Appended: 3}, "1 2 3", false},
		{"the same again", 1, []swc.Message{sys, u("1"), as("2"), u("3")}, swc.AppendResult{Skipped: 3}, "1 2 3", false},
		{"the new tail: stamped", 2, []swc.Message{sys, u("1"), as("2"), u("3"), as("4"), u("5")}, swc.AppendResult{Appended: 2, Skipped: 3}, "1 2 3 4 5", true},
		{"regenerated answer", 3, []swc.Message{sys, u("1"), as("2"), u("3"), as("4b"), u("5")}, swc.AppendResult{Appended: 2, Skipped: 3, Superseded: 2}, "1 2 3 4b 5", true},
		{"an older request", 4, []swc.Message{u("1"), as("2")}, swc.AppendResult{Skipped: 2}, "1 2 3 4b 5", true},
		{"a tool result cleared early on", 5, []swc.Message{u("1"), as("[cleared]"), u("3"), as("4b"), u("5"), as("6")}, swc.AppendResult{Appended: 5, Skipped: 1, Superseded: 4}, "1 [cleared] 3 4b 5 6", true},
	}
	superseded := 0
	for _, st := range steps {
		res := hist(st.clock, st.msgs...)
		if res.Appended != st.want.Appended || res.Skipped != st.want.Skipped || res.Superseded != st.want.Superseded {
			t.Fatalf("%s: %+v, want %+v", st.name, counts(res), st.want)
		}
		if got := strings.Join(live(), " "); got != st.live {
			t.Fatalf("%s: live %q, want %q", st.name, got, st.live)
		}
		superseded += st.want.Superseded
		info, _ := s.Conversation(ctx, a.ID, "p")
		if info.Messages != len(strings.Fields(st.live)) || info.Superseded != superseded || res.Conversation.Version != info.Version {
			t.Fatalf("%s: conversation %+v (result's %+v)", st.name, info, res.Conversation)
		}
		ms, _ := s.Messages(ctx, a.ID, "p")
		if last := ms[len(ms)-1]; last.Stamped != st.stamped || last.Time.IsZero() == st.stamped {
			t.Errorf("%s: last message time %v stamped %v, want stamped %v", st.name, last.Time, last.Stamped, st.stamped)
		}
	}
	// A consolidation of the edited conversation, then an edit before what
	// it covered: it no longer counts as covering it.
	info, _ := s.Conversation(ctx, a.ID, "p")
	if err := s.SaveConsolidation(ctx, a.ID, "p", swc.Consolidation{Through: info.Sessions, Messages: info.Messages, At: t0.Add(time.Hour),
		Generation: info.Generation, Edits: info.Edits}); err != nil {
		t.Fatal(err)
	}
	hist(70, u("1"), as("2c"))
	info, _ = s.Conversation(ctx, a.ID, "p")
	if info.ConsolidatedMessages > 1 || info.Messages != 2 || info.Edits != 3 {
		t.Fatalf("after an edit under the consolidation: %+v", info)
	}
	if refs, _ := s.Unconsolidated(ctx); len(refs) != 1 {
		t.Fatalf("an edited conversation is owed a consolidation: %+v", refs)
	}
}

// testLiveRace has 8 clients append 25 untimed messages each to one
// conversation at once, each with the real clock: none is rejected.
func testLiveRace(t *testing.T, s swc.Store) {
	ctx := context.Background()
	a := tenant(t, s, "acme")
	const clients, each = 8, 25
	var rejected atomic.Int32
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := range each {
				m := swc.Message{Role: swc.RoleUser, Content: fmt.Sprintf("client %d message %d", c, i)}
				if _, err := s.AppendMessages(ctx, a.ID, "race", []swc.Message{m}, swc.AppendOptions{Rule: swc.DefaultSessionRule()}); err != nil {
					if rejected.Add(1) == 1 {
						t.Errorf("client %d: %v", c, err)
					}
				}
			}
		})
	}
	wg.Wait()
	ms, _ := s.Messages(ctx, a.ID, "race")
	if rejected.Load() > 0 || len(ms) != clients*each {
		t.Fatalf("%d of %d appends rejected, %d stored", rejected.Load(), clients*each, len(ms))
	}
	for i := 1; i < len(ms); i++ {
		if !ms[i-1].Time.IsZero() && ms[i].Time.Before(ms[i-1].Time) {
			t.Fatalf("message %d stamped %v, before message %d's %v", i, ms[i].Time, i-1, ms[i-1].Time)
		}
	}
}

// testDeleteFinal: after a delete, a conversation re-created under the
// same id never takes a version the old one had, and a consolidation that
// read the old one writes nothing into it.
func testDeleteFinal(t *testing.T, s swc.Store) {
	ctx := context.Background()
	a := tenant(t, s, "acme")
	rule := swc.DefaultSessionRule()
	if _, err := s.AppendMessages(ctx, a.ID, "c", []swc.Message{msg("1", 0, "secret"), msg("2", 90, "more")}, opts(rule)); err != nil {
		t.Fatal(err)
	}
	old, _ := s.Conversation(ctx, a.ID, "c")
	if old.Generation == "" {
		t.Fatal("a conversation without a generation")
	}
	if err := s.DeleteConversation(ctx, a.ID, "c"); err != nil {
		t.Fatal(err)
	}
	var versions []int64
	for i := range 3 {
		if _, err := s.AppendMessages(ctx, a.ID, "c", []swc.Message{msg(fmt.Sprint(i), i, "new")}, opts(rule)); err != nil {
			t.Fatal(err)
		}
		info, _ := s.Conversation(ctx, a.ID, "c")
		versions = append(versions, info.Version)
		if info.Version <= old.Version {
			t.Fatalf("the re-created conversation has version %d; the deleted one had %d", info.Version, old.Version)
		}
		if info.Generation == old.Generation {
			t.Fatal("the re-created conversation has the deleted one's generation")
		}
	}
	// The job that read the old conversation saves now.
	g := swc.StoredGist{Session: 0, ContentHash: "h", Variant: swc.GistTemporal, Gister: "g", Text: "secret gist"}
	err := s.SaveConsolidation(ctx, a.ID, "c", swc.Consolidation{Through: old.Sessions, Messages: old.Messages, Gists: []swc.StoredGist{g}, At: t0,
		Generation: old.Generation, Edits: old.Edits})
	code(t, err, swc.ENOTFOUND)
	if gists, _ := s.Gists(ctx, a.ID, "c"); len(gists) != 0 {
		t.Fatalf("the old conversation's gists were written into the new one: %+v", gists)
	}
	info, _ := s.Conversation(ctx, a.ID, "c")
	if info.ConsolidatedMessages != 0 || info.ConsolidatedThrough != 0 || info.Version != versions[len(versions)-1] {
		t.Fatalf("the old conversation's counters were written into the new one: %+v", info)
	}
	// An edit since the job read it: ECONFLICT, nothing written.
	o := opts(rule)
	o.Mode = swc.AppendHistory
	if _, err := s.AppendMessages(ctx, a.ID, "c", []swc.Message{{Role: swc.RoleUser, Content: "edited"}}, o); err != nil {
		t.Fatal(err)
	}
	err = s.SaveConsolidation(ctx, a.ID, "c", swc.Consolidation{Through: 1, Messages: 3, At: t0, Generation: info.Generation, Edits: info.Edits})
	code(t, err, swc.ECONFLICT)
}
