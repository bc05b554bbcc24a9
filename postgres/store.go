package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/swcmem/swc"
)

var _ swc.Store = (*DB)(nil)

// errNothing rolls back an append that stored nothing.
var errNothing = errors.New("nothing appended")

// CreateTenant implements swc.Store.
func (db *DB) CreateTenant(ctx context.Context, name string) (swc.Tenant, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return swc.Tenant{}, swc.Errorf(swc.EINVALID, "tenant name is empty")
	}
	t := swc.Tenant{ID: newID("t_"), Name: name, Created: db.now().UTC().Truncate(time.Millisecond)}
	tag, err := db.pool.Exec(ctx, `INSERT INTO tenants (id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, t.ID, t.Name, ms(t.Created))
	if err != nil {
		return swc.Tenant{}, wrap("create tenant", err)
	}
	if tag.RowsAffected() == 0 {
		return swc.Tenant{}, swc.Errorf(swc.EINVALID, "tenant %q already exists", name)
	}
	return t, nil
}

// TenantByName implements swc.Store.
func (db *DB) TenantByName(ctx context.Context, name string) (swc.Tenant, error) {
	var t swc.Tenant
	var created int64
	err := db.pool.QueryRow(ctx, `SELECT id, name, created_at FROM tenants WHERE name = $1`, name).Scan(&t.ID, &t.Name, &created)
	if errors.Is(err, pgx.ErrNoRows) {
		return t, swc.Errorf(swc.ENOTFOUND, "no tenant %q", name)
	}
	if err != nil {
		return t, wrap("tenant", err)
	}
	t.Created = fromMS(created)
	return t, nil
}

// CreateKey implements swc.Store.
func (db *DB) CreateKey(ctx context.Context, tenantID, id, hash string) (swc.APIKey, error) {
	k := swc.APIKey{ID: id, TenantID: tenantID, Hash: hash, Created: db.now().UTC().Truncate(time.Millisecond)}
	_, err := db.pool.Exec(ctx, `INSERT INTO api_keys (id, tenant_id, hash, created_at) VALUES ($1, $2, $3, $4)`,
		k.ID, k.TenantID, k.Hash, ms(k.Created))
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23503" { // foreign_key_violation
		return k, swc.Errorf(swc.ENOTFOUND, "no tenant with id %q", tenantID)
	}
	if err != nil {
		return k, wrap("create key", err)
	}
	return k, nil
}

// KeyByHash implements swc.Store.
func (db *DB) KeyByHash(ctx context.Context, hash string) (swc.APIKey, error) {
	var k swc.APIKey
	var created int64
	err := db.pool.QueryRow(ctx, `SELECT id, tenant_id, hash, created_at FROM api_keys WHERE hash = $1 AND revoked_at = 0`, hash).
		Scan(&k.ID, &k.TenantID, &k.Hash, &created)
	if errors.Is(err, pgx.ErrNoRows) {
		return k, swc.Errorf(swc.ENOTFOUND, "no such key")
	}
	if err != nil {
		return k, wrap("key", err)
	}
	k.Created = fromMS(created)
	return k, nil
}

// Keys implements swc.Store.
func (db *DB) Keys(ctx context.Context) ([]swc.APIKey, error) {
	rows, err := db.pool.Query(ctx, `SELECT id, tenant_id, hash, created_at, revoked_at FROM api_keys ORDER BY created_at, id`)
	if err != nil {
		return nil, wrap("keys", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (swc.APIKey, error) {
		var k swc.APIKey
		var c, rv int64
		err := r.Scan(&k.ID, &k.TenantID, &k.Hash, &c, &rv)
		k.Created, k.Revoked = fromMS(c), fromMS(rv)
		return k, err
	})
	return out, wrap("keys", err)
}

// RevokeKey implements swc.Store.
func (db *DB) RevokeKey(ctx context.Context, id string, at time.Time) error {
	tag, err := db.pool.Exec(ctx, `UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at = 0`, max(ms(at), 1), id)
	if err != nil {
		return wrap("revoke key", err)
	}
	if tag.RowsAffected() == 0 {
		return swc.Errorf(swc.ENOTFOUND, "no valid key %q", id)
	}
	return nil
}

const convCols = `id, created_at, messages, sessions, last_time, last_received, version, cons_through, cons_messages, cons_at, cons_requested, generation, superseded, edits`

func scanConv(sc pgx.Row) (swc.ConversationInfo, error) {
	var c swc.ConversationInfo
	var created, last, recv, consAt, req int64
	err := sc.Scan(&c.ID, &created, &c.Messages, &c.Sessions, &last, &recv, &c.Version, &c.ConsolidatedThrough, &c.ConsolidatedMessages, &consAt, &req,
		&c.Generation, &c.Superseded, &c.Edits)
	c.ConsolidationRequested = fromMS(req)
	c.Created, c.LastMessage, c.LastReceived, c.ConsolidatedAt = fromMS(created), fromMS(last), fromMS(recv), fromMS(consAt)
	return c, err
}

// Conversation implements swc.Store.
func (db *DB) Conversation(ctx context.Context, tenant, conv string) (swc.ConversationInfo, error) {
	c, err := scanConv(db.pool.QueryRow(ctx, `SELECT `+convCols+` FROM conversations WHERE tenant_id = $1 AND id = $2`, tenant, conv))
	if errors.Is(err, pgx.ErrNoRows) {
		return c, swc.Errorf(swc.ENOTFOUND, "no conversation %q", conv)
	}
	return c, wrap("conversation", err)
}

// Conversations implements swc.Store.
func (db *DB) Conversations(ctx context.Context, tenant string) ([]swc.ConversationInfo, error) {
	rows, err := db.pool.Query(ctx, `SELECT `+convCols+` FROM conversations WHERE tenant_id = $1 ORDER BY id`, tenant)
	if err != nil {
		return nil, wrap("conversations", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (swc.ConversationInfo, error) { return scanConv(r) })
	if out == nil {
		out = []swc.ConversationInfo{}
	}
	return out, wrap("conversations", err)
}

// Messages implements swc.Store. The conversation and its messages are
// read in one snapshot.
func (db *DB) Messages(ctx context.Context, tenant, conv string) ([]swc.StoredMessage, error) {
	return db.MessagesIn(ctx, tenant, conv, swc.MessageRange{})
}

// MessagesIn implements swc.Store. The conversation and its messages are
// read in one snapshot.
func (db *DB) MessagesIn(ctx context.Context, tenant, conv string, r swc.MessageRange) ([]swc.StoredMessage, error) {
	var out []swc.StoredMessage
	err := pgx.BeginTxFunc(ctx, db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM conversations WHERE tenant_id = $1 AND id = $2`, tenant, conv).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return swc.Errorf(swc.ENOTFOUND, "no conversation %q", conv)
		}
		if err != nil {
			return err
		}
		q, args := rangeQuery(tenant, conv, r)
		out, err = readMessages(ctx, tx, q, args...)
		return err
	})
	return out, wrap("messages", err)
}

// rangeQuery returns the query of MessagesIn and its arguments.
func rangeQuery(tenant, conv string, r swc.MessageRange) (string, []any) {
	q := `SELECT ` + msgCols + ` FROM messages WHERE tenant_id = $1 AND conv_id = $2 AND superseded = 0 AND seq >= $3`
	args := []any{tenant, conv, r.From}
	if r.To > 0 {
		args = append(args, r.To)
		q += fmt.Sprintf(` AND seq < $%d`, len(args))
	}
	if r.Instructions {
		q += ` AND role IN ('system', 'developer')`
	}
	switch {
	case r.Limit > 0 && r.Last:
		args = append(args, r.Limit)
		return fmt.Sprintf(`SELECT * FROM (%s ORDER BY seq DESC LIMIT $%d) last ORDER BY seq`, q, len(args)), args
	case r.Limit > 0:
		args = append(args, r.Limit)
		return fmt.Sprintf(`%s ORDER BY seq LIMIT $%d`, q, len(args)), args
	}
	return q + ` ORDER BY seq`, args
}

// Plan implements swc.Store.
func (db *DB) Plan(ctx context.Context, tenant, conv string) ([]byte, error) {
	var body []byte
	var has bool
	err := db.pool.QueryRow(ctx, `SELECT p.body IS NOT NULL, coalesce(p.body, ''::bytea) FROM conversations c
		LEFT JOIN conv_plans p ON p.tenant_id = c.tenant_id AND p.conv_id = c.id WHERE c.tenant_id = $1 AND c.id = $2`, tenant, conv).Scan(&has, &body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, swc.Errorf(swc.ENOTFOUND, "no conversation %q", conv)
	}
	if err != nil || !has {
		return nil, wrap("plan", err)
	}
	return body, nil
}

// DeleteConversation implements swc.Store. The conversation's row goes
// first, so a consolidation saving meanwhile either finishes before (its
// gists are then deleted too) or finds no conversation (ENOTFOUND).
func (db *DB) DeleteConversation(ctx context.Context, tenant, conv string) error {
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM conversations WHERE tenant_id = $1 AND id = $2`, tenant, conv)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return swc.Errorf(swc.ENOTFOUND, "no conversation %q", conv)
		}
		for _, q := range []string{
			`DELETE FROM messages WHERE tenant_id = $1 AND conv_id = $2`,
			`DELETE FROM conv_gists WHERE tenant_id = $1 AND conv_id = $2`,
			`DELETE FROM conv_plans WHERE tenant_id = $1 AND conv_id = $2`,
			`DELETE FROM compressions WHERE tenant_id = $1 AND conv_id = $2`,
		} {
			if _, err := tx.Exec(ctx, q, tenant, conv); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		db.dropState(tenant, conv)
		db.changed(tenant, conv, 0, nil)
	}
	return wrap("delete", err)
}

// SaveConsolidation implements swc.Store.
func (db *DB) SaveConsolidation(ctx context.Context, tenant, conv string, c swc.Consolidation) error {
	var st swc.AppendState
	var info swc.ConversationInfo
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		var gen string
		var edits int
		err := tx.QueryRow(ctx, `SELECT generation, edits FROM conversations WHERE tenant_id = $1 AND id = $2 FOR UPDATE`, tenant, conv).Scan(&gen, &edits)
		if errors.Is(err, pgx.ErrNoRows) {
			return swc.Errorf(swc.ENOTFOUND, "no conversation %q", conv)
		}
		if err != nil {
			return err
		}
		if err := swc.CheckGeneration(conv, gen, edits, c); err != nil {
			return err
		}
		st, info, err = scanStateConv(tx.QueryRow(ctx, `UPDATE conversations SET cons_through = $1, cons_messages = $2, cons_at = $3, version = nextval('conv_version')
			WHERE tenant_id = $4 AND id = $5 RETURNING `+stateCols+`, `+convCols, c.Through, c.Messages, ms(c.At), tenant, conv))
		if err != nil {
			return err
		}
		if c.Plan != nil {
			if _, err := tx.Exec(ctx, `INSERT INTO conv_plans (tenant_id, conv_id, body) VALUES ($1, $2, $3)
				ON CONFLICT (tenant_id, conv_id) DO UPDATE SET body = EXCLUDED.body`, tenant, conv, c.Plan); err != nil {
				return err
			}
		}
		if len(c.Gists) == 0 {
			return nil
		}
		b := &pgx.Batch{}
		for _, g := range c.Gists {
			b.Queue(`INSERT INTO conv_gists (tenant_id, conv_id, session_n, content_hash, variant, gister, text, created_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
				tenant, conv, g.Session, g.ContentHash, string(g.Variant), g.Gister, g.Text, ms(c.At))
		}
		return tx.SendBatch(ctx, b).Close()
	})
	if err == nil {
		db.putState(tenant, conv, info.Version, st)
		db.changed(tenant, conv, info.Version, &st)
	}
	return wrap("save consolidation", err)
}

// Gists implements swc.Store.
func (db *DB) Gists(ctx context.Context, tenant, conv string) ([]swc.StoredGist, error) {
	rows, err := db.pool.Query(ctx, `SELECT session_n, content_hash, variant, gister, text, created_at FROM conv_gists
		WHERE tenant_id = $1 AND conv_id = $2 ORDER BY session_n, created_at, variant, content_hash`, tenant, conv)
	if err != nil {
		return nil, wrap("gists", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (swc.StoredGist, error) {
		var g swc.StoredGist
		var v string
		var c int64
		err := r.Scan(&g.Session, &g.ContentHash, &v, &g.Gister, &g.Text, &c)
		g.Variant, g.Created = swc.GistVariant(v), fromMS(c)
		return g, err
	})
	return out, wrap("gists", err)
}

// Unconsolidated implements swc.Store.
func (db *DB) Unconsolidated(ctx context.Context) ([]swc.ConversationRef, error) {
	rows, err := db.pool.Query(ctx, `SELECT tenant_id, id FROM conversations
		WHERE messages > cons_messages OR cons_requested > cons_at ORDER BY tenant_id, id`)
	if err != nil {
		return nil, wrap("unconsolidated", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (swc.ConversationRef, error) {
		var c swc.ConversationRef
		err := r.Scan(&c.Tenant, &c.ID)
		return c, err
	})
	return out, wrap("unconsolidated", err)
}

// RequestConsolidation implements swc.Store.
func (db *DB) RequestConsolidation(ctx context.Context, tenant, conv string, at time.Time) error {
	tag, err := db.pool.Exec(ctx, `UPDATE conversations SET cons_requested = $1 WHERE tenant_id = $2 AND id = $3`, max(ms(at), 1), tenant, conv)
	if err != nil {
		return wrap("request consolidation", err)
	}
	if tag.RowsAffected() == 0 {
		return swc.Errorf(swc.ENOTFOUND, "no conversation %q", conv)
	}
	return nil
}
