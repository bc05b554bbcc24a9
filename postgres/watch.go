package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/swcmem/swc"
)

// Every change of a conversation's version (append, consolidation, edit)
// and every delete is told to the other replicas: after its commit, the
// store queues a notification to the channel "swc:SCHEMA", and a notifier
// sends those waiting in one statement (a transaction that notifies holds
// a database-wide lock through its commit, so notifying inside the
// writes would make them commit one at a time; this one writes nothing).
// Watch listens there on a connection of its own and tells a swc.Watcher,
// so a replica serves its cached contexts without asking the database
// whether they are current; the payload also carries the append rules'
// state, so the next append through this replica writes in one statement
// (fast.go). A notification lost (the replica died between its commit and
// the send, or the queue was full) is covered by the watcher's recheck.

// notice is a notification's payload: tenant, conversation, version (0:
// deleted; -1: any conversation may have changed), when it fits the
// append state as stateCols lists it, and the sending DB's id.
type notice struct {
	Tenant  string            `json:"t,omitempty"`
	Conv    string            `json:"c,omitempty"`
	Version int64             `json:"v"`
	State   []json.RawMessage `json:"s,omitempty"`
	From    string            `json:"o,omitempty"`
}

// maxPayload is under NOTIFY's limit (8000 bytes).
const maxPayload = 7900

// encodeNotice returns the payload telling of a change: with the state
// when it fits, else without, else "any may have changed".
func encodeNotice(from, tenant, conv string, version int64, st *swc.AppendState) string {
	n := notice{Tenant: tenant, Conv: conv, Version: version, From: from}
	if st != nil {
		for _, v := range []any{st.Messages, st.Sessions, ms(st.LastTime), ms(st.LastClient), st.LastSession, st.SessionLen, st.Seq,
			openCalls(st.OpenCalls), st.Head, st.ChainLen} {
			b, _ := json.Marshal(v)
			n.State = append(n.State, b)
		}
	}
	if b, _ := json.Marshal(n); len(b) <= maxPayload {
		return string(b)
	}
	n.State = nil
	if b, _ := json.Marshal(n); len(b) <= maxPayload {
		return string(b)
	}
	b, _ := json.Marshal(notice{Version: -1, From: from})
	return string(b)
}

// notifyBatch is the most notices one statement sends.
const notifyBatch = 256

func (db *DB) startNotifier() {
	if db.sendBatch == nil {
		db.sendBatch = func(ctx context.Context, batch []string) {
			db.pool.Exec(ctx, `SELECT pg_notify('swc:' || current_schema(), p) FROM unnest($1::text[]) AS p`, batch)
		}
	}
	db.id = newID("")
	db.out = make(chan string, 8192)
	db.stopped = make(chan struct{})
	go db.sendNotices(db.out)
}

// stopNotifier closes the queue and waits (up to a second) for the
// notices in it to be sent.
func (db *DB) stopNotifier() {
	db.watchMu.Lock()
	out := db.out
	db.out = nil
	db.watchMu.Unlock()
	if out == nil {
		return
	}
	close(out)
	select {
	case <-db.stopped:
	case <-time.After(time.Second):
	}
}

// notifyLinger is how long the notices of a busy replica (one that sent
// some less than notifyBusy ago) wait for more before they are sent
// together: every notifying statement wakes each listening backend of
// the database (the replicas' and River's), which then reads the whole
// queue, so one statement per group of appends cost the server a third
// of an append's CPU. A notice after a quiet spell is sent at once.
const notifyLinger, notifyBusy = 5 * time.Millisecond, 20 * time.Millisecond

// sendNotices sends the queued notices, those waiting together, until the
// queue is closed. A failed send is dropped (the recheck covers it).
func (db *DB) sendNotices(out chan string) {
	defer close(db.stopped)
	var last time.Time // when the last notices were sent
	timer := time.NewTimer(0)
	<-timer.C
	for p := range out {
		batch := []string{p}
		var wait <-chan time.Time // nil: take only what is queued
		if time.Since(last) < notifyBusy {
			timer.Reset(notifyLinger)
			wait = timer.C
		}
	more:
		for len(batch) < notifyBatch {
			if wait == nil {
				select {
				case p, ok := <-out:
					if !ok {
						break more
					}
					batch = append(batch, p)
				default:
					break more
				}
				continue
			}
			select {
			case p, ok := <-out:
				if !ok {
					break more
				}
				batch = append(batch, p)
			case <-wait:
				wait = nil
			}
		}
		if wait != nil && !timer.Stop() {
			<-timer.C
		}
		if db.overflow.Swap(false) {
			b, _ := json.Marshal(notice{Version: -1, From: db.id})
			batch = append(batch, string(b))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		db.sendBatch(ctx, batch)
		cancel()
		last = time.Now()
	}
}

// WatchRetry is how long Watch waits before connecting again after its
// connection failed.
const WatchRetry = 500 * time.Millisecond

// Watch tells w of the changes of this database's conversations until ctx
// is done, and is where the store tells w of its own writes (at once,
// after each commit: a read through this replica right after its write
// sees it). It listens on a connection of its own (application_name
// swc-watch): once listening it calls w.Watching(true); when the
// connection fails, w.Watching(false), then it connects again after
// WatchRetry, and so on. Call it once per DB (in a goroutine: it returns
// only when ctx is done).
func (db *DB) Watch(ctx context.Context, w swc.Watcher) {
	db.watchMu.Lock()
	db.watcher = w
	db.watchMu.Unlock()
	for ctx.Err() == nil {
		err := db.listen(ctx, w)
		w.Watching(false)
		if ctx.Err() != nil {
			return
		}
		if db.OnWatchError != nil {
			db.OnWatchError(err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(WatchRetry):
		}
	}
}

// listen connects, listens and passes notifications on until the
// connection fails or ctx is done; it returns why it stopped.
func (db *DB) listen(ctx context.Context, w swc.Watcher) error {
	cc := db.pool.Config().ConnConfig.Copy()
	cc.RuntimeParams["application_name"] = "swc-watch"
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return fmt.Errorf("postgres: watch: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var schema string
	if err := conn.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return fmt.Errorf("postgres: watch: %w", err)
	}
	if _, err := conn.Exec(ctx, `LISTEN `+pgx.Identifier{"swc:" + schema}.Sanitize()); err != nil {
		return fmt.Errorf("postgres: watch: %w", err)
	}
	db.watchPID.Store(conn.PgConn().PID())
	defer db.watchPID.Store(0)
	w.Watching(true)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("postgres: watch: %w", err)
		}
		var p notice
		if json.Unmarshal([]byte(n.Payload), &p) != nil {
			continue
		}
		if p.From == db.id { // told already, at its commit
			continue
		}
		if p.Version < 0 { // a conversation not named: any may have changed
			w.Watching(true)
			continue
		}
		if st, ok := p.state(); ok {
			db.putState(p.Tenant, p.Conv, p.Version, st)
		} else if p.Version == 0 {
			db.dropState(p.Tenant, p.Conv)
		}
		w.Changed(p.Tenant, p.Conv, p.Version)
	}
}

// state decodes the append state a notice carries.
func (p notice) state() (swc.AppendState, bool) {
	var st swc.AppendState
	if len(p.State) != 10 || p.Version <= 0 {
		return st, false
	}
	var last, client int64
	var open string
	for i, dst := range []any{&st.Messages, &st.Sessions, &last, &client, &st.LastSession, &st.SessionLen, &st.Seq, &open, &st.Head, &st.ChainLen} {
		if json.Unmarshal(p.State[i], dst) != nil {
			return st, false
		}
	}
	st.LastTime, st.LastClient = fromMS(last), fromMS(client)
	if open != "" && json.Unmarshal([]byte(open), &st.OpenCalls) != nil {
		return st, false
	}
	return st, true
}

// changed tells of a write this DB committed: the watcher, if any, at
// once; the other replicas by a notification (st: the append state after
// it, when known).
func (db *DB) changed(tenant, conv string, version int64, st *swc.AppendState) {
	db.watchMu.Lock()
	w, out := db.watcher, db.out
	if out != nil {
		select {
		case out <- encodeNotice(db.id, tenant, conv, version, st):
		default:
			db.overflow.Store(true)
		}
	}
	db.watchMu.Unlock()
	if w != nil {
		w.Changed(tenant, conv, version)
	}
}
