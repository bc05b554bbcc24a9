package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// migrations are applied in order; migrations[i] brings the schema to
// version i+1. Never edit an entry once released: append a new one. Times
// are unix milliseconds (bigint), as in sqlite/, so both stores round-trip
// the same values.
var migrations = []string{
	// 1: the service's store: tenants, keys, conversations, messages and
	// the gists consolidation made for them.
	`CREATE TABLE tenants (
		id         text PRIMARY KEY,
		name       text NOT NULL UNIQUE,
		created_at bigint NOT NULL
	);
	CREATE TABLE api_keys (
		id         text PRIMARY KEY,
		tenant_id  text NOT NULL REFERENCES tenants(id),
		hash       text NOT NULL UNIQUE, -- hex SHA-256 of the key
		created_at bigint NOT NULL,
		revoked_at bigint NOT NULL DEFAULT 0
	);
	-- Every change of any conversation takes the next value: a version is
	-- never reused, so a context cached by any replica is stale at any other.
	CREATE SEQUENCE conv_version;
	CREATE TABLE conversations (
		tenant_id        text NOT NULL,
		id               text NOT NULL,
		created_at       bigint NOT NULL,
		messages         integer NOT NULL DEFAULT 0,
		sessions         integer NOT NULL DEFAULT 0,
		last_time        bigint NOT NULL DEFAULT 0,
		last_received    bigint NOT NULL DEFAULT 0,
		last_session_key text NOT NULL DEFAULT '',
		last_session_len integer NOT NULL DEFAULT 0,
		version          bigint NOT NULL DEFAULT 0,
		cons_through     integer NOT NULL DEFAULT 0,
		cons_messages    integer NOT NULL DEFAULT 0,
		cons_at          bigint NOT NULL DEFAULT 0,
		cons_requested   bigint NOT NULL DEFAULT 0,
		PRIMARY KEY (tenant_id, id)
	);
	-- The startup and periodic sweeps look for conversations owed a job.
	CREATE INDEX conversations_owed ON conversations (tenant_id, id)
		WHERE messages > cons_messages OR cons_requested > cons_at;
	CREATE TABLE messages (
		tenant_id    text NOT NULL,
		conv_id      text NOT NULL,
		seq          integer NOT NULL,
		msg_id       text NOT NULL, -- '' when the client gave none
		role         text NOT NULL,
		name         text NOT NULL,
		content      text NOT NULL,
		tool_calls   text NOT NULL, -- JSON array or ''
		tool_call_id text NOT NULL,
		time         bigint NOT NULL,
		session_key  text NOT NULL,
		session_n    integer NOT NULL,
		received     bigint NOT NULL,
		PRIMARY KEY (tenant_id, conv_id, seq)
	);
	CREATE UNIQUE INDEX messages_by_id ON messages (tenant_id, conv_id, msg_id) WHERE msg_id <> '';
	CREATE TABLE conv_gists (
		tenant_id    text NOT NULL,
		conv_id      text NOT NULL,
		session_n    integer NOT NULL,
		content_hash text NOT NULL,
		variant      text NOT NULL,
		gister       text NOT NULL,
		text         text NOT NULL,
		created_at   bigint NOT NULL,
		PRIMARY KEY (tenant_id, conv_id, session_n, content_hash, variant, gister)
	);`,
	// 2: the REM cache shared by the replicas (postgres/cache.go).
	`CREATE TABLE rem_gists (
		variant      text NOT NULL,
		gister       text NOT NULL,
		prompt_hash  text NOT NULL,
		content_hash text NOT NULL,
		text         text NOT NULL,
		created_at   bigint NOT NULL,
		PRIMARY KEY (variant, gister, prompt_hash, content_hash)
	);`,
	// 3: the embedding cache shared by the replicas (postgres/embedding.go).
	`CREATE TABLE embeddings (
		embedder   text NOT NULL,
		text_hash  text NOT NULL, -- hex SHA-256 of the text
		vector     real[] NOT NULL,
		created_at bigint NOT NULL,
		PRIMARY KEY (embedder, text_hash)
	);`,
	// 4: live agents (docs/live.md): undated and server-stamped times, the
	// chain hash of each message, superseded tails of edited histories,
	// the calls still open, and a generation per conversation's life.
	// backfill4 fills the chains of the messages stored before.
	`ALTER TABLE messages ADD COLUMN stamped boolean NOT NULL DEFAULT false,
		ADD COLUMN chain text NOT NULL DEFAULT '',
		ADD COLUMN superseded bigint NOT NULL DEFAULT 0; -- unix ms it was superseded; 0: live
	DROP INDEX messages_by_id;
	CREATE UNIQUE INDEX messages_by_id ON messages (tenant_id, conv_id, msg_id) WHERE msg_id <> '' AND superseded = 0;
	ALTER TABLE conversations ADD COLUMN last_seq integer NOT NULL DEFAULT 0,
		ADD COLUMN last_client bigint NOT NULL DEFAULT 0,
		ADD COLUMN open_calls text NOT NULL DEFAULT '', -- JSON array or ''
		ADD COLUMN head_chain text NOT NULL DEFAULT '',
		ADD COLUMN chain_len integer NOT NULL DEFAULT 0,
		ADD COLUMN generation text NOT NULL DEFAULT '',
		ADD COLUMN superseded integer NOT NULL DEFAULT 0,
		ADD COLUMN edits integer NOT NULL DEFAULT 0;
	UPDATE conversations SET last_seq = messages, last_client = last_time,
		generation = substr(md5(random()::text || clock_timestamp()::text || id), 1, 16);`,
	// 5: every change of a conversation's version (append, consolidation,
	// edit) and every delete notifies the channel "swc:SCHEMA" at commit
	// (postgres/watch.go): the replicas' cached contexts follow without a
	// query per read. The payload carries the state the append rules read,
	// so the next append through another replica needs no read first
	// (postgres/append.go); when the payload would be too long for NOTIFY
	// it carries the version alone.
	`CREATE FUNCTION swc_notify_conversation() RETURNS trigger LANGUAGE plpgsql AS $$
	DECLARE
		ch text := 'swc:' || TG_TABLE_SCHEMA;
		p  text;
	BEGIN
		IF TG_OP = 'DELETE' THEN
			p := json_build_object('t', OLD.tenant_id, 'c', OLD.id, 'v', 0)::text;
			IF octet_length(p) > 7900 THEN
				p := '{"v":-1}';
			END IF;
			PERFORM pg_notify(ch, p);
			RETURN OLD;
		END IF;
		p := json_build_object('t', NEW.tenant_id, 'c', NEW.id, 'v', NEW.version,
			's', json_build_array(NEW.messages, NEW.sessions, NEW.last_time, NEW.last_client, NEW.last_session_key,
				NEW.last_session_len, NEW.last_seq, NEW.open_calls, NEW.head_chain, NEW.chain_len))::text;
		IF octet_length(p) > 7900 THEN
			p := json_build_object('t', NEW.tenant_id, 'c', NEW.id, 'v', NEW.version)::text;
		END IF;
		IF octet_length(p) > 7900 THEN
			p := '{"v":-1}'; -- an id too long to name: every conversation may have changed
		END IF;
		PERFORM pg_notify(ch, p);
		RETURN NEW;
	END $$;
	CREATE TRIGGER conversations_notify AFTER DELETE OR UPDATE OF version ON conversations
		FOR EACH ROW EXECUTE FUNCTION swc_notify_conversation();`,
	// 6: the notifications are sent by the store after commit, several
	// at once (postgres/watch.go), not by migration 5's trigger: a
	// transaction that notifies holds a database-wide lock through its
	// commit's flush, so writes that notify commit one at a time (the
	// ingest through one replica halved: 509–790 msg/s with the trigger,
	// 1,368–1,739 without, swc scaletest).
	`DROP TRIGGER conversations_notify ON conversations;
	DROP FUNCTION swc_notify_conversation();`,
	// 7: the plan each consolidation leaves (Consolidation.Plan), and the
	// instructions of a conversation found without reading its history.
	`CREATE TABLE conv_plans (
		tenant_id text NOT NULL,
		conv_id   text NOT NULL,
		body      bytea NOT NULL,
		PRIMARY KEY (tenant_id, conv_id)
	);
	CREATE INDEX messages_instructions ON messages (tenant_id, conv_id, seq) WHERE role IN ('system', 'developer') AND superseded = 0;`,
	// 8: what the compressing proxy did to the latest requests of each
	// stored conversation (swc.CompressionRecord; /ui shows them).
	`CREATE TABLE compressions (
		seq       bigserial PRIMARY KEY,
		tenant_id text NOT NULL,
		conv_id   text NOT NULL,
		at        bigint NOT NULL,
		body      bytea NOT NULL -- JSON of the record, Seq and At aside
	);
	CREATE INDEX compressions_by_conv ON compressions (tenant_id, conv_id, seq);`,
}

// backfills run in Go right after the migration of the same index.
var backfills = map[int]func(ctx context.Context, tx pgx.Tx) error{4: backfill4}

// SchemaVersion is the schema version this package writes.
func SchemaVersion() int { return len(migrations) }

// migrateLock is the advisory lock key replicas take while migrating
// ("swc" in ASCII).
const migrateLock = 0x737763

// Migrate applies the missing migrations in one transaction, then
// Config.Migrations, holding an advisory lock throughout, so replicas
// starting at once apply each migration once.
// It returns an error when the database's schema is newer than this
// package knows, or a migration fails (nothing of the store's is applied
// then).
func (db *DB) Migrate(ctx context.Context) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return wrap("migrate", err)
	}
	defer conn.Release()
	// A session lock, held until River's migrations (db.extra) are done
	// too: they run on other connections of the pool.
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrateLock); err != nil {
		return wrap("migrate", err)
	}
	defer func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrateLock); err != nil {
			conn.Conn().Close(context.Background()) // closing the session releases the lock
		}
	}()
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrateLock); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS swc_schema_version (version integer NOT NULL)`); err != nil {
			return err
		}
		var cur int
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM swc_schema_version`).Scan(&cur); err != nil {
			return err
		}
		if cur > len(migrations) {
			return fmt.Errorf("database has schema version %d, this swc knows only %d", cur, len(migrations))
		}
		for i := cur; i < len(migrations); i++ {
			if _, err := tx.Exec(ctx, migrations[i]); err != nil {
				return fmt.Errorf("to version %d: %w", i+1, err)
			}
			if f := backfills[i+1]; f != nil {
				if err := f(ctx, tx); err != nil {
					return fmt.Errorf("to version %d: %w", i+1, err)
				}
			}
		}
		if cur < len(migrations) {
			if _, err := tx.Exec(ctx, `DELETE FROM swc_schema_version`); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO swc_schema_version (version) VALUES ($1)`, len(migrations)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return wrap("migrate", err)
	}
	for _, m := range db.extra {
		if err := m(ctx, db.pool); err != nil {
			return wrap("migrate", err)
		}
	}
	return nil
}

// Ready returns nil when the database answers and its schema is at this
// package's version (SchemaVersion): the readiness of a replica. It
// returns EUNAVAILABLE while the database cannot be reached, and an error
// naming both versions when the schema is another.
func (db *DB) Ready(ctx context.Context) error {
	v, err := db.Version(ctx)
	if err != nil {
		return err
	}
	if v != len(migrations) {
		return fmt.Errorf("postgres: schema version %d, this swc writes %d", v, len(migrations))
	}
	return nil
}

// Version returns the schema version of the database (0 before Migrate).
func (db *DB) Version(ctx context.Context) (int, error) {
	var v int
	err := db.pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM swc_schema_version`).Scan(&v)
	return v, wrap("schema version", err)
}
