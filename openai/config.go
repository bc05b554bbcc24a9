package openai

import (
	"net/http"

	"github.com/swcmem/swc/retry"
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
	// MaxTokens is used when a request leaves MaxTokens at 0. Default 1024.
	MaxTokens int
	// LegacyMaxTokens sends the output limit as max_tokens rather than
	// max_completion_tokens, for servers that know only the old name.
	// Default false; true for Provider "ollama", whose OpenAI-compatible
	// endpoint reads only max_tokens.
	LegacyMaxTokens bool
	// BatchSize is the number of texts per embeddings request. Default 64.
	BatchSize int
	// Config holds the per-attempt Timeout, MaxAttempts, Concurrency, RPM,
	// backoff, Sleep, Now and Seed; see retry.Config for their defaults.
	retry.Config
}

// DefaultConfig returns the default settings.
func DefaultConfig() Config {
	return Config{
		Provider:  "openai",
		BaseURL:   DefaultBaseURL,
		MaxTokens: 1024,
		BatchSize: 64,
		Config:    retry.DefaultConfig(),
	}
}

// withDefaults returns c with its zero fields set to their defaults.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	c.Config = c.Config.WithDefaults()
	if c.Provider == "" {
		c.Provider = d.Provider
	}
	if c.BaseURL == "" {
		c.BaseURL = d.BaseURL
	}
	if c.MaxTokens <= 0 {
		c.MaxTokens = d.MaxTokens
	}
	if c.Provider == "ollama" {
		c.LegacyMaxTokens = true
	}
	if c.BatchSize <= 0 {
		c.BatchSize = d.BatchSize
	}
	if c.HTTPClient == nil {
		c.HTTPClient = retry.NewHTTPClient(c.Concurrency)
	}
	return c
}
