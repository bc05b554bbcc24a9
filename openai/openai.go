// Package openai implements swc.LLM and swc.Embedder on any
// OpenAI-compatible chat-completions and embeddings endpoint (OpenAI,
// Ollama, vLLM, TEI, …) with the official SDK (github.com/openai/openai-go/v3).
// The SDK's own retries are off; this package retries, bounds concurrency
// and rate and times out attempts itself (see Config).
package openai

import (
	"context"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/swcmem/swc"
	"github.com/swcmem/swc/retry"
)

var _ swc.LLM = (*LLM)(nil)

// LLM is a chat model behind an OpenAI-compatible /chat/completions. It is
// safe for concurrent use.
type LLM struct {
	model  string
	cfg    Config
	client openai.Client
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

// newClient returns the SDK services swc uses, without retries of their
// own and without openai.NewClient's environment defaults: the SDK would
// otherwise read OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_ORG_ID,
// OPENAI_PROJECT_ID and OPENAI_CUSTOM_HEADERS from the process and send
// them to whatever server BaseURL names. swc reads its environment once,
// in cmd/swc (an empty key sends no Authorization header).
func newClient(apiKey string, cfg Config) openai.Client {
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithHTTPClient(cfg.HTTPClient),
		option.WithMaxRetries(0),
		option.WithAPIKey(apiKey),
	}
	return openai.Client{
		Options:    opts,
		Chat:       openai.NewChatService(opts...),
		Embeddings: openai.NewEmbeddingService(opts...),
	}
}

// Name returns "PROVIDER:MODEL".
func (l *LLM) Name() string { return l.cfg.Provider + ":" + l.model }

// Complete sends req, retrying transient failures. On failure it returns
// an *swc.Error naming the provider, model, status and attempts:
// EUNAVAILABLE when retries ran out, ctx ended or the reply was empty,
// EINVALID for a request the server rejected (4xx other than 408, 409,
// 429) or that could not be translated.
func (l *LLM) Complete(ctx context.Context, req swc.LLMRequest) (swc.LLMResponse, error) {
	params, err := toChatParams(req, l.cfg.Provider, l.model, l.cfg.MaxTokens)
	if err != nil {
		return swc.LLMResponse{}, err
	}
	var res *openai.ChatCompletion
	n, v, err := l.runner.Do(ctx, func(ctx context.Context) error {
		r, err := l.client.Chat.Completions.New(ctx, params)
		res = r
		return err
	})
	if err != nil {
		return swc.LLMResponse{}, retry.Failed(l.cfg.Provider, l.model, n, v, err)
	}
	return fromChat(res, l.cfg.Provider, l.model)
}
