package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/swcmem/swc"
)

// DB is the REM cache shared by every replica (put it in front of a gister
// with gist.Cached): a gist made by one replica's job is reused by any
// other's, so a job rescued from a killed replica pays only for the gists
// the dead one had not stored.
var _ swc.GistCache = (*DB)(nil)

// Gist returns the REM cache's gist for key and ok=true, or ok=false when
// there is none; an error only when the database cannot be read.
func (db *DB) Gist(ctx context.Context, key swc.GistKey) (text string, ok bool, err error) {
	err = db.pool.QueryRow(ctx, `SELECT text FROM rem_gists WHERE variant = $1 AND gister = $2 AND prompt_hash = $3 AND content_hash = $4`,
		string(key.Variant), key.Gister, key.PromptHash, key.ContentHash).Scan(&text)
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
func (db *DB) PutGist(ctx context.Context, key swc.GistKey, text string) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO rem_gists (variant, gister, prompt_hash, content_hash, text, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
		string(key.Variant), key.Gister, key.PromptHash, key.ContentHash, text, db.now().UnixMilli())
	return wrap("put gist", err)
}
