package openai

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// TestThroughput: 1,000 calls at concurrency 16 against a 100 ms provider
// take ≥ 6.25 s by construction; they must finish within 8 s. It takes
// about 6.5 s, so -short skips it.
func TestThroughput(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (≈6.5 s); run without -short")
	}
	body := chatBody("pong")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		time.Sleep(100 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	defer srv.Close()
	l, _ := newTestLLM(t, srv.URL, func(c *Config) { c.Concurrency = 16 })
	const calls = 1000
	start := time.Now()
	var wg sync.WaitGroup
	var failed sync.Map
	for i := range calls {
		wg.Go(func() {
			if _, err := l.Complete(context.Background(), pingReq); err != nil {
				failed.Store(i, err)
			}
		})
	}
	wg.Wait()
	failed.Range(func(_, err any) bool { t.Fatal(err); return false })
	el := time.Since(start)
	bound := time.Duration(calls / 16.0 * float64(100*time.Millisecond))
	t.Logf("%d calls at concurrency 16, 100 ms latency: %v (bound %v, %.0f%% of ideal)", calls, el, bound, 100*float64(bound)/float64(el))
	if el > 8*time.Second {
		t.Errorf("took %v, want ≤ 8s", el)
	}
}
