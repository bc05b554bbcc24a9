package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/swcmem/swc"
)

// RecordCompression implements swc.Store: the record and the deletion of
// the conversation's records past swc.CompressionsKept in one transaction.
func (db *DB) RecordCompression(ctx context.Context, tenant, conv string, r swc.CompressionRecord) error {
	at := ms(r.At)
	r.Seq, r.At = 0, time.Time{} // Seq and At have their columns
	body, err := json.Marshal(r)
	if err != nil {
		return wrap("record compression", err)
	}
	err = pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM conversations WHERE tenant_id = $1 AND id = $2 FOR SHARE`, tenant, conv).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return swc.Errorf(swc.ENOTFOUND, "no conversation %q", conv)
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO compressions (tenant_id, conv_id, at, body) VALUES ($1, $2, $3, $4)`,
			tenant, conv, at, body); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM compressions WHERE tenant_id = $1 AND conv_id = $2 AND seq NOT IN
			(SELECT seq FROM compressions WHERE tenant_id = $1 AND conv_id = $2 ORDER BY seq DESC LIMIT $3)`,
			tenant, conv, swc.CompressionsKept)
		return err
	})
	return wrap("record compression", err)
}

// Compressions implements swc.Store.
func (db *DB) Compressions(ctx context.Context, tenant, conv string) ([]swc.CompressionRecord, error) {
	if _, err := db.Conversation(ctx, tenant, conv); err != nil {
		return nil, err
	}
	rows, err := db.pool.Query(ctx, `SELECT seq, at, body FROM compressions WHERE tenant_id = $1 AND conv_id = $2
		ORDER BY seq DESC LIMIT $3`, tenant, conv, swc.CompressionsKept)
	if err != nil {
		return nil, wrap("compressions", err)
	}
	defer rows.Close()
	var out []swc.CompressionRecord
	for rows.Next() {
		var seq, at int64
		var body []byte
		if err := rows.Scan(&seq, &at, &body); err != nil {
			return nil, wrap("compressions", err)
		}
		var r swc.CompressionRecord
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, wrap("compressions", err)
		}
		r.Seq, r.At = seq, fromMS(at)
		out = append(out, r)
	}
	return out, wrap("compressions", rows.Err())
}
