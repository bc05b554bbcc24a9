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

	"github.com/jackc/pgx/v5"

	"github.com/swcmem/swc/loadtest"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/postgres"
)

func init() {
	register("scaletest", "measure replicas of the service on one Postgres: ingest, context reads, sizes", runScaletest)
}

const scaletestUsage = `--db FILE|postgres://… --data locomo10.json [flags]

Starts --replicas swc serve processes on the database (a SQLite file: one
replica; Postgres: any number; use a new file or a scratch database: it adds
a tenant and conversations), then measures through all of them, chosen at
random per request:
  1. ingest: the conversations appended by --clients clients in batches of
     1..--batch messages; messages/s, requests/s, p50 and p99 of an append;
     the first --warmup messages of each (at most half) are appended
     first and reported apart (the "warm-up": fresh replicas open their
     connections, plan their statements, create the conversations), so
     the ingest's figures are a running service's;
  2. consolidation: every conversation consolidated now (the offline
     gister), waited for;
  3. context reads: --readers clients GET …/context (budget 4000) of random
     conversations for --duration; reads/s, p50, p99; then (--floor) the
     same readers GET /healthz for as long: the latencies of a request
     that does no work, what this machine and load generator allow;
  4. CPU: milliseconds of CPU per append and per read, of the replicas and
     of the Postgres server apart (from /proc: the server must run on this
     machine; SQLite's work is the replica's), and of this process (the
     load);
  5. projection: appends/s and reads/s one replica core and one database
     core serve at those costs, and the cores --project-conversations
     conversations need, each appending once and reading once every
     --project-every;
  6. sizes (Postgres): rows, table and index bytes of the service's tables
     (the whole schema: run it on an empty one to measure the data set
     alone).
The same flags on a SQLite file and on Postgres measure the two in one
command each; --swc runs the replicas from another build (a baseline).`

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
	db := fs.String("db", "", "a new SQLite file, or the postgres:// URL of a scratch database")
	data := fs.String("data", "", "LoCoMo JSON file")
	n := fs.Int("replicas", 2, "swc serve processes (1 on SQLite)")
	var cfg loadtest.ScaleConfig
	fs.IntVar(&cfg.Clients, "clients", 16, "concurrent ingest clients")
	fs.IntVar(&cfg.Batch, "batch", 8, "largest append, messages")
	fs.IntVar(&cfg.Warmup, "warmup", 100, "messages of each conversation appended before the ingest is measured (0: none)")
	fs.IntVar(&cfg.Readers, "readers", 16, "concurrent context readers")
	fs.DurationVar(&cfg.Duration, "duration", 10*time.Second, "how long readers read")
	fs.BoolVar(&cfg.Floor, "floor", true, "after the context reads, time /healthz reads as long (the latency floor)")
	workers := fs.Int("workers", 4, "River workers per replica")
	conns := fs.Int("db-conns", 10, "Postgres connections per replica")
	limit := fs.Int("conversations", 0, "use only the first N conversations (0: all)")
	bin := fs.String("swc", "", "the swc binary the replicas run (default: this one)")
	var pj projection
	fs.IntVar(&pj.conversations, "project-conversations", 1_000_000, "conversations of the projected deployment (10,000 tenants × 100)")
	fs.DurationVar(&pj.every, "project-every", time.Minute, "each projected conversation appends once and reads its context once this often")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	pg := postgres.IsURL(*db)
	if *db == "" || *data == "" {
		return usagef("scaletest: want --db FILE|postgres://… and --data FILE")
	}
	if *n < 1 || cfg.Clients < 1 || cfg.Batch < 1 || cfg.Readers < 1 {
		return usagef("scaletest: --replicas, --clients, --batch and --readers must be positive")
	}
	if cfg.Warmup < 0 {
		return usagef("scaletest: --warmup must be 0 or more")
	}
	if !pg && *n != 1 {
		return usagef("scaletest: a SQLite file serves one replica (--replicas 1); replicas share Postgres")
	}
	if pj.conversations < 1 || pj.every <= 0 {
		return usagef("scaletest: --project-conversations and --project-every must be positive")
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
	keyArgs := []string{"keys", "create", "--db", *db, "--tenant", "scaletest-" + run}
	if *bin != "" { // its schema, not this build's
		c := exec.CommandContext(ctx, *bin, keyArgs...)
		c.Stdout, c.Stderr = &out, &errb
		if err := c.Run(); err != nil {
			return fmt.Errorf("scaletest: key: %w: %s", err, strings.TrimSpace(errb.String()))
		}
	} else if err := Run(ctx, NewEnv(nil, &out, &errb, nil), keyArgs); err != nil {
		return fmt.Errorf("scaletest: key: %w", err)
	}
	key := strings.TrimSpace(out.String())
	var urls []string
	var pids []int
	for range *n {
		cmd := swcCommand
		if *bin != "" {
			cmd = func(args ...string) *exec.Cmd { return exec.Command(*bin, args...) }
		}
		r, err := loadtest.StartReplica(ctx, cmd("serve", "--addr", "127.0.0.1:0", "--db", *db, "--rate", "-1", "--schedule", "idle:1h", "--log-level", "warn",
			"--poll", "200ms", "--workers", fmt.Sprint(*workers), "--db-conns", fmt.Sprint(*conns)), nil, env.Stderr)
		if err != nil {
			return err
		}
		defer r.Stop()
		urls = append(urls, r.URL)
		pids = append(pids, r.PID())
	}
	server := 0 // the Postgres server's postmaster, when it runs here
	if pg {
		if server, err = postmaster(ctx, *db); err != nil {
			fmt.Fprintf(env.Stderr, "scaletest: the Postgres server's CPU is not measured: %v\n", err)
		}
	}
	cfg.CPU = func() loadtest.CPU {
		var c loadtest.CPU
		for _, pid := range pids {
			t, _ := loadtest.ProcessCPU(pid)
			c.Replicas += t
		}
		if server > 0 {
			t, err := loadtest.TreeCPU(server)
			c.DB, c.DBKnown = t, err == nil
		}
		return c
	}
	store := "SQLite"
	if pg {
		store = "Postgres"
	}
	fmt.Fprintf(env.Stderr, "scaletest: %s, %d replicas, %d conversations, %d messages\n", store, *n, len(feedConvs), total)
	res, err := loadtest.RunScale(ctx, urls, key, feedConvs, cfg)
	if err != nil {
		return err
	}
	var sizes []loadtest.TableSize
	if pg {
		if sizes, err = loadtest.TableSizes(ctx, *db); err != nil {
			return err
		}
	}
	printScaletest(env.Stdout, store, *n, len(feedConvs), total, res, sizes, pj)
	return nil
}

// postmaster returns the process id of the Postgres server at dsn when
// it runs on this machine (the parent of this connection's backend).
func postmaster(ctx context.Context, dsn string) (int, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	var backend int
	if err := conn.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		return 0, err
	}
	pm, err := loadtest.ParentOf(backend)
	if err != nil {
		return 0, fmt.Errorf("the server is not on this machine (%w)", err)
	}
	return pm, nil
}

// projection is the deployment swc scaletest projects its costs onto.
type projection struct {
	conversations int
	every         time.Duration
}

func printScaletest(w io.Writer, store string, replicas, convs, total int, r loadtest.ScaleResult, sizes []loadtest.TableSize, pj projection) {
	ms, p := loadtest.MS, loadtest.Percentile
	st, lats := r.Feed, r.Reads
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "store\t%s, %d replicas\n", store, replicas)
	db := func(v float64, known bool) string {
		switch {
		case store == "SQLite":
			return "in the replica"
		case !known:
			return "not measured"
		}
		return fmt.Sprintf("%.3f ms", v)
	}
	if wm := r.Warm; wm != nil {
		n := int(wm.Appended + wm.Skipped)
		total -= n
		wr, wd, _ := r.WarmCPU.Per(int(wm.Requests))
		fmt.Fprintf(tw, "warm-up\t%d messages, %d requests in %.2fs (fresh replicas): cpu per append replicas %.3f ms, database %s\n",
			n, wm.Requests, wm.Elapsed.Seconds(), wr, db(wd, r.WarmCPU.DBKnown))
	}
	fmt.Fprintf(tw, "ingest\t%d messages, %d requests in %.2fs: %.0f msg/s, %.0f req/s, p50 %.1f ms, p99 %.1f ms\n",
		total, st.Requests, st.Elapsed.Seconds(), float64(total)/st.Elapsed.Seconds(), float64(st.Requests)/st.Elapsed.Seconds(),
		ms(p(st.Latencies, 0.5)), ms(p(st.Latencies, 0.99)))
	fmt.Fprintf(tw, "consolidation\t%d conversations in %.2fs\n", convs, r.Consolidated.Seconds())
	fmt.Fprintf(tw, "context reads\t%d in %.2fs: %.0f/s, p50 %.2f ms, p99 %.2f ms, %d errors\n",
		len(lats), r.ReadFor.Seconds(), float64(len(lats))/r.ReadFor.Seconds(), ms(p(lats, 0.5)), ms(p(lats, 0.99)), r.ReadErrors)
	if r.Floor != nil {
		fmt.Fprintf(tw, "read floor\t%d GET /healthz in %.2fs: %.0f/s, p50 %.2f ms, p99 %.2f ms (the same readers, no work: this machine's floor)\n",
			len(r.Floor), r.FloorFor.Seconds(), float64(len(r.Floor))/r.FloorFor.Seconds(), ms(p(r.Floor, 0.5)), ms(p(r.Floor, 0.99)))
	}
	ar, ad, al := r.IngestCPU.Per(int(st.Requests))
	rr, rd, rl := r.ReadCPU.Per(len(lats))
	fmt.Fprintf(tw, "cpu per append\treplicas %.3f ms, database %s, load %.3f ms (a request of %.1f messages)\n",
		ar, db(ad, r.IngestCPU.DBKnown), al, float64(total)/float64(max(st.Requests, 1)))
	fmt.Fprintf(tw, "cpu per read\treplicas %.3f ms, database %s, load %.3f ms\n", rr, db(rd, r.ReadCPU.DBKnown), rl)
	perCore := func(msPer float64) string {
		if msPer <= 0 {
			return "unbounded"
		}
		return fmt.Sprintf("%.0f/s", 1000/msPer)
	}
	fmt.Fprintf(tw, "per replica core\t%s appends or %s reads\n", perCore(ar), perCore(rr))
	if store != "SQLite" && r.IngestCPU.DBKnown && r.ReadCPU.DBKnown {
		fmt.Fprintf(tw, "per database core\t%s appends or %s reads\n", perCore(ad), perCore(rd))
	}
	rate := float64(pj.conversations) / pj.every.Seconds()
	fmt.Fprintf(tw, "projection\t%d conversations, each one append and one read every %v: %.0f appends/s + %.0f reads/s\n",
		pj.conversations, pj.every, rate, rate)
	line := fmt.Sprintf("%.1f replica cores", rate*(ar+rr)/1000)
	if store != "SQLite" && r.IngestCPU.DBKnown && r.ReadCPU.DBKnown {
		line += fmt.Sprintf(", %.1f database cores", rate*(ad+rd)/1000)
	}
	fmt.Fprintf(tw, "\t%s (at this run's costs: cached reads, appends of %.1f messages)\n", line, float64(total)/float64(max(st.Requests, 1)))
	for _, s := range sizes {
		fmt.Fprintf(tw, "%s\t%d rows; table %d B (%.0f B/row, tuples %.0f B/row), indexes %d B (%.0f B/row)\n",
			s.Table, s.Rows, s.Heap, s.PerRow(s.Heap), s.PerRow(s.Payloads), s.Index, s.PerRow(s.Index))
	}
	tw.Flush()
}
