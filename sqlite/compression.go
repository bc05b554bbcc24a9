package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/swcmem/swc"
)

// RecordCompression implements swc.Store: the record and the deletion of
// the conversation's records past swc.CompressionsKept in one transaction.
func (db *DB) RecordCompression(ctx context.Context, tenant, conv string, r swc.CompressionRecord) error {
	body, err := json.Marshal(compressionBody(r))
	if err != nil {
		return fmt.Errorf("sqlite: record compression: %w", err)
	}
	return retryBusy(ctx, func() error {
		db.writeMu.Lock()
		defer db.writeMu.Unlock()
		tx, err := db.db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("sqlite: record compression: %w", err)
		}
		defer tx.Rollback()
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM conversations WHERE tenant_id = ? AND id = ?`, tenant, conv).Scan(&one); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return swc.Errorf(swc.ENOTFOUND, "no conversation %q", conv)
			}
			return fmt.Errorf("sqlite: record compression: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO compressions (tenant_id, conv_id, at, body) VALUES (?, ?, ?, ?)`,
			tenant, conv, ms(r.At), body); err != nil {
			return fmt.Errorf("sqlite: record compression: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM compressions WHERE tenant_id = ? AND conv_id = ? AND seq NOT IN
			(SELECT seq FROM compressions WHERE tenant_id = ? AND conv_id = ? ORDER BY seq DESC LIMIT ?)`,
			tenant, conv, tenant, conv, swc.CompressionsKept); err != nil {
			return fmt.Errorf("sqlite: record compression: %w", err)
		}
		return tx.Commit()
	})
}

// Compressions implements swc.Store.
func (db *DB) Compressions(ctx context.Context, tenant, conv string) ([]swc.CompressionRecord, error) {
	if _, err := db.Conversation(ctx, tenant, conv); err != nil {
		return nil, err
	}
	rows, err := db.db.QueryContext(ctx, `SELECT seq, at, body FROM compressions WHERE tenant_id = ? AND conv_id = ?
		ORDER BY seq DESC LIMIT ?`, tenant, conv, swc.CompressionsKept)
	if err != nil {
		return nil, fmt.Errorf("sqlite: compressions: %w", err)
	}
	defer rows.Close()
	var out []swc.CompressionRecord
	for rows.Next() {
		var seq, at int64
		var body []byte
		if err := rows.Scan(&seq, &at, &body); err != nil {
			return nil, fmt.Errorf("sqlite: compressions: %w", err)
		}
		var r swc.CompressionRecord
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, fmt.Errorf("sqlite: compressions: record %d: %w", seq, err)
		}
		r.Seq, r.At = seq, fromMS(at)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: compressions: %w", err)
	}
	return out, nil
}

// compressionBody is r as stored in body: Seq and At have their columns.
func compressionBody(r swc.CompressionRecord) swc.CompressionRecord {
	r.Seq, r.At = 0, time.Time{}
	return r
}
