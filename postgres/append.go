package postgres

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/swcmem/swc"
)

// AppendMessages implements swc.Store. The conversation's row is locked
// for the transaction, so concurrent appends to one conversation (from any
// replica) are applied one after the other, each seeing the other's
// messages; appends to different conversations do not wait for each other.
// The clock is read once the row is locked.
func (db *DB) AppendMessages(ctx context.Context, tenant, conv string, msgs []swc.Message, o swc.AppendOptions) (swc.AppendResult, error) {
	var res swc.AppendResult
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		var err error
		res, err = appendTx(ctx, tx, tenant, conv, msgs, o)
		return err
	})
	if errors.Is(err, errNothing) {
		return res, nil
	}
	if err != nil {
		return swc.AppendResult{}, wrap("append", err)
	}
	return res, nil
}

const stateCols = `messages, sessions, last_time, last_client, last_session_key, last_session_len, last_seq, open_calls, head_chain, chain_len`

func scanState(sc pgx.Row) (swc.AppendState, error) {
	var st swc.AppendState
	var last, client int64
	var seq int32
	var open string
	err := sc.Scan(&st.Messages, &st.Sessions, &last, &client, &st.LastSession, &st.SessionLen, &seq, &open, &st.Head, &st.ChainLen)
	st.LastTime, st.LastClient, st.Seq = fromMS(last), fromMS(client), int64(seq)
	if err == nil && open != "" {
		err = json.Unmarshal([]byte(open), &st.OpenCalls)
	}
	return st, err
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

// appendTx applies swc.PlanAppend's rules over the conversation locked in
// tx. It returns errNothing (with the counts) when nothing is to be
// stored, so that the conversation's row, new or not, is rolled back.
func appendTx(ctx context.Context, tx pgx.Tx, tenant, conv string, msgs []swc.Message, o swc.AppendOptions) (swc.AppendResult, error) {
	tag, err := tx.Exec(ctx, `INSERT INTO conversations (tenant_id, id, created_at, generation) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
		tenant, conv, ms(o.Clock()()), newID(""))
	if err != nil {
		return swc.AppendResult{}, err
	}
	isNew := tag.RowsAffected() == 1
	st, err := scanState(tx.QueryRow(ctx, `SELECT `+stateCols+` FROM conversations WHERE tenant_id = $1 AND id = $2 FOR UPDATE`, tenant, conv))
	if err != nil {
		return swc.AppendResult{}, err
	}
	now := o.Clock()() // the row is locked: no append of it can come between
	plan, err := swc.PlanAppend(st, msgs, o, now, &lookup{ctx: ctx, tx: tx, tenant: tenant, conv: conv})
	if err != nil {
		return swc.AppendResult{}, err
	}
	if len(plan.Messages) == 0 && plan.Supersede == 0 {
		if !isNew {
			plan.Result.Conversation, err = scanConv(tx.QueryRow(ctx, `SELECT `+convCols+` FROM conversations WHERE tenant_id = $1 AND id = $2`, tenant, conv))
			if err != nil {
				return swc.AppendResult{}, err
			}
		}
		return plan.Result, errNothing // nothing stored: no empty conversation either
	}
	edits := 0
	if plan.Supersede != 0 {
		edits = 1
		if _, err := tx.Exec(ctx, `UPDATE messages SET superseded = $1 WHERE tenant_id = $2 AND conv_id = $3 AND superseded = 0 AND seq > $4`,
			max(ms(now), 1), tenant, conv, max(plan.Supersede, 0)); err != nil {
			return swc.AppendResult{}, err
		}
	}
	rows := make([][]any, len(plan.Messages))
	for i, m := range plan.Messages {
		rows[i] = []any{tenant, conv, int32(m.Seq), m.ID, string(m.Role), m.Name, m.Content, toolCalls(m.ToolCalls), m.ToolCallID,
			ms(m.Time), m.Session, int32(m.SessionN), ms(m.Received), m.Stamped, m.Chain}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"messages"},
		[]string{"tenant_id", "conv_id", "seq", "msg_id", "role", "name", "content", "tool_calls", "tool_call_id", "time", "session_key", "session_n", "received", "stamped", "chain"},
		pgx.CopyFromRows(rows)); err != nil {
		return swc.AppendResult{}, err
	}
	s := plan.State
	// An edit leaves consolidated only what it kept.
	plan.Result.Conversation, err = scanConv(tx.QueryRow(ctx, `UPDATE conversations SET messages = $1, sessions = $2, last_time = $3, last_client = $4,
		last_session_key = $5, last_session_len = $6, last_seq = $7, open_calls = $8, head_chain = $9, chain_len = $10, last_received = $11,
		version = nextval('conv_version'), superseded = superseded + $12, edits = edits + $13,
		cons_messages = CASE WHEN $13 = 1 THEN least(cons_messages, $14) ELSE cons_messages END,
		cons_through = CASE WHEN $13 = 1 THEN least(cons_through, $15) ELSE cons_through END
		WHERE tenant_id = $16 AND id = $17 RETURNING `+convCols,
		s.Messages, s.Sessions, ms(s.LastTime), ms(s.LastClient), s.LastSession, s.SessionLen, int32(s.Seq), openCalls(s.OpenCalls), s.Head, s.ChainLen,
		ms(now), plan.Superseded, edits, plan.Kept, plan.KeptSessions, tenant, conv))
	return plan.Result, err
}

// lookup answers swc.PlanAppend's questions inside the append's
// transaction.
type lookup struct {
	ctx          context.Context
	tx           pgx.Tx
	tenant, conv string
}

// StoredIDs implements swc.AppendLookup in one query (excluding the empty
// id lets the planner use the partial unique index).
func (l *lookup) StoredIDs(ids []string) (map[string]bool, error) {
	rows, err := l.tx.Query(l.ctx, `SELECT msg_id FROM messages WHERE tenant_id = $1 AND conv_id = $2 AND msg_id <> '' AND superseded = 0 AND msg_id = ANY($3)`,
		l.tenant, l.conv, ids)
	if err != nil {
		return nil, err
	}
	have, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(have))
	for _, id := range have {
		out[id] = true
	}
	return out, nil
}

// Live implements swc.AppendLookup: every column but the text.
func (l *lookup) Live() ([]swc.StoredMessage, error) {
	return readMessages(l.ctx, l.tx, `SELECT seq, msg_id, role, name, '', tool_calls, tool_call_id, time, session_key, session_n, received, stamped, chain
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
