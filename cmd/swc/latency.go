package main

import (
	"context"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// This file holds the latency measuring and summarising shared by the
// loadtest, loadtest-proxy and scaletest commands.

// ms returns d in milliseconds, to the microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// quantile returns the p-quantile (0..1) of sorted, which is not empty.
func quantile(sorted []time.Duration, p float64) time.Duration {
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}

// percentile returns the p-quantile (0..1) of ds, or 0 when ds is empty;
// ds is left as it is.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return quantile(s, p)
}

// latency summarises a set of request latencies, in milliseconds.
type latency struct {
	N                 int
	P50MS, P99MS, Max float64
}

// summarize sorts ds in place and returns its count, p50, p99 and max; the
// zero latency when ds is empty.
func summarize(ds []time.Duration) latency {
	if len(ds) == 0 {
		return latency{}
	}
	slices.Sort(ds)
	return latency{N: len(ds), P50MS: ms(quantile(ds, 0.50)), P99MS: ms(quantile(ds, 0.99)), Max: ms(ds[len(ds)-1])}
}

// timeReads runs readers goroutines, each calling read with its own rng
// (from seed) until ctx is done, and returns the latencies of the reads
// that succeeded and the number that failed. A read that ends after ctx is
// done is neither timed nor counted as failed.
func timeReads(ctx context.Context, readers int, seed func(r int) *rand.Rand, read func(ctx context.Context, rng *rand.Rand) error) ([]time.Duration, int64) {
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
func runLatency(ds []time.Duration, err error) (latency, error) {
	return summarize(ds), err
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
