package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/jackc/pgx/v5"

	"github.com/swcmem/swc"
)

// The embedding cache shared by the replicas: vectors of a remote embedder
// by (embedder, SHA-256 of the text).

func textHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Embeddings returns the stored vectors of texts under embedder, in order,
// nil for texts not stored; an error when the database cannot be read.
func (db *DB) Embeddings(ctx context.Context, embedder string, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	at := map[string][]int{}
	hashes := make([]string, 0, len(texts))
	for i, t := range texts {
		h := textHash(t)
		if _, ok := at[h]; !ok {
			hashes = append(hashes, h)
		}
		at[h] = append(at[h], i)
	}
	rows, err := db.pool.Query(ctx, `SELECT text_hash, vector FROM embeddings WHERE embedder = $1 AND text_hash = ANY($2)`, embedder, hashes)
	if err != nil {
		return nil, wrap("get embeddings", err)
	}
	var h string
	var v []float32
	_, err = pgx.ForEachRow(rows, []any{&h, &v}, func() error {
		for _, i := range at[h] {
			out[i] = v
		}
		v = nil // the next row gets its own slice
		return nil
	})
	if err != nil {
		return nil, wrap("get embeddings", err)
	}
	return out, nil
}

// PutEmbeddings stores vecs[i] as the vector of texts[i] under embedder in
// one transaction; texts stored already keep their vector. It returns an
// error when the lengths differ or the database cannot be written.
func (db *DB) PutEmbeddings(ctx context.Context, embedder string, texts []string, vecs [][]float32) error {
	if len(texts) != len(vecs) {
		return swc.Errorf(swc.EINTERNAL, "postgres: put embeddings: %d texts but %d vectors", len(texts), len(vecs))
	}
	b := &pgx.Batch{}
	now := db.now().UnixMilli()
	for i, t := range texts {
		b.Queue(`INSERT INTO embeddings (embedder, text_hash, vector, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
			embedder, textHash(t), vecs[i], now)
	}
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error { return tx.SendBatch(ctx, b).Close() })
	return wrap("put embeddings", err)
}

type cachedEmbedder struct {
	e  swc.Embedder
	db *DB
}

var _ swc.Embedder = (*cachedEmbedder)(nil)

// CachedEmbedder returns e behind the embedding cache in db: each text is
// looked up under e.Name(), e is called once with the missing texts (each
// once) and its vectors stored. Wrap only embedders whose vector of a text
// does not depend on the batch (remote endpoints), never the lexical one.
func CachedEmbedder(e swc.Embedder, db *DB) swc.Embedder { return &cachedEmbedder{e: e, db: db} }

func (c *cachedEmbedder) Name() string { return c.e.Name() }

// Embed returns one vector per text, in order; e's error unchanged
// (nothing stored), or an error when e returns the wrong number of vectors
// or the cache cannot be read or written.
func (c *cachedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out, err := c.db.Embeddings(ctx, c.e.Name(), texts)
	if err != nil {
		return nil, err
	}
	var missing []string
	seen := map[string]int{}
	for i, v := range out {
		if v != nil {
			continue
		}
		if _, ok := seen[texts[i]]; !ok {
			seen[texts[i]] = len(missing)
			missing = append(missing, texts[i])
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	vecs, err := c.e.Embed(ctx, missing)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(missing) {
		return nil, swc.Errorf(swc.EINTERNAL, "postgres: embedder %s returned %d vectors for %d texts", c.e.Name(), len(vecs), len(missing))
	}
	if err := c.db.PutEmbeddings(ctx, c.e.Name(), missing, vecs); err != nil {
		return nil, err
	}
	for i, v := range out {
		if v == nil {
			out[i] = vecs[seen[texts[i]]]
		}
	}
	return out, nil
}
