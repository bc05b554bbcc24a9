package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc/loadtest"
)

// TestSoakRSS runs swc loadtest-soak in a process of its own (this test
// binary as swc) with --memory-limit 256MiB: one tenant's 1.2 MB
// conversation read at 12 distinct budgets, then 1,000 stored
// conversations through the proxy. Its RSS stays under the limit. (Before
// the caches were bounded in bytes, the same run peaked at 485 MiB, in the
// proxy soak; the context cache held 4,096 contexts of any size.)
func TestSoakRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("a 30-60 s soak; run without -short")
	}
	if _, err := loadtest.ProcessRSS(); err != nil {
		t.Skipf("no RSS to read here: %v", err)
	}
	const limit = 256 << 20
	cmd := swcCommand("loadtest-soak", "--memory-limit", "256MiB", "--hostile-messages", "1200", "--hostile-budgets", "12",
		"--conversations", "1000", "--requests", "2", "--history", "40", "--budget", "400", "--clients", "4",
		"--timeout", "55s", "--json")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	runErr := cmd.Run()
	var res loadtest.SoakResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("loadtest-soak: %v (%v)\nstderr: %s", err, runErr, errb.String())
	}
	var b strings.Builder
	for i, p := range res.Samples {
		if i%max(len(res.Samples)/12, 1) == 0 {
			fmt.Fprintf(&b, " %.0fs:%dMiB", p.Seconds, p.Bytes>>20)
		}
	}
	t.Logf("%.1f s; RSS over time:%s; peak %d MiB (%s), limit %d MiB; hostile reads p50 %.0f ms; proxy %d requests of %d conversations p50 %.1f ms p99 %.1f ms (%v)",
		time.Since(start).Seconds(), b.String(), res.PeakRSS>>20, res.PeakPhase, limit>>20, res.HostileRead.P50MS, res.ProxyRequests, res.Conversations, res.Proxy.P50MS, res.Proxy.P99MS, res.Modes)
	if runErr != nil {
		t.Fatalf("loadtest-soak: %v\nstderr: %s", runErr, errb.String())
	}
	if res.HostileReads != 12 || res.Conversations != 1000 {
		t.Errorf("the soak read %d budgets and sent %d conversations, want 12 and 1000", res.HostileReads, res.Conversations)
	}
	if res.PeakRSS > limit {
		t.Errorf("peak RSS %d MiB over the 256 MiB limit (%s)", res.PeakRSS>>20, res.PeakPhase)
	}
}
