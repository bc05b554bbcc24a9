package loadtest

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
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
	// Warmup is how many of each conversation's first messages are
	// appended before the ingest is measured (at most half of each): the
	// replicas' connections opened, their statements planned, the
	// conversations created, so that the ingest's figures are a running
	// service's. The warm-up's own figures are reported apart.
	Warmup int
	// Floor: after the context reads, the same readers read the replicas'
	// /healthz (no store, no context) for Duration: the latencies this
	// machine and load generator give a request that does no work.
	Floor bool
	// CPU, when set, returns the CPU time the service has used so far:
	// RunScale takes it around the warm-up, the ingest and the reads.
	CPU func() CPU
}

// CPU is CPU time used: by the service's replicas, by the database
// server (DBKnown false when it is not measured: another machine, or
// SQLite inside the replica), and by this process (the load).
type CPU struct {
	Replicas, DB, Load time.Duration
	DBKnown            bool
}

// Sub returns c minus d.
func (c CPU) Sub(d CPU) CPU {
	return CPU{Replicas: c.Replicas - d.Replicas, DB: c.DB - d.DB, Load: c.Load - d.Load, DBKnown: c.DBKnown && d.DBKnown}
}

// Per returns each time divided by n, in milliseconds.
func (c CPU) Per(n int) (replicas, db, load float64) {
	if n <= 0 {
		return 0, 0, 0
	}
	f := func(d time.Duration) float64 { return MS(d) / float64(n) }
	return f(c.Replicas), f(c.DB), f(c.Load)
}

// ScaleResult is what RunScale measured.
type ScaleResult struct {
	// Warm is the warm-up's feed (nil without one) and WarmCPU its CPU;
	// Feed is the measured ingest, of the rest of the messages.
	Warm    *FeedStats
	WarmCPU CPU
	Feed    *FeedStats
	// Consolidated is how long the consolidation of every conversation
	// took, from the first request to the last conversation done.
	Consolidated time.Duration
	// Reads are the latencies of the context reads that succeeded over
	// ReadFor; ReadErrors counts the others.
	Reads      []time.Duration
	ReadErrors int64
	ReadFor    time.Duration
	// Floor are the latencies of the /healthz reads (ScaleConfig.Floor).
	Floor    []time.Duration
	FloorFor time.Duration
	// IngestCPU and ReadCPU are the CPU time used during the ingest and
	// the reads (zero without ScaleConfig.CPU).
	IngestCPU, ReadCPU CPU
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
	sample := func() CPU {
		if cfg.CPU == nil {
			return CPU{}
		}
		c := cfg.CPU()
		c.Load = cpuTime()
		return c
	}
	warm, rest := splitWarmup(convs, cfg.Warmup)
	if warm != nil {
		cpu0 := sample()
		st, err := Feed(ctx, urls, key, warm, cfg.Clients, cfg.Batch, 0, 2)
		if err != nil {
			return res, fmt.Errorf("scaletest: warm-up: %w", err)
		}
		res.Warm, res.WarmCPU = st, sample().Sub(cpu0)
	}
	cpu0 := sample()
	st, err := Feed(ctx, urls, key, rest, cfg.Clients, cfg.Batch, 0, 1)
	if err != nil {
		return res, fmt.Errorf("scaletest: ingest: %w", err)
	}
	res.Feed = st
	res.IngestCPU = sample().Sub(cpu0)
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
	// The body is read whole but not decoded: the figure is the
	// service's, not this process's JSON decoder's.
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: time.Minute}
	cpu0 = sample()
	readStart := time.Now()
	res.Reads, res.ReadErrors = TimeReads(rctx, cfg.Readers, func(r int) *rand.Rand { return rand.New(rand.NewPCG(7, uint64(r))) },
		func(rctx context.Context, rng *rand.Rand) error {
			c := convs[rng.IntN(len(convs))]
			return getContext(rctx, hc, urls[rng.IntN(len(urls))], key, c.ID, 4000)
		})
	res.ReadFor = time.Since(readStart)
	res.ReadCPU = sample().Sub(cpu0)
	if cfg.Floor {
		fctx, cancel := context.WithTimeout(ctx, cfg.Duration)
		defer cancel()
		start := time.Now()
		var errs int64
		res.Floor, errs = TimeReads(fctx, cfg.Readers, func(r int) *rand.Rand { return rand.New(rand.NewPCG(8, uint64(r))) },
			func(fctx context.Context, rng *rand.Rand) error {
				return get(fctx, hc, urls[rng.IntN(len(urls))]+"/healthz", "")
			})
		res.FloorFor = time.Since(start)
		if errs > 0 && ctx.Err() == nil {
			return res, fmt.Errorf("scaletest: floor: %d of the /healthz reads failed", errs)
		}
	}
	return res, nil
}

// splitWarmup returns the first n messages of each conversation (at most
// half of it) and the rest; warm is nil when n < 1.
func splitWarmup(convs []FeedConv, n int) (warm, rest []FeedConv) {
	if n < 1 {
		return nil, convs
	}
	for _, c := range convs {
		k := min(n, len(c.Msgs)/2)
		warm = append(warm, FeedConv{ID: c.ID, Msgs: c.Msgs[:k]})
		rest = append(rest, FeedConv{ID: c.ID, Msgs: c.Msgs[k:]})
	}
	return warm, rest
}

// getContext reads the context of conv (budget tokens) from the service
// at base, whole, and returns an error unless it is a 200.
func getContext(ctx context.Context, hc *http.Client, base, key, conv string, budget int) error {
	return get(ctx, hc, fmt.Sprintf("%s/v1/conversations/%s/context?budget=%d", base, url.PathEscape(conv), budget), key)
}

// get reads the body at u whole (with the bearer key unless empty) and
// returns an error unless it is a 200.
func get(ctx context.Context, hc *http.Client, u, key string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
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
