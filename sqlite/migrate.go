package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// migrations are applied in order; migrations[i] brings the schema to
// version i+1. Never edit an entry once released: append a new one.
var migrations = []string{
	// 1: REM cache, response cache, embedding cache.
	`CREATE TABLE gists (
		variant      TEXT NOT NULL,
		gister       TEXT NOT NULL,
		prompt_hash  TEXT NOT NULL,
		content_hash TEXT NOT NULL,
		text         TEXT NOT NULL,
		created_at   INTEGER NOT NULL, -- unix milliseconds
		PRIMARY KEY (variant, gister, prompt_hash, content_hash)
	) WITHOUT ROWID;
	CREATE TABLE responses (
		provider      TEXT NOT NULL,
		model         TEXT NOT NULL,
		request_hash  TEXT NOT NULL, -- Hash(request)
		request       TEXT NOT NULL, -- canonical JSON of the swc.LLMRequest
		text          TEXT NOT NULL,
		resp_model    TEXT NOT NULL,
		stop_reason   TEXT NOT NULL,
		input_tokens  INTEGER NOT NULL,
		output_tokens INTEGER NOT NULL,
		latency_ms    INTEGER NOT NULL,
		created_at    INTEGER NOT NULL, -- unix milliseconds
		PRIMARY KEY (provider, model, request_hash)
	) WITHOUT ROWID;
	CREATE TABLE embeddings (
		embedder   TEXT NOT NULL,
		text_hash  TEXT NOT NULL,
		dim        INTEGER NOT NULL,
		vector     BLOB NOT NULL, -- dim little-endian float32
		created_at INTEGER NOT NULL, -- unix milliseconds
		PRIMARY KEY (embedder, text_hash)
	) WITHOUT ROWID;`,
}

// SchemaVersion is the schema version this package writes.
func SchemaVersion() int { return len(migrations) }

// migrate applies the missing migrations in one IMMEDIATE transaction, so a
// second process opening the file at the same time waits and then finds the
// schema done. It returns an error when the file's schema is newer than this
// package knows.
func (db *DB) migrate(ctx context.Context) error {
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate: begin: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx,
		`CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	var v sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT max(version) FROM schema_version`).Scan(&v); err != nil {
		return fmt.Errorf("migrate: read version: %w", err)
	}
	cur := int(v.Int64)
	if cur > len(migrations) {
		return fmt.Errorf("migrate: file has schema version %d, this swc knows only %d", cur, len(migrations))
	}
	for i := cur; i < len(migrations); i++ {
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			return fmt.Errorf("migrate to version %d: %w", i+1, err)
		}
	}
	if cur < len(migrations) {
		if _, err := tx.ExecContext(ctx, `DELETE FROM schema_version`); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (?)`, len(migrations)); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate: commit: %w", err)
	}
	return nil
}
