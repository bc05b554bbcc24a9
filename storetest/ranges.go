package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/swcmem/swc"
)

// testMessagesIn checks MessagesIn's ranges and the plan a consolidation
// stores: kept by a save without one, gone with the conversation.
func testMessagesIn(t *testing.T, s swc.Store) {
	ctx := context.Background()
	a := tenant(t, s, "acme")
	rule := swc.DefaultSessionRule()
	var msgs []swc.Message
	for i := range 30 {
		m := msg(fmt.Sprint(i+1), i, fmt.Sprint("text ", i+1))
		if i%10 == 4 {
			m.Role = swc.RoleSystem
		}
		msgs = append(msgs, m)
	}
	if _, err := s.AppendMessages(ctx, a.ID, "c", msgs, opts(rule)); err != nil {
		t.Fatal(err)
	}
	all, err := s.Messages(ctx, a.ID, "c")
	if err != nil || len(all) != 30 {
		t.Fatalf("Messages = %d, %v", len(all), err)
	}
	seqs := func(ms []swc.StoredMessage) []int64 {
		var out []int64
		for _, m := range ms {
			out = append(out, m.Seq)
		}
		return out
	}
	for _, tc := range []struct {
		r    swc.MessageRange
		want []int64
	}{
		{swc.MessageRange{}, seqs(all)},
		{swc.MessageRange{From: 28}, []int64{28, 29, 30}},
		{swc.MessageRange{From: 3, To: 6}, []int64{3, 4, 5}},
		{swc.MessageRange{Limit: 2}, []int64{1, 2}},
		{swc.MessageRange{From: 10, Limit: 3, Last: true}, []int64{28, 29, 30}},
		{swc.MessageRange{From: 10, To: 20, Limit: 3, Last: true}, []int64{17, 18, 19}},
		{swc.MessageRange{Instructions: true}, []int64{5, 15, 25}},
		{swc.MessageRange{From: 6, Instructions: true, Limit: 1}, []int64{15}},
	} {
		got, err := s.MessagesIn(ctx, a.ID, "c", tc.r)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(seqs(got)) != fmt.Sprint(tc.want) {
			t.Errorf("MessagesIn(%+v) = seqs %v, want %v", tc.r, seqs(got), tc.want)
		}
		for _, m := range got {
			if w := all[m.Seq-1]; m.Content != w.Content || m.Role != w.Role || m.SessionN != w.SessionN || m.Chain != w.Chain {
				t.Errorf("MessagesIn: seq %d is %+v, Messages has %+v", m.Seq, m, w)
			}
		}
	}
	_, err = s.MessagesIn(ctx, a.ID, "nope", swc.MessageRange{})
	code(t, err, swc.ENOTFOUND)
	_, err = s.MessagesIn(ctx, "other", "c", swc.MessageRange{})
	code(t, err, swc.ENOTFOUND)

	if p, err := s.Plan(ctx, a.ID, "c"); p != nil || err != nil {
		t.Fatalf("Plan before any = %q, %v", p, err)
	}
	if err := s.SaveConsolidation(ctx, a.ID, "c", swc.Consolidation{Through: 2, Messages: 30, Plan: []byte(`{"a":1}`), At: t0}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveConsolidation(ctx, a.ID, "c", swc.Consolidation{Through: 2, Messages: 30, At: t0}); err != nil { // none: kept
		t.Fatal(err)
	}
	if p, err := s.Plan(ctx, a.ID, "c"); string(p) != `{"a":1}` || err != nil {
		t.Fatalf("Plan = %q, %v", p, err)
	}
	if err := s.SaveConsolidation(ctx, a.ID, "c", swc.Consolidation{Through: 2, Messages: 30, Plan: []byte(`{"b":2}`), At: t0}); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Plan(ctx, a.ID, "c"); string(p) != `{"b":2}` || err != nil {
		t.Fatalf("Plan replaced = %q, %v", p, err)
	}
	_, err = s.Plan(ctx, "other", "c")
	code(t, err, swc.ENOTFOUND)
	if err := s.DeleteConversation(ctx, a.ID, "c"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendMessages(ctx, a.ID, "c", msgs[:1], opts(rule)); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Plan(ctx, a.ID, "c"); p != nil || err != nil {
		t.Fatalf("Plan after delete and re-create = %q, %v", p, err)
	}
}
