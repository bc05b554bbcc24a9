// Package retry runs provider calls with bounded concurrency, an optional
// requests-per-minute limit, a per-attempt deadline and retries with
// jittered exponential backoff honouring Retry-After; the adapters decide
// what is retryable.
package retry

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Kinds the Runner itself gives a Verdict.
const (
	// KindTimeout marks an attempt that outlived Config.Timeout; classify
	// functions return it for context.DeadlineExceeded, and the Runner
	// rewrites Msg to name the deadline.
	KindTimeout = "timeout"
	// KindInterrupted marks a call whose ctx ended.
	KindInterrupted = "interrupted"
)

// Verdict is what an adapter's classify function makes of a failed attempt.
type Verdict struct {
	Retry  bool          // worth another attempt
	After  time.Duration // server-requested wait (Retry-After); 0 if none
	Status int           // HTTP status; 0 for transport errors
	Kind   string        // provider error type, KindTimeout, "connection error", …
	Msg    string        // short human-readable detail
	URL    string        // the request's URL, for transport errors
	// RequestID is the provider's id of the failed request (x-request-id),
	// for its support; "" when it sent none.
	RequestID string
}

// Runner runs calls with bounded concurrency, an optional rate limit and
// retries with jittered exponential backoff. It is safe for concurrent use.
type Runner struct {
	cfg Config
	*Limits
	mu       sync.Mutex
	rnd      *rand.Rand
	classify func(err error, now time.Time) Verdict
}

// New returns a Runner with cfg (zero fields take their defaults) that asks
// classify whether a failed attempt is worth retrying; classify gets the
// attempt's error and cfg.Now() to resolve a Retry-After HTTP date.
func New(cfg Config, classify func(err error, now time.Time) Verdict) *Runner {
	cfg = cfg.WithDefaults()
	r := &Runner{
		cfg:      cfg,
		Limits:   cfg.Limits,
		rnd:      rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		classify: classify,
	}
	if r.Limits == nil {
		r.Limits = NewLimits(cfg.Concurrency, cfg.RPM)
	}
	return r
}

// Limits are a bound on requests in flight and an optional
// requests-per-minute rate. Runners given the same Limits (Config.Limits)
// share them: the clients of two models on one server stay within one
// limit together.
type Limits struct {
	sem   chan struct{}
	limit *rate.Limiter // nil: unlimited
}

// NewLimits returns limits of concurrency requests in flight (at least 1)
// and rpm requests per minute, retries included (0: no rate limit).
func NewLimits(concurrency int, rpm float64) *Limits {
	l := &Limits{sem: make(chan struct{}, max(concurrency, 1))}
	if rpm > 0 {
		l.limit = rate.NewLimiter(rate.Limit(rpm/60), 1)
	}
	return l
}

// Do calls call, each attempt with its own deadline, until it succeeds,
// fails for good or ctx is done. It returns the number of attempts made
// and, on failure, the last attempt's error with its Verdict (ctx.Err()
// and a KindInterrupted Verdict if ctx ended).
func (r *Runner) Do(ctx context.Context, call func(ctx context.Context) error) (attempts int, v Verdict, err error) {
	for attempt := 1; ; attempt++ {
		err := r.once(ctx, call)
		if err == nil {
			return attempt, Verdict{}, nil
		}
		v := r.classify(err, r.cfg.Now())
		if v.Kind == KindTimeout {
			v.Msg = fmt.Sprintf("no response within %v", r.cfg.Timeout)
		}
		if ctx.Err() != nil {
			return attempt, Verdict{Kind: KindInterrupted, Msg: ctx.Err().Error()}, ctx.Err()
		}
		if !v.Retry || attempt >= r.cfg.MaxAttempts {
			return attempt, v, err
		}
		if err := r.cfg.Sleep(ctx, r.wait(attempt, v)); err != nil {
			return attempt, Verdict{Kind: KindInterrupted, Msg: err.Error()}, err
		}
	}
}

// once makes one attempt inside the concurrency and rate limits, bounded
// by the per-attempt timeout.
func (r *Runner) once(ctx context.Context, call func(ctx context.Context) error) error {
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
func (r *Runner) wait(n int, v Verdict) time.Duration {
	if v.After > 0 {
		return min(v.After, r.cfg.MaxRetryAfter)
	}
	r.mu.Lock()
	j := r.rnd.Float64()
	r.mu.Unlock()
	return Backoff(n, r.cfg.BaseDelay, r.cfg.MaxDelay, j)
}
