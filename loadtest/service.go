package loadtest

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/client"
	swchttp "github.com/swcmem/swc/http"
)

// Target is a running service under test, started by the caller (as swc
// serve wires it, in-process).
type Target struct {
	// URL is the service's base URL ("http://127.0.0.1:N").
	URL string
	// Store is the service's store: the tests make their tenants' keys in
	// it.
	Store swc.Store
	// Consolidate consolidates a stored conversation now, as the idle job
	// does.
	Consolidate func(ctx context.Context, tenant, conv string) error
}

// ServiceConfig are the settings of RunService.
type ServiceConfig struct {
	// Tenants each hold one replayed conversation (tenant i the data's
	// conversation i mod its length).
	Tenants int
	// Clients append concurrently, Batch messages per append.
	Clients, Batch int
	// Readers read contexts of Budget tokens concurrently for Duration.
	Readers  int
	Duration time.Duration
	Budget   int
	// CPUProfile and ReadCPUProfile, when set, are files for CPU profiles
	// of the ingest and read phases.
	CPUProfile, ReadCPUProfile string
	// Log, when set, receives a line saying what is ingested.
	Log io.Writer
}

// ServiceResult is what RunService measured (swc loadtest --json prints
// it with these field names).
type ServiceResult struct {
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

// RunService measures t with convs:
//  1. ingest: every conversation replayed as cfg.Tenants tenants'
//     conversations, appended in batches by concurrent clients (a
//     conversation's batches in order);
//  2. idle consolidation: each of convs consolidated once, timed; then the
//     first (uncached) context read of each;
//  3. context reads: cfg.Readers clients read contexts of the consolidated
//     conversations for cfg.Duration.
//
// It returns the first error of a phase (an append, a consolidation, a
// first read, a profile file); failed timed reads are counted, not
// returned.
func RunService(ctx context.Context, t Target, convs []*swc.Conversation, cfg ServiceConfig) (ServiceResult, error) {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: time.Minute}
	// Keys: one per tenant; tenant i holds conversation i % len(convs).
	keys := make([]string, cfg.Tenants)
	tenantIDs := make([]string, cfg.Tenants)
	for i := range keys {
		key, k, err := swchttp.CreateKey(ctx, t.Store, fmt.Sprintf("tenant-%03d", i))
		if err != nil {
			return ServiceResult{}, err
		}
		keys[i], tenantIDs[i] = key, k.TenantID
	}
	msgsOf := make([][]swc.Message, len(convs))
	total := 0
	for i, c := range convs {
		msgsOf[i] = chat.FromConversation(c)
	}
	for i := range cfg.Tenants {
		total += len(msgsOf[i%len(convs)])
	}
	res := ServiceResult{Tenants: cfg.Tenants, Conversations: len(convs), Messages: total, IngestClients: cfg.Clients, Batch: cfg.Batch, Readers: cfg.Readers}
	if cfg.Log != nil {
		fmt.Fprintf(cfg.Log, "loadtest: ingesting %d messages (%d tenants × conversations of %d) with %d clients, batches of %d\n",
			total, cfg.Tenants, len(convs), cfg.Clients, cfg.Batch)
	}

	// 1. Ingest: clients take whole conversations from a queue.
	stopProfile, err := startCPUProfile(cfg.CPUProfile)
	if err != nil {
		return res, err
	}
	work := make(chan int)
	var ingestErr atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	for range cfg.Clients {
		wg.Go(func() {
			for tn := range work {
				cl := &client.Client{BaseURL: t.URL, Key: keys[tn], HTTPClient: hc}
				msgs := msgsOf[tn%len(convs)]
				for off := 0; off < len(msgs); off += cfg.Batch {
					if _, err := cl.Append(ctx, convs[tn%len(convs)].ID, msgs[off:min(off+cfg.Batch, len(msgs))]); err != nil {
						ingestErr.Store(err)
						return
					}
				}
			}
		})
	}
	for tn := range cfg.Tenants {
		work <- tn
	}
	close(work)
	wg.Wait()
	res.IngestSeconds = time.Since(start).Seconds()
	if err := stopProfile(); err != nil {
		return res, err
	}
	if err, ok := ingestErr.Load().(error); ok {
		return res, fmt.Errorf("loadtest: ingest: %w", err)
	}
	res.IngestMsgsPerSec = float64(total) / res.IngestSeconds

	// 2. Idle consolidation of each dataset conversation (tenants 0..n-1).
	n := min(len(convs), cfg.Tenants)
	for i := range n {
		t0 := time.Now()
		if err := t.Consolidate(ctx, tenantIDs[i], convs[i].ID); err != nil {
			return res, fmt.Errorf("loadtest: consolidate %s: %w", convs[i].ID, err)
		}
		res.ConsolidateMS = append(res.ConsolidateMS, MS(time.Since(t0)))
	}
	// First (uncached) read of each.
	for i := range n {
		cl := &client.Client{BaseURL: t.URL, Key: keys[i], HTTPClient: hc}
		t0 := time.Now()
		if _, err := cl.Context(ctx, convs[i].ID, client.ContextOptions{Budget: cfg.Budget}); err != nil {
			return res, fmt.Errorf("loadtest: context %s: %w", convs[i].ID, err)
		}
		res.ColdContextMS = append(res.ColdContextMS, MS(time.Since(t0)))
	}

	// 3. Reads.
	if stopProfile, err = startCPUProfile(cfg.ReadCPUProfile); err != nil {
		return res, err
	}
	rctx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	start = time.Now()
	lat, readErrs := TimeReads(rctx, cfg.Readers, func(r int) *rand.Rand { return rand.New(rand.NewPCG(uint64(r), 1)) },
		func(rctx context.Context, rng *rand.Rand) error {
			i := rng.IntN(n)
			return getContext(rctx, hc, t.URL, keys[i], convs[i].ID, cfg.Budget)
		})
	res.ReadSeconds = time.Since(start).Seconds()
	if err := stopProfile(); err != nil {
		return res, err
	}
	l := Summarize(lat)
	res.Reads, res.ReadErrors = l.N, readErrs
	if l.N > 0 {
		res.ReadsPerSec = float64(l.N) / res.ReadSeconds
		res.ReadP50MS, res.ReadP99MS, res.ReadMaxMS = l.P50MS, l.P99MS, l.Max
	}
	return res, nil
}
