package anthropic

import (
	"net/http"

	"github.com/swcmem/swc/retry"
)

// DefaultBaseURL is the Anthropic API base URL, without /v1 (the SDK adds it).
const DefaultBaseURL = "https://api.anthropic.com"

// SDKAPIVersion is the API version the SDK speaks (anthropic-version
// header). It has no temperature parameter.
const SDKAPIVersion = "2026-10-21"

// PaperAPIVersion is the API version the paper's runs used: it takes
// "temperature", so temperature 0 is sent.
const PaperAPIVersion = "2023-06-01"

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
	// APIVersion is the anthropic-version header. Default "" (the SDK's,
	// SDKAPIVersion, which takes no temperature). A version before it
	// (PaperAPIVersion, 2023-06-01) is sent with the request's
	// temperature, as the paper's protocol (temperature 0) needs.
	APIVersion string
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

// sendsTemperature reports whether the API version takes "temperature":
// every version before the SDK's (dates compare as strings).
func (c Config) sendsTemperature() bool {
	return c.APIVersion != "" && c.APIVersion < SDKAPIVersion
}

// apiVersion returns the version sent.
func (c Config) apiVersion() string {
	if c.APIVersion == "" {
		return SDKAPIVersion
	}
	return c.APIVersion
}
