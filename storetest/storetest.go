// Package storetest is the conformance suite of swc.Store: every
// implementation (sqlite/, postgres/) runs Run from its own tests.
package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/swcmem/swc"
)

// Run runs every conformance test against stores made by open. open must
// return a new, empty store each call.
func Run(t *testing.T, open func(t *testing.T) swc.Store) {
	tests := []struct {
		name string
		f    func(t *testing.T, s swc.Store)
	}{
		{"Tenants", testTenants},
		{"Keys", testKeys},
		{"AppendIdempotent", testAppendIdempotent},
		{"Sessions", testSessions},
		{"Backwards", testBackwards},
		{"TenantIsolation", testIsolation},
		{"Consolidation", testConsolidation},
		{"MessagesIn", testMessagesIn},
		{"Delete", testDelete},
		{"ConcurrentAppend", testConcurrentAppend},
		{"TwoWriters", testTwoWriters},
		{"IdempotentRetries", testIdempotentRetries},
		{"DeleteWhileJobRuns", testDeleteWhileJobRuns},
		{"LiveTime", testLiveTime},
		{"LiveTools", testLiveTools},
		{"LiveHistory", testLiveHistory},
		{"LiveRace", testLiveRace},
		{"DeleteFinal", testDeleteFinal},
		{"Compressions", testCompressions},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.f(t, open(t)) })
	}
}

var t0 = time.Date(2026, 1, 2, 9, 0, 0, 0, time.UTC)

func msg(id string, minute int, text string) swc.Message {
	return swc.Message{ID: id, Role: swc.RoleUser, Name: "Maya", Content: text, Time: t0.Add(time.Duration(minute) * time.Minute)}
}

func code(t *testing.T, err error, want string) {
	t.Helper()
	if got := swc.ErrorCode(err); got != want {
		t.Fatalf("error %v: code %q, want %q", err, got, want)
	}
}

func tenant(t *testing.T, s swc.Store, name string) swc.Tenant {
	t.Helper()
	tn, err := s.CreateTenant(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return tn
}

func testTenants(t *testing.T, s swc.Store) {
	ctx := context.Background()
	a := tenant(t, s, "acme")
	if a.ID == "" || a.Name != "acme" {
		t.Fatalf("tenant = %+v", a)
	}
	_, err := s.CreateTenant(ctx, "acme")
	code(t, err, swc.EINVALID)
	_, err = s.CreateTenant(ctx, " ")
	code(t, err, swc.EINVALID)
	got, err := s.TenantByName(ctx, "acme")
	if err != nil || got.ID != a.ID {
		t.Fatalf("TenantByName = %+v, %v", got, err)
	}
	_, err = s.TenantByName(ctx, "nobody")
	code(t, err, swc.ENOTFOUND)
}

func testKeys(t *testing.T, s swc.Store) {
	ctx := context.Background()
	a := tenant(t, s, "acme")
	if _, err := s.CreateKey(ctx, a.ID, "k_1", "hash1"); err != nil {
		t.Fatal(err)
	}
	_, err := s.CreateKey(ctx, "t_missing", "k_2", "hash2")
	code(t, err, swc.ENOTFOUND)
	k, err := s.KeyByHash(ctx, "hash1")
	if err != nil || k.ID != "k_1" || k.TenantID != a.ID {
		t.Fatalf("KeyByHash = %+v, %v", k, err)
	}
	_, err = s.KeyByHash(ctx, "other")
	code(t, err, swc.ENOTFOUND)
	if err := s.RevokeKey(ctx, "k_1", t0); err != nil {
		t.Fatal(err)
	}
	_, err = s.KeyByHash(ctx, "hash1")
	code(t, err, swc.ENOTFOUND)
	code(t, s.RevokeKey(ctx, "k_1", t0), swc.ENOTFOUND)
	keys, err := s.Keys(ctx)
	if err != nil || len(keys) != 1 || keys[0].Revoked.IsZero() {
		t.Fatalf("Keys = %+v, %v", keys, err)
	}
}

func testAppendIdempotent(t *testing.T, s swc.Store) {
	ctx := context.Background()
	a := tenant(t, s, "acme")
	rule := swc.DefaultSessionRule()
	batch := []swc.Message{msg("m1", 0, "hello"), msg("m2", 1, "world"), msg("", 2, "no id")}
	res, err := s.AppendMessages(ctx, a.ID, "c1", batch, opts(rule))
	if err != nil || counts(res) != (swc.AppendResult{Appended: 3, Sessions: 1}) {
		t.Fatalf("first append = %+v, %v", res, err)
	}
	// Retry of the same batch plus one new: ids skipped, the id-less one
	// appended again (it cannot be recognised).
	res, err = s.AppendMessages(ctx, a.ID, "c1", append(batch[:2:2], msg("m3", 3, "new"), msg("m3", 3, "dup in batch")), opts(rule))
	if err != nil || counts(res) != (swc.AppendResult{Appended: 1, Skipped: 3, Sessions: 1}) {
		t.Fatalf("retry = %+v, %v", res, err)
	}
	ms, err := s.Messages(ctx, a.ID, "c1")
	if err != nil || len(ms) != 4 {
		t.Fatalf("Messages = %d, %v", len(ms), err)
	}
	for i, m := range ms {
		if m.Seq != int64(i+1) {
			t.Errorf("message %d seq %d", i, m.Seq)
		}
	}
	if ms[0].Content != "hello" || ms[0].Name != "Maya" || !ms[0].Time.Equal(t0) || ms[3].ID != "m3" {
		t.Errorf("messages round-trip: %+v", ms)
	}
	info, err := s.Conversation(ctx, a.ID, "c1")
	if err != nil || info.Messages != 4 || info.Sessions != 1 || !info.LastMessage.Equal(t0.Add(3*time.Minute)) {
		t.Fatalf("Conversation = %+v, %v", info, err)
	}
	// Tool calls survive.
	tc := swc.Message{ID: "m4", Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: "c", Name: "f", Arguments: `{"a":1}`}}, Time: t0.Add(4 * time.Minute)}
	if _, err := s.AppendMessages(ctx, a.ID, "c1", []swc.Message{tc}, opts(rule)); err != nil {
		t.Fatal(err)
	}
	ms, _ = s.Messages(ctx, a.ID, "c1")
	if got := ms[len(ms)-1].ToolCalls; len(got) != 1 || got[0].Arguments != `{"a":1}` {
		t.Errorf("tool calls = %+v", got)
	}
}

func testSessions(t *testing.T, s swc.Store) {
	ctx := context.Background()
	a := tenant(t, s, "acme")
	rule := swc.SessionRule{Gap: 30 * time.Minute, Turns: 3}
	cases := []struct {
		m    swc.Message
		want int // session index
	}{
		{msg("a", 0, "x"), 0},
		{msg("b", 10, "x"), 0},
		{msg("c", 50, "x"), 1}, // gap 40m
		{msg("d", 51, "x"), 1},
		{msg("e", 52, "x"), 1},
		{msg("f", 53, "x"), 2}, // 3 turns
	}
	for _, c := range cases {
		if _, err := s.AppendMessages(ctx, a.ID, "c", []swc.Message{c.m}, opts(rule)); err != nil {
			t.Fatal(err)
		}
	}
	explicit := msg("g", 54, "x")
	explicit.Session = "s9"
	if _, err := s.AppendMessages(ctx, a.ID, "c", []swc.Message{explicit}, opts(rule)); err != nil {
		t.Fatal(err)
	}
	ms, _ := s.Messages(ctx, a.ID, "c")
	for i, c := range cases {
		if ms[i].SessionN != c.want {
			t.Errorf("message %s: session %d, want %d", c.m.ID, ms[i].SessionN, c.want)
		}
	}
	if ms[6].SessionN != 3 || ms[6].Session != "s9" {
		t.Errorf("explicit session: %d %q", ms[6].SessionN, ms[6].Session)
	}
}

func testBackwards(t *testing.T, s swc.Store) {
	ctx := context.Background()
	a := tenant(t, s, "acme")
	rule := swc.DefaultSessionRule()
	if _, err := s.AppendMessages(ctx, a.ID, "c", []swc.Message{msg("a", 10, "x")}, opts(rule)); err != nil {
		t.Fatal(err)
	}
	_, err := s.AppendMessages(ctx, a.ID, "c", []swc.Message{msg("b", 11, "ok"), msg("c", 5, "back")}, opts(rule))
	code(t, err, swc.EINVALID)
	ms, _ := s.Messages(ctx, a.ID, "c")
	if len(ms) != 1 {
		t.Fatalf("a rejected batch stored %d messages, want nothing of it", len(ms)-1)
	}
}

func testIsolation(t *testing.T, s swc.Store) {
	ctx := context.Background()
	a, b := tenant(t, s, "a"), tenant(t, s, "b")
	rule := swc.DefaultSessionRule()
	if _, err := s.AppendMessages(ctx, a.ID, "same", []swc.Message{msg("m1", 0, "a's")}, opts(rule)); err != nil {
		t.Fatal(err)
	}
	_, err := s.Conversation(ctx, b.ID, "same")
	code(t, err, swc.ENOTFOUND)
	_, err = s.Messages(ctx, b.ID, "same")
	code(t, err, swc.ENOTFOUND)
	code(t, s.DeleteConversation(ctx, b.ID, "same"), swc.ENOTFOUND)
	code(t, s.SaveConsolidation(ctx, b.ID, "same", swc.Consolidation{Through: 1}), swc.ENOTFOUND)
	// The same id and message id in b is its own conversation.
	res, err := s.AppendMessages(ctx, b.ID, "same", []swc.Message{msg("m1", 0, "b's")}, opts(rule))
	if err != nil || res.Appended != 1 {
		t.Fatalf("b append = %+v, %v", res, err)
	}
	list, _ := s.Conversations(ctx, a.ID)
	if len(list) != 1 || list[0].Messages != 1 {
		t.Fatalf("a's list = %+v", list)
	}
	ms, _ := s.Messages(ctx, a.ID, "same")
	if ms[0].Content != "a's" {
		t.Errorf("a sees %q", ms[0].Content)
	}
}

func testConsolidation(t *testing.T, s swc.Store) {
	ctx := context.Background()
	a := tenant(t, s, "acme")
	rule := swc.DefaultSessionRule()
	if _, err := s.AppendMessages(ctx, a.ID, "c", []swc.Message{msg("1", 0, "x"), msg("2", 60, "y")}, opts(rule)); err != nil {
		t.Fatal(err)
	}
	before, _ := s.Conversation(ctx, a.ID, "c")
	refs, err := s.Unconsolidated(ctx)
	if err != nil || len(refs) != 1 || refs[0] != (swc.ConversationRef{Tenant: a.ID, ID: "c"}) {
		t.Fatalf("Unconsolidated before = %+v, %v", refs, err)
	}
	g := swc.StoredGist{Session: 0, ContentHash: "h", Variant: swc.GistTemporal, Gister: "extractive", Text: "gist"}
	c := swc.Consolidation{Through: 2, Messages: 2, Gists: []swc.StoredGist{g}, At: t0.Add(2 * time.Hour)}
	for range 2 { // a rerun stores no duplicate
		if err := s.SaveConsolidation(ctx, a.ID, "c", c); err != nil {
			t.Fatal(err)
		}
	}
	gists, err := s.Gists(ctx, a.ID, "c")
	if err != nil || len(gists) != 1 || gists[0].Text != "gist" {
		t.Fatalf("Gists = %+v, %v", gists, err)
	}
	after, _ := s.Conversation(ctx, a.ID, "c")
	if after.ConsolidatedThrough != 2 || after.ConsolidatedMessages != 2 || !after.ConsolidatedAt.Equal(c.At) || after.Version <= before.Version {
		t.Fatalf("after consolidation: %+v (before %+v)", after, before)
	}
	if refs, _ := s.Unconsolidated(ctx); len(refs) != 0 {
		t.Fatalf("Unconsolidated after = %+v", refs)
	}
	// An explicit request later than the consolidation is owed.
	if err := s.RequestConsolidation(ctx, a.ID, "c", c.At.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	info, _ := s.Conversation(ctx, a.ID, "c")
	if !info.ConsolidationRequested.Equal(c.At.Add(time.Second)) {
		t.Fatalf("requested = %v", info.ConsolidationRequested)
	}
	if refs, _ := s.Unconsolidated(ctx); len(refs) != 1 {
		t.Fatalf("Unconsolidated with a request = %+v", refs)
	}
	code(t, s.RequestConsolidation(ctx, a.ID, "nope", c.At), swc.ENOTFOUND)
}

func testDelete(t *testing.T, s swc.Store) {
	ctx := context.Background()
	a := tenant(t, s, "acme")
	rule := swc.DefaultSessionRule()
	if _, err := s.AppendMessages(ctx, a.ID, "c", []swc.Message{msg("1", 0, "x")}, opts(rule)); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveConsolidation(ctx, a.ID, "c", swc.Consolidation{Through: 1, Gists: []swc.StoredGist{{Text: "g"}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteConversation(ctx, a.ID, "c"); err != nil {
		t.Fatal(err)
	}
	_, err := s.Conversation(ctx, a.ID, "c")
	code(t, err, swc.ENOTFOUND)
	if g, _ := s.Gists(ctx, a.ID, "c"); len(g) != 0 {
		t.Errorf("gists survive delete: %d", len(g))
	}
	// A new conversation under the same id starts empty, the old ids free.
	res, err := s.AppendMessages(ctx, a.ID, "c", []swc.Message{msg("1", 0, "x")}, opts(rule))
	if err != nil || res.Appended != 1 {
		t.Fatalf("re-append = %+v, %v", res, err)
	}
}

func testConcurrentAppend(t *testing.T, s swc.Store) {
	ctx := context.Background()
	a := tenant(t, s, "acme")
	rule := swc.DefaultSessionRule()
	const writers, each = 8, 20
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				// Every writer also retries the previous message.
				ids := []swc.Message{msg(fmt.Sprintf("w%d-%d", w, i), 0, "x")}
				if i > 0 {
					ids = append(ids, msg(fmt.Sprintf("w%d-%d", w, i-1), 0, "x"))
				}
				if _, err := s.AppendMessages(ctx, a.ID, "c", ids, opts(rule)); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	ms, _ := s.Messages(ctx, a.ID, "c")
	if len(ms) != writers*each {
		t.Fatalf("%d messages stored, want %d", len(ms), writers*each)
	}
}

// opts returns the options of an append under rule with the clock at t0.
func opts(rule swc.SessionRule) swc.AppendOptions {
	return swc.AppendOptions{Rule: rule, Now: func() time.Time { return t0 }}
}

// counts returns res without the conversation, to compare counts.
func counts(res swc.AppendResult) swc.AppendResult {
	res.Conversation = swc.ConversationInfo{}
	return res
}
