package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/loadtest"
	"github.com/swcmem/swc/locomo"
)

func init() {
	register("loadtest", "measure the service: ingest, context reads, idle consolidation", runLoadtest)
}

const loadtestUsage = `[--data locomo10.json] [flags]

Starts the service in-process on a fresh SQLite file in a temporary directory
(loopback HTTP, the offline engines), then measures:
  1. ingest: every conversation replayed as --tenants tenants' conversations,
     appended in batches of --batch messages by --clients concurrent clients;
  2. idle consolidation: each of the dataset's conversations consolidated once
     (what the job does when the conversation has been idle), timed;
  3. context reads: --readers concurrent clients GET …/context of the
     consolidated conversations for --duration; throughput, p50, p99, and the
     first (uncached) read of each conversation.
Without --data the built-in sample conversation is used.`

func runLoadtest(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "loadtest", loadtestUsage)
	data := fs.String("data", "", "LoCoMo JSON file (default: the built-in sample)")
	var cfg loadtest.ServiceConfig
	fs.IntVar(&cfg.Tenants, "tenants", 100, "tenants, each holding one replayed conversation")
	fs.IntVar(&cfg.Clients, "clients", 16, "concurrent ingest clients")
	fs.IntVar(&cfg.Batch, "batch", 50, "messages per append")
	fs.IntVar(&cfg.Readers, "readers", 8, "concurrent context readers")
	fs.DurationVar(&cfg.Duration, "duration", 10*time.Second, "how long readers read")
	fs.IntVar(&cfg.Budget, "read-budget", 4000, "budget of the context reads")
	keep := fs.String("db", "", "keep the service's file here (default: a temporary one, removed)")
	sync := fs.String("sqlite-synchronous", "full", "the service's SQLite synchronous setting (swc serve --sqlite-synchronous): full or normal")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	fs.StringVar(&cfg.CPUProfile, "cpuprofile", "", "write a CPU profile of the ingest phase to this file")
	fs.StringVar(&cfg.ReadCPUProfile, "read-cpuprofile", "", "write a CPU profile of the read phase to this file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if cfg.Tenants < 1 || cfg.Clients < 1 || cfg.Batch < 1 || cfg.Readers < 1 {
		return usagef("loadtest: --tenants, --clients, --batch and --readers must be positive")
	}
	var convs []*swc.Conversation
	var err error
	if *data == "" {
		convs, err = locomo.Sample()
	} else {
		convs, _, err = locomo.LoadFile(*data)
	}
	if err != nil {
		return err
	}
	dbPath := *keep
	if dbPath == "" {
		dir, err := os.MkdirTemp("", "swc-loadtest-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		dbPath = filepath.Join(dir, "swc.db")
	}
	// The service, as `swc serve` wires it, without rate limits or
	// scheduled consolidation (phase 2 consolidates explicitly).
	target, stop, err := startLoadtestService(ctx, env, []string{"--db", dbPath, "--sqlite-synchronous", *sync, "--rate", "-1", "--schedule", "idle:24h", "--log-level", "error"})
	if err != nil {
		return err
	}
	defer stop()
	cfg.Log = env.Stderr
	res, err := loadtest.RunService(ctx, target, convs, cfg)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(env.Stdout, res)
	}
	printLoadtest(env.Stdout, res)
	return nil
}

func printLoadtest(w io.Writer, r loadtest.ServiceResult) {
	fmt.Fprintf(w, "ingest       %d messages, %d tenants, %d clients, batches of %d: %.2f s, %.0f messages/s\n",
		r.Messages, r.Tenants, r.IngestClients, r.Batch, r.IngestSeconds, r.IngestMsgsPerSec)
	c := slices.Clone(r.ConsolidateMS)
	slices.Sort(c)
	if len(c) > 0 {
		fmt.Fprintf(w, "consolidate  %d conversations, extractive gister: median %.0f ms, max %.0f ms\n", len(c), c[len(c)/2], c[len(c)-1])
	}
	cc := slices.Clone(r.ColdContextMS)
	slices.Sort(cc)
	if len(cc) > 0 {
		fmt.Fprintf(w, "first read   median %.1f ms, max %.1f ms (uncached context build)\n", cc[len(cc)/2], cc[len(cc)-1])
	}
	fmt.Fprintf(w, "context      %d readers, %.1f s: %d requests, %.0f req/s, p50 %.2f ms, p99 %.2f ms, max %.2f ms, %d errors\n",
		r.Readers, r.ReadSeconds, r.Reads, r.ReadsPerSec, r.ReadP50MS, r.ReadP99MS, r.ReadMaxMS, r.ReadErrors)
}

// startLoadtestService starts the service in-process, as `swc serve` wires
// it from serveArgs, on a loopback listener, logging errors only to
// env.Stderr. It returns the service as a load test's target and a stop
// function that closes the HTTP server and then the service; on error
// nothing is left running.
func startLoadtestService(ctx context.Context, env *Env, serveArgs []string) (loadtest.Target, func(), error) {
	sfs := newFlags(env, "serve", "")
	sf, ef := addServeFlags(sfs)
	if err := sfs.Parse(serveArgs); err != nil {
		return loadtest.Target{}, nil, err
	}
	sched, _ := consolidate.ParseSchedule(ef.schedule)
	logger := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	svc, err := openService(ctx, env, sf, ef, sched, logger)
	if err != nil {
		return loadtest.Target{}, nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		svc.close()
		return loadtest.Target{}, nil, err
	}
	hs := svc.srv.HTTPServer(ln.Addr().String())
	go hs.Serve(ln)
	stop := func() {
		hs.Close()
		svc.close()
	}
	t := loadtest.Target{URL: "http://" + ln.Addr().String(), Store: svc.store,
		Consolidate: func(ctx context.Context, tenant, conv string) error {
			_, err := svc.mem.Consolidate(ctx, tenant, conv)
			return err
		}}
	return t, stop, nil
}
