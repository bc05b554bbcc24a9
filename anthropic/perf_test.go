package anthropic

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

func latencyServer(tb testing.TB, latency time.Duration) *httptest.Server {
	body := okBody("pong")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if latency > 0 {
			time.Sleep(latency)
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// BenchmarkThroughput: 1,000 calls at concurrency 16 against a provider
// answering in 100 ms take at least 6.25 s by construction; it reports
// the share of that ideal reached (go test ./anthropic -run X -bench
// Throughput -benchtime 1x). A figure, not a test: wall-clock bars are
// flaky on a shared machine.
func BenchmarkThroughput(b *testing.B) {
	srv := latencyServer(b, 100*time.Millisecond)
	l, _ := newTestLLM(b, srv.URL, func(c *Config) { c.Concurrency = 16 })
	const calls = 1000
	for b.Loop() {
		start := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, calls)
		for range calls {
			wg.Go(func() {
				if _, err := l.Complete(context.Background(), pingReq); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
		bound := time.Duration(calls / 16.0 * float64(100*time.Millisecond))
		b.ReportMetric(100*float64(bound)/float64(time.Since(start)), "%ideal")
	}
}

// BenchmarkComplete measures the client stack (translation, SDK, retry
// wrapper, loopback HTTP) against a zero-latency server.
func BenchmarkComplete(b *testing.B) {
	srv := latencyServer(b, 0)
	l, _ := newTestLLM(b, srv.URL, nil)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := l.Complete(ctx, pingReq); err != nil {
			b.Fatal(err)
		}
	}
}
