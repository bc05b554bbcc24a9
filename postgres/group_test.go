package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/postgres/pgtest"
)

// Fast appends arriving while a group statement runs are written by the
// next one together; the ids, the versions and the session rules hold
// for each as if it were alone: a retry racing its first send stores
// nothing twice, and a conversation another replica changed behind this
// one's back is refused in the group (the others are written) and
// appended by the locked path.
func TestGroupedAppends(t *testing.T) {
	dsn, db, tn := groupDB(t)
	ctx := context.Background()
	other, err := Open(ctx, dsn, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	opts := swc.AppendOptions{Rule: swc.DefaultSessionRule(), Now: func() time.Time { return t0 }}
	msg := func(id string) swc.Message {
		return swc.Message{ID: id, Role: swc.RoleUser, Content: "message " + id, Time: t0}
	}
	const convs = 8
	for c := range convs { // this DB now remembers each conversation's state
		if _, err := db.AppendMessages(ctx, tn.ID, fmt.Sprint("c", c), []swc.Message{msg("first")}, opts); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := other.AppendMessages(ctx, tn.ID, "c0", []swc.Message{msg("other")}, opts); err != nil {
		t.Fatal(err)
	}
	// Hold the conversations' rows: the first group waits in the
	// database while the other appends queue behind it.
	tx := holdRows(t, dsn, "tenant_id = $1", tn.ID)
	groups0, writes0 := db.group.groups.Load(), db.group.writes.Load()
	type out struct {
		res swc.AppendResult
		err error
	}
	outs := make([]out, 2*convs)
	var wg sync.WaitGroup
	for i := range outs {
		wg.Add(1)
		go func() { // each conversation's batch twice: a send and its retry
			defer wg.Done()
			c := i % convs
			res, err := db.AppendMessages(ctx, tn.ID, fmt.Sprint("c", c), []swc.Message{msg(fmt.Sprint("a", c)), msg(fmt.Sprint("b", c))}, opts)
			outs[i] = out{res, err}
		}()
	}
	deadline := time.Now().Add(10 * time.Second)
	for db.group.pending() < 2*convs-1 && time.Now().Before(deadline) { // c0's refusal may be on its way to the locked path
		time.Sleep(5 * time.Millisecond)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	appended, skipped := map[int]int{}, map[int]int{}
	for i, o := range outs {
		if o.err != nil {
			t.Fatalf("append %d: %v", i, o.err)
		}
		appended[i%convs] += o.res.Appended
		skipped[i%convs] += o.res.Skipped
	}
	for c := range convs {
		if appended[c] != 2 || skipped[c] != 2 {
			t.Errorf("c%d: appended %d and skipped %d of the send and its retry, want 2 and 2", c, appended[c], skipped[c])
		}
		ms, err := db.Messages(ctx, tn.ID, fmt.Sprint("c", c))
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"first", fmt.Sprint("a", c), fmt.Sprint("b", c)}
		if c == 0 {
			want = []string{"first", "other", "a0", "b0"}
		}
		var got []string
		for i, m := range ms {
			got = append(got, m.ID)
			if m.Seq != int64(i+1) {
				t.Errorf("c%d: message %d has seq %d", c, i, m.Seq)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("c%d: stored %v, want %v", c, got, want)
		}
		info, err := db.Conversation(ctx, tn.ID, fmt.Sprint("c", c))
		if err != nil {
			t.Fatal(err)
		}
		if info.Messages != len(want) {
			t.Errorf("c%d: the conversation counts %d messages, want %d", c, info.Messages, len(want))
		}
	}
	groups, writes := db.group.groups.Load()-groups0, db.group.writes.Load()-writes0
	if writes <= groups {
		t.Errorf("%d writes in %d group statements: none was written with another", writes, groups)
	}
	t.Logf("%d writes in %d group statements", writes, groups)
}

// The group statement's generic plan, made while the tables hold a few
// rows and have no statistics, looks each message's id up in the unique
// index (not every message of the conversation, not a hash of the table).
func TestGroupPlan(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	tn, err := db.CreateTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	opts := swc.AppendOptions{Rule: swc.DefaultSessionRule(), Now: func() time.Time { return t0 }}
	var batch []*groupWrite
	for c := range 3 {
		conv := fmt.Sprint("c", c)
		for i := range 3 {
			m := swc.Message{ID: fmt.Sprint("m", i), Role: swc.RoleUser, Content: "message", Time: t0}
			if _, err := db.AppendMessages(ctx, tn.ID, conv, []swc.Message{m}, opts); err != nil {
				t.Fatal(err)
			}
		}
		e, _ := db.states.Get(convKey{tn.ID, conv})
		plan, err := swc.PlanAppend(e.st, []swc.Message{{ID: "new", Role: swc.RoleUser, Content: "new", Time: t0}}, opts, t0, assume{})
		if err != nil {
			t.Fatal(err)
		}
		batch = append(batch, &groupWrite{key: convKey{tn.ID, conv}, version: e.version, plan: plan, now: t0})
	}
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	args := groupArgs(batch)
	params := make([]string, len(args))
	for i := range args {
		params[i] = fmt.Sprintf("$%d", i+1)
	}
	for _, q := range []string{`SET LOCAL plan_cache_mode = force_generic_plan`, `PREPARE group_plan AS ` + groupAppend} {
		if _, err := tx.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	// The arguments as literals: EXECUTE's parameters are not the statement's.
	rows, err := tx.Query(ctx, `EXPLAIN EXECUTE group_plan(`+strings.Join(params, ", ")+`)`, append([]any{pgx.QueryExecModeSimpleProtocol}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	plan := strings.Join(lines, "\n")
	lookup := false
	for i, l := range lines {
		if strings.Contains(l, "on messages m") {
			lookup = strings.Contains(l, "Index") && strings.Contains(l, "messages_by_id") && i+1 < len(lines) &&
				strings.Contains(lines[i+1], "Index Cond") && strings.Contains(lines[i+1], "msg_id =")
		}
	}
	if !lookup || strings.Contains(plan, "hashed SubPlan") {
		t.Fatalf("the stored ids are not looked up in messages_by_id:\n%s", plan)
	}
}

// An append whose request ends while it waits for its group is taken
// out of the queue: it fails with the request's error and stores nothing.
func TestGroupedAppendCanceled(t *testing.T) {
	dsn, db, tn := groupDB(t)
	ctx := context.Background()
	opts, msg := appendFirst(t, db, tn, "c0", "c1")
	tx := holdRows(t, dsn, "tenant_id = $1 AND id = 'c0'", tn.ID)
	wait := func(n int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for db.group.pending() != n {
			if time.Now().After(deadline) {
				t.Fatalf("%d appends pending, want %d", db.group.pending(), n)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	first := make(chan error, 1)
	go func() { // its group waits for c0's row
		_, err := db.AppendMessages(ctx, tn.ID, "c0", msg("a"), opts)
		first <- err
	}()
	wait(1)
	rctx, cancel := context.WithCancel(ctx)
	second := make(chan error, 1)
	go func() { // waits in the queue behind it
		_, err := db.AppendMessages(rctx, tn.ID, "c1", msg("b"), opts)
		second <- err
	}()
	wait(2)
	cancel()
	if err := <-second; !errors.Is(err, context.Canceled) {
		t.Fatalf("the canceled append returned %v", err)
	}
	wait(1)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for c, want := range map[string]int{"c0": 2, "c1": 1} {
		ms, err := db.Messages(ctx, tn.ID, c)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != want {
			t.Errorf("%s holds %d messages, want %d", c, len(ms), want)
		}
	}
}

// groupDB opens a DB on a schema of the test's own (closed when the test
// ends) with a tenant, and returns the schema's DSN too.
func groupDB(t *testing.T) (string, *DB, swc.Tenant) {
	t.Helper()
	dsn := pgtest.Schema(t)
	db, err := Open(context.Background(), dsn, Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	tn, err := db.CreateTenant(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	return dsn, db, tn
}

// appendFirst appends a message "first" to each of convs (so that db
// remembers their states) and returns the options it used and a maker of
// one-message batches.
func appendFirst(t *testing.T, db *DB, tn swc.Tenant, convs ...string) (swc.AppendOptions, func(id string) []swc.Message) {
	t.Helper()
	opts := swc.AppendOptions{Rule: swc.DefaultSessionRule(), Now: func() time.Time { return t0 }}
	msg := func(id string) []swc.Message {
		return []swc.Message{{ID: id, Role: swc.RoleUser, Content: "message " + id, Time: t0}}
	}
	for _, c := range convs {
		if _, err := db.AppendMessages(context.Background(), tn.ID, c, msg("first"), opts); err != nil {
			t.Fatal(err)
		}
	}
	return opts, msg
}

// holdRows locks the conversations' rows where where holds, in a
// transaction on a connection of its own (closed when the test ends),
// and returns the transaction: appends to them wait until it ends.
func holdRows(t *testing.T, dsn, where string, args ...any) pgx.Tx {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM conversations WHERE `+where+` FOR UPDATE`, args...); err != nil {
		t.Fatal(err)
	}
	return tx
}

// An append the server refuses for its data fails alone: a NUL character
// is refused before any statement, naming the message, and a value the
// server refuses inside a group (class 22) sends the group's appends to
// the locked path, each with its own outcome.
func TestGroupedAppendBadData(t *testing.T) {
	dsn, db, tn := groupDB(t)
	ctx := context.Background()
	opts := swc.AppendOptions{Rule: swc.DefaultSessionRule(), Now: func() time.Time { return t0 }}
	msg := func(id, content string) []swc.Message {
		return []swc.Message{{ID: id, Role: swc.RoleUser, Content: content, Time: t0}}
	}
	for _, c := range []string{"c0", "c1", "c2"} {
		if _, err := db.AppendMessages(ctx, tn.ID, c, msg("first", "x"), opts); err != nil {
			t.Fatal(err)
		}
	}
	_, err := db.AppendMessages(ctx, tn.ID, "c0", msg("n", "nul\x00here"), swc.AppendOptions{Rule: opts.Rule, Now: opts.Now, Where: []string{"input[4]"}})
	if swc.ErrorCode(err) != swc.EINVALID || !strings.Contains(err.Error(), "input[4].content") {
		t.Fatalf("NUL content: %v, want EINVALID naming input[4].content", err)
	}

	tx := holdRows(t, dsn, "tenant_id = $1 AND id = 'c2'", tn.ID)
	first := make(chan error, 1)
	go func() { _, err := db.AppendMessages(ctx, tn.ID, "c2", msg("a", "ok"), opts); first <- err }()
	for db.group.pending() != 1 {
		time.Sleep(2 * time.Millisecond)
	}
	type outcome struct {
		ok  bool
		err error
	}
	bad, good := make(chan outcome, 1), make(chan error, 1)
	go func() { // past the check, as a value the server refuses would be
		_, ok, err := db.appendFast(ctx, tn.ID, "c0", msg("a", "nul\x00here"), opts)
		bad <- outcome{ok, err}
	}()
	go func() { _, err := db.AppendMessages(ctx, tn.ID, "c1", msg("a", "fine"), opts); good <- err }()
	for db.group.pending() != 3 {
		time.Sleep(2 * time.Millisecond)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if o := <-bad; o.ok || o.err != nil {
		t.Errorf("the refused append in a group: ok %v, err %v; want the locked path's turn (false, nil)", o.ok, o.err)
	}
	if err := <-good; err != nil {
		t.Errorf("an append grouped with a refused one: %v", err)
	}
	for conv, want := range map[string]int{"c0": 1, "c1": 2, "c2": 2} {
		ms, err := db.Messages(ctx, tn.ID, conv)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != want {
			t.Errorf("%s: %d messages stored, want %d", conv, len(ms), want)
		}
	}
}

// The groups of one run are written on one connection; when its backend
// is killed, the group on it fails (its appends' callers retry) and the
// next group is written on another connection.
func TestGroupConnection(t *testing.T) {
	dsn, db, tn := groupDB(t)
	ctx := context.Background()
	opts, msg := appendFirst(t, db, tn, "c0", "c1")
	// c0's group waits on its row; c1's append queues behind it and is
	// the next group of the same run.
	appendHeld := func(id string) error {
		tx := holdRows(t, dsn, "tenant_id = $1 AND id = 'c0'", tn.ID)
		errs := make(chan error, 2)
		go func() { _, err := db.AppendMessages(ctx, tn.ID, "c0", msg(id), opts); errs <- err }()
		for db.group.pending() != 1 {
			time.Sleep(2 * time.Millisecond)
		}
		go func() { _, err := db.AppendMessages(ctx, tn.ID, "c1", msg(id), opts); errs <- err }()
		for db.group.pending() != 2 {
			time.Sleep(2 * time.Millisecond)
		}
		if err := tx.Commit(ctx); err != nil {
			return err
		}
		return errors.Join(<-errs, <-errs)
	}
	groups0, conns0 := db.group.groups.Load(), db.group.conns.Load()
	if err := appendHeld("a"); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, db)
	if g, c := db.group.groups.Load()-groups0, db.group.conns.Load()-conns0; g != 2 || c != 1 {
		t.Errorf("%d groups of one run on %d connections, want 2 on 1", g, c)
	}

	// The backend writing c0's group killed while it waits on the row.
	tx := holdRows(t, dsn, "tenant_id = $1 AND id = 'c0'", tn.ID)
	killed := make(chan error, 1)
	go func() { _, err := db.AppendMessages(ctx, tn.ID, "c0", msg("b"), opts); killed <- err }()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var n int
	deadline := time.Now().Add(10 * time.Second)
	for n == 0 && time.Now().Before(deadline) {
		err := admin.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query LIKE 'WITH c AS%' AND wait_event_type = 'Lock'`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n != 1 {
		t.Fatalf("%d group backends found waiting, want 1", n)
	}
	if err := <-killed; err == nil {
		t.Error("an append whose group's backend was killed succeeded, want an error")
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"c0", "c1"} { // written on another connection
		if _, err := db.AppendMessages(ctx, tn.ID, c, msg("c"), opts); err != nil {
			t.Fatalf("%s after the group's backend was killed: %v", c, err)
		}
		ms, err := db.Messages(ctx, tn.ID, c)
		if err != nil {
			t.Fatal(err)
		}
		if last := ms[len(ms)-1].ID; last != "c" {
			t.Errorf("%s: last message %s, want c", c, last)
		}
	}
}

// waitIdle waits until db's grouper holds no writes.
func waitIdle(t *testing.T, db *DB) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for db.group.pending() > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the grouper is still busy after 10s")
		}
		time.Sleep(2 * time.Millisecond)
	}
}
