package openai

import (
	"context"
	"net/http"
	"time"
)

// DefaultBaseURL is the OpenAI API base URL. Base URLs of this package
// include the /v1 path, as OPENAI_BASE_URL does.
const DefaultBaseURL = "https://api.openai.com/v1"

// OllamaBaseURL is Ollama's OpenAI-compatible endpoint on its default port.
const OllamaBaseURL = "http://localhost:11434/v1"

// Config holds the optional settings of an LLM or Embedder. A zero field
// means its default, as filled in by DefaultConfig.
type Config struct {
	// Provider labels Name ("PROVIDER:MODEL") and errors. Default "openai";
	// "ollama", "vllm", … for other OpenAI-compatible servers.
	Provider string
	// BaseURL is the API base URL with /v1. Default DefaultBaseURL.
	BaseURL string
	// HTTPClient sends the requests. Default: a client whose transport keeps
	// Concurrency idle connections per host.
	HTTPClient *http.Client
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
	// MaxTokens is used when a request leaves MaxTokens at 0. Default 1024.
	MaxTokens int
	// BatchSize is the number of texts per embeddings request. Default 64.
	BatchSize int
	// Sleep waits d or until ctx is done, returning ctx.Err() then.
	// Default: a timer. Tests inject a no-op.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now reads the clock, for Retry-After given as an HTTP date.
	// Default time.Now.
	Now func() time.Time
	// Seed seeds the backoff jitter.
	Seed uint64
}

// DefaultConfig returns the default settings.
func DefaultConfig() Config {
	return Config{
		Provider:      "openai",
		BaseURL:       DefaultBaseURL,
		Timeout:       60 * time.Second,
		MaxAttempts:   5,
		Concurrency:   8,
		BaseDelay:     time.Second,
		MaxDelay:      30 * time.Second,
		MaxRetryAfter: 2 * time.Minute,
		MaxTokens:     1024,
		BatchSize:     64,
		Sleep:         sleep,
		Now:           time.Now,
	}
}

// withDefaults returns c with its zero fields set to their defaults.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.Provider == "" {
		c.Provider = d.Provider
	}
	if c.BatchSize <= 0 {
		c.BatchSize = d.BatchSize
	}
	if c.BaseURL == "" {
		c.BaseURL = d.BaseURL
	}
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
	if c.MaxTokens <= 0 {
		c.MaxTokens = d.MaxTokens
	}
	if c.Sleep == nil {
		c.Sleep = d.Sleep
	}
	if c.Now == nil {
		c.Now = d.Now
	}
	if c.HTTPClient == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConns = max(100, 2*c.Concurrency)
		t.MaxIdleConnsPerHost = c.Concurrency
		c.HTTPClient = &http.Client{Transport: t}
	}
	return c
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
