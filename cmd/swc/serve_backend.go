package main

import (
	"context"
	"log/slog"
	"net/url"
	"time"

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
	// openQueue starts the consolidation queue on the same database.
	openQueue func(ctx context.Context, c jobs.Consolidator, cfg jobs.Config) (*jobs.Queue, error)
	closers   []func() error
}

// openBackend opens the store named by db (a file or a postgres:// URL)
// and applies its migrations. pgConns bounds Postgres's pool.
func openBackend(ctx context.Context, db string, pgConns int) (*backend, error) {
	if postgres.IsURL(db) {
		pg, err := postgres.Open(ctx, db, postgres.Config{MaxConns: int32(pgConns)})
		if err != nil {
			return nil, err
		}
		return &backend{store: pg, pg: pg, closers: []func() error{pg.Close},
			openQueue: func(ctx context.Context, c jobs.Consolidator, cfg jobs.Config) (*jobs.Queue, error) {
				return jobs.OpenPostgres(ctx, pg.Pool(), c, cfg)
			}}, nil
	}
	sq, err := sqlite.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	b := &backend{store: sq, closers: []func() error{sq.Close}}
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

// sweep makes sure every conversation owed a consolidation has a job
// (existing jobs absorb the request): once now, then every interval until
// ctx ends (never when interval <= 0). A replica or database that failed
// between storing an append and enqueueing its job is covered so, without
// a restart.
func sweep(ctx context.Context, store swc.Store, queue swc.Queue, interval time.Duration, logger *slog.Logger) error {
	once := func() error {
		refs, err := store.Unconsolidated(ctx)
		if err != nil {
			return err
		}
		for _, r := range refs {
			if err := queue.Enqueue(ctx, r.Tenant, r.ID, time.Now()); err != nil {
				return err
			}
		}
		return nil
	}
	if err := once(); err != nil {
		return err
	}
	if interval > 0 {
		go func() {
			t := time.NewTicker(interval)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					if err := once(); err != nil && ctx.Err() == nil {
						logger.Warn("sweep for conversations owed a job", "err", err)
					}
				}
			}
		}()
	}
	return nil
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
