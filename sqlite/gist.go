package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/swcmem/swc"
)

// Hash returns the lowercase hex SHA-256 of s.
func Hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

var _ swc.GistCache = (*DB)(nil)

// Gist returns the stored gist of the REM cache for key and ok=true, or
// ok=false when there is none (counted in Stats as a hit or a miss). It
// returns an error only when the database cannot be read.
func (db *DB) Gist(ctx context.Context, key swc.GistKey) (text string, ok bool, err error) {
	err = db.db.QueryRowContext(ctx,
		`SELECT text FROM gists WHERE variant = ? AND gister = ? AND prompt_hash = ? AND content_hash = ?`,
		string(key.Variant), key.Gister, key.PromptHash, key.ContentHash).Scan(&text)
	if errors.Is(err, sql.ErrNoRows) {
		db.gistMisses.Add(1)
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("sqlite: get gist: %w", err)
	}
	db.gistHits.Add(1)
	return text, true, nil
}

// PutGist stores text under key. When the key is already stored, by this or
// another process, the stored gist is kept and PutGist succeeds. It returns
// an error when the database cannot be written.
func (db *DB) PutGist(ctx context.Context, key swc.GistKey, text string) error {
	_, err := db.db.ExecContext(ctx,
		`INSERT OR IGNORE INTO gists (variant, gister, prompt_hash, content_hash, text, created_at)
		 VALUES (?, ?, ?, ?, ?, ?)`,
		string(key.Variant), key.Gister, key.PromptHash, key.ContentHash, text, db.now().UnixMilli())
	if err != nil {
		return fmt.Errorf("sqlite: put gist: %w", err)
	}
	return nil
}
