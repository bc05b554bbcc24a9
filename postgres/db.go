// Package postgres stores the service's state in Postgres
// through pgx v5: tenants, keys, conversations, messages and the gists
// consolidation made, behind the same swc.Store as sqlite/. Any number of
// `swc serve` replicas may share one database: every write is one short
// transaction that locks the conversation's row, and the schema is migrated
// under an advisory lock, so replicas starting together agree.
//
// Contexts cached by a replica stay correct across replicas because every
// change of a conversation (append, consolidation) sets its version to the
// next value of one database-wide sequence, never reused, not even by a
// conversation deleted and made again under the same id, and notifies the
// replicas right after commit (Watch): a replica serves a cached context
// without a query while it listens, and checks the version otherwise.
package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/internal/memo"
)

// IsURL reports whether s names a Postgres database (postgres:// or
// postgresql://) rather than a SQLite file.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Config holds the pool settings; zero fields take the defaults shown.
type Config struct {
	// MaxConns bounds the connections of the pool (8). River's workers and
	// its LISTEN connection share it with the HTTP handlers.
	MaxConns int32
	// ConnectTimeout bounds one connection attempt (5s), so a request
	// fails fast (503) while the database is down.
	ConnectTimeout time.Duration
	// Migrations run after the store's own on every Open, under the same
	// advisory lock (they must skip what is already applied): River's
	// (jobs.MigratePostgres), so that replicas starting together on an
	// empty database migrate one at a time.
	Migrations []func(ctx context.Context, pool *pgxpool.Pool) error
	// StateBytes bounds the append states remembered per conversation,
	// which let an append write in one statement (fast.go): a generation
	// of about StateBytes (8 MiB: some 40,000 conversations), two held.
	StateBytes int
	// AppendGroups bounds the statements writing fast appends in flight at
	// once (1): the appends arriving meanwhile wait, and the next
	// statement writes them together, one commit for all (group.go).
	AppendGroups int
}

// DB is an open Postgres database. It is safe for concurrent use.
type DB struct {
	pool  *pgxpool.Pool
	extra []func(ctx context.Context, pool *pgxpool.Pool) error

	// Now is the clock of created_at values (time.Now). Set it before use.
	Now func() time.Time
	// OnWatchError, when set, is told why Watch's connection failed
	// (before it connects again). Set it before Watch.
	OnWatchError func(error)

	// states are the append states of conversations at a version, as
	// this DB last wrote or was told of them (append.go).
	states   *memo.Memo[convKey, stateEntry]
	group    grouper
	watchMu  sync.Mutex
	watcher  swc.Watcher
	watchPID atomic.Uint32 // the backend of Watch's connection (0: none)
	// The notifier (watch.go): this DB's id in its notices, the notices
	// waiting, and whether some were dropped (the queue was full).
	id        string
	out       chan string
	overflow  atomic.Bool
	sendBatch func(ctx context.Context, batch []string) // one notifying statement (tests count them)
	stopped   chan struct{}
}

// Open connects to the database at dsn and brings its schema up to date.
// It returns an error when the DSN is malformed, the server cannot be
// reached, or a migration fails.
func Open(ctx context.Context, dsn string, cfg Config) (*DB, error) {
	pc, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	pc.MaxConns = cfg.MaxConns
	if pc.MaxConns <= 0 {
		pc.MaxConns = 8
	}
	pc.ConnConfig.ConnectTimeout = cfg.ConnectTimeout
	if pc.ConnConfig.ConnectTimeout <= 0 {
		pc.ConnConfig.ConnectTimeout = 5 * time.Second
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	sb := cfg.StateBytes
	if sb <= 0 {
		sb = 8 << 20
	}
	db := &DB{pool: pool, extra: cfg.Migrations, Now: time.Now, states: memo.New(sb, stateSize)}
	db.group.limit = cfg.AppendGroups
	if err := db.Migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	db.startNotifier()
	return db, nil
}

// Pool returns the connection pool (River's driver uses it).
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// Close sends the notifications still waiting (for up to a second),
// then closes the pool.
func (db *DB) Close() error {
	db.stopNotifier()
	db.pool.Close()
	return nil
}

func (db *DB) now() time.Time {
	if db.Now == nil {
		return time.Now()
	}
	return db.Now()
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

// errUnavailable is the coded error of a database that cannot be reached.
// Its message names no host, port, user or database: callers show it
// (503 bodies); the wrapped driver error says the rest, for logs.
var errUnavailable = &swc.Error{Code: swc.EUNAVAILABLE, Message: "database unavailable"}

// wrap turns err into the error a caller sees: a coded swc error passes
// unchanged; an unreachable or restarting server becomes EUNAVAILABLE
// (the HTTP layer answers 503; swc.ErrorMessage is "database
// unavailable", Error() adds the driver's words), anything else is
// wrapped with what failed.
func wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	var se *swc.Error
	if errors.As(err, &se) {
		return err
	}
	if Unavailable(err) {
		return fmt.Errorf("postgres: %s: %w: %w", what, errUnavailable, err)
	}
	return fmt.Errorf("postgres: %s: %w", what, err)
}

// Unavailable reports whether err says the server could not be reached or
// went away (connection refused or reset, shutting down, starting up,
// too many connections): a retry later may succeed.
func Unavailable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case strings.HasPrefix(pe.Code, "08"), // connection exception
			strings.HasPrefix(pe.Code, "57P"), // admin shutdown, crash shutdown, cannot connect now
			pe.Code == "53300":                // too many connections
			return true
		}
		return false
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.As(err, &ce), errors.As(err, &ne), pgconn.SafeToRetry(err), pgconn.Timeout(err):
		return true
	case errors.Is(err, pgx.ErrTxClosed), strings.Contains(err.Error(), "conn closed"),
		strings.Contains(err.Error(), "unexpected EOF"), strings.Contains(err.Error(), "connection reset"):
		return true
	}
	return false
}
