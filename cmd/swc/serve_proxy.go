package main

import (
	"flag"
	"net/url"
	"time"

	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/strategy"
)

// proxyFlags are swc serve's flags of the compressing proxy.
type proxyFlags struct {
	openai, anthropic string
	compressTimeout   time.Duration
	keepRecent        int
}

func addProxyFlags(fs *flag.FlagSet, f *proxyFlags) {
	fs.StringVar(&f.openai, "upstream-openai", "", "OpenAI-compatible base URL the proxy forwards /v1/chat/completions, /v1/responses, /v1/embeddings and /v1/models to, with /v1 (e.g. https://api.openai.com/v1); key: OPENAI_API_KEY")
	fs.StringVar(&f.anthropic, "upstream-anthropic", "", "Anthropic base URL the proxy forwards /v1/messages and /v1/messages/count_tokens to (e.g. https://api.anthropic.com); key: ANTHROPIC_API_KEY")
	fs.DurationVar(&f.compressTimeout, "compress-timeout", swchttp.DefaultCompressTimeout, "longest a proxied request's compression may take before the offline engines compress it instead")
	fs.IntVar(&f.keepRecent, "keep-recent", 8, "latest messages of a proxied request sent unchanged (0: none)")
}

// proxyConfig returns the proxy's settings: the upstreams with the
// server's own keys (read once, with the rest of the environment, in Env),
// the default budget and strategy, and the configured embedder when it is
// not the offline one (its failures fall back to the offline engines).
func proxyConfig(env *Env, f proxyFlags, ef *engineFlags, name string, eng *engines) (swchttp.ProxyConfig, error) {
	for _, u := range []struct{ flag, v string }{{"--upstream-openai", f.openai}, {"--upstream-anthropic", f.anthropic}} {
		if u.v == "" {
			continue
		}
		p, err := url.Parse(u.v)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return swchttp.ProxyConfig{}, usagef("%s: want an http(s) URL (got %q)", u.flag, u.v)
		}
	}
	if f.compressTimeout <= 0 {
		return swchttp.ProxyConfig{}, usagef("--compress-timeout must be positive (got %v)", f.compressTimeout)
	}
	if f.keepRecent < 0 {
		return swchttp.ProxyConfig{}, usagef("--keep-recent must not be negative (got %d)", f.keepRecent)
	}
	cfg := swchttp.ProxyConfig{
		OpenAI:          swchttp.Upstream{URL: f.openai, Key: env.Vars["OPENAI_API_KEY"]},
		Anthropic:       swchttp.Upstream{URL: f.anthropic, Key: env.Vars["ANTHROPIC_API_KEY"]},
		Budget:          ef.budget,
		CompressTimeout: f.compressTimeout,
		KeepRecent:      f.keepRecent,
	}
	if f.keepRecent == 0 {
		cfg.KeepRecent = -1
	}
	if _, err := strategy.Find(name, strategy.ForCompressor); err == nil {
		cfg.Strategy = name // else (full: no budget) the proxy's default
	}
	if ef.embedder != "lexical" {
		cfg.Embedder = eng.embedder
	}
	return cfg, nil
}
