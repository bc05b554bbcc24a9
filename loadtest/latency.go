// Package loadtest measures the swc service as its clients use it: the
// phases of swc loadtest (ingest, idle consolidation, context reads),
// swc loadtest-proxy (the compressing proxy against a zero-latency fake
// upstream, with agents whose histories grow a message per request) and
// swc scaletest (replicas of swc serve on one Postgres, fed by concurrent
// clients that retry), and the latency statistics they report. The
// caller starts the service; this package drives it over HTTP.
package loadtest

import (
	"context"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// MS returns d in milliseconds, to the microsecond.
func MS(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// quantile returns the p-quantile (0..1) of sorted, which is not empty.
func quantile(sorted []time.Duration, p float64) time.Duration {
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}

// Percentile returns the p-quantile (0..1) of ds, or 0 when ds is empty;
// ds is left as it is.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return quantile(s, p)
}

// Latency summarises a set of request latencies, in milliseconds.
type Latency struct {
	N                 int
	P50MS, P99MS, Max float64
}

// Summarize sorts ds in place and returns its count, p50, p99 and max;
// the zero Latency when ds is empty.
func Summarize(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	slices.Sort(ds)
	return Latency{N: len(ds), P50MS: MS(quantile(ds, 0.50)), P99MS: MS(quantile(ds, 0.99)), Max: MS(ds[len(ds)-1])}
}

// TimeReads runs readers goroutines, each calling read with its own rng
// (from seed) until ctx is done, and returns the latencies of the reads
// that succeeded and the number that failed. A read that ends after ctx is
// done is neither timed nor counted as failed.
func TimeReads(ctx context.Context, readers int, seed func(r int) *rand.Rand, read func(ctx context.Context, rng *rand.Rand) error) ([]time.Duration, int64) {
	var (
		lats []time.Duration
		mu   sync.Mutex
		errs atomic.Int64
		wg   sync.WaitGroup
	)
	for r := range readers {
		wg.Go(func() {
			rng := seed(r)
			var mine []time.Duration
			for ctx.Err() == nil {
				t0 := time.Now()
				err := read(ctx, rng)
				if ctx.Err() != nil {
					break
				}
				if err != nil {
					errs.Add(1)
					continue
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lats = append(lats, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	return lats, errs.Load()
}

// runLatency summarises the latencies of a run that may have failed.
func runLatency(ds []time.Duration, err error) (Latency, error) {
	return Summarize(ds), err
}

// startCPUProfile starts a CPU profile written to path and returns the
// function that stops it and closes the file; with path "" it does nothing.
// It returns an error when the file cannot be created or profiling is
// already on.
func startCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error { pprof.StopCPUProfile(); return f.Close() }, nil
}

// cpuTime returns the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
