package postgres

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/gist"
	"github.com/swcmem/swc/internal/memo"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/postgres/pgtest"
	"github.com/swcmem/swc/sleep"
)

// replica is one process's view of the database: a DB, the service on it
// watching its notifications, and how often its reads asked the database.
type replica struct {
	db   *DB
	mem  *sleep.Service
	asks atomic.Int64
}

type askCounter struct {
	swc.Store
	n *atomic.Int64
}

func (s askCounter) Conversation(ctx context.Context, tenant, conv string) (swc.ConversationInfo, error) {
	s.n.Add(1)
	return s.Store.Conversation(ctx, tenant, conv)
}

func openReplica(t *testing.T, dsn string) *replica {
	t.Helper()
	db, err := Open(context.Background(), dsn, Config{})
	if err != nil {
		t.Fatal(err)
	}
	r := &replica{db: db}
	r.mem = &sleep.Service{Store: askCounter{db, &r.asks}, Gister: gist.NewExtractive(), Fallback: gist.NewExtractive(), Budget: 600, Recheck: time.Minute}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); db.Watch(ctx, r.mem) }()
	t.Cleanup(func() { cancel(); <-done; db.Close() })
	return r
}

// waitWatching waits until r listens.
func (r *replica) waitWatching(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); r.db.watchPID.Load() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the replica does not listen within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// context returns the replica's context of the conversation, as JSON
// ("" once it is gone).
func (r *replica) context(t *testing.T, tenant string) string {
	t.Helper()
	res, err := r.mem.Context(context.Background(), tenant, "c", sleep.Request{})
	if swc.ErrorCode(err) == swc.ENOTFOUND {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(res.JSON())
}

// Two replicas return byte-identical contexts, the database's current
// one, within milliseconds of every write through either (append,
// consolidation, delete) and without asking the database while nothing
// changes — also after one replica's notification connection is cut
// (it asks the database until it listens again).
func TestReplicasFollowNotifications(t *testing.T) {
	dsn := pgtest.Schema(t)
	a, b := openReplica(t, dsn), openReplica(t, dsn)
	a.waitWatching(t)
	b.waitWatching(t)
	ctx := context.Background()
	tn, err := a.db.CreateTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	convs, err := locomo.Sample()
	if err != nil {
		t.Fatal(err)
	}
	msgs := chat.FromConversation(convs[0].Upto(4))
	fresh := func() string { // what a replica with no cache says
		m := &sleep.Service{Store: a.db, Gister: a.mem.Gister, Fallback: a.mem.Fallback, Budget: a.mem.Budget}
		res, err := m.Context(ctx, tn.ID, "c", sleep.Request{})
		if swc.ErrorCode(err) == swc.ENOTFOUND {
			return ""
		}
		if err != nil {
			t.Fatal(err)
		}
		return string(res.JSON())
	}
	// agree waits (up to the bound) until both replicas serve the
	// database's context, and returns how long that took.
	agree := func(step string) time.Duration {
		t.Helper()
		want := fresh()
		start := time.Now()
		for {
			ga, gb := a.context(t, tn.ID), b.context(t, tn.ID)
			if ga == want && gb == want {
				return time.Since(start)
			}
			if time.Since(start) > 2*time.Second {
				t.Fatalf("%s: the replicas disagree with the database after 2s (a current: %v, b current: %v)", step, ga == want, gb == want)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	opts := swc.AppendOptions{Rule: swc.DefaultSessionRule()}
	var slowest time.Duration
	for i, m := range msgs {
		w := a
		if i%2 == 1 {
			w = b
		}
		if _, err := w.db.AppendMessages(ctx, tn.ID, "c", []swc.Message{m}, opts); err != nil {
			t.Fatal(err)
		}
		slowest = max(slowest, agree(fmt.Sprintf("append %d", i)))
		if i == len(msgs)/2 {
			if _, err := b.mem.Consolidate(ctx, tn.ID, "c"); err != nil {
				t.Fatal(err)
			}
			slowest = max(slowest, agree("consolidation"))
		}
	}
	t.Logf("slowest agreement after a write: %v", slowest)
	// Nothing changes: reads ask nothing.
	a.asks.Store(0)
	b.asks.Store(0)
	for range 50 {
		a.context(t, tn.ID)
		b.context(t, tn.ID)
	}
	if a.asks.Load()+b.asks.Load() != 0 {
		t.Fatalf("100 cached reads asked the database %d times, want 0", a.asks.Load()+b.asks.Load())
	}

	// Cut b's notification connection, then write through a at once,
	// before b listens again.
	pid := b.db.watchPID.Load()
	if _, err := a.db.pool.Exec(ctx, `SELECT pg_terminate_backend($1)`, int32(pid)); err != nil {
		t.Fatal(err)
	}
	for b.db.watchPID.Load() == pid {
		time.Sleep(time.Millisecond)
	}
	more := chat.FromConversation(convs[0].Upto(5))[len(msgs):]
	if _, err := a.db.AppendMessages(ctx, tn.ID, "c", more[:1], opts); err != nil {
		t.Fatal(err)
	}
	agree("append while b's notifications are cut")
	if b.db.watchPID.Load() != 0 {
		t.Log("b listened again before the check: the cut was not observed without notifications")
	}
	b.waitWatching(t)
	if b.db.watchPID.Load() == pid {
		t.Fatal("b listens on the connection that was cut")
	}
	if _, err := b.db.AppendMessages(ctx, tn.ID, "c", more[1:2], opts); err != nil {
		t.Fatal(err)
	}
	agree("append after b listens again")
	if err := b.db.DeleteConversation(ctx, tn.ID, "c"); err != nil {
		t.Fatal(err)
	}
	if agree("delete"); a.context(t, tn.ID) != "" {
		t.Fatal("a serves a deleted conversation")
	}
}

// Appends through two replicas to one conversation, each remembering a
// state the other's writes make stale, store every message once, in
// order: the fast path's version check sends the loser to the locked
// path.
func TestFastPathAcrossReplicas(t *testing.T) {
	dsn := pgtest.Schema(t)
	a, b := openReplica(t, dsn), openReplica(t, dsn)
	ctx := context.Background()
	tn, err := a.db.CreateTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	opts := swc.AppendOptions{Rule: swc.DefaultSessionRule()}
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for w, r := range []*replica{a, b} {
		wg.Go(func() {
			for i := range n {
				// Every message is sent by both replicas (a retry through the
				// other): each is stored once.
				m := swc.Message{ID: fmt.Sprintf("m%03d", i), Role: swc.RoleUser, Content: fmt.Sprintf("message %d from %d", i, w)}
				if _, err := r.db.AppendMessages(ctx, tn.ID, "c", []swc.Message{m}, opts); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, err := a.db.Messages(ctx, tn.ID, "c")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("%d messages stored, want %d", len(got), n)
	}
	seen := map[string]bool{}
	for i, m := range got {
		if seen[m.ID] || m.Seq != int64(i+1) {
			t.Fatalf("message %d: id %s seq %d (seen before: %v)", i, m.ID, m.Seq, seen[m.ID])
		}
		seen[m.ID] = true
	}
	info, err := a.db.Conversation(ctx, tn.ID, "c")
	if err != nil {
		t.Fatal(err)
	}
	if info.Messages != n {
		t.Fatalf("conversation counts %d messages, want %d", info.Messages, n)
	}
}

// writeCounter counts the writes to its connections: a round trip each
// (pgx sends a statement or a batch in one write, then waits).
type writeCounter struct {
	net.Conn
	n *atomic.Int64
}

func (c writeCounter) Write(b []byte) (int, error) {
	c.n.Add(1)
	return c.Conn.Write(b)
}

// An append through a replica that remembers the conversation's state is
// one round trip; the locked path is two more (three for a retry of
// stored ids: the rollback).
func TestAppendRoundTrips(t *testing.T) {
	dsn := pgtest.Schema(t)
	ctx := context.Background()
	pc, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	var writes atomic.Int64
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	pc.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialer.DialContext(ctx, network, addr)
		return writeCounter{c, &writes}, err
	}
	pc.MinConns, pc.MaxConns = 1, 1
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		t.Fatal(err)
	}
	db := &DB{pool: pool, Now: time.Now, states: memo.New(1<<20, stateSize)}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	other, err := Open(ctx, dsn, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tn, err := db.CreateTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	opts := swc.AppendOptions{Rule: swc.DefaultSessionRule()}
	n := 0
	appendTrips := func(s swc.Store, ids ...string) (int64, swc.AppendResult) {
		t.Helper()
		var msgs []swc.Message
		for _, id := range ids {
			msgs = append(msgs, swc.Message{ID: id, Role: swc.RoleUser, Content: "message " + id})
		}
		before := writes.Load()
		res, err := s.AppendMessages(ctx, tn.ID, "c", msgs, opts)
		if err != nil {
			t.Fatal(err)
		}
		return writes.Load() - before, res
	}
	next := func() string { n++; return fmt.Sprintf("m%d", n) }
	// The statements are prepared on first use: warm both paths.
	appendTrips(db, next())
	appendTrips(db, next())
	cases := []struct {
		name  string
		store swc.Store
		ids   []string
		trips int64
	}{
		{"remembered state", db, []string{next()}, 1},
		{"remembered state, a batch", db, []string{next(), next(), next()}, 1},
		{"a retry of stored ids", db, []string{"m1", "m2"}, 3}, // refused, then the locked path, which rolls back
		{"written by another replica first", other, []string{next()}, 0},
		{"after another replica's write", db, []string{next()}, 3}, // one refused, then the locked path
		{"state remembered again", db, []string{next()}, 1},
	}
	for _, c := range cases {
		trips, res := appendTrips(c.store, c.ids...)
		if c.store == db && trips != c.trips {
			t.Errorf("%s: %d round trips, want %d (%+v)", c.name, trips, c.trips, res)
		}
	}
}

// A busy replica's notices go out together: appends notifying every
// half millisecond for 100 ms make about one statement per notifyLinger,
// not one per append; a notice after a quiet spell goes alone, at once.
func TestNoticesGather(t *testing.T) {
	db, err := Open(context.Background(), pgtest.Schema(t), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mu sync.Mutex
	var batches []int
	db.sendBatch = func(_ context.Context, batch []string) { // before any notice: the queue's send orders it
		mu.Lock()
		batches = append(batches, len(batch))
		mu.Unlock()
	}
	sent := 0
	for end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); sent++ {
		db.changed("t", "c", int64(sent+1), nil)
		time.Sleep(500 * time.Microsecond)
	}
	time.Sleep(50 * time.Millisecond) // quiet: the next notice goes at once
	db.changed("t", "c", int64(sent+1), nil)
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n, total := len(batches), 0
		for _, b := range batches {
			total += b
		}
		last := 0
		if n > 0 {
			last = batches[n-1]
		}
		mu.Unlock()
		if total == sent+1 {
			if limit := 100*time.Millisecond/notifyLinger + 10; n-1 > int(limit) {
				t.Errorf("%d notices in %d statements over 100 ms, want at most %d", sent, n-1, limit)
			}
			if last != 1 {
				t.Errorf("the notice after a quiet spell went with %d others", last-1)
			}
			t.Logf("%d notices in %d statements", sent, n-1)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d notices sent after 5s", total, sent+1)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
