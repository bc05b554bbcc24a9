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
	// 2: the service's store: tenants, keys, conversations,
	// messages and the gists consolidation made for them.
	`CREATE TABLE tenants (
		id         TEXT PRIMARY KEY,
		name       TEXT NOT NULL UNIQUE,
		created_at INTEGER NOT NULL
	) WITHOUT ROWID;
	CREATE TABLE api_keys (
		id         TEXT PRIMARY KEY,
		tenant_id  TEXT NOT NULL REFERENCES tenants(id),
		hash       TEXT NOT NULL UNIQUE, -- hex SHA-256 of the key
		created_at INTEGER NOT NULL,
		revoked_at INTEGER NOT NULL DEFAULT 0
	) WITHOUT ROWID;
	CREATE TABLE conversations (
		tenant_id        TEXT NOT NULL,
		id               TEXT NOT NULL,
		created_at       INTEGER NOT NULL,
		messages         INTEGER NOT NULL DEFAULT 0,
		sessions         INTEGER NOT NULL DEFAULT 0,
		last_time        INTEGER NOT NULL DEFAULT 0, -- unix ms of the newest message
		last_received    INTEGER NOT NULL DEFAULT 0, -- unix ms of the last append that stored one
		last_session_key TEXT NOT NULL DEFAULT '',
		last_session_len INTEGER NOT NULL DEFAULT 0,
		version          INTEGER NOT NULL DEFAULT 0,
		cons_through     INTEGER NOT NULL DEFAULT 0,
		cons_messages    INTEGER NOT NULL DEFAULT 0,
		cons_at          INTEGER NOT NULL DEFAULT 0,
		cons_requested   INTEGER NOT NULL DEFAULT 0, -- unix ms of the last explicit request
		PRIMARY KEY (tenant_id, id)
	) WITHOUT ROWID;
	CREATE TABLE messages (
		tenant_id    TEXT NOT NULL,
		conv_id      TEXT NOT NULL,
		seq          INTEGER NOT NULL,
		msg_id       TEXT NOT NULL, -- '' when the client gave none
		role         TEXT NOT NULL,
		name         TEXT NOT NULL,
		content      TEXT NOT NULL,
		tool_calls   TEXT NOT NULL, -- JSON array or ''
		tool_call_id TEXT NOT NULL,
		time         INTEGER NOT NULL, -- unix ms
		session_key  TEXT NOT NULL,
		session_n    INTEGER NOT NULL,
		received     INTEGER NOT NULL,
		PRIMARY KEY (tenant_id, conv_id, seq)
	) WITHOUT ROWID;
	CREATE UNIQUE INDEX messages_by_id ON messages (tenant_id, conv_id, msg_id) WHERE msg_id <> '';
	CREATE TABLE conv_gists (
		tenant_id    TEXT NOT NULL,
		conv_id      TEXT NOT NULL,
		session_n    INTEGER NOT NULL,
		content_hash TEXT NOT NULL,
		variant      TEXT NOT NULL,
		gister       TEXT NOT NULL,
		text         TEXT NOT NULL,
		created_at   INTEGER NOT NULL,
		PRIMARY KEY (tenant_id, conv_id, session_n, content_hash, variant, gister)
	) WITHOUT ROWID;`,
	// 3: live agents (docs/live.md): undated and server-stamped times, the
	// chain hash of each message, superseded tails of edited histories,
	// the calls still open, a generation per conversation's life, and
	// versions from one counter that deletes never reset. backfill3 fills
	// the chains of the messages stored before.
	`ALTER TABLE messages ADD COLUMN stamped INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE messages ADD COLUMN chain TEXT NOT NULL DEFAULT '';
	ALTER TABLE messages ADD COLUMN superseded INTEGER NOT NULL DEFAULT 0; -- unix ms it was superseded; 0: live
	DROP INDEX messages_by_id;
	CREATE UNIQUE INDEX messages_by_id ON messages (tenant_id, conv_id, msg_id) WHERE msg_id <> '' AND superseded = 0;
	ALTER TABLE conversations ADD COLUMN last_seq INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE conversations ADD COLUMN last_client INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE conversations ADD COLUMN open_calls TEXT NOT NULL DEFAULT ''; -- JSON array or ''
	ALTER TABLE conversations ADD COLUMN head_chain TEXT NOT NULL DEFAULT '';
	ALTER TABLE conversations ADD COLUMN chain_len INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE conversations ADD COLUMN generation TEXT NOT NULL DEFAULT '';
	ALTER TABLE conversations ADD COLUMN superseded INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE conversations ADD COLUMN edits INTEGER NOT NULL DEFAULT 0;
	CREATE TABLE version_seq (v INTEGER NOT NULL);
	INSERT INTO version_seq SELECT coalesce(max(version), 0) FROM conversations;
	UPDATE conversations SET last_seq = messages, last_client = last_time, generation = lower(hex(randomblob(8)));`,
	// 4: the plan each consolidation leaves (Consolidation.Plan), and the
	// instructions of a conversation found without reading its history.
	`CREATE TABLE conv_plans (
		tenant_id TEXT NOT NULL,
		conv_id   TEXT NOT NULL,
		body      BLOB NOT NULL,
		PRIMARY KEY (tenant_id, conv_id)
	) WITHOUT ROWID;
	CREATE INDEX messages_instructions ON messages (tenant_id, conv_id, seq) WHERE role IN ('system', 'developer') AND superseded = 0;`,
	// 5: what the compressing proxy did to the latest requests of each
	// stored conversation (swc.CompressionRecord; /ui shows them).
	`CREATE TABLE compressions (
		seq       INTEGER PRIMARY KEY AUTOINCREMENT,
		tenant_id TEXT NOT NULL,
		conv_id   TEXT NOT NULL,
		at        INTEGER NOT NULL, -- unix ms
		body      BLOB NOT NULL     -- JSON of the record, Seq and At aside
	);
	CREATE INDEX compressions_by_conv ON compressions (tenant_id, conv_id, seq);`,
}

// backfills run in Go right after the migration of the same index.
var backfills = map[int]func(ctx context.Context, tx *sql.Tx) error{3: backfill3}

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
		if f := backfills[i+1]; f != nil {
			if err := f(ctx, tx); err != nil {
				return fmt.Errorf("migrate to version %d: %w", i+1, err)
			}
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

// Ready returns nil when the file answers and its schema is at this
// package's version (SchemaVersion): the readiness of swc serve. It
// returns the query's error, or one naming both versions.
func (db *DB) Ready(ctx context.Context) error {
	var v sql.NullInt64
	if err := db.db.QueryRowContext(ctx, `SELECT max(version) FROM schema_version`).Scan(&v); err != nil {
		return fmt.Errorf("sqlite: schema version: %w", err)
	}
	if int(v.Int64) != len(migrations) {
		return fmt.Errorf("sqlite: schema version %d, this swc writes %d", v.Int64, len(migrations))
	}
	return nil
}
