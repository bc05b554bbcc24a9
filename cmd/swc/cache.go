package main

import (
	"context"
	"flag"

	"github.com/swcmem/swc/postgres"
	"github.com/swcmem/swc/sqlite"
)

// cacheFlags select the REM/response cache file.
type cacheFlags struct {
	path    string
	noCache bool
	// pg, set by serve on Postgres, holds the REM and embedding caches the
	// replicas share (LLM responses stay in the file).
	pg *postgres.DB
}

func (c *cacheFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&c.path, "cache", "", "REM and response cache file (default $SWC_CACHE, else swc/cache.db in the user cache directory)")
	fs.BoolVar(&c.noCache, "no-cache", false, "do not read or write the cache")
}

// open returns the cache database, or nil with --no-cache.
func (c *cacheFlags) open(ctx context.Context, env *Env) (*sqlite.DB, error) {
	if c.noCache {
		return nil, nil
	}
	path := c.path
	if path == "" {
		path = env.Vars["SWC_CACHE"]
	}
	if path == "" {
		p, err := sqlite.DefaultPath()
		if err != nil {
			return nil, err
		}
		path = p
	}
	return sqlite.Open(ctx, path)
}
