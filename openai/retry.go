package openai

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// verdict is what classify makes of a failed attempt.
type verdict struct {
	Retry  bool
	After  time.Duration // server-requested wait (Retry-After); 0 if none
	Status int           // HTTP status; 0 for transport errors
	Kind   string        // provider error type, "timeout", "connection error", …
	Msg    string        // short human-readable detail
}

// retrier runs calls with bounded concurrency, an optional rate limit and
// retries with jittered exponential backoff.
type retrier struct {
	cfg     Config
	sem     chan struct{}
	limit   *rate.Limiter // nil: unlimited
	mu      sync.Mutex
	rnd     *rand.Rand
	classif func(err error, now time.Time) verdict
}

func newRetrier(cfg Config, classify func(error, time.Time) verdict) *retrier {
	r := &retrier{
		cfg:     cfg,
		sem:     make(chan struct{}, cfg.Concurrency),
		rnd:     rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		classif: classify,
	}
	if cfg.RPM > 0 {
		r.limit = rate.NewLimiter(rate.Limit(cfg.RPM/60), 1)
	}
	return r
}

// do calls call until it succeeds, fails for good or ctx is done. It
// returns the number of attempts made and, on failure, the last attempt's
// error with its verdict (ctx.Err() if ctx ended while waiting).
func (r *retrier) do(ctx context.Context, call func(ctx context.Context) error) (int, verdict, error) {
	for attempt := 1; ; attempt++ {
		err := r.once(ctx, call)
		if err == nil {
			return attempt, verdict{}, nil
		}
		v := r.classif(err, r.cfg.Now())
		if v.Kind == "timeout" {
			v.Msg = fmt.Sprintf("no response within %v", r.cfg.Timeout)
		}
		if ctx.Err() != nil {
			return attempt, verdict{Kind: "interrupted", Msg: ctx.Err().Error()}, ctx.Err()
		}
		if !v.Retry || attempt >= r.cfg.MaxAttempts {
			return attempt, v, err
		}
		if err := r.cfg.Sleep(ctx, r.wait(attempt, v)); err != nil {
			return attempt, verdict{Kind: "interrupted", Msg: err.Error()}, err
		}
	}
}

// once makes one attempt inside the concurrency and rate limits, bounded
// by the per-attempt timeout.
func (r *retrier) once(ctx context.Context, call func(ctx context.Context) error) error {
	select {
	case r.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-r.sem }()
	if r.limit != nil {
		if err := r.limit.Wait(ctx); err != nil {
			return err
		}
	}
	actx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	return call(actx)
}

// wait returns the pause after failed attempt n: the server's Retry-After
// when given (capped at MaxRetryAfter), jittered backoff otherwise.
func (r *retrier) wait(n int, v verdict) time.Duration {
	if v.After > 0 {
		return min(v.After, r.cfg.MaxRetryAfter)
	}
	r.mu.Lock()
	j := r.rnd.Float64()
	r.mu.Unlock()
	return backoff(n, r.cfg.BaseDelay, r.cfg.MaxDelay, j)
}

// backoff returns the delay after failed attempt n (1-based): base·2^(n-1)
// capped at limit, of which the upper half is scaled by jitter ∈ [0,1).
func backoff(n int, base, limit time.Duration, jitter float64) time.Duration {
	d := base
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	return d/2 + time.Duration(jitter*float64(d/2))
}

// retryAfter returns the wait a response asks for in its retry-after-ms or
// Retry-After header (delta seconds or an HTTP date relative to now), and
// false when there is none or it cannot be parsed.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if s := h.Get("Retry-After-Ms"); s != "" {
		if ms, err := strconv.ParseFloat(s, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	s := h.Get("Retry-After")
	if s == "" {
		return 0, false
	}
	if sec, err := strconv.ParseFloat(s, 64); err == nil && sec >= 0 {
		return time.Duration(sec * float64(time.Second)), true
	}
	if t, err := http.ParseTime(s); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
