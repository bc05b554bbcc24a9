package retry

import (
	"context"
	"net/http"
	"time"
)

// Config holds the settings of a Runner. A zero field means its default,
// as filled in by DefaultConfig.
type Config struct {
	// Timeout bounds each attempt (a slow attempt is abandoned and retried).
	// Default 60s.
	Timeout time.Duration
	// MaxAttempts is the number of tries per call, the first included.
	// Default 5.
	MaxAttempts int
	// Concurrency bounds the requests in flight. Default 8.
	Concurrency int
	// RPM limits requests per minute (retries included); 0 means no limit.
	RPM float64
	// BaseDelay is the backoff before the second attempt; it doubles per
	// attempt up to MaxDelay, with jitter. Defaults 1s and 30s.
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// MaxRetryAfter caps a server's Retry-After. Default 2m.
	MaxRetryAfter time.Duration
	// Sleep waits d or until ctx is done, returning ctx.Err() then.
	// Default: a timer. Tests inject a no-op.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now reads the clock, for Retry-After given as an HTTP date.
	// Default time.Now.
	Now func() time.Time
	// Seed seeds the backoff jitter.
	Seed uint64
	// Limits, when set, are shared with other Runners and replace
	// Concurrency and RPM.
	Limits *Limits
}

// DefaultConfig returns the default settings.
func DefaultConfig() Config {
	return Config{
		Timeout:       60 * time.Second,
		MaxAttempts:   5,
		Concurrency:   8,
		BaseDelay:     time.Second,
		MaxDelay:      30 * time.Second,
		MaxRetryAfter: 2 * time.Minute,
		Sleep:         sleep,
		Now:           time.Now,
	}
}

// WithDefaults returns c with its zero (or negative) fields set to their
// defaults; RPM and Seed keep their values.
func (c Config) WithDefaults() Config {
	d := DefaultConfig()
	if c.Timeout <= 0 {
		c.Timeout = d.Timeout
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = d.MaxAttempts
	}
	if c.Concurrency <= 0 {
		c.Concurrency = d.Concurrency
	}
	if c.BaseDelay <= 0 {
		c.BaseDelay = d.BaseDelay
	}
	if c.MaxDelay <= 0 {
		c.MaxDelay = d.MaxDelay
	}
	if c.MaxRetryAfter <= 0 {
		c.MaxRetryAfter = d.MaxRetryAfter
	}
	if c.Sleep == nil {
		c.Sleep = d.Sleep
	}
	if c.Now == nil {
		c.Now = d.Now
	}
	return c
}

// NewHTTPClient returns a client whose transport keeps concurrency idle
// connections per host (and at least 100 in all), so that a Runner's
// attempts in flight reuse their connections.
func NewHTTPClient(concurrency int) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = max(100, 2*concurrency)
	t.MaxIdleConnsPerHost = concurrency
	return &http.Client{Transport: t}
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
