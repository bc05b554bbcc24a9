package storetest

import (
	"context"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/swcmem/swc"
)

// testCompressions: records come back newest first as they were stored,
// each tenant's conversation keeps the latest swc.CompressionsKept, another
// tenant sees none, and a deleted conversation's records go with it.
func testCompressions(t *testing.T, s swc.Store) {
	ctx := context.Background()
	a, b := tenant(t, s, "a"), tenant(t, s, "b")
	rule := swc.DefaultSessionRule()
	for _, tn := range []swc.Tenant{a, b} {
		if _, err := s.AppendMessages(ctx, tn.ID, "c", []swc.Message{msg("1", 0, "x")}, opts(rule)); err != nil {
			t.Fatal(err)
		}
	}
	rec := func(i int) swc.CompressionRecord {
		return swc.CompressionRecord{At: t0.Add(time.Duration(i) * time.Second), Protocol: "openai", Mode: "stored",
			Budget: 1000 + i, TokensBefore: 5000, TokensAfter: 900,
			Items: []swc.CompressedItem{
				{Index: 0, Role: swc.RoleUser, Kind: swc.ItemKept, Chain: "c0", Tokens: 10, Sent: 10, Preview: "fix the bug " + strconv.Itoa(i)},
				{Index: 2, Role: swc.RoleTool, Kind: swc.ItemMasked, Handle: "h0123456789", Chain: "c2", Tokens: 4000, Sent: 60, Preview: `"><b>x</b>`},
				{Index: 3, Role: swc.RoleTool, Kind: swc.ItemDropped, Handle: "habcdefabcd", Chain: "c3", Tokens: 90},
			}}
	}
	code(t, s.RecordCompression(ctx, a.ID, "none", rec(0)), swc.ENOTFOUND)
	_, err := s.Compressions(ctx, a.ID, "none")
	code(t, err, swc.ENOTFOUND)
	n := swc.CompressionsKept + 3
	for i := range n {
		if err := s.RecordCompression(ctx, a.ID, "c", rec(i)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Compressions(ctx, a.ID, "c")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != swc.CompressionsKept {
		t.Fatalf("%d records kept, want %d", len(got), swc.CompressionsKept)
	}
	for k, r := range got {
		want := rec(n - 1 - k)
		if k > 0 && r.Seq >= got[k-1].Seq {
			t.Errorf("record %d: seq %d not below %d", k, r.Seq, got[k-1].Seq)
		}
		if !r.At.Equal(want.At) {
			t.Errorf("record %d: at %v, want %v", k, r.At, want.At)
		}
		r.Seq, r.At, want.At = 0, time.Time{}, time.Time{}
		if !reflect.DeepEqual(r, want) {
			t.Fatalf("record %d:\n got %+v\nwant %+v", k, r, want)
		}
	}
	if other, err := s.Compressions(ctx, b.ID, "c"); err != nil || len(other) != 0 {
		t.Errorf("b's conversation c: %d records, %v", len(other), err)
	}
	if err := s.DeleteConversation(ctx, a.ID, "c"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendMessages(ctx, a.ID, "c", []swc.Message{msg("1", 0, "x")}, opts(rule)); err != nil {
		t.Fatal(err)
	}
	if again, err := s.Compressions(ctx, a.ID, "c"); err != nil || len(again) != 0 {
		t.Errorf("re-created conversation: %d records, %v", len(again), err)
	}
}
