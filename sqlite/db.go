// Package sqlite stores the on-disk caches of swc in one SQLite file: the REM
// cache of gists, the response cache of LLM calls and
// an embedding cache. It uses the pure-Go driver modernc.org/sqlite.
//
// The file may be used by several processes at once (two benchmark runs
// sharing the user cache, say): it is opened in WAL mode with a busy timeout,
// every write is one short statement or one short IMMEDIATE transaction, and
// every insert is INSERT OR IGNORE, so concurrent writers of the same key do
// not fail and the first stored value wins.
//
// DB is a swc.GistCache (put it in front of a gister with gist.Cached); the
// decorators CachedLLM and CachedEmbedder put the other caches in front of
// a swc.LLM or swc.Embedder. CachedEmbedder must only wrap embedders whose
// vectors do not depend on the batch (remote endpoints), never the
// built-in lexical embedder, which fits IDF weights on each batch.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// BusyTimeout is how long a statement waits for another connection or
// process holding the write lock before failing with SQLITE_BUSY.
const BusyTimeout = 10 * time.Second

// UserCacheDir returns the base directory of DefaultPath. It is a variable
// so tests can point it away from the real user cache.
var UserCacheDir = os.UserCacheDir

// DefaultPath returns filepath.Join(UserCacheDir(), "swc", "cache.db"), or
// an error when the user cache directory is unknown.
func DefaultPath() (string, error) {
	dir, err := UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("sqlite: default path: %w", err)
	}
	return filepath.Join(dir, "swc", "cache.db"), nil
}

// DB is an open cache file. It is safe for concurrent use by many
// goroutines, and other processes may use the same file at the same time.
type DB struct {
	db   *sql.DB
	path string
	sync string // Config.Synchronous

	// Now is the clock used for created_at and LLM latencies; it defaults
	// to time.Now. Set it before first use.
	Now func() time.Time

	// writeMu serialises this process's store transactions, so that
	// concurrent appends queue in Go instead of sleeping in SQLite's busy
	// handler.
	writeMu sync.Mutex
	// convStmt is Conversation's query, prepared once: the read path
	// runs it on every request.
	convOnce sync.Once
	convStmt *sql.Stmt
	convErr  error

	gistHits, gistMisses   atomic.Int64
	respHits, respMisses   atomic.Int64
	embedHits, embedMisses atomic.Int64
}

// Stats counts cache hits and misses since Open: the REM cache's lookups
// (Gist), and those of the decorators CachedLLM and CachedEmbedder. Embedding counts are
// per text.
type Stats struct {
	GistHits, GistMisses         int64
	ResponseHits, ResponseMisses int64
	EmbedHits, EmbedMisses       int64
}

// Stats returns the hit and miss counts so far.
func (db *DB) Stats() Stats {
	return Stats{
		GistHits: db.gistHits.Load(), GistMisses: db.gistMisses.Load(),
		ResponseHits: db.respHits.Load(), ResponseMisses: db.respMisses.Load(),
		EmbedHits: db.embedHits.Load(), EmbedMisses: db.embedMisses.Load(),
	}
}

// Path returns the file the DB was opened on.
func (db *DB) Path() string { return db.path }

// Synchronous settings (Config.Synchronous; SQLite's PRAGMA synchronous
// in WAL mode).
const (
	// SyncFull syncs the write-ahead log at every commit: an acknowledged
	// append survives a power loss or an OS crash. The default.
	SyncFull = "full"
	// SyncNormal syncs only at checkpoints: commits are cheaper, and the
	// last ones before a power loss (not a process crash) may be lost.
	SyncNormal = "normal"
)

// Config holds the optional settings of OpenConfig.
type Config struct {
	// Synchronous is SyncFull (default) or SyncNormal, for every
	// connection of the DB and of its Pools.
	Synchronous string
}

// dsn builds the driver connection string. Every pooled connection runs the
// pragmas; busy_timeout is applied first by the driver. _txlock=immediate
// makes every BeginTx a BEGIN IMMEDIATE, so a transaction takes the write
// lock up front (waiting through the busy handler) instead of failing with
// SQLITE_BUSY when it upgrades from reading to writing.
func dsn(path, sync string) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous("+strings.ToUpper(sync)+")")
	q.Set("_txlock", "immediate")
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") { // a Windows volume: file:/C:/...
		p = "/" + p
	}
	u := url.URL{Scheme: "file", OmitHost: true, Path: p, RawQuery: q.Encode()}
	return u.String()
}

// Open opens the cache file at path, creating it and its parent directories
// when missing, and brings its schema up to date, with the default Config
// (every commit synced). It returns an error when the directory cannot be
// made, the file is not a usable SQLite database, or a migration fails.
func Open(ctx context.Context, path string) (*DB, error) {
	return OpenConfig(ctx, path, Config{})
}

// OpenConfig is Open with settings; it also returns an error naming a
// Synchronous value other than full or normal.
func OpenConfig(ctx context.Context, path string, cfg Config) (*DB, error) {
	if path == "" {
		return nil, fmt.Errorf("sqlite: open: empty path")
	}
	switch cfg.Synchronous {
	case "":
		cfg.Synchronous = SyncFull
	case SyncFull, SyncNormal:
	default:
		return nil, fmt.Errorf("sqlite: open: synchronous %q (want full or normal)", cfg.Synchronous)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	sdb, err := sql.Open("sqlite", dsn(abs, cfg.Synchronous))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", abs, err)
	}
	db := &DB{db: sdb, path: abs, sync: cfg.Synchronous, Now: time.Now}
	// Two processes creating the same new file race on switching it to
	// WAL; retry the first connection and the migration while busy.
	err = retryBusy(ctx, func() error {
		if err := sdb.PingContext(ctx); err != nil {
			return err
		}
		return db.migrate(ctx)
	})
	if err != nil {
		sdb.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", abs, err)
	}
	var mode string
	if err := sdb.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		sdb.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", abs, err)
	}
	if mode != "wal" {
		sdb.Close()
		return nil, fmt.Errorf("sqlite: open %s: journal mode is %q, not wal", abs, mode)
	}
	return db, nil
}

// Close closes the database. It returns the error of closing the pool.
func (db *DB) Close() error {
	if db.convStmt != nil {
		db.convStmt.Close()
	}
	if err := db.db.Close(); err != nil {
		return fmt.Errorf("sqlite: close: %w", err)
	}
	return nil
}

func (db *DB) now() time.Time {
	if db.Now == nil {
		return time.Now()
	}
	return db.Now()
}

// isBusy reports whether err is SQLITE_BUSY or SQLITE_LOCKED (any extended
// code).
func isBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return true
	}
	return false
}

// retryBusy runs f until it succeeds, fails with an error other than busy,
// ctx ends, or five attempts were made.
func retryBusy(ctx context.Context, f func() error) error {
	var err error
	for attempt := range 5 {
		if err = f(); err == nil || !isBusy(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(time.Duration(50<<attempt) * time.Millisecond):
		}
	}
	return err
}
