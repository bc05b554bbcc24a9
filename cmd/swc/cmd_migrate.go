package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/swcmem/swc/jobs"
	"github.com/swcmem/swc/postgres"
	"github.com/swcmem/swc/sqlite"
)

func init() {
	register("migrate", "bring the service's database (SQLite file or Postgres) to this version's schema", runMigrate)
}

const migrateUsage = `--db swc.db|postgres://…

Applies the service's migrations and River's (the job queue's) to the
database, the same ones swc serve applies at start, and prints both schema
versions. Run it once before rolling out replicas of a new version; it is
safe to run again, and replicas starting together migrate once (an
advisory lock).`

func runMigrate(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "migrate", migrateUsage)
	db := fs.String("db", "swc.db", "the service's SQLite file or postgres:// URL")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("migrate: unexpected argument %q", fs.Arg(0))
	}
	logger := slog.New(slog.NewTextHandler(env.Stderr, nil))
	var ours, river int
	if postgres.IsURL(*db) {
		pg, err := postgres.Open(ctx, *db, postgres.Config{MaxConns: 2, Migrations: riverMigrations})
		if err != nil {
			return err
		}
		defer pg.Close()
		if ours, err = pg.Version(ctx); err != nil {
			return err
		}
		if river, err = jobs.MigratePostgres(ctx, pg.Pool(), logger); err != nil { // applied: reads the version
			return err
		}
	} else {
		sq, err := sqlite.Open(ctx, *db)
		if err != nil {
			return err
		}
		defer sq.Close()
		pool, err := sq.Pool(1)
		if err != nil {
			return err
		}
		defer pool.Close()
		ours = sqlite.SchemaVersion()
		if river, err = jobs.MigrateSQLite(ctx, pool, logger); err != nil {
			return err
		}
	}
	fmt.Fprintf(env.Stdout, "%s: swc schema version %d, River schema version %d\n", redactDB(*db), ours, river)
	return nil
}
