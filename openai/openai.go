// Package openai implements swc.LLM and swc.Embedder on any
// OpenAI-compatible chat-completions and embeddings endpoint (OpenAI,
// Ollama, vLLM, TEI, …), speaking the wire protocol with net/http (see
// http.go for why not the openai-go SDK). It sends only what it is given:
// no OPENAI_ORG_ID/PROJECT/CUSTOM_HEADERS from the process environment, and
// no Authorization header without a key. This package retries, bounds
// concurrency and rate and times out attempts itself (see Config).
package openai

import (
	"context"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/retry"
)

var _ swc.LLM = (*LLM)(nil)

// LLM is a chat model behind an OpenAI-compatible /chat/completions. It is
// safe for concurrent use.
type LLM struct {
	model  string
	cfg    Config
	client *client
	runner *retry.Runner
}

// New returns an LLM for model (e.g. "gpt-4o-mini", or "llama3.1" with
// cfg.BaseURL = OllamaBaseURL and cfg.Provider = "ollama"). apiKey may be
// empty for servers without authentication; callers that need one check
// for it. Zero fields of cfg take their defaults. It returns an EINVALID
// *swc.Error when model is empty.
func New(model, apiKey string, cfg Config) (*LLM, error) {
	cfg = cfg.withDefaults()
	if model == "" {
		return nil, swc.Errorf(swc.EINVALID, "%s: no model given", cfg.Provider)
	}
	return &LLM{model: model, cfg: cfg, client: newClient(apiKey, cfg), runner: retry.New(cfg.Config, classify)}, nil
}

// Name returns "PROVIDER:MODEL".
func (l *LLM) Name() string { return l.cfg.Provider + ":" + l.model }

// Complete sends req, retrying transient failures. On failure it returns
// an *swc.Error naming the provider, model, status and attempts:
// EUNAVAILABLE when retries ran out, ctx ended or the reply was empty,
// EINVALID for a request the server rejected (4xx other than 408, 409,
// 429) or that could not be translated.
func (l *LLM) Complete(ctx context.Context, req swc.LLMRequest) (swc.LLMResponse, error) {
	params, err := toChatParams(req, l.cfg.Provider, l.model, l.cfg.MaxTokens, l.cfg.LegacyMaxTokens)
	if err != nil {
		return swc.LLMResponse{}, err
	}
	var res chatCompletion
	n, v, err := l.runner.Do(ctx, func(ctx context.Context) error {
		res = chatCompletion{}
		return l.client.post(ctx, "/chat/completions", params, &res)
	})
	if err != nil {
		return swc.LLMResponse{}, retry.Failed(l.cfg.Provider, l.model, n, v, err)
	}
	return fromChat(&res, l.cfg.Provider, l.model)
}
