package swc

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeLookup is an AppendLookup over a list of stored messages.
type fakeLookup struct {
	ids   []string
	live  []StoredMessage
	err   error
	asked int
}

func (f *fakeLookup) StoredIDs(ids []string) (map[string]bool, error) {
	f.asked++
	if f.err != nil {
		return nil, f.err
	}
	out := map[string]bool{}
	for _, id := range ids {
		if slices.Contains(f.ids, id) {
			out[id] = true
		}
	}
	return out, nil
}

func (f *fakeLookup) Live() ([]StoredMessage, error) {
	f.asked++
	return f.live, f.err
}

func TestPlanAppend(t *testing.T) {
	t0 := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	recv := t0.Add(time.Hour)
	at := func(id string, minute int) Message {
		return Message{ID: id, Role: RoleUser, Content: "x", Time: t0.Add(time.Duration(minute) * time.Minute)}
	}
	untimed := func(id string) Message { return Message{ID: id, Role: RoleUser, Content: "x"} }
	inSession := func(m Message, s string) Message { m.Session = s; return m }
	rule := SessionRule{Gap: 30 * time.Minute, Turns: 3}
	// An existing conversation: 5 messages in 2 sessions, the last at
	// minute 10 (a client's time), one message into its session.
	old := AppendState{Messages: 5, Seq: 5, Sessions: 2, LastTime: t0.Add(10 * time.Minute), LastClient: t0.Add(10 * time.Minute), SessionLen: 1, ChainLen: 5}
	// The same, its last time the server's.
	stamped := old
	stamped.LastClient = t0

	type placed struct {
		id       string
		seq      int64
		sessionN int
		minute   int // -1: undated
		stamped  bool
	}
	for _, tc := range []struct {
		name   string
		st     AppendState
		msgs   []Message
		stamp  Stamp
		want   []placed
		result AppendResult
		err    string // a part of the error, or "" for none
	}{
		{name: "new conversation", msgs: []Message{at("a", 0), at("", 1), at("b", 2)},
			want:   []placed{{"a", 1, 0, 0, false}, {"", 2, 0, 1, false}, {"b", 3, 0, 2, false}},
			result: AppendResult{Appended: 3, Sessions: 1}},
		{name: "an id twice in the batch", msgs: []Message{at("a", 0), at("a", 1)},
			want: []placed{{"a", 1, 0, 0, false}}, result: AppendResult{Appended: 1, Skipped: 1, Sessions: 1}},
		{name: "stored ids skipped, in order or not", st: old, msgs: []Message{at("s1", 3), at("n", 11), at("s2", 12)},
			want: []placed{{"n", 6, 1, 11, false}}, result: AppendResult{Appended: 1, Skipped: 2, Sessions: 2}},
		{name: "a client's time before its last", st: old, msgs: []Message{at("n", 11), at("m", 9)}, err: "messages[1].timestamp: 2024-05-01T09:09:00Z is before 2024-05-01T09:11:00Z"},
		{name: "earlier in the batch", msgs: []Message{at("a", 5), at("b", 4)}, err: "messages[1].timestamp"},
		{name: "behind a server stamp: clamped", st: stamped, msgs: []Message{at("n", 7), at("m", 8), at("o", 12)},
			want: []placed{{"n", 6, 1, 10, true}, {"m", 7, 1, 10, true}, {"o", 8, 2, 12, false}}, result: AppendResult{Appended: 3, Sessions: 3}},
		{name: "untimed in a conversation with messages: stamped", st: old, msgs: []Message{untimed("n"), at("m", 70)},
			want: []placed{{"n", 6, 2, 60, true}, {"m", 7, 2, 70, false}}, result: AppendResult{Appended: 2, Sessions: 3}},
		{name: "stamped never before the last time", st: AppendState{Messages: 1, Seq: 1, Sessions: 1, LastTime: t0.Add(90 * time.Minute), LastClient: t0.Add(90 * time.Minute), SessionLen: 1, ChainLen: 1},
			msgs: []Message{untimed("n")}, want: []placed{{"n", 2, 0, 90, true}}, result: AppendResult{Appended: 1, Sessions: 1}},
		{name: "untimed creating a conversation: undated", msgs: []Message{untimed("a"), untimed("b"), untimed("c"), untimed("d")},
			want:   []placed{{"a", 1, 0, -1, false}, {"b", 2, 0, -1, false}, {"c", 3, 0, -1, false}, {"d", 4, 1, -1, false}},
			result: AppendResult{Appended: 4, Sessions: 2}},
		{name: "stamp none keeps old history undated", st: old, stamp: StampNone, msgs: []Message{untimed("n")},
			want: []placed{{"n", 6, 1, -1, false}}, result: AppendResult{Appended: 1, Sessions: 2}},
		{name: "stamp all dates a new conversation", stamp: StampAll, msgs: []Message{untimed("a")},
			want: []placed{{"a", 1, 0, 60, true}}, result: AppendResult{Appended: 1, Sessions: 1}},
		{name: "system messages take no part in time", st: old,
			msgs: []Message{{ID: "s", Role: RoleSystem, Content: "be brief", Time: t0}, at("n", 11)},
			want: []placed{{"s", 6, 1, 0, false}, {"n", 7, 1, 11, false}}, result: AppendResult{Appended: 2, Sessions: 2}},
		{name: "an untimed system prompt does not date the history", msgs: []Message{{Role: RoleSystem, Content: "be brief"}, at("a", 0)},
			want: []placed{{"", 1, 0, -1, false}, {"a", 2, 0, 0, false}}, result: AppendResult{Appended: 2, Sessions: 1}},
		{name: "equal times are in order", st: old, msgs: []Message{at("n", 10), at("m", 10)},
			want: []placed{{"n", 6, 1, 10, false}, {"m", 7, 1, 10, false}}, result: AppendResult{Appended: 2, Sessions: 2}},
		{name: "a gap starts a session", st: old, msgs: []Message{at("n", 41), at("m", 72)},
			want: []placed{{"n", 6, 2, 41, false}, {"m", 7, 3, 72, false}}, result: AppendResult{Appended: 2, Sessions: 4}},
		{name: "Turns messages fill a session", st: old, msgs: []Message{at("n", 11), at("m", 12), at("o", 13)},
			want: []placed{{"n", 6, 1, 11, false}, {"m", 7, 1, 12, false}, {"o", 8, 2, 13, false}}, result: AppendResult{Appended: 3, Sessions: 3}},
		{name: "explicit session ids", msgs: []Message{inSession(at("a", 0), "x"), inSession(at("b", 1), "x"),
			inSession(at("c", 200), "x"), inSession(at("d", 201), "y"), at("e", 202)},
			want:   []placed{{"a", 1, 0, 0, false}, {"b", 2, 0, 1, false}, {"c", 3, 0, 200, false}, {"d", 4, 1, 201, false}, {"e", 5, 2, 202, false}},
			result: AppendResult{Appended: 5, Sessions: 3}},
		{name: "nothing new", st: old, msgs: []Message{at("s1", 11)}, result: AppendResult{Skipped: 1, Sessions: 2}},
		{name: "no messages", result: AppendResult{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			look := &fakeLookup{ids: []string{"s1", "s2"}}
			p, err := PlanAppend(tc.st, tc.msgs, AppendOptions{Rule: rule, Stamp: tc.stamp}, recv, look)
			if tc.err != "" {
				if ErrorCode(err) != EINVALID || !strings.Contains(err.Error(), tc.err) || p.Messages != nil {
					t.Fatalf("err = %v with %d messages, want EINVALID %q and none", err, len(p.Messages), tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []placed
			for _, m := range p.Messages {
				minute := -1
				if !m.Time.IsZero() {
					minute = int(m.Time.Sub(t0) / time.Minute)
				}
				got = append(got, placed{m.ID, m.Seq, m.SessionN, minute, m.Stamped})
				if !m.Received.Equal(recv) {
					t.Errorf("message %s: received %v", m.ID, m.Received)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("placed %v, want %v", got, tc.want)
			}
			if p.Result != tc.result {
				t.Errorf("result %+v, want %+v", p.Result, tc.result)
			}
			if tc.st.Messages == 0 && look.asked > 0 {
				t.Errorf("the store was asked %d times about a new conversation", look.asked)
			}
			if n := len(p.Messages); n > 0 {
				if st := ReplayState(append([]StoredMessage(nil), p.Messages...)); tc.st.Messages == 0 && (st.Head != p.State.Head || st.Sessions != p.State.Sessions || st.SessionLen != p.State.SessionLen) {
					t.Errorf("ReplayState %+v, plan's state %+v", st, p.State)
				}
			}
		})
	}
}

// TestPlanAppendTools: a result pairs with an open call of the last
// assistant message, whether the call came in this batch or an earlier
// one; ids may repeat across turns; a call may end a batch.
func TestPlanAppendTools(t *testing.T) {
	call := func(ids ...string) Message {
		m := Message{Role: RoleAssistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, ToolCall{ID: id, Name: "f", Arguments: "{}"})
		}
		return m
	}
	result := func(id string) Message { return Message{Role: RoleTool, ToolCallID: id, Content: "r"} }
	user := Message{Role: RoleUser, Content: "q"}
	for _, tc := range []struct {
		name    string
		batches [][]Message
		where   []string // of the last batch
		open    []string // after the last batch
		err     string
	}{
		{name: "a call ends a batch, its result starts the next", batches: [][]Message{{user, call("c")}, {result("c"), user}}},
		{name: "one message per append", batches: [][]Message{{user}, {call("a", "b")}, {result("b")}, {result("a")}, {user}}},
		{name: "still open", batches: [][]Message{{user, call("a", "b")}, {result("a")}}, open: []string{"b"}},
		{name: "call_0 every turn", batches: [][]Message{{user, call("call_0"), result("call_0")}, {user, call("call_0")}, {result("call_0")}}},
		{name: "a result without an open call", batches: [][]Message{{user}, {result("c")}}, err: `messages[0].tool_call_id: "c" answers no open tool call of the assistant message before it (no call is open)`},
		{name: "the result of an earlier turn's call", batches: [][]Message{{user, call("a"), result("a"), call("b")}, {result("a")}}, err: `the open calls are ["b"]`},
		{name: "answered twice", batches: [][]Message{{call("a"), result("a"), result("a")}}, err: `messages[2].tool_call_id: "a" answers no open`},
		{name: "a call left open is closed by the next message", batches: [][]Message{{user, call("a")}, {user}, {result("a")}}, err: "answers no open"},
		{name: "a duplicate id in one message", batches: [][]Message{{call("a", "a")}}, err: `messages[0].tool_calls[1].id: "a" is used by an earlier call of the same message`},
		{name: "an Anthropic block named in the error", batches: [][]Message{{user}, {result("t")}}, where: []string{"messages[4].content[0]"}, err: `messages[4].content[0].tool_use_id: "t"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var st AppendState
			var err error
			for k, b := range tc.batches {
				o := AppendOptions{}
				if k == len(tc.batches)-1 {
					o.Where = tc.where
				}
				var p AppendPlan
				if p, err = PlanAppend(st, b, o, time.Now(), &fakeLookup{}); err != nil {
					break
				}
				st = p.State
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(st.OpenCalls, tc.open) {
				t.Errorf("open calls %q, want %q", st.OpenCalls, tc.open)
			}
		})
	}
}

// history is what a store would hold after plans p were applied in
// turn: a small in-memory store of live messages.
type history struct {
	st   AppendState
	all  []StoredMessage // every message, superseded ones marked in gone
	gone map[int64]bool
}

func (h *history) StoredIDs([]string) (map[string]bool, error) { return nil, nil }

func (h *history) Live() ([]StoredMessage, error) {
	var out []StoredMessage
	for _, m := range h.all {
		if !h.gone[m.Seq] {
			m.Content = "" // stores leave the text out
			out = append(out, m)
		}
	}
	return out, nil
}

func (h *history) append(t *testing.T, msgs []Message, now time.Time) AppendPlan {
	t.Helper()
	p, err := PlanAppend(h.st, msgs, AppendOptions{Mode: AppendHistory, Rule: DefaultSessionRule()}, now, h)
	if err != nil {
		t.Fatal(err)
	}
	if p.Supersede != 0 {
		for _, m := range h.all {
			if p.Supersede == SupersedeAll || m.Seq > p.Supersede {
				h.gone[m.Seq] = true
			}
		}
	}
	h.all = append(h.all, p.Messages...)
	h.st = p.State
	return p
}

func (h *history) contents() []string {
	var out []string
	for _, m := range h.all {
		if !h.gone[m.Seq] {
			out = append(out, m.Content)
		}
	}
	return out
}

// TestPlanAppendHistory: a proxied history is matched by content; an edit
// supersedes the stored tail from where the request differs; an older
// request changes nothing; only the new tail is stamped.
func TestPlanAppendHistory(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	u := func(s string) Message { return Message{Role: RoleUser, Content: s} }
	a := func(s string) Message { return Message{Role: RoleAssistant, Content: s} }
	sys := Message{Role: RoleSystem, Content: "be brief"}
	h := &history{gone: map[int64]bool{}}

	p := h.append(t, []Message{sys, u("1"), a("2"), u("3")}, t0)
	if p.Result.Appended != 3 || p.Messages[0].Time.IsZero() == false {
		t.Fatalf("first sight: %+v; its history must be undated", p.Result)
	}
	p = h.append(t, []Message{sys, u("1"), a("2"), u("3"), a("4"), u("5")}, t0.Add(time.Minute))
	if p.Result.Appended != 2 || p.Result.Skipped != 3 || !p.Messages[0].Stamped || !p.Messages[0].Time.Equal(t0.Add(time.Minute)) {
		t.Fatalf("the new tail: %+v %+v", p.Result, p.Messages[0])
	}
	// Regenerate: the last answer replaced.
	p = h.append(t, []Message{sys, u("1"), a("2"), u("3"), a("4'"), u("5")}, t0.Add(2*time.Minute))
	if p.Result.Superseded != 2 || p.Result.Appended != 2 || !slices.Equal(h.contents(), []string{"1", "2", "3", "4'", "5"}) {
		t.Fatalf("regenerate: %+v, live %q", p.Result, h.contents())
	}
	// The replacement takes the replaced message's time; what goes beyond
	// is stamped.
	if !p.Messages[0].Time.Equal(t0.Add(time.Minute)) {
		t.Errorf("replacement time %v, want the replaced one's", p.Messages[0].Time)
	}
	// An edit early on (a tool result cleared): the tail after it
	// superseded, the request's appended; undated messages stay undated.
	p = h.append(t, []Message{u("1"), a("[cleared]"), u("3"), a("4'"), u("5"), a("6")}, t0.Add(3*time.Minute))
	if p.Result.Superseded != 4 || p.Result.Appended != 5 || p.Result.Skipped != 1 {
		t.Fatalf("edit: %+v", p.Result)
	}
	if !p.Messages[0].Time.IsZero() || !p.Messages[4].Stamped {
		t.Errorf("edit times: %v (want undated, it replaces an undated one), last %v", p.Messages[0].Time, p.Messages[4])
	}
	if p.Kept != 1 || h.st.Messages != 6 || h.st.ChainLen != 6 {
		t.Errorf("kept %d, state %+v", p.Kept, h.st)
	}
	// An older request, retried: nothing changes.
	p = h.append(t, []Message{u("1"), a("[cleared]"), u("3")}, t0.Add(4*time.Minute))
	if p.Result.Appended != 0 || p.Result.Superseded != 0 || p.Supersede != 0 || len(h.contents()) != 6 {
		t.Fatalf("older request: %+v", p.Result)
	}
	// A different first message: everything superseded.
	p = h.append(t, []Message{u("other")}, t0.Add(5*time.Minute))
	if p.Supersede != SupersedeAll || p.Result.Superseded != 6 || !slices.Equal(h.contents(), []string{"other"}) {
		t.Fatalf("new start: %+v, live %q", p.Result, h.contents())
	}
	// The state the store keeps equals the state replayed from what is live.
	live, _ := h.Live()
	if got := ReplayState(live); got.Head != h.st.Head || got.ChainLen != h.st.ChainLen || got.Messages != h.st.Messages {
		t.Errorf("replayed %+v, kept %+v", got, h.st)
	}
}

// TestPlanAppendLookupError: the store's lookup error is returned, with
// nothing to store; a new conversation is never looked up.
func TestPlanAppendLookupError(t *testing.T) {
	t0 := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	st := AppendState{Messages: 1, Seq: 1, Sessions: 1, LastTime: t0, SessionLen: 1, ChainLen: 1, Head: "x"}
	boom := errors.New("disk on fire")
	look := &fakeLookup{err: boom}
	if _, err := PlanAppend(st, []Message{{Role: RoleUser, Content: "no id", Time: t0}}, AppendOptions{}, t0, look); err != nil || look.asked != 0 {
		t.Fatalf("id-less message: %v, %d lookups", err, look.asked)
	}
	p, err := PlanAppend(st, []Message{{ID: "a", Role: RoleUser, Time: t0}}, AppendOptions{}, t0, look)
	if !errors.Is(err, boom) || p.Messages != nil {
		t.Fatalf("err = %v, %d messages", err, len(p.Messages))
	}
	if _, err := PlanAppend(st, []Message{{Role: RoleUser, Content: "edited"}}, AppendOptions{Mode: AppendHistory}, t0, look); !errors.Is(err, boom) {
		t.Fatalf("history: err = %v", err)
	}
}

// TestPlanAppendInPlace: a mid-conversation system message is planned as
// an instruction (stores keep no mark of it): appended to a log with
// InPlace cleared, left out of a proxied history like any instruction, and
// outside the chain either way, as a replay of the stored messages reads
// it.
func TestPlanAppendInPlace(t *testing.T) {
	mid := Message{Role: RoleSystem, Content: "reminder", InPlace: true}
	msgs := []Message{{Role: RoleUser, Content: "q"}, mid, {Role: RoleAssistant, Content: "a"}}
	for _, tc := range []struct {
		mode AppendMode
		n    int
	}{{AppendLog, 3}, {AppendHistory, 2}} {
		p, err := PlanAppend(AppendState{}, msgs, AppendOptions{Mode: tc.mode, Rule: DefaultSessionRule()}, time.Now(), &fakeLookup{})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Messages) != tc.n || !msgs[1].InPlace {
			t.Fatalf("mode %v: planned %d messages (want %d); input changed: %v", tc.mode, len(p.Messages), tc.n, !msgs[1].InPlace)
		}
		for _, m := range p.Messages {
			if m.InPlace {
				t.Errorf("mode %v: planned a message in place", tc.mode)
			}
		}
		if p.State.ChainLen != 2 || p.State.Head != ReplayState(p.Messages).Head {
			t.Errorf("mode %v: chain of %d messages, head %s; a replay reads %s", tc.mode, p.State.ChainLen, p.State.Head, ReplayState(p.Messages).Head)
		}
	}
}
