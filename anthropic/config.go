package anthropic

import (
	"net/http"

	"github.com/swcmem/swc/retry"
)

// DefaultBaseURL is the Anthropic API base URL, without /v1 (the SDK adds it).
const DefaultBaseURL = "https://api.anthropic.com"

// Config holds the optional settings of an LLM. A zero field means its
// default, as filled in by DefaultConfig.
type Config struct {
	// BaseURL is the API base URL without /v1. Default DefaultBaseURL.
	BaseURL string
	// HTTPClient sends the requests. Default: a client whose transport keeps
	// Concurrency idle connections per host.
	HTTPClient *http.Client
	// MaxTokens is used when a request leaves MaxTokens at 0. Default 1024.
	MaxTokens int
	// Config holds the per-attempt Timeout, MaxAttempts, Concurrency, RPM,
	// backoff, Sleep, Now and Seed; see retry.Config for their defaults.
	retry.Config
}

// DefaultConfig returns the default settings.
func DefaultConfig() Config {
	return Config{BaseURL: DefaultBaseURL, MaxTokens: 1024, Config: retry.DefaultConfig()}
}

// withDefaults returns c with its zero fields set to their defaults.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	c.Config = c.Config.WithDefaults()
	if c.BaseURL == "" {
		c.BaseURL = d.BaseURL
	}
	if c.MaxTokens <= 0 {
		c.MaxTokens = d.MaxTokens
	}
	if c.HTTPClient == nil {
		c.HTTPClient = retry.NewHTTPClient(c.Concurrency)
	}
	return c
}
