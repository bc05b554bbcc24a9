package main

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/swcmem/swc/loadtest"
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

// swcCommand returns the command running this binary as swc with args;
// tests replace it (their binary is not swc).
var swcCommand = func(args ...string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return exec.Command(exe, args...)
}

// startReplica starts `swc serve --addr 127.0.0.1:0 args…` with extra
// environment variables env and its stderr to logw (loadtest.StartReplica).
func startReplica(ctx context.Context, env []string, logw io.Writer, args ...string) (*loadtest.Replica, error) {
	return loadtest.StartReplica(ctx, swcCommand(append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...), env, logw)
}

func runScaletest(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "scaletest", scaletestUsage)
	db := fs.String("db", "", "postgres:// URL of a scratch database")
	data := fs.String("data", "", "LoCoMo JSON file")
	n := fs.Int("replicas", 2, "swc serve processes")
	var cfg loadtest.ScaleConfig
	fs.IntVar(&cfg.Clients, "clients", 16, "concurrent ingest clients")
	fs.IntVar(&cfg.Batch, "batch", 8, "largest append, messages")
	fs.IntVar(&cfg.Readers, "readers", 16, "concurrent context readers")
	fs.DurationVar(&cfg.Duration, "duration", 10*time.Second, "how long readers read")
	workers := fs.Int("workers", 4, "River workers per replica")
	conns := fs.Int("db-conns", 10, "Postgres connections per replica")
	limit := fs.Int("conversations", 0, "use only the first N conversations (0: all)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if !postgres.IsURL(*db) || *data == "" {
		return usagef("scaletest: want --db postgres://… and --data FILE")
	}
	if *n < 1 || cfg.Clients < 1 || cfg.Batch < 1 || cfg.Readers < 1 {
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
	var feedConvs []loadtest.FeedConv
	total := 0
	for _, c := range convs {
		f := loadtest.FeedConv{ID: run + "-" + c.ID, Msgs: loadtest.ConversationMessages(c)}
		total += len(f.Msgs)
		feedConvs = append(feedConvs, f)
	}
	var out, errb bytes.Buffer
	if err := Run(ctx, NewEnv(nil, &out, &errb, nil), []string{"keys", "create", "--db", *db, "--tenant", "scaletest-" + run}); err != nil {
		return fmt.Errorf("scaletest: key: %w", err)
	}
	key := strings.TrimSpace(out.String())
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
	res, err := loadtest.RunScale(ctx, urls, key, feedConvs, cfg)
	if err != nil {
		return err
	}
	sizes, err := loadtest.TableSizes(ctx, *db)
	if err != nil {
		return err
	}
	printScaletest(env.Stdout, *n, len(feedConvs), total, res, sizes)
	return nil
}

func printScaletest(w io.Writer, replicas, convs, total int, r loadtest.ScaleResult, sizes []loadtest.TableSize) {
	ms, p := loadtest.MS, loadtest.Percentile
	st, lats := r.Feed, r.Reads
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "replicas\t%d\n", replicas)
	fmt.Fprintf(tw, "ingest\t%d messages, %d requests in %.2fs: %.0f msg/s, %.0f req/s, p50 %.1f ms, p99 %.1f ms\n",
		total, st.Requests, st.Elapsed.Seconds(), float64(total)/st.Elapsed.Seconds(), float64(st.Requests)/st.Elapsed.Seconds(),
		ms(p(st.Latencies, 0.5)), ms(p(st.Latencies, 0.99)))
	fmt.Fprintf(tw, "consolidation\t%d conversations in %.2fs\n", convs, r.Consolidated.Seconds())
	fmt.Fprintf(tw, "context reads\t%d in %.2fs: %.0f/s, p50 %.1f ms, p99 %.1f ms, %d errors\n",
		len(lats), r.ReadFor.Seconds(), float64(len(lats))/r.ReadFor.Seconds(), ms(p(lats, 0.5)), ms(p(lats, 0.99)), r.ReadErrors)
	for _, s := range sizes {
		fmt.Fprintf(tw, "%s\t%d rows; table %d B (%.0f B/row, tuples %.0f B/row), indexes %d B (%.0f B/row)\n",
			s.Table, s.Rows, s.Heap, s.PerRow(s.Heap), s.PerRow(s.Payloads), s.Index, s.PerRow(s.Index))
	}
	tw.Flush()
}
