package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"github.com/swcmem/swc"
)

// The REM cache shared by every replica: a gist made by one
// replica's job is reused by any other's, so a job rescued from a killed
// replica pays only for the gists the dead one had not stored.

// GistKey identifies one REM cache entry: entries of different variants,
// gisters (and models), prompts or chunk contents never match.
type GistKey struct {
	Variant     string // swc.GistVariant
	Gister      string // swc.Gister.Name()
	PromptHash  string // hash of the prompt text of the variant
	ContentHash string // ContentHash of the request
}

// ContentHash returns the hex SHA-256 of the session date and text a gister
// sees (the same value sqlite.ContentHash gives).
func ContentHash(req swc.GistRequest) string {
	sum := sha256.Sum256([]byte(req.Date + "\x00" + req.Text))
	return hex.EncodeToString(sum[:])
}

// Gist returns the cached gist for key and ok=true, or ok=false when there
// is none; an error only when the database cannot be read.
func (db *DB) Gist(ctx context.Context, key GistKey) (text string, ok bool, err error) {
	err = db.pool.QueryRow(ctx, `SELECT text FROM rem_gists WHERE variant = $1 AND gister = $2 AND prompt_hash = $3 AND content_hash = $4`,
		key.Variant, key.Gister, key.PromptHash, key.ContentHash).Scan(&text)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, wrap("get gist", err)
	}
	return text, true, nil
}

// PutGist stores text under key; when the key is stored already (by any
// replica) the stored gist is kept and PutGist succeeds.
func (db *DB) PutGist(ctx context.Context, key GistKey, text string) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO rem_gists (variant, gister, prompt_hash, content_hash, text, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
		key.Variant, key.Gister, key.PromptHash, key.ContentHash, text, db.now().UnixMilli())
	return wrap("put gist", err)
}

// CacheStats counts the REM cache's hits and misses through CachedGister.
type CacheStats struct{ Hits, Misses atomic.Int64 }

type cachedGister struct {
	g          swc.Gister
	db         *DB
	promptHash func(swc.GistVariant) string
	stats      *CacheStats
}

var _ swc.Gister = (*cachedGister)(nil)

// CachedGister returns g behind the REM cache in db: a hit answers from
// the cache, a miss calls g and stores its gist. promptHash gives the hash
// of g's prompt for a variant (a changed prompt misses); stats, when not
// nil, counts hits and misses. Name is g's.
func CachedGister(g swc.Gister, db *DB, promptHash func(swc.GistVariant) string, stats *CacheStats) swc.Gister {
	return &cachedGister{g: g, db: db, promptHash: promptHash, stats: stats}
}

func (c *cachedGister) Name() string { return c.g.Name() }

// Gist returns the cached gist or g's (stored for next time); g's error
// unchanged (nothing stored), or the cache's error.
func (c *cachedGister) Gist(ctx context.Context, req swc.GistRequest) (string, error) {
	key := GistKey{Variant: string(req.Variant), Gister: c.g.Name(), PromptHash: c.promptHash(req.Variant), ContentHash: ContentHash(req)}
	text, ok, err := c.db.Gist(ctx, key)
	if err != nil {
		return "", err
	}
	if ok {
		if c.stats != nil {
			c.stats.Hits.Add(1)
		}
		return text, nil
	}
	if c.stats != nil {
		c.stats.Misses.Add(1)
	}
	if text, err = c.g.Gist(ctx, req); err != nil {
		return "", err
	}
	if err := c.db.PutGist(ctx, key, text); err != nil {
		return "", err
	}
	return text, nil
}
