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

// TestThroughput: 1,000 calls at concurrency 16 against a 100 ms provider
// take ≥ 6.25 s by construction; they must finish within 8 s. It takes
// about 6.5 s, so -short skips it.
func TestThroughput(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (≈6.5 s); run without -short")
	}
	srv := latencyServer(t, 100*time.Millisecond)
	l, _ := newTestLLM(t, srv.URL, func(c *Config) { c.Concurrency = 16 })
	const calls = 1000
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
		t.Fatal(err)
	}
	el := time.Since(start)
	bound := time.Duration(calls / 16.0 * float64(100*time.Millisecond))
	t.Logf("%d calls at concurrency 16, 100 ms latency: %v (bound %v, %.0f%% of ideal)", calls, el, bound, 100*float64(bound)/float64(el))
	if el > 8*time.Second {
		t.Errorf("took %v, want ≤ 8s", el)
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
