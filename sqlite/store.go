package sqlite

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/swcmem/swc"
)

// The service's store lives in the same file as the caches, so
// `swc serve --db swc.db` keeps everything in one place.

var _ swc.Store = (*DB)(nil)

// Pool opens a second connection pool on the DB's file with the same
// pragmas, limited to max open connections (River's SQLite driver wants 1).
// The caller closes it.
func (db *DB) Pool(max int) (*sql.DB, error) {
	p, err := sql.Open("sqlite", dsn(db.path, db.sync))
	if err != nil {
		return nil, fmt.Errorf("sqlite: pool: %w", err)
	}
	p.SetMaxOpenConns(max)
	return p, nil
}

func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v).UTC()
}

func newID(prefix string) string {
	b := make([]byte, 8)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// CreateTenant implements swc.Store.
func (db *DB) CreateTenant(ctx context.Context, name string) (swc.Tenant, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return swc.Tenant{}, swc.Errorf(swc.EINVALID, "tenant name is empty")
	}
	t := swc.Tenant{ID: newID("t_"), Name: name, Created: db.now().UTC().Truncate(time.Millisecond)}
	res, err := db.db.ExecContext(ctx, `INSERT OR IGNORE INTO tenants (id, name, created_at) VALUES (?, ?, ?)`, t.ID, t.Name, ms(t.Created))
	if err != nil {
		return swc.Tenant{}, fmt.Errorf("sqlite: create tenant: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return swc.Tenant{}, swc.Errorf(swc.EINVALID, "tenant %q already exists", name)
	}
	return t, nil
}

// TenantByName implements swc.Store.
func (db *DB) TenantByName(ctx context.Context, name string) (swc.Tenant, error) {
	var t swc.Tenant
	var created int64
	err := db.db.QueryRowContext(ctx, `SELECT id, name, created_at FROM tenants WHERE name = ?`, name).Scan(&t.ID, &t.Name, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return t, swc.Errorf(swc.ENOTFOUND, "no tenant %q", name)
	}
	if err != nil {
		return t, fmt.Errorf("sqlite: tenant: %w", err)
	}
	t.Created = fromMS(created)
	return t, nil
}

// CreateKey implements swc.Store.
func (db *DB) CreateKey(ctx context.Context, tenantID, id, hash string) (swc.APIKey, error) {
	k := swc.APIKey{ID: id, TenantID: tenantID, Hash: hash, Created: db.now().UTC().Truncate(time.Millisecond)}
	var one int
	err := db.db.QueryRowContext(ctx, `SELECT 1 FROM tenants WHERE id = ?`, tenantID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return k, swc.Errorf(swc.ENOTFOUND, "no tenant with id %q", tenantID)
	}
	if err != nil {
		return k, fmt.Errorf("sqlite: create key: %w", err)
	}
	if _, err := db.db.ExecContext(ctx, `INSERT INTO api_keys (id, tenant_id, hash, created_at) VALUES (?, ?, ?, ?)`,
		k.ID, k.TenantID, k.Hash, ms(k.Created)); err != nil {
		return k, fmt.Errorf("sqlite: create key: %w", err)
	}
	return k, nil
}

// KeyByHash implements swc.Store.
func (db *DB) KeyByHash(ctx context.Context, hash string) (swc.APIKey, error) {
	var k swc.APIKey
	var created int64
	err := db.db.QueryRowContext(ctx, `SELECT id, tenant_id, hash, created_at FROM api_keys WHERE hash = ? AND revoked_at = 0`, hash).
		Scan(&k.ID, &k.TenantID, &k.Hash, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return k, swc.Errorf(swc.ENOTFOUND, "no such key")
	}
	if err != nil {
		return k, fmt.Errorf("sqlite: key: %w", err)
	}
	k.Created = fromMS(created)
	return k, nil
}

// Keys implements swc.Store.
func (db *DB) Keys(ctx context.Context) ([]swc.APIKey, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT id, tenant_id, hash, created_at, revoked_at FROM api_keys ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: keys: %w", err)
	}
	defer rows.Close()
	var out []swc.APIKey
	for rows.Next() {
		var k swc.APIKey
		var c, r int64
		if err := rows.Scan(&k.ID, &k.TenantID, &k.Hash, &c, &r); err != nil {
			return nil, fmt.Errorf("sqlite: keys: %w", err)
		}
		k.Created, k.Revoked = fromMS(c), fromMS(r)
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: keys: %w", err)
	}
	return out, nil
}

// RevokeKey implements swc.Store.
func (db *DB) RevokeKey(ctx context.Context, id string, at time.Time) error {
	res, err := db.db.ExecContext(ctx, `UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at = 0`, max(ms(at), 1), id)
	if err != nil {
		return fmt.Errorf("sqlite: revoke key: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return swc.Errorf(swc.ENOTFOUND, "no valid key %q", id)
	}
	return nil
}

const convCols = `id, created_at, messages, sessions, last_time, last_received, version, cons_through, cons_messages, cons_at, cons_requested, generation, superseded, edits`

func scanConv(sc interface{ Scan(...any) error }) (swc.ConversationInfo, error) {
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
	db.convOnce.Do(func() {
		db.convStmt, db.convErr = db.db.PrepareContext(context.Background(), `SELECT `+convCols+` FROM conversations WHERE tenant_id = ? AND id = ?`)
	})
	if db.convErr != nil {
		return swc.ConversationInfo{}, fmt.Errorf("sqlite: conversation: %w", db.convErr)
	}
	c, err := scanConv(db.convStmt.QueryRowContext(ctx, tenant, conv))
	if errors.Is(err, sql.ErrNoRows) {
		return c, swc.Errorf(swc.ENOTFOUND, "no conversation %q", conv)
	}
	if err != nil {
		return c, fmt.Errorf("sqlite: conversation: %w", err)
	}
	return c, nil
}

// Conversations implements swc.Store.
func (db *DB) Conversations(ctx context.Context, tenant string) ([]swc.ConversationInfo, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT `+convCols+` FROM conversations WHERE tenant_id = ? ORDER BY id`, tenant)
	if err != nil {
		return nil, fmt.Errorf("sqlite: conversations: %w", err)
	}
	defer rows.Close()
	out := []swc.ConversationInfo{}
	for rows.Next() {
		c, err := scanConv(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: conversations: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: conversations: %w", err)
	}
	return out, nil
}

// Messages implements swc.Store.
func (db *DB) Messages(ctx context.Context, tenant, conv string) ([]swc.StoredMessage, error) {
	return db.MessagesIn(ctx, tenant, conv, swc.MessageRange{})
}

// MessagesIn implements swc.Store.
func (db *DB) MessagesIn(ctx context.Context, tenant, conv string, r swc.MessageRange) ([]swc.StoredMessage, error) {
	if _, err := db.Conversation(ctx, tenant, conv); err != nil {
		return nil, err
	}
	q, args := rangeQuery(tenant, conv, r)
	out, err := readMessages(ctx, db.db, q, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: messages: %w", err)
	}
	return out, nil
}

// rangeQuery returns the query of MessagesIn and its arguments.
func rangeQuery(tenant, conv string, r swc.MessageRange) (string, []any) {
	from := ` FROM messages`
	if r.Instructions { // the planner may prefer the primary key and read every message
		from = ` FROM messages INDEXED BY messages_instructions`
	}
	q := `SELECT ` + msgCols + from + ` WHERE tenant_id = ? AND conv_id = ? AND superseded = 0 AND seq >= ?`
	args := []any{tenant, conv, r.From}
	if r.To > 0 {
		q += ` AND seq < ?`
		args = append(args, r.To)
	}
	if r.Instructions {
		q += ` AND role IN ('system', 'developer')`
	}
	switch {
	case r.Limit > 0 && r.Last:
		return `SELECT * FROM (` + q + ` ORDER BY seq DESC LIMIT ?) ORDER BY seq`, append(args, r.Limit)
	case r.Limit > 0:
		return q + ` ORDER BY seq LIMIT ?`, append(args, r.Limit)
	}
	return q + ` ORDER BY seq`, args
}

// Plan implements swc.Store.
func (db *DB) Plan(ctx context.Context, tenant, conv string) ([]byte, error) {
	if _, err := db.Conversation(ctx, tenant, conv); err != nil {
		return nil, err
	}
	var body []byte
	err := db.db.QueryRowContext(ctx, `SELECT body FROM conv_plans WHERE tenant_id = ? AND conv_id = ?`, tenant, conv).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: plan: %w", err)
	}
	return body, nil
}

// DeleteConversation implements swc.Store.
func (db *DB) DeleteConversation(ctx context.Context, tenant, conv string) error {
	return retryBusy(ctx, func() error {
		db.writeMu.Lock()
		defer db.writeMu.Unlock()
		tx, err := db.db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("sqlite: delete: %w", err)
		}
		defer tx.Rollback()
		res, err := tx.ExecContext(ctx, `DELETE FROM conversations WHERE tenant_id = ? AND id = ?`, tenant, conv)
		if err != nil {
			return fmt.Errorf("sqlite: delete: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return swc.Errorf(swc.ENOTFOUND, "no conversation %q", conv)
		}
		for _, q := range []string{`DELETE FROM messages WHERE tenant_id = ? AND conv_id = ?`, `DELETE FROM conv_gists WHERE tenant_id = ? AND conv_id = ?`,
			`DELETE FROM conv_plans WHERE tenant_id = ? AND conv_id = ?`, `DELETE FROM compressions WHERE tenant_id = ? AND conv_id = ?`} {
			if _, err := tx.ExecContext(ctx, q, tenant, conv); err != nil {
				return fmt.Errorf("sqlite: delete: %w", err)
			}
		}
		return tx.Commit()
	})
}

// SaveConsolidation implements swc.Store.
func (db *DB) SaveConsolidation(ctx context.Context, tenant, conv string, c swc.Consolidation) error {
	return retryBusy(ctx, func() error {
		db.writeMu.Lock()
		defer db.writeMu.Unlock()
		tx, err := db.db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("sqlite: save consolidation: %w", err)
		}
		defer tx.Rollback()
		if err := checkGeneration(ctx, tx, tenant, conv, c); err != nil {
			return err
		}
		v, err := nextVersion(ctx, tx)
		if err != nil {
			return fmt.Errorf("sqlite: save consolidation: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE conversations SET cons_through = ?, cons_messages = ?, cons_at = ?, version = ?
			WHERE tenant_id = ? AND id = ?`, c.Through, c.Messages, ms(c.At), v, tenant, conv); err != nil {
			return fmt.Errorf("sqlite: save consolidation: %w", err)
		}
		if c.Plan != nil {
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO conv_plans (tenant_id, conv_id, body) VALUES (?, ?, ?)`, tenant, conv, c.Plan); err != nil {
				return fmt.Errorf("sqlite: save consolidation: %w", err)
			}
		}
		for _, g := range c.Gists {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO conv_gists (tenant_id, conv_id, session_n, content_hash, variant, gister, text, created_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, tenant, conv, g.Session, g.ContentHash, string(g.Variant), g.Gister, g.Text, ms(c.At)); err != nil {
				return fmt.Errorf("sqlite: save consolidation: %w", err)
			}
		}
		return tx.Commit()
	})
}

// Gists implements swc.Store.
func (db *DB) Gists(ctx context.Context, tenant, conv string) ([]swc.StoredGist, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT session_n, content_hash, variant, gister, text, created_at FROM conv_gists
		WHERE tenant_id = ? AND conv_id = ? ORDER BY session_n, created_at`, tenant, conv)
	if err != nil {
		return nil, fmt.Errorf("sqlite: gists: %w", err)
	}
	defer rows.Close()
	var out []swc.StoredGist
	for rows.Next() {
		var g swc.StoredGist
		var v string
		var c int64
		if err := rows.Scan(&g.Session, &g.ContentHash, &v, &g.Gister, &g.Text, &c); err != nil {
			return nil, fmt.Errorf("sqlite: gists: %w", err)
		}
		g.Variant, g.Created = swc.GistVariant(v), fromMS(c)
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: gists: %w", err)
	}
	return out, nil
}

// Unconsolidated implements swc.Store.
func (db *DB) Unconsolidated(ctx context.Context) ([]swc.ConversationRef, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT tenant_id, id FROM conversations WHERE messages > cons_messages OR cons_requested > cons_at ORDER BY tenant_id, id`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: unconsolidated: %w", err)
	}
	defer rows.Close()
	var out []swc.ConversationRef
	for rows.Next() {
		var r swc.ConversationRef
		if err := rows.Scan(&r.Tenant, &r.ID); err != nil {
			return nil, fmt.Errorf("sqlite: unconsolidated: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: unconsolidated: %w", err)
	}
	return out, nil
}

// RequestConsolidation implements swc.Store.
func (db *DB) RequestConsolidation(ctx context.Context, tenant, conv string, at time.Time) error {
	res, err := db.db.ExecContext(ctx, `UPDATE conversations SET cons_requested = ? WHERE tenant_id = ? AND id = ?`, max(ms(at), 1), tenant, conv)
	if err != nil {
		return fmt.Errorf("sqlite: request consolidation: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return swc.Errorf(swc.ENOTFOUND, "no conversation %q", conv)
	}
	return nil
}

// checkGeneration returns ENOTFOUND unless the conversation exists (with
// c.Generation, when set) and ECONFLICT when c.Generation is set and the
// conversation was edited since c.Edits.
func checkGeneration(ctx context.Context, tx *sql.Tx, tenant, conv string, c swc.Consolidation) error {
	var gen string
	var edits int
	err := tx.QueryRowContext(ctx, `SELECT generation, edits FROM conversations WHERE tenant_id = ? AND id = ?`, tenant, conv).Scan(&gen, &edits)
	if errors.Is(err, sql.ErrNoRows) {
		return swc.Errorf(swc.ENOTFOUND, "no conversation %q", conv)
	}
	if err != nil {
		return fmt.Errorf("sqlite: save consolidation: %w", err)
	}
	return swc.CheckGeneration(conv, gen, edits, c)
}
