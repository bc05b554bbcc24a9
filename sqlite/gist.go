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

// GistKey identifies one REM cache entry. Entries of different
// variants never match, nor do those of different gisters, prompts or chunk
// contents.
type GistKey struct {
	Variant     string // swc.GistVariant, e.g. "full" or "temporal"
	Gister      string // gister and model, swc.Gister.Name()
	PromptHash  string // Hash of the prompt text used for this variant
	ContentHash string // hash of the chunk content, see ContentHash
}

// ContentHash returns the content hash of a gist request: the session date
// and the text, both of which the gister sees. The variant is not part of
// it; it is its own key field.
func ContentHash(req swc.GistRequest) string {
	return Hash(req.Date + "\x00" + req.Text)
}

// Gist returns the stored gist for key and ok=true, or ok=false when there
// is none. It returns an error only when the database cannot be read.
func (db *DB) Gist(ctx context.Context, key GistKey) (text string, ok bool, err error) {
	err = db.db.QueryRowContext(ctx,
		`SELECT text FROM gists WHERE variant = ? AND gister = ? AND prompt_hash = ? AND content_hash = ?`,
		key.Variant, key.Gister, key.PromptHash, key.ContentHash).Scan(&text)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("sqlite: get gist: %w", err)
	}
	return text, true, nil
}

// PutGist stores text under key. When the key is already stored, by this or
// another process, the stored gist is kept and PutGist succeeds. It returns
// an error when the database cannot be written.
func (db *DB) PutGist(ctx context.Context, key GistKey, text string) error {
	_, err := db.db.ExecContext(ctx,
		`INSERT OR IGNORE INTO gists (variant, gister, prompt_hash, content_hash, text, created_at)
		 VALUES (?, ?, ?, ?, ?, ?)`,
		key.Variant, key.Gister, key.PromptHash, key.ContentHash, text, db.now().UnixMilli())
	if err != nil {
		return fmt.Errorf("sqlite: put gist: %w", err)
	}
	return nil
}

// cachedGister is the REM cache in front of a gister.
type cachedGister struct {
	g          swc.Gister
	db         *DB
	promptHash func(swc.GistVariant) string
}

var _ swc.Gister = (*cachedGister)(nil)

// CachedGister returns a gister that answers from the REM cache in db and
// calls g only on a miss, storing what g returns. promptHash returns the
// hash of the prompt g uses for a variant (e.g. Hash of the prompt text), so
// that changing a prompt invalidates its gists; it must not be nil. Hits and
// misses are counted in db.Stats. Name is g's name.
func CachedGister(g swc.Gister, db *DB, promptHash func(variant swc.GistVariant) string) swc.Gister {
	if promptHash == nil {
		panic("sqlite: CachedGister: nil promptHash")
	}
	return &cachedGister{g: g, db: db, promptHash: promptHash}
}

func (c *cachedGister) Name() string { return c.g.Name() }

// Gist returns the cached gist, or g's gist stored for next time. It returns
// g's error unchanged (nothing is stored then), or an error when the cache
// cannot be read or written.
func (c *cachedGister) Gist(ctx context.Context, req swc.GistRequest) (string, error) {
	key := GistKey{
		Variant:     string(req.Variant),
		Gister:      c.g.Name(),
		PromptHash:  c.promptHash(req.Variant),
		ContentHash: ContentHash(req),
	}
	text, ok, err := c.db.Gist(ctx, key)
	if err != nil {
		return "", err
	}
	if ok {
		c.db.gistHits.Add(1)
		return text, nil
	}
	c.db.gistMisses.Add(1)
	text, err = c.g.Gist(ctx, req)
	if err != nil {
		return "", err
	}
	if err := c.db.PutGist(ctx, key, text); err != nil {
		return "", err
	}
	return text, nil
}
