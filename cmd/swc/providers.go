package main

import (
	"context"
	"flag"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/anthropic"
	"github.com/swcmem/swc/openai"
	"github.com/swcmem/swc/retry"
)

// providerOptions are the settings of every command that calls an LLM or
// embedding provider.
type providerOptions struct {
	concurrency      int
	rpm              float64
	timeout          time.Duration
	maxAttempts      int
	anthropicBaseURL string
	anthropicVersion string
	openaiBaseURL    string
	ollamaBaseURL    string
	// Tests may set the backoff sleep (a no-op keeps them fast) and the
	// HTTP client; nil means the adapters' defaults.
	sleep      func(ctx context.Context, d time.Duration) error
	httpClient *http.Client
	// limits are shared by every client of one server (provider and base
	// URL), so --concurrency and --rpm bound the run, not each model.
	limitsMu sync.Mutex
	limits   map[string]*retry.Limits
}

// providerSleepHook, when set by tests, replaces the adapters' backoff
// sleep so that retries do not make tests slow.
var providerSleepHook func(ctx context.Context, d time.Duration) error

// addProviderFlags registers the provider flags on fs and returns the
// options they fill.
func addProviderFlags(fs *flag.FlagSet) *providerOptions {
	o := &providerOptions{sleep: providerSleepHook}
	fs.IntVar(&o.concurrency, "concurrency", 8, "provider requests in flight at most")
	fs.Float64Var(&o.rpm, "rpm", 0, "provider requests per minute at most, retries included (0: no limit)")
	fs.DurationVar(&o.timeout, "timeout", 60*time.Second, "deadline of each provider request (a slower one is retried)")
	fs.IntVar(&o.maxAttempts, "max-attempts", 5, "tries per provider call on 429, 529, 5xx, timeouts and connection errors")
	fs.StringVar(&o.anthropicBaseURL, "anthropic-base-url", "", "Anthropic base URL without /v1 (default $ANTHROPIC_BASE_URL, else "+anthropic.DefaultBaseURL+")")
	fs.StringVar(&o.anthropicVersion, "anthropic-api-version", "", "anthropic-version header: the SDK's "+anthropic.SDKAPIVersion+" (default; it takes no temperature) or an older one such as "+anthropic.PaperAPIVersion+", sent with temperature 0 as in the paper")
	fs.StringVar(&o.openaiBaseURL, "openai-base-url", "", "OpenAI-compatible base URL with /v1 (default $OPENAI_BASE_URL, else "+openai.DefaultBaseURL+")")
	fs.StringVar(&o.ollamaBaseURL, "ollama-base-url", "", "Ollama base URL with /v1 (default $OLLAMA_BASE_URL, else "+openai.OllamaBaseURL+")")
	return o
}

// apiVersionRE is the form of an anthropic-version: a date.
var apiVersionRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// validate returns a usage error for out-of-range flag values.
func (o *providerOptions) validate() error {
	switch {
	case o.concurrency < 1:
		return usagef("--concurrency must be at least 1 (got %d)", o.concurrency)
	case o.rpm < 0:
		return usagef("--rpm must not be negative (got %v)", o.rpm)
	case o.timeout <= 0:
		return usagef("--timeout must be positive (got %v)", o.timeout)
	case o.maxAttempts < 1:
		return usagef("--max-attempts must be at least 1 (got %d)", o.maxAttempts)
	case o.anthropicVersion != "" && !apiVersionRE.MatchString(o.anthropicVersion):
		return usagef("--anthropic-api-version wants a date such as %s (got %q)", anthropic.PaperAPIVersion, o.anthropicVersion)
	}
	return nil
}

// retryConfig returns the retry settings o gives the clients of server
// (provider and base URL); they share one set of limits.
func (o *providerOptions) retryConfig(server string) retry.Config {
	o.limitsMu.Lock()
	defer o.limitsMu.Unlock()
	if o.limits == nil {
		o.limits = map[string]*retry.Limits{}
	}
	l := o.limits[server]
	if l == nil {
		l = retry.NewLimits(o.concurrency, o.rpm)
		o.limits[server] = l
	}
	return retry.Config{
		Timeout: o.timeout, MaxAttempts: o.maxAttempts, Concurrency: o.concurrency,
		RPM: o.rpm, Sleep: o.sleep, Limits: l,
	}
}

// providers lists the PROVIDER:MODEL prefixes newLLM knows.
const providers = "anthropic:MODEL, openai:MODEL or ollama:MODEL"

// parseSpec splits "PROVIDER:MODEL" at the first colon (Ollama models
// may hold one: ollama:llama3.1:8b).
func parseSpec(spec string) (provider, model string, err error) {
	provider, model, ok := strings.Cut(spec, ":")
	if !ok || provider == "" || model == "" {
		return "", "", usagef("%q is not PROVIDER:MODEL (want %s)", spec, providers)
	}
	return provider, model, nil
}

// pick returns the first non-empty value.
func pick(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// openaiConfig returns the settings of an OpenAI-compatible provider and
// its key: openai (OPENAI_API_KEY, required by api.openai.com only) or
// ollama (no key). valid lists the providers the caller accepts, for the
// usage error about an unknown one.
func (o *providerOptions) openaiConfig(env *Env, provider, valid string) (openai.Config, string, error) {
	cfg := openai.Config{Provider: provider, HTTPClient: o.httpClient}
	switch provider {
	case "openai":
		cfg.BaseURL = pick(o.openaiBaseURL, env.Vars["OPENAI_BASE_URL"], openai.DefaultBaseURL)
		cfg.Config = o.retryConfig("openai|" + cfg.BaseURL)
		key := env.Vars["OPENAI_API_KEY"]
		if key == "" && strings.TrimRight(cfg.BaseURL, "/") == openai.DefaultBaseURL {
			return cfg, "", usagef("openai: set OPENAI_API_KEY (or point --openai-base-url / OPENAI_BASE_URL at a server without keys)")
		}
		return cfg, key, nil
	case "ollama":
		cfg.BaseURL = pick(o.ollamaBaseURL, env.Vars["OLLAMA_BASE_URL"], openai.OllamaBaseURL)
		cfg.Config = o.retryConfig("ollama|" + cfg.BaseURL)
		return cfg, "", nil
	}
	return cfg, "", usagef("unknown provider %q (want %s)", provider, valid)
}

// newLLM returns the chat model spec names ("anthropic:MODEL",
// "openai:MODEL", "ollama:MODEL"), configured from o and env.Vars. It
// returns a usage error for a malformed spec, an unknown provider or a
// missing API key (naming the variable).
func newLLM(env *Env, spec string, o *providerOptions) (swc.LLM, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	provider, model, err := parseSpec(spec)
	if err != nil {
		return nil, err
	}
	if provider == "anthropic" {
		key := env.Vars["ANTHROPIC_API_KEY"]
		if key == "" {
			return nil, usagef("%s: set ANTHROPIC_API_KEY", spec)
		}
		base := pick(o.anthropicBaseURL, env.Vars["ANTHROPIC_BASE_URL"])
		cfg := anthropic.Config{BaseURL: base, APIVersion: o.anthropicVersion, HTTPClient: o.httpClient, Config: o.retryConfig("anthropic|" + base)}
		return anthropic.New(model, key, cfg)
	}
	cfg, key, err := o.openaiConfig(env, provider, providers)
	if err != nil {
		return nil, err
	}
	return openai.New(model, key, cfg)
}

// newEmbedder returns the remote embedder spec names ("openai:MODEL",
// "ollama:MODEL"), configured from o and env.Vars, with the usage errors
// of newLLM. Its vectors are not cached; wrap it in the embedding cache.
func newEmbedder(env *Env, spec string, o *providerOptions) (*openai.Embedder, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	provider, model, err := parseSpec(spec)
	if err != nil {
		return nil, err
	}
	if provider == "anthropic" {
		return nil, usagef("%s: Anthropic has no embeddings API (want openai:MODEL or ollama:MODEL)", spec)
	}
	cfg, key, err := o.openaiConfig(env, provider, "openai:MODEL or ollama:MODEL")
	if err != nil {
		return nil, err
	}
	return openai.NewEmbedder(model, key, cfg)
}
