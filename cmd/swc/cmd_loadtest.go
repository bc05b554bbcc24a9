package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/client"
	swchttp "github.com/swcmem/swc/http"
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

type loadtestResult struct {
	Tenants, Conversations, Messages int
	IngestSeconds                    float64
	IngestMsgsPerSec                 float64
	IngestClients, Batch             int
	ConsolidateMS                    []float64 // one per dataset conversation
	ColdContextMS                    []float64
	Readers                          int
	Reads                            int
	ReadSeconds                      float64
	ReadsPerSec                      float64
	ReadP50MS, ReadP99MS, ReadMaxMS  float64
	ReadErrors                       int64
}

func runLoadtest(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "loadtest", loadtestUsage)
	data := fs.String("data", "", "LoCoMo JSON file (default: the built-in sample)")
	tenants := fs.Int("tenants", 100, "tenants, each holding one replayed conversation")
	clients := fs.Int("clients", 16, "concurrent ingest clients")
	batch := fs.Int("batch", 50, "messages per append")
	readers := fs.Int("readers", 8, "concurrent context readers")
	duration := fs.Duration("duration", 10*time.Second, "how long readers read")
	budget := fs.Int("read-budget", 4000, "budget of the context reads")
	keep := fs.String("db", "", "keep the service's file here (default: a temporary one, removed)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the ingest phase to this file")
	readProfile := fs.String("read-cpuprofile", "", "write a CPU profile of the read phase to this file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *tenants < 1 || *clients < 1 || *batch < 1 || *readers < 1 {
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
	svc, base, stop, err := startLoadtestService(ctx, env, []string{"--db", dbPath, "--rate", "-1", "--schedule", "idle:24h", "--log-level", "error"})
	if err != nil {
		return err
	}
	defer stop()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: time.Minute}

	// Keys: one per tenant; tenant i holds conversation i % len(convs).
	keys := make([]string, *tenants)
	tenantIDs := make([]string, *tenants)
	for i := range keys {
		key, k, err := swchttp.CreateKey(ctx, svc.store, fmt.Sprintf("tenant-%03d", i))
		if err != nil {
			return err
		}
		keys[i], tenantIDs[i] = key, k.TenantID
	}
	msgsOf := make([][]swc.Message, len(convs))
	total := 0
	for i, c := range convs {
		msgsOf[i] = chat.FromConversation(c)
	}
	for i := range *tenants {
		total += len(msgsOf[i%len(convs)])
	}
	res := loadtestResult{Tenants: *tenants, Conversations: len(convs), Messages: total, IngestClients: *clients, Batch: *batch, Readers: *readers}
	fmt.Fprintf(env.Stderr, "loadtest: ingesting %d messages (%d tenants × conversations of %d) with %d clients, batches of %d\n",
		total, *tenants, len(convs), *clients, *batch)

	// 1. Ingest: a conversation's batches go in order (timestamps only
	// move forward); clients take whole conversations from a queue.
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	work := make(chan int)
	var ingestErr atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	for range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range work {
				cl := &client.Client{BaseURL: base, Key: keys[t], HTTPClient: hc}
				msgs := msgsOf[t%len(convs)]
				for off := 0; off < len(msgs); off += *batch {
					if _, err := cl.Append(ctx, convs[t%len(convs)].ID, msgs[off:min(off+*batch, len(msgs))]); err != nil {
						ingestErr.Store(err)
						return
					}
				}
			}
		}()
	}
	for t := range *tenants {
		work <- t
	}
	close(work)
	wg.Wait()
	if err, ok := ingestErr.Load().(error); ok {
		return fmt.Errorf("loadtest: ingest: %w", err)
	}
	res.IngestSeconds = time.Since(start).Seconds()
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	res.IngestMsgsPerSec = float64(total) / res.IngestSeconds

	// 2. Idle consolidation of each dataset conversation (tenants 0..n-1).
	n := min(len(convs), *tenants)
	for i := range n {
		t0 := time.Now()
		if _, err := svc.mem.Consolidate(ctx, tenantIDs[i], convs[i].ID); err != nil {
			return fmt.Errorf("loadtest: consolidate %s: %w", convs[i].ID, err)
		}
		res.ConsolidateMS = append(res.ConsolidateMS, ms(time.Since(t0)))
	}
	// First (uncached) read of each.
	for i := range n {
		cl := &client.Client{BaseURL: base, Key: keys[i], HTTPClient: hc}
		t0 := time.Now()
		if _, err := cl.Context(ctx, convs[i].ID, client.ContextOptions{Budget: *budget}); err != nil {
			return fmt.Errorf("loadtest: context %s: %w", convs[i].ID, err)
		}
		res.ColdContextMS = append(res.ColdContextMS, ms(time.Since(t0)))
	}

	// 3. Reads.
	if *readProfile != "" {
		f, err := os.Create(*readProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	rctx, cancel := context.WithTimeout(ctx, *duration)
	defer cancel()
	start = time.Now()
	lat, readErrs := timeReads(rctx, *readers, func(r int) *rand.Rand { return rand.New(rand.NewPCG(uint64(r), 1)) },
		func(rctx context.Context, rng *rand.Rand) error {
			i := rng.IntN(n)
			// The body is read whole but not decoded: the figure is
			// the server's, not this process's JSON decoder's.
			req, _ := http.NewRequestWithContext(rctx, http.MethodGet,
				fmt.Sprintf("%s/v1/conversations/%s/context?budget=%d", base, url.PathEscape(convs[i].ID), *budget), nil)
			req.Header.Set("Authorization", "Bearer "+keys[i])
			resp, err := hc.Do(req)
			if err == nil {
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err == nil && resp.StatusCode != http.StatusOK {
					err = fmt.Errorf("status %d", resp.StatusCode)
				}
			}
			return err
		})
	res.ReadSeconds = time.Since(start).Seconds()
	if *readProfile != "" {
		pprof.StopCPUProfile()
	}
	l := summarize(lat)
	res.Reads, res.ReadErrors = l.N, readErrs
	if l.N > 0 {
		res.ReadsPerSec = float64(l.N) / res.ReadSeconds
		res.ReadP50MS, res.ReadP99MS, res.ReadMaxMS = l.P50MS, l.P99MS, l.Max
	}
	if *asJSON {
		return writeJSON(env.Stdout, res)
	}
	printLoadtest(env.Stdout, res)
	return nil
}

func printLoadtest(w io.Writer, r loadtestResult) {
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
