package swc

import (
	"slices"
	"testing"
	"time"
)

func TestPlanAppend(t *testing.T) {
	t0 := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	recv := t0.Add(time.Hour)
	at := func(id string, minute int) Message {
		return Message{ID: id, Role: RoleUser, Content: "x", Time: t0.Add(time.Duration(minute) * time.Minute)}
	}
	inSession := func(m Message, s string) Message { m.Session = s; return m }
	rule := SessionRule{Gap: 30 * time.Minute, Turns: 3}
	// An existing conversation: 5 messages in 2 sessions, the last at
	// minute 10, one message into its session.
	old := AppendState{Messages: 5, Sessions: 2, LastTime: t0.Add(10 * time.Minute), SessionLen: 1}
	stored := map[string]bool{"s1": true, "s2": true} // ids of old's messages

	type placed struct {
		id       string
		seq      int64
		sessionN int
	}
	for _, tc := range []struct {
		name   string
		st     AppendState
		msgs   []Message
		want   []placed
		result AppendResult
		state  AppendState // checked when Messages > 0
		err    string      // the error code, or "" for none
	}{
		{name: "new conversation", msgs: []Message{at("a", 0), at("", 1), at("b", 2)},
			want:   []placed{{"a", 1, 0}, {"", 2, 0}, {"b", 3, 0}},
			result: AppendResult{Appended: 3, Sessions: 1},
			state:  AppendState{Messages: 3, Sessions: 1, LastTime: t0.Add(2 * time.Minute), SessionLen: 3}},
		{name: "an id twice in the batch", msgs: []Message{at("a", 0), at("a", 1)},
			want: []placed{{"a", 1, 0}}, result: AppendResult{Appended: 1, Skipped: 1, Sessions: 1}},
		{name: "stored ids skipped, in order or not", st: old, msgs: []Message{at("s1", 3), at("n", 11), at("s2", 12)},
			want: []placed{{"n", 6, 1}}, result: AppendResult{Appended: 1, Skipped: 2, Sessions: 2},
			state: AppendState{Messages: 6, Sessions: 2, LastTime: t0.Add(11 * time.Minute), SessionLen: 2}},
		{name: "a new message before the last", st: old, msgs: []Message{at("n", 11), at("m", 9)}, err: EINVALID},
		{name: "earlier in the batch", msgs: []Message{at("a", 5), at("b", 4)}, err: EINVALID},
		{name: "no time, even on a stored id", st: old, msgs: []Message{at("n", 11), {ID: "s1"}}, err: EINVALID},
		{name: "equal times are in order", st: old, msgs: []Message{at("n", 10), at("m", 10)},
			want: []placed{{"n", 6, 1}, {"m", 7, 1}}, result: AppendResult{Appended: 2, Sessions: 2}},
		{name: "a gap starts a session", st: old, msgs: []Message{at("n", 41), at("m", 72)},
			want: []placed{{"n", 6, 2}, {"m", 7, 3}}, result: AppendResult{Appended: 2, Sessions: 4},
			state: AppendState{Messages: 7, Sessions: 4, LastTime: t0.Add(72 * time.Minute), SessionLen: 1}},
		{name: "Turns messages fill a session", st: old, msgs: []Message{at("n", 11), at("m", 12), at("o", 13)},
			want: []placed{{"n", 6, 1}, {"m", 7, 1}, {"o", 8, 2}}, result: AppendResult{Appended: 3, Sessions: 3}},
		{name: "explicit session ids", msgs: []Message{inSession(at("a", 0), "x"), inSession(at("b", 1), "x"),
			inSession(at("c", 200), "x"), inSession(at("d", 201), "y"), at("e", 202)},
			want:   []placed{{"a", 1, 0}, {"b", 2, 0}, {"c", 3, 0}, {"d", 4, 1}, {"e", 5, 2}},
			result: AppendResult{Appended: 5, Sessions: 3}},
		{name: "an explicit id against the stored last", st: AppendState{Messages: 1, Sessions: 1, LastTime: t0, LastSession: "x", SessionLen: 1},
			msgs: []Message{inSession(at("a", 1), "x"), at("b", 2)},
			want: []placed{{"a", 2, 0}, {"b", 3, 1}}, result: AppendResult{Appended: 2, Sessions: 2}},
		{name: "nothing new", st: old, msgs: []Message{at("s1", 11)},
			result: AppendResult{Skipped: 1, Sessions: 2}, state: old},
		{name: "no messages", result: AppendResult{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := PlanAppend(tc.st, tc.msgs, rule, recv, stored)
			if tc.err != "" {
				if ErrorCode(err) != tc.err || p.Messages != nil {
					t.Fatalf("err = %v with %d messages, want %s and none", err, len(p.Messages), tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []placed
			for _, m := range p.Messages {
				got = append(got, placed{m.ID, m.Seq, m.SessionN})
				if !m.Received.Equal(recv) || m.Content != "x" {
					t.Errorf("message %s: received %v, content %q", m.ID, m.Received, m.Content)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("placed %v, want %v", got, tc.want)
			}
			if p.Result != tc.result {
				t.Errorf("result %+v, want %+v", p.Result, tc.result)
			}
			if tc.state.Messages > 0 && p.State != tc.state {
				t.Errorf("state %+v, want %+v", p.State, tc.state)
			}
		})
	}
}

func TestLookupIDs(t *testing.T) {
	msgs := []Message{{ID: "a"}, {}, {ID: "b"}, {ID: "a"}}
	if got := LookupIDs(AppendState{}, msgs); got != nil {
		t.Errorf("new conversation: %v, want none", got)
	}
	if got := LookupIDs(AppendState{Messages: 1}, msgs); !slices.Equal(got, []string{"a", "b", "a"}) {
		t.Errorf("LookupIDs = %v", got)
	}
}
