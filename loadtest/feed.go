package loadtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/client"
)

// FeedConv is one conversation to append, as messages with ids
// (ConversationMessages).
type FeedConv struct {
	ID   string
	Msgs []swc.Message
}

// FeedStats is what a Feed saw: requests, batches sent again, 503
// answers, messages appended and skipped (as retries), the latencies of
// acknowledged appends, and the acknowledged message ids per conversation.
type FeedStats struct {
	Requests, Retries, Unavailable int64
	Appended, Skipped              int64
	Latencies                      []time.Duration // of acknowledged appends
	Acked                          map[string][]string
	Elapsed                        time.Duration
}

// Feed appends convs with clients concurrent clients, each sending the
// next batch (1..maxBatch messages) of a conversation no other client is
// sending to, to a replica chosen at random; a client keeps its
// conversation for the next batch half of the time (else it takes the one
// waiting longest), and retry (0..1) is the chance it sends its previous
// batch of it again (to another replica) with the next, as after a lost
// answer. A client with no conversation to take waits (it does not spin:
// its CPU is the load's, measured apart). A 503 or a connection error is
// retried after a pause, until deadline; any other error ends the feed.
// It returns the acknowledged message ids per conversation.
func Feed(ctx context.Context, urls []string, key string, convs []FeedConv, clients, maxBatch int, retry float64, seed uint64) (*FeedStats, error) {
	st := &FeedStats{Acked: map[string][]string{}}
	next := make([]int, len(convs)) // the next message of each; a conversation is one client's at a time
	avail := make(chan int, len(convs))
	for i := range convs {
		if len(convs[i].Msgs) > 0 {
			avail <- i
		}
	}
	var remaining atomic.Int64
	remaining.Store(int64(len(avail)))
	finished := make(chan struct{})
	if remaining.Load() == 0 {
		close(finished)
	}
	var mu sync.Mutex
	var firstErr error
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
	}
	failed := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return firstErr != nil
	}
	start := time.Now()
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(c)))
			cls := make([]*client.Client, len(urls))
			for i, u := range urls {
				cls[i] = client.New(u, key)
			}
			var prev []swc.Message
			prevConv := -1
			i := -1 // the conversation this client holds
			for ctx.Err() == nil && !failed() {
				if i < 0 {
					select {
					case i = <-avail:
					case <-finished:
						return
					case <-ctx.Done():
						return
					}
				}
				n := 1 + rng.IntN(maxBatch)
				msgs := convs[i].Msgs
				batch := msgs[next[i]:min(next[i]+n, len(msgs))]
				var extra []swc.Message
				if prevConv == i && rng.Float64() < retry {
					extra = prev // a retry of the previous batch, with the new one
					atomic.AddInt64(&st.Retries, 1)
				}
				send := append(slices.Clone(extra), batch...)
				var res swc.AppendResult
				var err error
				for {
					cl := cls[rng.IntN(len(cls))]
					t0 := time.Now()
					res, err = cl.Append(ctx, convs[i].ID, send)
					atomic.AddInt64(&st.Requests, 1)
					if err == nil {
						mu.Lock()
						st.Latencies = append(st.Latencies, time.Since(t0))
						mu.Unlock()
						break
					}
					var ce *client.Error
					if errors.As(err, &ce) && ce.Status != 503 {
						break
					}
					if errors.As(err, &ce) && ce.RetryAfter <= 0 {
						err = fmt.Errorf("503 without Retry-After: %w", err)
						break
					}
					atomic.AddInt64(&st.Unavailable, 1)
					if ctx.Err() != nil {
						break
					}
					time.Sleep(200 * time.Millisecond)
				}
				if err != nil {
					fail(fmt.Errorf("append to %s: %w", convs[i].ID, err))
					return
				}
				atomic.AddInt64(&st.Appended, int64(res.Appended))
				atomic.AddInt64(&st.Skipped, int64(res.Skipped))
				mu.Lock()
				for _, m := range batch {
					st.Acked[convs[i].ID] = append(st.Acked[convs[i].ID], m.ID)
				}
				mu.Unlock()
				next[i] += len(batch)
				prev, prevConv = batch, i
				switch {
				case next[i] >= len(msgs):
					if remaining.Add(-1) == 0 {
						close(finished)
					}
					i = -1
				case rng.IntN(2) == 0:
					avail <- i // another client's turn (never blocks: one slot each)
					i = -1
				}
			}
		})
	}
	wg.Wait()
	st.Elapsed = time.Since(start)
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	return st, firstErr
}
