package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/swcmem/swc"
)

// AppendMessages implements swc.Store, in one round trip when it can.
// Every append applies swc.PlanAppend's rules to the conversation's state
// at one version and stores its plan only if the conversation is still at
// that version, so concurrent appends to one conversation (from any
// replica) are applied one after the other, each seeing the other's
// messages; appends to different conversations do not wait for each
// other.
//
// The fast path (fast.go) plans over the state this DB remembers (from its
// last write or a notification of another's) and writes in one statement
// that checks the version; the unique index on message ids refuses an id
// already stored. When it cannot (a conversation not remembered, another
// write came first, an id stored already, a rule refusing the batch, an
// edited history), the locked path reads the state under the
// conversation's row lock and writes, in two round trips; the clock is
// read once the row is locked.
func (db *DB) AppendMessages(ctx context.Context, tenant, conv string, msgs []swc.Message, o swc.AppendOptions) (swc.AppendResult, error) {
	if err := checkNUL(msgs, o); err != nil {
		return swc.AppendResult{}, err
	}
	res, ok, err := db.appendFast(ctx, tenant, conv, msgs, o)
	if ok || err != nil {
		return res, wrap("append", err)
	}
	res, err = db.appendLocked(ctx, tenant, conv, msgs, o)
	if err != nil {
		return swc.AppendResult{}, wrap("append", err)
	}
	return res, nil
}

const stateCols = `messages, sessions, last_time, last_client, last_session_key, last_session_len, last_seq, open_calls, head_chain, chain_len`

// scanStateConv scans stateCols then convCols.
func scanStateConv(sc pgx.Row) (swc.AppendState, swc.ConversationInfo, error) {
	var st swc.AppendState
	var last, client int64
	var seq int32
	var open string
	var c swc.ConversationInfo
	var created, clast, recv, consAt, req int64
	err := sc.Scan(&st.Messages, &st.Sessions, &last, &client, &st.LastSession, &st.SessionLen, &seq, &open, &st.Head, &st.ChainLen,
		&c.ID, &created, &c.Messages, &c.Sessions, &clast, &recv, &c.Version, &c.ConsolidatedThrough, &c.ConsolidatedMessages, &consAt, &req,
		&c.Generation, &c.Superseded, &c.Edits)
	st.LastTime, st.LastClient, st.Seq = fromMS(last), fromMS(client), int64(seq)
	c.ConsolidationRequested = fromMS(req)
	c.Created, c.LastMessage, c.LastReceived, c.ConsolidatedAt = fromMS(created), fromMS(clast), fromMS(recv), fromMS(consAt)
	if err == nil && open != "" {
		err = json.Unmarshal([]byte(open), &st.OpenCalls)
	}
	return st, c, err
}

func openCalls(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	b, _ := json.Marshal(ids)
	return string(b)
}

func toolCalls(calls []swc.ToolCall) string {
	if len(calls) == 0 {
		return ""
	}
	b, _ := json.Marshal(calls)
	return string(b)
}

// insertMessages inserts the plan's messages: the arguments from $first
// on are msgArgs' arrays, read by subscript (unnest over the thirteen
// arrays would keep a tuplestore per array: 140 KB of memory the server
// allocates and frees again on every append, a third of its CPU).
func insertMessages(first int) string {
	types := []string{"int[]", "text[]", "text[]", "text[]", "text[]", "text[]", "text[]", "bigint[]", "text[]", "int[]", "bigint[]", "bool[]", "text[]"}
	p := make([]string, len(types))
	for i, t := range types {
		p[i] = fmt.Sprintf("($%d::%s)[i]", first+i, t)
	}
	return `INSERT INTO messages (tenant_id, conv_id, seq, msg_id, role, name, content, tool_calls, tool_call_id, time, session_key, session_n, received, stamped, chain)
		SELECT $1::text, $2::text, ` + strings.Join(p, ", ") + fmt.Sprintf(` FROM generate_series(1, cardinality($%d::int[])) AS i`, first)
}

// msgArgs returns the columns of msgs as arrays, in insertMessages' order.
func msgArgs(msgs []swc.StoredMessage) []any {
	n := len(msgs)
	seq, sn := make([]int32, n), make([]int32, n)
	id, role, name, content, calls, callID, sess, chain := make([]string, n), make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	tm, recv := make([]int64, n), make([]int64, n)
	stamped := make([]bool, n)
	for i, m := range msgs {
		seq[i], id[i], role[i], name[i], content[i], calls[i], callID[i] = int32(m.Seq), m.ID, string(m.Role), m.Name, m.Content, toolCalls(m.ToolCalls), m.ToolCallID
		tm[i], sess[i], sn[i], recv[i], stamped[i], chain[i] = ms(m.Time), m.Session, int32(m.SessionN), ms(m.Received), m.Stamped, m.Chain
	}
	return []any{seq, id, role, name, content, calls, callID, tm, sess, sn, recv, stamped, chain}
}

// stateArgs returns the state columns an append sets, in stateCols'
// order, then last_received.
func stateArgs(s swc.AppendState, now time.Time) []any {
	return []any{s.Messages, s.Sessions, ms(s.LastTime), ms(s.LastClient), s.LastSession, s.SessionLen, int32(s.Seq), openCalls(s.OpenCalls), s.Head, s.ChainLen, ms(now)}
}

// setState is the SET list of stateArgs from $3 on.
const setState = `messages = $3, sessions = $4, last_time = $5, last_client = $6, last_session_key = $7, last_session_len = $8, last_seq = $9,
	open_calls = $10, head_chain = $11, chain_len = $12, last_received = $13, version = nextval('conv_version')`

// appendLocked is the locked path: round trip 1 begins, creates the
// conversation if new, locks its row, reads its state and which of the
// batch's ids it holds; round trip 2 writes the plan and commits. (An
// edited history's question, which messages are live, takes one more.)
func (db *DB) appendLocked(ctx context.Context, tenant, conv string, msgs []swc.Message, o swc.AppendOptions) (res swc.AppendResult, err error) {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return res, err
	}
	defer conn.Release()
	open := false
	defer func() {
		if open { // a failed or empty append: nothing of it stays
			if _, rerr := conn.Exec(context.WithoutCancel(ctx), `ROLLBACK`); rerr != nil {
				conn.Conn().Close(context.WithoutCancel(ctx)) // the pool drops it
			}
		}
	}()
	var ids []string
	if o.Mode == swc.AppendLog {
		for _, m := range msgs {
			if m.ID != "" {
				ids = append(ids, m.ID)
			}
		}
	}
	b := &pgx.Batch{}
	b.Queue(`BEGIN`)
	b.Queue(`INSERT INTO conversations (tenant_id, id, created_at, generation) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
		tenant, conv, ms(o.Clock()()), newID(""))
	b.Queue(`SELECT `+stateCols+`, `+convCols+` FROM conversations WHERE tenant_id = $1 AND id = $2 FOR UPDATE`, tenant, conv)
	if len(ids) > 0 {
		b.Queue(storedIDs, tenant, conv, ids)
	}
	open = true
	br := conn.SendBatch(ctx, b)
	var (
		tag  pgconn.CommandTag
		st   swc.AppendState
		info swc.ConversationInfo
		have []string
	)
	if _, err = br.Exec(); err == nil {
		if tag, err = br.Exec(); err == nil {
			if st, info, err = scanStateConv(br.QueryRow()); err == nil && len(ids) > 0 {
				var rows pgx.Rows
				if rows, err = br.Query(); err == nil {
					have, err = pgx.CollectRows(rows, pgx.RowTo[string])
				}
			}
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return res, err
	}
	isNew := tag.RowsAffected() == 1
	now := o.Clock()() // the row is locked: no append of it can come between
	lk := &lookup{ctx: ctx, conn: conn.Conn(), tenant: tenant, conv: conv, have: map[string]bool{}}
	for _, id := range have {
		lk.have[id] = true
	}
	plan, err := swc.PlanAppend(st, msgs, o, now, lk)
	if err != nil {
		return res, err
	}
	if len(plan.Messages) == 0 && plan.Supersede == 0 {
		if !isNew {
			db.putState(tenant, conv, info.Version, st)
			plan.Result.Conversation = info
		}
		return plan.Result, nil // rolled back: nothing stored, no empty conversation either
	}
	edits := 0
	b = &pgx.Batch{}
	if plan.Supersede != 0 {
		edits = 1
		b.Queue(`UPDATE messages SET superseded = $1 WHERE tenant_id = $2 AND conv_id = $3 AND superseded = 0 AND seq > $4`,
			max(ms(now), 1), tenant, conv, max(plan.Supersede, 0))
	}
	b.Queue(insertMessages(3), append([]any{tenant, conv}, msgArgs(plan.Messages)...)...)
	// An edit leaves consolidated only what it kept.
	args := append([]any{tenant, conv}, stateArgs(plan.State, now)...)
	b.Queue(`UPDATE conversations SET `+setState+`, superseded = superseded + $14, edits = edits + $15,
		cons_messages = CASE WHEN $15 = 1 THEN least(cons_messages, $16) ELSE cons_messages END,
		cons_through = CASE WHEN $15 = 1 THEN least(cons_through, $17) ELSE cons_through END
		WHERE tenant_id = $1 AND id = $2 RETURNING `+convCols,
		append(args, plan.Superseded, edits, plan.Kept, plan.KeptSessions)...)
	b.Queue(`COMMIT`)
	br = conn.SendBatch(ctx, b)
	if plan.Supersede != 0 {
		_, err = br.Exec()
	}
	if err == nil {
		if _, err = br.Exec(); err == nil {
			if plan.Result.Conversation, err = scanConv(br.QueryRow()); err == nil {
				_, err = br.Exec()
			}
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return res, err
	}
	open = false
	v := plan.Result.Conversation.Version
	db.putState(tenant, conv, v, plan.State)
	db.changed(tenant, conv, v, &plan.State)
	return plan.Result, nil
}

// storedIDs reads which of the ids $3 are stored (excluding the empty id
// lets the planner use the partial unique index).
const storedIDs = `SELECT msg_id FROM messages WHERE tenant_id = $1 AND conv_id = $2 AND msg_id <> '' AND superseded = 0 AND msg_id = ANY($3)`

// lookup answers swc.PlanAppend's questions inside the locked path's
// transaction: the stored ids, read with the lock; the live messages,
// read when asked.
type lookup struct {
	ctx          context.Context
	conn         *pgx.Conn
	tenant, conv string
	have         map[string]bool
}

// StoredIDs implements swc.AppendLookup.
func (l *lookup) StoredIDs(ids []string) (map[string]bool, error) { return l.have, nil }

// Live implements swc.AppendLookup: every column but the text.
func (l *lookup) Live() ([]swc.StoredMessage, error) {
	return readMessages(l.ctx, l.conn, `SELECT seq, msg_id, role, name, '', tool_calls, tool_call_id, time, session_key, session_n, received, stamped, chain
		FROM messages WHERE tenant_id = $1 AND conv_id = $2 AND superseded = 0 ORDER BY seq`, l.tenant, l.conv)
}

const msgCols = `seq, msg_id, role, name, content, tool_calls, tool_call_id, time, session_key, session_n, received, stamped, chain`

// readMessages reads messages of msgCols' shape.
func readMessages(ctx context.Context, q interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}, query string, args ...any) ([]swc.StoredMessage, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (swc.StoredMessage, error) {
		var m swc.StoredMessage
		var role, calls string
		var t, recv int64
		var seq int32
		if err := r.Scan(&seq, &m.ID, &role, &m.Name, &m.Content, &calls, &m.ToolCallID, &t, &m.Session, &m.SessionN, &recv, &m.Stamped, &m.Chain); err != nil {
			return m, err
		}
		m.Seq, m.Role, m.Time, m.Received = int64(seq), swc.Role(role), fromMS(t), fromMS(recv)
		if calls != "" {
			if err := json.Unmarshal([]byte(calls), &m.ToolCalls); err != nil {
				return m, swc.Errorf(swc.EINTERNAL, "messages: seq %d: tool calls: %v", m.Seq, err)
			}
		}
		return m, nil
	})
}

// backfill4 gives the messages stored before schema 4 their chains, and
// their conversations the state the append rules read (open calls, head).
func backfill4(ctx context.Context, tx pgx.Tx) error {
	rows, err := tx.Query(ctx, `SELECT tenant_id, id FROM conversations WHERE messages > 0`)
	if err != nil {
		return err
	}
	refs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (swc.ConversationRef, error) {
		var c swc.ConversationRef
		err := r.Scan(&c.Tenant, &c.ID)
		return c, err
	})
	if err != nil {
		return err
	}
	for _, r := range refs {
		msgs, err := readMessages(ctx, tx, `SELECT `+msgCols+` FROM messages WHERE tenant_id = $1 AND conv_id = $2 ORDER BY seq`, r.Tenant, r.ID)
		if err != nil {
			return err
		}
		chain := ""
		b := &pgx.Batch{}
		for i := range msgs {
			if !swc.IsInstruction(msgs[i].Message) {
				chain = swc.Chain(chain, msgs[i].Message)
			}
			msgs[i].Chain = chain
			b.Queue(`UPDATE messages SET chain = $1 WHERE tenant_id = $2 AND conv_id = $3 AND seq = $4`, chain, r.Tenant, r.ID, int32(msgs[i].Seq))
		}
		st := swc.ReplayState(msgs)
		b.Queue(`UPDATE conversations SET open_calls = $1, head_chain = $2, chain_len = $3 WHERE tenant_id = $4 AND id = $5`,
			openCalls(st.OpenCalls), st.Head, st.ChainLen, r.Tenant, r.ID)
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return err
		}
	}
	return nil
}

// checkNUL returns an EINVALID error naming the first message with a NUL
// character (U+0000, valid UTF-8 and JSON's "\u0000") in a text it
// stores, which Postgres text cannot hold; nil when there is none.
func checkNUL(msgs []swc.Message, o swc.AppendOptions) error {
	for i, m := range msgs {
		field := ""
		switch {
		case strings.IndexByte(m.Content, 0) >= 0:
			field = "content"
		case strings.IndexByte(m.Name, 0) >= 0:
			field = "name"
		case strings.IndexByte(m.ID, 0) >= 0:
			field = "id"
		case strings.IndexByte(m.Session, 0) >= 0:
			field = "session"
		case strings.IndexByte(m.ToolCallID, 0) >= 0:
			field = "tool_call_id"
		}
		for k, tc := range m.ToolCalls {
			if field == "" && (strings.IndexByte(tc.ID, 0) >= 0 || strings.IndexByte(tc.Name, 0) >= 0 || strings.IndexByte(tc.Arguments, 0) >= 0) {
				field = fmt.Sprintf("tool_calls[%d]", k)
			}
		}
		if field != "" {
			where := fmt.Sprintf("messages[%d]", i)
			if i < len(o.Where) {
				where = o.Where[i]
			}
			return swc.Errorf(swc.EINVALID, "%s.%s: holds a NUL character (U+0000), which the Postgres store cannot keep", where, field)
		}
	}
	return nil
}
