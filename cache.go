package swc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
)

// GistKey identifies one gist of the REM cache: entries of different
// variants, gisters (and models), prompts or chunk contents never match.
type GistKey struct {
	Variant     GistVariant
	Gister      string // Gister.Name(), the model included
	PromptHash  string // hash of the prompt text the gister uses for Variant
	ContentHash string // GistRequest.ContentHash of the chunk
}

// GistCache is the REM cache: gists stored by what made them, so that a
// rerun, another process or another replica never pays for a gist twice.
// sqlite.DB and postgres.DB implement it; gist.Cached puts one in front of
// a gister.
type GistCache interface {
	// Gist returns the stored gist for key and ok=true, or ok=false when
	// there is none; an error only when the cache cannot be read.
	Gist(ctx context.Context, key GistKey) (text string, ok bool, err error)
	// PutGist stores text under key. When key is stored already (by any
	// process) the stored gist is kept and PutGist succeeds. It returns an
	// error when the cache cannot be written.
	PutGist(ctx context.Context, key GistKey, text string) error
}

// ContentHash returns the lowercase hex SHA-256 of what a gister sees of
// r: the session date and the text. The variant is not part of it; it is
// a GistKey field of its own.
func (r GistRequest) ContentHash() string {
	sum := sha256.Sum256([]byte(r.Date + "\x00" + r.Text))
	return hex.EncodeToString(sum[:])
}
