package loadtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/swcmem/swc/client"
)

// ScaleConfig are the settings of RunScale.
type ScaleConfig struct {
	// Clients append concurrently, 1..Batch messages per append.
	Clients, Batch int
	// Readers read contexts (budget 4000) of random conversations for
	// Duration.
	Readers  int
	Duration time.Duration
}

// ScaleResult is what RunScale measured.
type ScaleResult struct {
	Feed *FeedStats
	// Consolidated is how long the consolidation of every conversation
	// took, from the first request to the last conversation done.
	Consolidated time.Duration
	// Reads are the latencies of the context reads that succeeded over
	// ReadFor; ReadErrors counts the others.
	Reads      []time.Duration
	ReadErrors int64
	ReadFor    time.Duration
}

// RunScale measures the replicas at urls (one service, chosen at random
// per request) with the tenant key key:
//  1. ingest: convs appended by cfg.Clients clients (Feed);
//  2. consolidation: every conversation consolidated now, waited for;
//  3. context reads by cfg.Readers clients for cfg.Duration.
//
// It returns the first error of ingest or consolidation, or ctx's.
func RunScale(ctx context.Context, urls []string, key string, convs []FeedConv, cfg ScaleConfig) (ScaleResult, error) {
	var res ScaleResult
	st, err := Feed(ctx, urls, key, convs, cfg.Clients, cfg.Batch, 0, 1)
	if err != nil {
		return res, fmt.Errorf("scaletest: ingest: %w", err)
	}
	res.Feed = st
	cons := time.Now()
	for _, c := range convs {
		if _, err := client.New(urls[rand.IntN(len(urls))], key).Consolidate(ctx, c.ID); err != nil {
			return res, fmt.Errorf("scaletest: consolidate: %w", err)
		}
	}
	for _, c := range convs {
		for {
			info, err := client.New(urls[0], key).Conversation(ctx, c.ID)
			if err != nil {
				return res, err
			}
			if info.ConsolidatedMessages == info.Messages && len(info.PendingJobs) == 0 {
				break
			}
			select {
			case <-ctx.Done():
				return res, ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	res.Consolidated = time.Since(cons)

	rctx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	readStart := time.Now()
	res.Reads, res.ReadErrors = TimeReads(rctx, cfg.Readers, func(r int) *rand.Rand { return rand.New(rand.NewPCG(7, uint64(r))) },
		func(rctx context.Context, rng *rand.Rand) error {
			c := convs[rng.IntN(len(convs))]
			_, err := client.New(urls[rng.IntN(len(urls))], key).Context(rctx, c.ID, client.ContextOptions{Budget: 4000})
			return err
		})
	res.ReadFor = time.Since(readStart)
	return res, nil
}

// TableSize is the size of one of the service's Postgres tables: rows,
// table (heap) bytes, index bytes, and the bytes of its tuples.
type TableSize struct {
	Table                       string
	Rows, Heap, Index, Payloads int64
}

// PerRow returns v per row (0 for an empty table).
func (s TableSize) PerRow(v int64) float64 {
	if s.Rows == 0 {
		return 0
	}
	return float64(v) / float64(s.Rows)
}

// TableSizes returns the sizes of the service's tables (messages,
// conv_gists, conversations, river_job) in the Postgres database dsn.
func TableSizes(ctx context.Context, dsn string) ([]TableSize, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("scaletest: sizes: %w", err)
	}
	defer conn.Close(ctx)
	var out []TableSize
	for _, tbl := range []string{"messages", "conv_gists", "conversations", "river_job"} {
		s := TableSize{Table: tbl}
		err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM `+tbl+`), pg_table_size($1::regclass), pg_indexes_size($1::regclass),
			(SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM `+tbl+` t)`, tbl).Scan(&s.Rows, &s.Heap, &s.Index, &s.Payloads)
		if err != nil {
			return nil, fmt.Errorf("scaletest: sizes of %s: %w", tbl, err)
		}
		out = append(out, s)
	}
	return out, nil
}
