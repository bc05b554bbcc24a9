package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/swcmem/swc"
)

// Every change of a conversation's version and every delete notifies the
// channel "swc:SCHEMA" at commit (migration 5's trigger), whoever made it:
// a replica, swc keys, psql. Watch listens there on a connection of its
// own and tells a swc.Watcher, so a replica serves its cached contexts
// without asking the database whether they are current; the payload also
// carries the append rules' state, so the next append through this
// replica writes in one statement (append.go).

// notice is a notification's payload: tenant, conversation, version (0:
// deleted; -1: some conversation whose ids were too long to name) and,
// when it fits, the append state as stateCols lists it.
type notice struct {
	Tenant  string            `json:"t"`
	Conv    string            `json:"c"`
	Version int64             `json:"v"`
	State   []json.RawMessage `json:"s"`
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

// changed tells the watcher, if any, of a write this DB committed.
func (db *DB) changed(tenant, conv string, version int64) {
	db.watchMu.Lock()
	w := db.watcher
	db.watchMu.Unlock()
	if w != nil {
		w.Changed(tenant, conv, version)
	}
}
