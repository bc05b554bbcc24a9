package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/swcmem/swc/loadtest"
)

func init() {
	register("loadtest-soak", "hold the service to --memory-limit: hostile reads and a proxy soak, RSS over time", runLoadtestSoak)
}

const loadtestSoakUsage = `[flags]

Starts the service in-process (as swc serve wires it with --memory-limit,
which sets GOMEMLIMIT and sizes every cache and memo; offline engines, a
temporary SQLite file, a zero-latency fake OpenAI upstream on loopback),
reads this process's RSS every --sample, and runs:
  1. hostile reads: one tenant's conversation of --hostile-messages messages
     of about 1,000 bytes, consolidated once, read (format openai) at
     --hostile-budgets distinct budgets from 20,000 tokens up by 5,000: every
     read a new cached context;
  2. a proxy soak: --conversations stored conversations (X-SWC-Conversation)
     of --tenants tenants, --requests requests each from --clients clients,
     each request the conversation's history (--history messages, growing)
     compressed to --budget.
It prints RSS over time, the peak against the limit, and the latencies;
it fails when the peak RSS is over --memory-limit.`

func runLoadtestSoak(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "loadtest-soak", loadtestSoakUsage)
	limit := byteSize(defaultMemoryLimit)
	fs.Var(&limit, "memory-limit", "the service's --memory-limit")
	cfg := loadtest.SoakConfig{HostileFirst: 20000, HostileStep: 5000}
	fs.IntVar(&cfg.HostileMessages, "hostile-messages", 3400, "messages of the big conversation (about 1,000 bytes each)")
	fs.IntVar(&cfg.HostileBudgets, "hostile-budgets", 60, "distinct budgets the big conversation is read at")
	fs.IntVar(&cfg.Conversations, "conversations", 1000, "stored conversations of the proxy soak")
	fs.IntVar(&cfg.Requests, "requests", 3, "requests of each conversation")
	fs.IntVar(&cfg.Clients, "clients", 8, "concurrent clients of the proxy soak")
	fs.IntVar(&cfg.Tenants, "tenants", 50, "tenants the conversations belong to")
	fs.IntVar(&cfg.History, "history", 60, "messages of a conversation's first request")
	fs.IntVar(&cfg.Budget, "budget", 1500, "X-SWC-Budget of the proxied requests")
	fs.DurationVar(&cfg.Sample, "sample", 250*time.Millisecond, "how often RSS is read")
	timeout := fs.Duration("timeout", 5*time.Minute, "longest the soak may run")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if cfg.HostileMessages < 0 || cfg.HostileBudgets < 0 || cfg.Conversations < 0 || cfg.Requests < 0 || cfg.Clients < 1 || cfg.Tenants < 1 || cfg.History < 2 || cfg.Budget < 1 {
		return usagef("loadtest-soak: counts must not be negative; --clients, --tenants and --budget must be positive and --history at least 2")
	}
	if _, err := loadtest.ProcessRSS(); err != nil {
		return err
	}
	planMemory(int64(limit)).apply() // as swc serve does
	target, _, stop, err := startProxyTarget(ctx, env, "loadtest-soak", "--memory-limit", limit.String())
	if err != nil {
		return err
	}
	defer stop()
	cfg.Log = env.Stderr
	sctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	res, err := loadtest.RunSoak(sctx, target, cfg)
	if err != nil {
		return err
	}
	if *asJSON {
		if err := writeJSON(env.Stdout, res); err != nil {
			return err
		}
	} else {
		printLoadtestSoak(env.Stdout, res, int64(limit))
	}
	if res.PeakRSS > int64(limit) {
		return fmt.Errorf("loadtest-soak: peak RSS %s over --memory-limit %s (%s)", mib(res.PeakRSS), mib(int64(limit)), res.PeakPhase)
	}
	return nil
}

func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

func printLoadtestSoak(w io.Writer, r loadtest.SoakResult, limit int64) {
	fmt.Fprintf(w, "RSS over time (limit %s):\n", mib(limit))
	step := max(len(r.Samples)/20, 1) // about 20 rows
	for i, p := range r.Samples {
		if i%step == 0 || i == len(r.Samples)-1 {
			fmt.Fprintf(w, "  %6.1f s  %8s  %s\n", p.Seconds, mib(p.Bytes), p.Phase)
		}
	}
	fmt.Fprintf(w, "peak %s (%s), start %s, end %s, %.1f s\n", mib(r.PeakRSS), r.PeakPhase, mib(r.StartRSS), mib(r.EndRSS), r.Seconds)
	fmt.Fprintf(w, "hostile reads: %d budgets of a %d-byte conversation: p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
		r.HostileReads, r.HostileBytes, r.HostileRead.P50MS, r.HostileRead.P99MS, r.HostileRead.Max)
	fmt.Fprintf(w, "proxy soak: %d conversations, %d requests (modes %v): p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
		r.Conversations, r.ProxyRequests, r.Modes, r.Proxy.P50MS, r.Proxy.P99MS, r.Proxy.Max)
}
