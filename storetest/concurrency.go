package storetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/swcmem/swc"
)

// The concurrency cases: what several replicas (or handlers) of the
// service do to one conversation at once.

// testTwoWriters has two writers append to one conversation in turns they
// do not coordinate, each retrying its previous batch: every message is
// stored once, seqs are 1..n without a gap, and each writer's messages
// keep their order.
func testTwoWriters(t *testing.T, s swc.Store) {
	ctx := context.Background()
	a := tenant(t, s, "acme")
	rule := swc.DefaultSessionRule()
	const each = 40
	var wg sync.WaitGroup
	var failed atomic.Int32
	for w := range 2 {
		wg.Go(func() {
			var prev []swc.Message
			for i := range each {
				// Both writers use the same clock, so any interleaving
				// keeps times non-decreasing.
				m := msg(fmt.Sprintf("w%d-%03d", w, i), 0, fmt.Sprintf("writer %d message %d", w, i))
				batch := append(prev, m)
				if _, err := s.AppendMessages(ctx, a.ID, "c", batch, opts(rule)); err != nil {
					t.Errorf("writer %d: %v", w, err)
					failed.Add(1)
					return
				}
				prev = []swc.Message{m}
			}
		})
	}
	wg.Wait()
	if failed.Load() > 0 {
		t.FailNow()
	}
	ms, err := s.Messages(ctx, a.ID, "c")
	if err != nil || len(ms) != 2*each {
		t.Fatalf("Messages = %d, %v; want %d", len(ms), err, 2*each)
	}
	last := map[byte]string{}
	seen := map[string]bool{}
	for i, m := range ms {
		if m.Seq != int64(i+1) {
			t.Fatalf("message %d has seq %d", i, m.Seq)
		}
		if seen[m.ID] {
			t.Fatalf("message %s stored twice", m.ID)
		}
		seen[m.ID] = true
		w := m.ID[1]
		if m.ID < last[w] {
			t.Fatalf("writer %c's %s stored after %s", w, m.ID, last[w])
		}
		last[w] = m.ID
	}
	info, _ := s.Conversation(ctx, a.ID, "c")
	if info.Messages != 2*each {
		t.Fatalf("conversation counts %d messages, want %d", info.Messages, 2*each)
	}
}

// testIdempotentRetries sends the same batch from several clients at once
// (a client retrying through two replicas after a timeout): exactly one
// stores it, the others skip every message.
func testIdempotentRetries(t *testing.T, s swc.Store) {
	ctx := context.Background()
	a := tenant(t, s, "acme")
	rule := swc.DefaultSessionRule()
	var batch []swc.Message
	for i := range 10 {
		batch = append(batch, msg(fmt.Sprintf("m%d", i), i, "x"))
	}
	const clients = 6
	results := make([]swc.AppendResult, clients)
	errs := make([]error, clients)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() { results[c], errs[c] = s.AppendMessages(ctx, a.ID, "c", batch, opts(rule)) })
	}
	wg.Wait()
	appended, skipped := 0, 0
	for c := range clients {
		if errs[c] != nil {
			t.Fatalf("client %d: %v", c, errs[c])
		}
		if r := results[c]; r.Appended != 0 && r.Appended != len(batch) {
			t.Fatalf("client %d stored part of the batch: %+v", c, r)
		}
		appended += results[c].Appended
		skipped += results[c].Skipped
	}
	if appended != len(batch) || skipped != (clients-1)*len(batch) {
		t.Fatalf("appended %d, skipped %d; want %d and %d", appended, skipped, len(batch), (clients-1)*len(batch))
	}
	if ms, _ := s.Messages(ctx, a.ID, "c"); len(ms) != len(batch) {
		t.Fatalf("%d messages stored, want %d", len(ms), len(batch))
	}
}

// testDeleteWhileJobRuns deletes conversations while consolidation jobs
// read them and save their gists: a save after the delete is ENOTFOUND,
// and no gist outlives its conversation.
func testDeleteWhileJobRuns(t *testing.T, s swc.Store) {
	ctx := context.Background()
	a := tenant(t, s, "acme")
	rule := swc.DefaultSessionRule()
	const convs = 12
	for i := range convs {
		id := fmt.Sprintf("c%d", i)
		if _, err := s.AppendMessages(ctx, a.ID, id, []swc.Message{msg("1", 0, "x"), msg("2", 90, "y")}, opts(rule)); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	var saved, gone atomic.Int32
	for i := range convs {
		id := fmt.Sprintf("c%d", i)
		wg.Go(func() { // the job
			info, err := s.Conversation(ctx, a.ID, id)
			if err != nil {
				return // deleted before it started
			}
			if _, err := s.Messages(ctx, a.ID, id); err != nil {
				return
			}
			gists := []swc.StoredGist{{Session: 0, ContentHash: "h0", Variant: swc.GistTemporal, Gister: "g", Text: "gist 0"}}
			err = s.SaveConsolidation(ctx, a.ID, id, swc.Consolidation{Through: info.Sessions, Messages: info.Messages, Gists: gists, At: t0.Add(time.Hour)})
			switch swc.ErrorCode(err) {
			case "":
				saved.Add(1)
			case swc.ENOTFOUND:
				gone.Add(1)
			default:
				t.Errorf("save %s: %v", id, err)
			}
		})
		wg.Go(func() { // the delete
			if err := s.DeleteConversation(ctx, a.ID, id); err != nil {
				t.Errorf("delete %s: %v", id, err)
			}
		})
	}
	wg.Wait()
	for i := range convs {
		id := fmt.Sprintf("c%d", i)
		if g, err := s.Gists(ctx, a.ID, id); err != nil || len(g) != 0 {
			t.Errorf("%s: %d gists outlive the delete (%v)", id, len(g), err)
		}
		_, err := s.Conversation(ctx, a.ID, id)
		code(t, err, swc.ENOTFOUND)
	}
	if refs, _ := s.Unconsolidated(ctx); len(refs) != 0 {
		t.Errorf("deleted conversations still owed a job: %+v", refs)
	}
	t.Logf("%d saves before their delete, %d after", saved.Load(), gone.Load())
}
