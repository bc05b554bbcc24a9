package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/swcmem/swc"
)

// Fast appends are written in groups (group commit): while the group
// statements in flight (Config.AppendGroups) run, the fast appends
// arriving wait, and the next statement writes all of them, each
// conversation at most once, in one transaction (under load, after
// waiting groupLinger for more). Under load an append shares its round
// trip, its statement's overhead and its commit's WAL flush with the
// others; alone it is written at once. Each conversation
// of a group is updated only at the version its plan read and when it
// holds none of its batch's ids, as one append's statement alone was; the
// others of the group are written regardless. A group that fails as a
// whole because of one of its appends (an id stored by another replica
// meanwhile, which the unique index refuses; a deadlock with another
// replica's group) sends its appends to the locked path.

// maxGroup is the most conversations one group statement writes.
const maxGroup = 64

// groupLinger is how long a group waits for more appends before it is
// written when the last group was written less than groupBusy ago (under
// load: a larger group costs the server less per append); an append
// after a quiet spell is written at once.
const groupLinger, groupBusy = time.Millisecond, 5 * time.Millisecond

// groupTimeout bounds one group statement.
const groupTimeout = time.Minute

// groupWrite is one fast append waiting for its group: its plan over the
// conversation's state at version; ok, info or err once done is closed.
type groupWrite struct {
	key     convKey
	version int64
	plan    swc.AppendPlan
	now     time.Time

	ok    bool // written
	stale bool // another write of the conversation came first in this DB: plan again
	info  swc.ConversationInfo
	err   error
	done  chan struct{}
}

// grouper queues the fast appends and runs their group statements. The
// zero grouper runs one at a time.
type grouper struct {
	limit   int // group statements in flight at most (0: 1)
	mu      sync.Mutex
	queue   []*groupWrite
	running int
	busy    map[convKey]bool // conversations of the groups in flight
	lastEnd time.Time        // when the last group was written

	groups, writes atomic.Int64 // statements run, and the writes they carried
	conns          atomic.Int64 // connections acquired by runs
}

// pending returns how many writes wait or are being written.
func (g *grouper) pending() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.queue) + len(g.busy)
}

// write queues w and waits until its group is written, and returns w.err.
// When ctx ends while w waits in the queue, w is taken out (nothing of it
// is stored) and write returns ctx's error; once w's group is being
// written, its outcome stands.
func (g *grouper) write(ctx context.Context, db *DB, w *groupWrite) error {
	w.done = make(chan struct{})
	g.mu.Lock()
	g.queue = append(g.queue, w)
	if g.running < max(g.limit, 1) {
		g.running++
		go g.run(db)
	}
	g.mu.Unlock()
	select {
	case <-w.done:
		return w.err
	case <-ctx.Done():
	}
	g.mu.Lock()
	if i := slices.Index(g.queue, w); i >= 0 {
		g.queue = slices.Delete(g.queue, i, i+1)
		g.mu.Unlock()
		return ctx.Err()
	}
	g.mu.Unlock()
	<-w.done
	return w.err
}

// run writes groups until the queue holds none it may write, all on one
// connection of the pool, held from the first group to the last: one
// backend plans the group statement and warms its caches, not each of
// the pool's in turn.
func (g *grouper) run(db *DB) {
	var c groupConn
	defer c.release()
	for {
		g.mu.Lock()
		if time.Since(g.lastEnd) < groupBusy && len(g.queue) < maxGroup {
			g.mu.Unlock()
			time.Sleep(groupLinger)
			g.mu.Lock()
		}
		batch := g.take(db)
		if len(batch) == 0 {
			g.running--
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		g.groups.Add(1)
		g.writes.Add(int64(len(batch)))
		db.writeGroup(&c, batch)
		g.mu.Lock()
		for _, w := range batch {
			delete(g.busy, w.key)
		}
		g.lastEnd = time.Now()
		g.mu.Unlock()
		for _, w := range batch {
			close(w.done)
		}
	}
}

// groupConn is the connection a grouper's run writes on, acquired for
// its first group.
type groupConn struct {
	conn *pgxpool.Conn
}

// get returns the connection, acquiring one when there is none; it
// returns the pool's error.
func (c *groupConn) get(ctx context.Context, db *DB) (*pgxpool.Conn, error) {
	if c.conn == nil {
		conn, err := db.pool.Acquire(ctx)
		if err != nil {
			return nil, err
		}
		db.group.conns.Add(1)
		c.conn = conn
	}
	return c.conn, nil
}

// release gives the connection back to the pool.
func (c *groupConn) release() {
	if c.conn != nil {
		c.conn.Release()
		c.conn = nil
	}
}

// take removes the next group from the queue: in arrival order, each
// conversation once and none a group in flight writes, at most maxGroup
// and, past the first, maxGroupMessages messages.
// A write whose conversation this DB has written since its plan read the
// state is stale (done at once: its append plans again). g.mu is held.
func (g *grouper) take(db *DB) []*groupWrite {
	if g.busy == nil {
		g.busy = map[convKey]bool{}
	}
	var batch []*groupWrite
	rest := g.queue[:0]
	n := 0 // messages in batch
	for _, w := range g.queue {
		switch {
		case len(batch) >= maxGroup || n > 0 && n+len(w.plan.Messages) > maxGroupMessages || g.busy[w.key]:
			rest = append(rest, w)
		case db.stateVersion(w.key) != w.version:
			w.stale = true
			close(w.done)
		default:
			g.busy[w.key] = true
			batch = append(batch, w)
			n += len(w.plan.Messages)
		}
	}
	clear(g.queue[len(rest):])
	g.queue = rest
	return batch
}

// stateVersion returns the version of the conversation's remembered state
// (0: none).
func (db *DB) stateVersion(k convKey) int64 {
	e, _ := db.states.Get(k)
	return e.version
}

// groupConvCols are the conversation's columns a group statement sets,
// with their types, after tenant_id ($1), then where its messages are in
// the messages' arrays (lo to hi).
var groupConvCols = [][2]string{{"id", "text"}, {"version", "bigint"}, {"messages", "int"}, {"sessions", "int"}, {"last_time", "bigint"},
	{"last_client", "bigint"}, {"last_session_key", "text"}, {"last_session_len", "int"}, {"last_seq", "int"}, {"open_calls", "text"},
	{"head_chain", "text"}, {"chain_len", "int"}, {"last_received", "bigint"}, {"lo", "int"}, {"hi", "int"}}

// groupMsgCols are the messages' columns, as msgArgs gives them, after
// the index of each message's conversation in the group ($17).
var groupMsgCols = [][2]string{{"seq", "int"}, {"msg_id", "text"}, {"role", "text"}, {"name", "text"}, {"content", "text"},
	{"tool_calls", "text"}, {"tool_call_id", "text"}, {"time", "bigint"}, {"session_key", "text"}, {"session_n", "int"},
	{"received", "bigint"}, {"stamped", "bool"}, {"chain", "text"}}

// groupAppend writes a group: $1–$16 are arrays of the conversations'
// columns (groupConvCols), $17–$30 of the messages' (groupMsgCols); it
// returns the index (1-based) and the columns of each conversation
// written. Each array is read by subscript along one unnest (whose row
// estimate keeps the plan on the primary key): an unnest over many arrays
// keeps a tuplestore each, memory the server allocates and frees again
// on every statement. Whether a message's id is stored is asked per
// message, in the select list (OFFSET 0 keeps it a lookup per message
// rather than a hash of the table), so its plan is the unique index's
// lookup whatever the tables' statistics: a join might filter the
// conversation's every message instead, on a plan made while the tables
// were empty.
var groupAppend = func() string {
	var c, set, n, cols, ins []string
	for i, f := range groupConvCols {
		c = append(c, fmt.Sprintf("($%d::%s[])[c0.j] AS %s", i+2, f[1], f[0]))
		if f[0] != "id" && f[0] != "version" && f[0] != "lo" && f[0] != "hi" {
			set = append(set, f[0]+" = c."+f[0])
		}
	}
	for i, f := range groupMsgCols {
		n = append(n, fmt.Sprintf("($%d::%s[])[n0.i] AS %s", i+18, f[1], f[0]))
		cols = append(cols, f[0])
		ins = append(ins, "n."+f[0])
	}
	return `WITH c AS (SELECT c0.j, c0.tenant_id, ` + strings.Join(c, ", ") + ` FROM unnest($1::text[]) WITH ORDINALITY AS c0(tenant_id, j)),
n AS (SELECT n0.conv_n, ` + strings.Join(n, ", ") + `, ($19::text[])[n0.i] <> '' AND EXISTS (SELECT 1 FROM messages m
		WHERE m.tenant_id = ($1::text[])[n0.conv_n] AND m.conv_id = ($2::text[])[n0.conv_n] AND m.msg_id = ($19::text[])[n0.i]
			AND m.msg_id <> '' AND m.superseded = 0 OFFSET 0) AS stored
	FROM unnest($17::int[]) WITH ORDINALITY AS n0(conv_n, i)),
u AS (UPDATE conversations t SET ` + strings.Join(set, ", ") + `, version = nextval('conv_version') FROM c
	WHERE t.tenant_id = c.tenant_id AND t.id = c.id AND t.version = c.version AND NOT EXISTS (SELECT 1 FROM n WHERE n.conv_n = c.j AND n.stored)
	RETURNING c.j, t.tenant_id AS tenant, t.` + strings.ReplaceAll(convCols, ", ", ", t.") + `),
i AS (INSERT INTO messages (tenant_id, conv_id, ` + strings.Join(cols, ", ") + `)
	SELECT u.tenant, u.id, ` + strings.Join(ins, ", ") + ` FROM n JOIN u ON u.j = n.conv_n)
SELECT j, ` + convCols + ` FROM u`
}()

// groupArgs returns groupAppend's arguments for batch.
func groupArgs(batch []*groupWrite) []any {
	k := len(batch)
	tenant, id, lastKey, open, head := make([]string, k), make([]string, k), make([]string, k), make([]string, k), make([]string, k)
	version, lastTime, lastClient, recv := make([]int64, k), make([]int64, k), make([]int64, k), make([]int64, k)
	msgs, sessions, sessLen, seq, chainLen := make([]int32, k), make([]int32, k), make([]int32, k), make([]int32, k), make([]int32, k)
	lo, hi := make([]int32, k), make([]int32, k)
	var convN []int32
	var all []swc.StoredMessage
	for j, w := range batch {
		s := w.plan.State
		tenant[j], id[j], version[j] = w.key.tenant, w.key.conv, w.version
		msgs[j], sessions[j], lastTime[j], lastClient[j] = int32(s.Messages), int32(s.Sessions), ms(s.LastTime), ms(s.LastClient)
		lastKey[j], sessLen[j], seq[j], open[j] = s.LastSession, int32(s.SessionLen), int32(s.Seq), openCalls(s.OpenCalls)
		head[j], chainLen[j], recv[j] = s.Head, int32(s.ChainLen), ms(w.now)
		for range w.plan.Messages {
			convN = append(convN, int32(j+1))
		}
		lo[j] = int32(len(all) + 1)
		all = append(all, w.plan.Messages...)
		hi[j] = int32(len(all))
	}
	args := []any{tenant, id, version, msgs, sessions, lastTime, lastClient, lastKey, sessLen, seq, open, head, chainLen, recv, lo, hi, convN}
	return append(args, msgArgs(all)...)
}

// writeGroup writes batch in one statement and sets each write's outcome.
// The statement runs in a transaction of its own that makes its plan
// generic: planned once per connection (a custom plan for every group
// costs the server as much as executing it).
func (db *DB) writeGroup(c *groupConn, batch []*groupWrite) {
	ctx, cancel := context.WithTimeout(context.Background(), groupTimeout)
	defer cancel()
	written := make([]bool, len(batch))
	conn, err := c.get(ctx, db)
	if err == nil {
		b := &pgx.Batch{}
		b.Queue(`BEGIN`)
		b.Queue(`SET LOCAL plan_cache_mode = force_generic_plan`)
		b.Queue(groupAppend, groupArgs(batch)...).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var j int64
				info, err := scanConv(indexed{rows, &j})
				if err != nil {
					return err
				}
				if j >= 1 && j <= int64(len(batch)) {
					w := batch[j-1]
					w.ok, w.info, written[j-1] = true, info, true
				}
			}
			return rows.Err()
		})
		b.Queue(`COMMIT`)
		err = conn.SendBatch(ctx, b).Close()
		if err != nil && !conn.Conn().IsClosed() && conn.Conn().PgConn().TxStatus() != 'I' {
			if _, rerr := conn.Exec(context.WithoutCancel(ctx), `ROLLBACK`); rerr != nil {
				conn.Conn().Close(context.WithoutCancel(ctx))
			}
		}
		if conn.Conn().IsClosed() { // the pool drops it; the next group acquires another
			c.release()
		}
	}
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe) && (pe.Code == "23505" || pe.Code == "40P01" || strings.HasPrefix(pe.Code, "22")):
		// An id stored meanwhile, a deadlock, or a value of one append
		// the server refuses (class 22, data exception): nothing of the
		// group is stored; the locked path writes each, so an append
		// fails for its own data only.
		for _, w := range batch {
			w.ok = false
		}
		return
	case err != nil:
		for _, w := range batch {
			w.ok, w.err = false, err
		}
		return
	}
	for j, w := range batch {
		if !written[j] { // another write came first, or an id is stored
			db.dropState(w.key.tenant, w.key.conv)
			continue
		}
		db.putState(w.key.tenant, w.key.conv, w.info.Version, w.plan.State)
		db.changed(w.key.tenant, w.key.conv, w.info.Version, &w.plan.State)
	}
}

// indexed scans a group statement's row: the index into j, the rest into
// the destinations given.
type indexed struct {
	rows pgx.Rows
	j    *int64
}

func (r indexed) Scan(dest ...any) error { return r.rows.Scan(append([]any{r.j}, dest...)...) }
