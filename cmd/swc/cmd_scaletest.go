package main

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/swcmem/swc/client"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/postgres"
)

func init() {
	register("scaletest", "measure replicas of the service on one Postgres: ingest, context reads, sizes", runScaletest)
}

const scaletestUsage = `--db postgres://… --data locomo10.json [flags]

Starts --replicas swc serve processes on the Postgres database (use a scratch
database: it adds a tenant and conversations), then measures through all of
them, chosen at random per request:
  1. ingest: the conversations appended by --clients clients in batches of
     1..--batch messages; messages/s, requests/s, p50 and p99 of an append;
  2. consolidation: every conversation consolidated now (the offline
     gister), waited for;
  3. context reads: --readers clients GET …/context (budget 4000) of random
     conversations for --duration; reads/s, p50, p99;
  4. sizes: rows, table and index bytes of the service's tables (the whole
     schema: run it on an empty one to measure the data set alone).`

func runScaletest(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "scaletest", scaletestUsage)
	db := fs.String("db", "", "postgres:// URL of a scratch database")
	data := fs.String("data", "", "LoCoMo JSON file")
	n := fs.Int("replicas", 2, "swc serve processes")
	clients := fs.Int("clients", 16, "concurrent ingest clients")
	batch := fs.Int("batch", 8, "largest append, messages")
	readers := fs.Int("readers", 16, "concurrent context readers")
	duration := fs.Duration("duration", 10*time.Second, "how long readers read")
	workers := fs.Int("workers", 4, "River workers per replica")
	conns := fs.Int("db-conns", 10, "Postgres connections per replica")
	limit := fs.Int("conversations", 0, "use only the first N conversations (0: all)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if !postgres.IsURL(*db) || *data == "" {
		return usagef("scaletest: want --db postgres://… and --data FILE")
	}
	if *n < 1 || *clients < 1 || *batch < 1 || *readers < 1 {
		return usagef("scaletest: --replicas, --clients, --batch and --readers must be positive")
	}
	convs, _, err := locomo.LoadFile(*data)
	if err != nil {
		return err
	}
	if *limit > 0 && *limit < len(convs) {
		convs = convs[:*limit]
	}
	b := make([]byte, 4)
	crand.Read(b)
	run := hex.EncodeToString(b)
	var feedConvs []feedConv
	total := 0
	for _, c := range convs {
		f := feedConv{ID: run + "-" + c.ID, Msgs: conversationMessages(c)}
		total += len(f.Msgs)
		feedConvs = append(feedConvs, f)
	}
	var out, errb discard
	kenv := NewEnv(nil, &out, &errb, nil)
	if err := Run(ctx, kenv, []string{"keys", "create", "--db", *db, "--tenant", "scaletest-" + run}); err != nil {
		return fmt.Errorf("scaletest: key: %w", err)
	}
	key := out.String()
	var urls []string
	for range *n {
		r, err := startReplica(ctx, nil, env.Stderr, "--db", *db, "--rate", "-1", "--schedule", "idle:1h", "--log-level", "warn",
			"--poll", "200ms", "--workers", fmt.Sprint(*workers), "--db-conns", fmt.Sprint(*conns))
		if err != nil {
			return err
		}
		defer r.Stop()
		urls = append(urls, r.URL)
	}
	fmt.Fprintf(env.Stderr, "scaletest: %d replicas, %d conversations, %d messages\n", *n, len(feedConvs), total)

	st, err := feed(ctx, urls, key, feedConvs, *clients, *batch, 0, 1)
	if err != nil {
		return fmt.Errorf("scaletest: ingest: %w", err)
	}
	cons := time.Now()
	for _, c := range feedConvs {
		if _, err := client.New(urls[rand.IntN(len(urls))], key).Consolidate(ctx, c.ID); err != nil {
			return fmt.Errorf("scaletest: consolidate: %w", err)
		}
	}
	for _, c := range feedConvs {
		for {
			info, err := client.New(urls[0], key).Conversation(ctx, c.ID)
			if err != nil {
				return err
			}
			if info.ConsolidatedMessages == info.Messages && len(info.PendingJobs) == 0 {
				break
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	consolidated := time.Since(cons)

	rctx, cancel := context.WithTimeout(ctx, *duration)
	defer cancel()
	readStart := time.Now()
	lats, readErrs := timeReads(rctx, *readers, func(r int) *rand.Rand { return rand.New(rand.NewPCG(7, uint64(r))) },
		func(rctx context.Context, rng *rand.Rand) error {
			c := feedConvs[rng.IntN(len(feedConvs))]
			_, err := client.New(urls[rng.IntN(len(urls))], key).Context(rctx, c.ID, client.ContextOptions{Budget: 4000})
			return err
		})
	readFor := time.Since(readStart)

	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "replicas\t%d\n", *n)
	fmt.Fprintf(tw, "ingest\t%d messages, %d requests in %.2fs: %.0f msg/s, %.0f req/s, p50 %.1f ms, p99 %.1f ms\n",
		total, st.Requests, st.Elapsed.Seconds(), float64(total)/st.Elapsed.Seconds(), float64(st.Requests)/st.Elapsed.Seconds(),
		ms(percentile(st.Latencies, 0.5)), ms(percentile(st.Latencies, 0.99)))
	fmt.Fprintf(tw, "consolidation\t%d conversations in %.2fs\n", len(feedConvs), consolidated.Seconds())
	fmt.Fprintf(tw, "context reads\t%d in %.2fs: %.0f/s, p50 %.1f ms, p99 %.1f ms, %d errors\n",
		len(lats), readFor.Seconds(), float64(len(lats))/readFor.Seconds(), ms(percentile(lats, 0.5)), ms(percentile(lats, 0.99)), readErrs)
	if err := printSizes(ctx, tw, *db); err != nil {
		return err
	}
	return tw.Flush()
}

// printSizes writes rows and bytes of the service's tables and indexes.
func printSizes(ctx context.Context, w io.Writer, dsn string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("scaletest: sizes: %w", err)
	}
	defer conn.Close(ctx)
	for _, tbl := range []string{"messages", "conv_gists", "conversations", "river_job"} {
		var rows, heap, idx, payload int64
		err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM `+tbl+`), pg_table_size($1::regclass), pg_indexes_size($1::regclass),
			(SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM `+tbl+` t)`, tbl).Scan(&rows, &heap, &idx, &payload)
		if err != nil {
			return fmt.Errorf("scaletest: sizes of %s: %w", tbl, err)
		}
		per := func(v int64) float64 {
			if rows == 0 {
				return 0
			}
			return float64(v) / float64(rows)
		}
		fmt.Fprintf(w, "%s\t%d rows; table %d B (%.0f B/row, tuples %.0f B/row), indexes %d B (%.0f B/row)\n",
			tbl, rows, heap, per(heap), per(payload), idx, per(idx))
	}
	return nil
}

// discard collects a command's output.
type discard struct{ b []byte }

func (d *discard) Write(p []byte) (int, error) { d.b = append(d.b, p...); return len(p), nil }
func (d *discard) String() string              { return string(trimNL(d.b)) }

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
