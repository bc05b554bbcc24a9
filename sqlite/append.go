package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/swcmem/swc"
)

// AppendMessages implements swc.Store: swc.PlanAppend's rules over the
// conversation read in the transaction, with the clock read once the
// database is locked (an IMMEDIATE transaction).
func (db *DB) AppendMessages(ctx context.Context, tenant, conv string, msgs []swc.Message, o swc.AppendOptions) (swc.AppendResult, error) {
	var res swc.AppendResult
	err := retryBusy(ctx, func() error {
		db.writeMu.Lock()
		defer db.writeMu.Unlock()
		var err error
		res, err = db.appendTx(ctx, tenant, conv, msgs, o)
		return err
	})
	if err != nil {
		if swc.ErrorCode(err) != swc.EINTERNAL {
			return swc.AppendResult{}, err
		}
		return swc.AppendResult{}, fmt.Errorf("sqlite: append: %w", err)
	}
	return res, nil
}

const stateCols = `messages, sessions, last_time, last_client, last_session_key, last_session_len, last_seq, open_calls, head_chain, chain_len`

func scanState(sc interface{ Scan(...any) error }) (swc.AppendState, error) {
	var st swc.AppendState
	var last, client int64
	var open string
	err := sc.Scan(&st.Messages, &st.Sessions, &last, &client, &st.LastSession, &st.SessionLen, &st.Seq, &open, &st.Head, &st.ChainLen)
	st.LastTime, st.LastClient = fromMS(last), fromMS(client)
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

func (db *DB) appendTx(ctx context.Context, tenant, conv string, msgs []swc.Message, o swc.AppendOptions) (swc.AppendResult, error) {
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return swc.AppendResult{}, err
	}
	defer tx.Rollback()
	st, err := scanState(tx.QueryRowContext(ctx, `SELECT `+stateCols+` FROM conversations WHERE tenant_id = ? AND id = ?`, tenant, conv))
	isNew := errors.Is(err, sql.ErrNoRows)
	if err != nil && !isNew {
		return swc.AppendResult{}, err
	}
	now := o.Clock()() // the database is locked: no append can come between
	plan, err := swc.PlanAppend(st, msgs, o, now, &lookup{ctx: ctx, tx: tx, tenant: tenant, conv: conv})
	if err != nil {
		return swc.AppendResult{}, err
	}
	if len(plan.Messages) == 0 && plan.Supersede == 0 {
		if !isNew {
			plan.Result.Conversation, err = conversation(ctx, tx, tenant, conv)
		}
		return plan.Result, err // nothing stored: no empty conversation either
	}
	if isNew {
		if _, err := tx.ExecContext(ctx, `INSERT INTO conversations (tenant_id, id, created_at, generation) VALUES (?, ?, ?, ?)`,
			tenant, conv, ms(now), newID("")); err != nil {
			return swc.AppendResult{}, err
		}
	}
	edits := 0
	if plan.Supersede != 0 {
		edits = 1
		if _, err := tx.ExecContext(ctx, `UPDATE messages SET superseded = ? WHERE tenant_id = ? AND conv_id = ? AND superseded = 0 AND seq > ?`,
			max(ms(now), 1), tenant, conv, max(plan.Supersede, 0)); err != nil {
			return swc.AppendResult{}, err
		}
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO messages (tenant_id, conv_id, seq, msg_id, role, name, content, tool_calls, tool_call_id, time, session_key, session_n, received, stamped, chain)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return swc.AppendResult{}, err
	}
	defer ins.Close()
	for _, m := range plan.Messages {
		if _, err := ins.ExecContext(ctx, tenant, conv, m.Seq, m.ID, string(m.Role), m.Name, m.Content, toolCalls(m.ToolCalls), m.ToolCallID,
			ms(m.Time), m.Session, m.SessionN, ms(m.Received), m.Stamped, m.Chain); err != nil {
			return swc.AppendResult{}, err
		}
	}
	v, err := nextVersion(ctx, tx)
	if err != nil {
		return swc.AppendResult{}, err
	}
	s := plan.State
	// An edit leaves consolidated only what it kept.
	if _, err := tx.ExecContext(ctx, `UPDATE conversations SET messages = ?, sessions = ?, last_time = ?, last_client = ?, last_session_key = ?,
		last_session_len = ?, last_seq = ?, open_calls = ?, head_chain = ?, chain_len = ?, last_received = ?, version = ?,
		superseded = superseded + ?, edits = edits + ?,
		cons_messages = CASE WHEN ? THEN min(cons_messages, ?) ELSE cons_messages END,
		cons_through = CASE WHEN ? THEN min(cons_through, ?) ELSE cons_through END
		WHERE tenant_id = ? AND id = ?`,
		s.Messages, s.Sessions, ms(s.LastTime), ms(s.LastClient), s.LastSession, s.SessionLen, s.Seq, openCalls(s.OpenCalls), s.Head, s.ChainLen,
		ms(now), v, plan.Superseded, edits, edits == 1, plan.Kept, edits == 1, plan.KeptSessions, tenant, conv); err != nil {
		return swc.AppendResult{}, err
	}
	if plan.Result.Conversation, err = conversation(ctx, tx, tenant, conv); err != nil {
		return swc.AppendResult{}, err
	}
	return plan.Result, tx.Commit()
}

func toolCalls(calls []swc.ToolCall) string {
	if len(calls) == 0 {
		return ""
	}
	b, _ := json.Marshal(calls)
	return string(b)
}

// nextVersion takes the next conversation version from the one counter,
// which deletes never reset.
func nextVersion(ctx context.Context, tx *sql.Tx) (int64, error) {
	var v int64
	err := tx.QueryRowContext(ctx, `UPDATE version_seq SET v = v + 1 RETURNING v`).Scan(&v)
	return v, err
}

// lookup answers swc.PlanAppend's questions inside the append's
// transaction.
type lookup struct {
	ctx          context.Context
	tx           *sql.Tx
	tenant, conv string
}

// StoredIDs implements swc.AppendLookup in one query.
func (l *lookup) StoredIDs(ids []string) (map[string]bool, error) {
	list, _ := json.Marshal(ids)
	// msg_id <> '' AND superseded = 0 lets SQLite use the partial unique index.
	rows, err := l.tx.QueryContext(l.ctx, `SELECT msg_id FROM messages WHERE tenant_id = ? AND conv_id = ? AND msg_id <> '' AND superseded = 0
		AND msg_id IN (SELECT value FROM json_each(?))`, l.tenant, l.conv, string(list))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		have[id] = true
	}
	return have, rows.Err()
}

// Live implements swc.AppendLookup: every column but the text.
func (l *lookup) Live() ([]swc.StoredMessage, error) {
	return readMessages(l.ctx, l.tx, `SELECT seq, msg_id, role, name, '', tool_calls, tool_call_id, time, session_key, session_n, received, stamped, chain
		FROM messages WHERE tenant_id = ? AND conv_id = ? AND superseded = 0 ORDER BY seq`, l.tenant, l.conv)
}

type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// readMessages reads messages of msgCols' shape.
func readMessages(ctx context.Context, q querier, query string, args ...any) ([]swc.StoredMessage, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []swc.StoredMessage
	for rows.Next() {
		var m swc.StoredMessage
		var role, calls string
		var t, recv int64
		if err := rows.Scan(&m.Seq, &m.ID, &role, &m.Name, &m.Content, &calls, &m.ToolCallID, &t, &m.Session, &m.SessionN, &recv, &m.Stamped, &m.Chain); err != nil {
			return nil, err
		}
		m.Role, m.Time, m.Received = swc.Role(role), fromMS(t), fromMS(recv)
		if calls != "" {
			if err := json.Unmarshal([]byte(calls), &m.ToolCalls); err != nil {
				return nil, fmt.Errorf("seq %d: tool calls: %w", m.Seq, err)
			}
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

const msgCols = `seq, msg_id, role, name, content, tool_calls, tool_call_id, time, session_key, session_n, received, stamped, chain`

// backfill3 gives the messages stored before schema 3 their chains, and
// their conversations the state the append rules read (open calls, head).
func backfill3(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT tenant_id, id FROM conversations WHERE messages > 0`)
	if err != nil {
		return err
	}
	var refs []swc.ConversationRef
	for rows.Next() {
		var r swc.ConversationRef
		if err := rows.Scan(&r.Tenant, &r.ID); err != nil {
			rows.Close()
			return err
		}
		refs = append(refs, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range refs {
		msgs, err := readMessages(ctx, tx, `SELECT `+msgCols+` FROM messages WHERE tenant_id = ? AND conv_id = ? ORDER BY seq`, r.Tenant, r.ID)
		if err != nil {
			return err
		}
		chain := ""
		for i := range msgs {
			if !swc.IsInstruction(msgs[i].Message) {
				chain = swc.Chain(chain, msgs[i].Message)
			}
			msgs[i].Chain = chain
			if _, err := tx.ExecContext(ctx, `UPDATE messages SET chain = ? WHERE tenant_id = ? AND conv_id = ? AND seq = ?`, chain, r.Tenant, r.ID, msgs[i].Seq); err != nil {
				return err
			}
		}
		st := swc.ReplayState(msgs)
		if _, err := tx.ExecContext(ctx, `UPDATE conversations SET open_calls = ?, head_chain = ?, chain_len = ? WHERE tenant_id = ? AND id = ?`,
			openCalls(st.OpenCalls), st.Head, st.ChainLen, r.Tenant, r.ID); err != nil {
			return err
		}
	}
	return nil
}

// conversation reads one conversation's summary in q.
func conversation(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}, tenant, conv string) (swc.ConversationInfo, error) {
	return scanConv(q.QueryRowContext(ctx, `SELECT `+convCols+` FROM conversations WHERE tenant_id = ? AND id = ?`, tenant, conv))
}
