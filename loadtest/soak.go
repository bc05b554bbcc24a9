package loadtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/client"
	swchttp "github.com/swcmem/swc/http"
)

// SoakConfig are the settings of RunSoak.
type SoakConfig struct {
	// HostileMessages is the messages of the one big conversation, of
	// about 1,000 bytes each; HostileBudgets the distinct budgets it is
	// read at (each an uncached context), from HostileFirst up by
	// HostileStep tokens.
	HostileMessages, HostileBudgets int
	HostileFirst, HostileStep       int
	// Conversations go through the proxy, each stored (X-SWC-Conversation)
	// and sent Requests times by Clients concurrent clients, its history
	// of History messages growing by one each, compressed to Budget; the
	// conversations belong to Tenants tenants in turn.
	Conversations, Requests, Clients, Tenants int
	History, Budget                           int
	// Sample is how often RSS is read (default 250 ms); RSS reads it
	// (default ProcessRSS: the service runs in this process).
	Sample time.Duration
	RSS    func() (int64, error)
	// Log, when set, receives a line per phase.
	Log io.Writer
}

// RSSPoint is one reading of RSS during a soak.
type RSSPoint struct {
	Seconds float64 `json:"seconds"`
	Bytes   int64   `json:"bytes"`
	Phase   string  `json:"phase"`
}

// SoakResult is what RunSoak measured (swc loadtest-soak --json prints it
// with these field names).
type SoakResult struct {
	HostileBytes   int     // content bytes of the big conversation
	HostileReads   int     // contexts read, each at a new budget
	HostileRead    Latency // the reads
	ProxyRequests  int
	Conversations  int
	Proxy          Latency
	Modes          map[string]int // X-SWC-Mode of the proxied requests
	Seconds        float64
	StartRSS       int64
	PeakRSS        int64
	EndRSS         int64
	Samples        []RSSPoint
	PeakPhase      string
	HostileSeconds float64
}

// RunSoak drives t with what once grew a server's memory without bound,
// reading RSS all along:
//  1. hostile reads: one tenant's conversation of cfg.HostileMessages
//     messages, consolidated once, read at cfg.HostileBudgets distinct
//     budgets (each context a new cache entry);
//  2. a proxy soak: cfg.Conversations stored conversations through the
//     proxy (whose OpenAI upstream must answer), cfg.Requests requests
//     each, from cfg.Clients clients.
//
// It returns the first failed request's error; ctx bounds the run.
func RunSoak(ctx context.Context, t Target, cfg SoakConfig) (SoakResult, error) {
	if cfg.Sample <= 0 {
		cfg.Sample = 250 * time.Millisecond
	}
	if cfg.RSS == nil {
		cfg.RSS = ProcessRSS
	}
	cfg.Tenants = max(cfg.Tenants, 1)
	cfg.Clients = max(cfg.Clients, 1)
	res := SoakResult{Modes: map[string]int{}}
	start := time.Now()
	var phase atomic.Value
	phase.Store("start")
	var smu sync.Mutex
	sample := func() {
		n, err := cfg.RSS()
		if err != nil {
			return
		}
		smu.Lock()
		defer smu.Unlock()
		p := RSSPoint{Seconds: time.Since(start).Seconds(), Bytes: n, Phase: phase.Load().(string)}
		res.Samples = append(res.Samples, p)
		if n > res.PeakRSS {
			res.PeakRSS, res.PeakPhase = n, p.Phase
		}
	}
	sample()
	if len(res.Samples) > 0 {
		res.StartRSS = res.Samples[0].Bytes
	}
	done := make(chan struct{})
	var swg sync.WaitGroup
	swg.Go(func() {
		tk := time.NewTicker(cfg.Sample)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-tk.C:
				sample()
			}
		}
	})
	err := soak(ctx, t, cfg, &res, &phase)
	close(done)
	swg.Wait()
	phase.Store("end")
	sample()
	res.EndRSS = res.Samples[len(res.Samples)-1].Bytes
	res.Seconds = time.Since(start).Seconds()
	return res, err
}

func soak(ctx context.Context, t Target, cfg SoakConfig, res *SoakResult, phase *atomic.Value) error {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: time.Minute}
	logf := func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, "loadtest-soak: "+format+"\n", args...)
		}
	}
	// 1. Hostile reads.
	if cfg.HostileMessages > 0 && cfg.HostileBudgets > 0 {
		phase.Store("hostile-append")
		t0 := time.Now()
		key, k, err := swchttp.CreateKey(ctx, t.Store, "soak-hostile")
		if err != nil {
			return err
		}
		cl := &client.Client{BaseURL: t.URL, Key: key, HTTPClient: hc}
		msgs := bigConversation(cfg.HostileMessages)
		for _, m := range msgs {
			res.HostileBytes += len(m.Content)
		}
		logf("hostile: %d messages, %d bytes, read at %d budgets", len(msgs), res.HostileBytes, cfg.HostileBudgets)
		for off := 0; off < len(msgs); off += 500 {
			if _, err := cl.Append(ctx, "big", msgs[off:min(off+500, len(msgs))]); err != nil {
				return fmt.Errorf("loadtest-soak: append: %w", err)
			}
		}
		phase.Store("hostile-consolidate")
		if err := t.Consolidate(ctx, k.TenantID, "big"); err != nil {
			return fmt.Errorf("loadtest-soak: consolidate: %w", err)
		}
		phase.Store("hostile-reads")
		var lat []time.Duration
		for i := range cfg.HostileBudgets {
			budget := cfg.HostileFirst + i*cfg.HostileStep
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/v1/conversations/big/context?budget=%d&format=openai", t.URL, budget), nil)
			req.Header.Set("Authorization", "Bearer "+key)
			r0 := time.Now()
			resp, err := hc.Do(req)
			if err != nil {
				return fmt.Errorf("loadtest-soak: context: %w", err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("loadtest-soak: context at budget %d answered %s", budget, resp.Status)
			}
			lat = append(lat, time.Since(r0))
			res.HostileReads++
		}
		res.HostileRead = Summarize(lat)
		res.HostileSeconds = time.Since(t0).Seconds()
	}

	// 2. The proxy soak.
	if cfg.Conversations <= 0 || cfg.Requests <= 0 {
		return nil
	}
	phase.Store("proxy")
	keys := make([]string, cfg.Tenants)
	for i := range keys {
		key, _, err := swchttp.CreateKey(ctx, t.Store, fmt.Sprintf("soak-%03d", i))
		if err != nil {
			return err
		}
		keys[i] = key
	}
	logf("proxy: %d conversations of %d tenants, %d requests each, %d clients", cfg.Conversations, cfg.Tenants, cfg.Requests, cfg.Clients)
	work := make(chan int)
	var mu sync.Mutex
	var lat []time.Duration
	var firstErr error
	var wg sync.WaitGroup
	for range cfg.Clients {
		wg.Go(func() {
			for c := range work {
				hist := AgentHistory(cfg.History, c)
				for r := range cfg.Requests {
					hist = append(hist, swc.Message{Role: swc.RoleUser, Content: fmt.Sprintf("Question %d for conversation %d: what did I say about the Atlas budget?", r, c)})
					d, mode, err := soakCall(ctx, hc, t.URL, keys[c%len(keys)], fmt.Sprintf("soak-%d", c), cfg.Budget, hist)
					mu.Lock()
					if err != nil && firstErr == nil {
						firstErr = err
					}
					lat = append(lat, d)
					res.Modes[mode]++
					res.ProxyRequests++
					mu.Unlock()
					if err != nil {
						return
					}
					hist = append(hist, swc.Message{Role: swc.RoleAssistant, Content: "ok"})
				}
				mu.Lock()
				res.Conversations++
				mu.Unlock()
			}
		})
	}
feed:
	for c := range cfg.Conversations {
		select {
		case work <- c:
		case <-ctx.Done():
			break feed
		}
		mu.Lock()
		failed := firstErr != nil
		mu.Unlock()
		if failed {
			break
		}
	}
	close(work)
	wg.Wait()
	res.Proxy = Summarize(lat)
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// soakCall sends one stored proxied request and returns its time and
// X-SWC-Mode; an answer other than 200 is an error.
func soakCall(ctx context.Context, hc *http.Client, base, key, conv string, budget int, msgs []swc.Message) (time.Duration, string, error) {
	body, err := RequestBody(msgs, false)
	if err != nil {
		return 0, "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/chat/completions", bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set(swchttp.HeaderBudget, fmt.Sprint(budget))
	req.Header.Set(swchttp.HeaderConversation, conv)
	start := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		return 0, "", err
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, "", fmt.Errorf("loadtest-soak: proxied request answered %s: %s", resp.Status, bytes.TrimSpace(b))
	}
	return time.Since(start), resp.Header.Get(swchttp.HeaderMode), nil
}

// bigConversation returns n messages of about 1,000 bytes each, every
// one its own text (a user and an assistant in turn).
func bigConversation(n int) []swc.Message {
	words := strings.Fields("Ana Lisbon nurse hospital Rex shelter marathon Boston April Coach Lee Priya budget Atlas project Dune desert Porto boiler plumber euros invoice meeting Tuesday deadline report launch")
	out := make([]swc.Message, n)
	for i := range out {
		var b strings.Builder
		fmt.Fprintf(&b, "Note %d: ", i)
		for j := 0; b.Len() < 1000; j++ {
			fmt.Fprintf(&b, "%s %d ", words[(i*7+j*3)%len(words)], (i*31+j)%997)
		}
		role := swc.RoleUser
		if i%2 == 1 {
			role = swc.RoleAssistant
		}
		out[i] = swc.Message{ID: fmt.Sprintf("m%d", i), Role: role, Content: b.String()}
	}
	return out
}
