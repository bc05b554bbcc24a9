package main

import (
	"context"
	"net/url"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/jobs"
	"github.com/swcmem/swc/postgres"
	"github.com/swcmem/swc/sqlite"
)

// backend is where serve keeps its state and runs its jobs: a SQLite file
// with River's SQLite driver (one process), or Postgres with River's pgx
// driver for a postgres:// URL (any number of replicas).
type backend struct {
	store swc.Store
	pg    *postgres.DB // the store when on Postgres, else nil
	// ready says whether the database answers at this build's schema.
	ready func(ctx context.Context) error
	// openQueue starts the consolidation queue on the same database.
	openQueue func(ctx context.Context, c jobs.Consolidator, cfg jobs.Config) (*jobs.Queue, error)
	closers   []func() error
}

// backendConfig names the database and its settings.
type backendConfig struct {
	db         string // a SQLite file or a postgres:// URL
	pgConns    int    // Postgres: the pool's connections
	sqliteSync string // SQLite: sqlite.SyncFull (default) or sqlite.SyncNormal
	pgStates   int    // Postgres: postgres.Config.StateBytes
}

// openBackend opens the store cfg names and applies its migrations.
func openBackend(ctx context.Context, cfg backendConfig) (*backend, error) {
	db, pgConns := cfg.db, cfg.pgConns
	if postgres.IsURL(db) {
		pg, err := postgres.Open(ctx, db, postgres.Config{MaxConns: int32(pgConns), Migrations: riverMigrations, StateBytes: cfg.pgStates})
		if err != nil {
			return nil, err
		}
		return &backend{store: pg, pg: pg, ready: pg.Ready, closers: []func() error{pg.Close},
			openQueue: func(ctx context.Context, c jobs.Consolidator, cfg jobs.Config) (*jobs.Queue, error) {
				return jobs.OpenPostgres(ctx, pg.Pool(), c, cfg)
			}}, nil
	}
	sq, err := sqlite.OpenConfig(ctx, db, sqlite.Config{Synchronous: cfg.sqliteSync})
	if err != nil {
		return nil, err
	}
	b := &backend{store: sq, ready: sq.Ready, closers: []func() error{sq.Close}}
	b.openQueue = func(ctx context.Context, c jobs.Consolidator, cfg jobs.Config) (*jobs.Queue, error) {
		pool, err := sq.Pool(1) // River's SQLite driver wants one connection
		if err != nil {
			return nil, err
		}
		b.closers = append([]func() error{pool.Close}, b.closers...)
		return jobs.Open(ctx, pool, c, cfg)
	}
	return b, nil
}

// riverMigrations are River's, applied with the store's under its
// advisory lock: replicas starting together on an empty database migrate
// one after the other.
var riverMigrations = []func(context.Context, *pgxpool.Pool) error{
	func(ctx context.Context, pool *pgxpool.Pool) error {
		_, err := jobs.MigratePostgres(ctx, pool, nil)
		return err
	},
}

// Close closes what openBackend and openQueue opened.
func (b *backend) Close() error {
	var first error
	for _, c := range b.closers {
		if err := c(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// redactDB hides a password in a postgres:// URL for logs.
func redactDB(db string) string {
	if !postgres.IsURL(db) {
		return db
	}
	u, err := url.Parse(db)
	if err != nil {
		return "postgres://…"
	}
	return u.Redacted()
}
