package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
)

// riverClient is what the queue uses of a River client, whatever its
// driver's transaction type.
type riverClient interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	JobRetry(ctx context.Context, id int64) (*rivertype.JobRow, error)
	JobList(ctx context.Context, params *river.JobListParams) (*river.JobListResult, error)
	Stop(ctx context.Context) error
	StopAndCancel(ctx context.Context) error
	Stopped() <-chan struct{}
}

// OpenPostgres migrates River's tables in the Postgres database of pool
// (next to the store's, in the search_path's schema) and starts a queue
// whose workers call c. Every replica opening a queue on the
// same database shares its jobs: a job runs on one replica whichever
// enqueued it, never two at once for one conversation (River's unique
// jobs), and a job whose replica died is rescued by another after
// cfg.RescueAfter (River's leader runs the rescuer every 30s). The caller
// must Stop it.
func OpenPostgres(ctx context.Context, pool *pgxpool.Pool, c Consolidator, cfg Config) (*Queue, error) {
	q, err := start(ctx, riverpgxv5.New(pool), c, cfg)
	if err != nil {
		return nil, err
	}
	// River's GIN index on args answers containment.
	q.argsWhere = func(tenant, conv string) (string, river.NamedArgs) {
		b, _ := json.Marshal(Args{Tenant: tenant, Conversation: conv})
		return "args @> @swc_args::jsonb", river.NamedArgs{"swc_args": string(b)}
	}
	return q, nil
}

// MigratePostgres applies River's migrations to the Postgres database of
// pool and returns the version of River's schema there.
func MigratePostgres(ctx context.Context, pool *pgxpool.Pool, logger *slog.Logger) (int, error) {
	return migrate(ctx, riverpgxv5.New(pool), logger)
}

// MigrateSQLite applies River's migrations to the SQLite database of pool
// and returns the version of River's schema there.
func MigrateSQLite(ctx context.Context, pool *sql.DB, logger *slog.Logger) (int, error) {
	return migrate(ctx, riversqlite.New(pool), logger)
}

func migrate[TTx any](ctx context.Context, driver riverdriver.Driver[TTx], logger *slog.Logger) (int, error) {
	mig, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: quiet(logger)})
	if err != nil {
		return 0, fmt.Errorf("jobs: migrate: %w", err)
	}
	if _, err := mig.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return 0, fmt.Errorf("jobs: migrate: %w", err)
	}
	all, err := mig.ExistingVersions(ctx)
	if err != nil {
		return 0, fmt.Errorf("jobs: migrate: %w", err)
	}
	v := 0
	for _, m := range all {
		v = max(v, m.Version)
	}
	return v, nil
}

// start migrates River's tables with driver and starts the queue.
func start[TTx any](ctx context.Context, driver riverdriver.Driver[TTx], c Consolidator, cfg Config) (*Queue, error) {
	if _, err := migrate(ctx, driver, cfg.Logger); err != nil {
		return nil, err
	}
	workers := river.NewWorkers()
	timeout := cmpOr(cfg.JobTimeout, 5*time.Minute)
	river.AddWorker(workers, &worker{c: c, timeout: timeout, onResult: cfg.OnResult})
	client, err := river.NewClient(driver, &river.Config{
		Queues:               map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cmpOr(cfg.Workers, 4)}},
		Workers:              workers,
		MaxAttempts:          cmpOr(cfg.MaxAttempts, 10),
		JobTimeout:           timeout,
		RescueStuckJobsAfter: cmpOr(cfg.RescueAfter, timeout+time.Minute),
		FetchPollInterval:    cmpOr(cfg.PollInterval, time.Second),
		FetchCooldown:        min(cmpOr(cfg.PollInterval, time.Second), 100*time.Millisecond),
		Logger:               quiet(cfg.Logger),
	})
	if err != nil {
		return nil, fmt.Errorf("jobs: client: %w", err)
	}
	if err := client.Start(ctx); err != nil {
		return nil, fmt.Errorf("jobs: start: %w", err)
	}
	mig, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: quiet(cfg.Logger)})
	if err != nil {
		return nil, fmt.Errorf("jobs: migrate: %w", err)
	}
	latest := 0
	for _, m := range mig.AllVersions() {
		latest = max(latest, m.Version)
	}
	schema := func(ctx context.Context) error {
		all, err := mig.ExistingVersions(ctx)
		if err != nil {
			return fmt.Errorf("jobs: River schema version: %w", err)
		}
		v := 0
		for _, m := range all {
			v = max(v, m.Version)
		}
		if v != latest {
			return fmt.Errorf("jobs: River schema version %d, this swc's River wants %d", v, latest)
		}
		return nil
	}
	fctx, cancel := context.WithCancel(context.Background())
	return &Queue{client: client, schema: schema, followCtx: fctx, stopFollow: cancel,
		following: map[Args]time.Time{}, followPeriod: min(cmpOr(cfg.PollInterval, time.Second), 250*time.Millisecond)}, nil
}
