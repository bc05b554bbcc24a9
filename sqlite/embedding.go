package sqlite

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/swcmem/swc"
)

// lookupBatch bounds the number of keys in one IN (...) query or one write
// transaction, well under SQLite's limit on bound parameters and short
// enough not to hold the write lock long.
const lookupBatch = 500

// EncodeVector returns v as little-endian float32 bytes.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeVector returns the vector encoded in b, or an error when len(b) is
// not a multiple of 4.
func DecodeVector(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("sqlite: decode vector: %d bytes is not a whole number of float32", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// Embeddings returns the stored vectors of texts under embedder, in order,
// with nil for texts not stored. It returns an error when the database
// cannot be read or holds a malformed vector.
func (db *DB) Embeddings(ctx context.Context, embedder string, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	hashes := make([]string, len(texts))
	at := make(map[string][]int, len(texts))
	for i, t := range texts {
		hashes[i] = Hash(t)
		at[hashes[i]] = append(at[hashes[i]], i)
	}
	uniq := make([]string, 0, len(at))
	for h := range at {
		uniq = append(uniq, h)
	}
	for start := 0; start < len(uniq); start += lookupBatch {
		part := uniq[start:min(start+lookupBatch, len(uniq))]
		args := make([]any, 0, len(part)+1)
		args = append(args, embedder)
		for _, h := range part {
			args = append(args, h)
		}
		q := `SELECT text_hash, dim, vector FROM embeddings WHERE embedder = ? AND text_hash IN (?` +
			strings.Repeat(", ?", len(part)-1) + `)`
		if err := db.scanEmbeddings(ctx, q, args, at, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (db *DB) scanEmbeddings(ctx context.Context, q string, args []any, at map[string][]int, out [][]float32) error {
	rows, err := db.db.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("sqlite: get embeddings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var h string
		var dim int
		var blob []byte
		if err := rows.Scan(&h, &dim, &blob); err != nil {
			return fmt.Errorf("sqlite: get embeddings: %w", err)
		}
		v, err := DecodeVector(blob)
		if err != nil {
			return err
		}
		if len(v) != dim {
			return fmt.Errorf("sqlite: get embeddings: vector %s has %d values, want %d", h, len(v), dim)
		}
		for _, i := range at[h] {
			out[i] = v
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("sqlite: get embeddings: %w", err)
	}
	return nil
}

// PutEmbeddings stores vecs[i] as the vector of texts[i] under embedder, in
// short transactions of at most 500 rows. Texts already stored keep their
// stored vector. It returns an error when the lengths differ or the
// database cannot be written.
func (db *DB) PutEmbeddings(ctx context.Context, embedder string, texts []string, vecs [][]float32) error {
	if len(texts) != len(vecs) {
		return fmt.Errorf("sqlite: put embeddings: %d texts but %d vectors", len(texts), len(vecs))
	}
	now := db.now().UnixMilli()
	for start := 0; start < len(texts); start += lookupBatch {
		end := min(start+lookupBatch, len(texts))
		if err := db.putEmbeddingBatch(ctx, embedder, texts[start:end], vecs[start:end], now); err != nil {
			return err
		}
	}
	return nil
}

func (db *DB) putEmbeddingBatch(ctx context.Context, embedder string, texts []string, vecs [][]float32, now int64) error {
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: put embeddings: %w", err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx,
		`INSERT OR IGNORE INTO embeddings (embedder, text_hash, dim, vector, created_at) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("sqlite: put embeddings: %w", err)
	}
	defer stmt.Close()
	for i, t := range texts {
		if _, err := stmt.ExecContext(ctx, embedder, Hash(t), len(vecs[i]), EncodeVector(vecs[i]), now); err != nil {
			return fmt.Errorf("sqlite: put embeddings: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: put embeddings: commit: %w", err)
	}
	return nil
}

// cachedEmbedder is the embedding cache in front of an embedder.
type cachedEmbedder struct {
	e  swc.Embedder
	db *DB
}

var _ swc.Embedder = (*cachedEmbedder)(nil)

// CachedEmbedder returns an embedder that looks each text up in db under
// e.Name() and calls e once, with the missing texts (each once, in order of
// first appearance), storing the vectors it returns. Hits and misses are
// counted per text in db.Stats. Name is e's name.
//
// Wrap only embedders whose vector for a text does not depend on the other
// texts of the batch, such as remote embedding endpoints. The built-in
// lexical embedder fits its IDF weights on the batch, so caching its
// vectors would mix vectors fitted on different batches and give wrong
// similarities.
func CachedEmbedder(e swc.Embedder, db *DB) swc.Embedder { return &cachedEmbedder{e: e, db: db} }

func (c *cachedEmbedder) Name() string { return c.e.Name() }

// Embed returns one vector per text, in order. It returns e's error
// unchanged (nothing is stored then), an error when e returns the wrong
// number of vectors, or an error when the cache cannot be read or written.
func (c *cachedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	name := c.e.Name()
	out, err := c.db.Embeddings(ctx, name, texts)
	if err != nil {
		return nil, err
	}
	var missing []string
	seen := make(map[string]int)
	hits := 0
	for i, v := range out {
		if v != nil {
			hits++
			continue
		}
		if _, ok := seen[texts[i]]; !ok {
			seen[texts[i]] = len(missing)
			missing = append(missing, texts[i])
		}
	}
	c.db.embedHits.Add(int64(hits))
	c.db.embedMisses.Add(int64(len(texts) - hits))
	if len(missing) == 0 {
		return out, nil
	}
	vecs, err := c.e.Embed(ctx, missing)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(missing) {
		return nil, swc.Errorf(swc.EINTERNAL, "sqlite: embedder %s returned %d vectors for %d texts", name, len(vecs), len(missing))
	}
	if err := c.db.PutEmbeddings(ctx, name, missing, vecs); err != nil {
		return nil, err
	}
	for i, v := range out {
		if v == nil {
			out[i] = vecs[seen[texts[i]]]
		}
	}
	return out, nil
}
