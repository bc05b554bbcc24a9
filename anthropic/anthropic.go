// Package anthropic implements swc.LLM on the Anthropic Messages API with
// the official SDK (github.com/anthropics/anthropic-sdk-go/v2). The SDK's
// own retries are off; this package retries, bounds concurrency and rate
// and times out attempts itself (see Config).
package anthropic

import (
	"context"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/swcmem/swc"
	"github.com/swcmem/swc/retry"
)

var (
	_ swc.LLM       = (*LLM)(nil)
	_ swc.WireKeyer = (*LLM)(nil)
)

// LLM is a Claude model behind the Messages API. It is safe for concurrent
// use.
type LLM struct {
	model string
	cfg   Config
	// send is the client's Messages.New. Only the method is kept, not the
	// anthropic.Client: a Client value in LLM (which goes into swc.LLM)
	// made the linker keep the methods of every service of the SDK
	// (docs/performance.md, "Binary size and release builds").
	send   func(context.Context, anthropic.MessageNewParams, ...option.RequestOption) (*anthropic.Message, error)
	runner *retry.Runner
}

// New returns an LLM for model (e.g. "claude-haiku-4-5-20251001") that
// authenticates with apiKey. Zero fields of cfg take their defaults. It
// returns an EINVALID *swc.Error when model or apiKey is empty.
func New(model, apiKey string, cfg Config) (*LLM, error) {
	if model == "" {
		return nil, swc.Errorf(swc.EINVALID, "anthropic: no model given")
	}
	if apiKey == "" {
		return nil, swc.Errorf(swc.EINVALID, "anthropic: %s: no API key (set ANTHROPIC_API_KEY)", model)
	}
	cfg = cfg.withDefaults()
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(), // read nothing from os env
		option.WithBaseURL(cfg.BaseURL),
		option.WithHTTPClient(cfg.HTTPClient),
		option.WithMaxRetries(0), // retries are ours
		option.WithAPIKey(apiKey),
		// The SDK sends the key as a bearer token; the API (and proxies
		// speaking the older versions) also read x-api-key, which wins
		// when both are present.
		option.WithHeader("x-api-key", apiKey),
	}
	if cfg.APIVersion != "" { // replaces the SDK's header
		opts = append(opts, option.WithHeader("anthropic-version", cfg.APIVersion))
	}
	client := anthropic.NewClient(opts...)
	return &LLM{model: model, cfg: cfg, send: client.Messages.New, runner: retry.New(cfg.Config, classify)}, nil
}

// WireKey returns what goes out beyond the messages: the API version and
// the temperature, or that none is sent (the SDK's version takes none).
func (l *LLM) WireKey(req swc.LLMRequest) string {
	if l.cfg.sendsTemperature() {
		return fmt.Sprintf("anthropic-version=%s temperature=%g", l.cfg.apiVersion(), req.Temperature)
	}
	return "anthropic-version=" + l.cfg.apiVersion() + " temperature=not-sent"
}

// Name returns "anthropic:MODEL".
func (l *LLM) Name() string { return "anthropic:" + l.model }

// Complete sends req, retrying transient failures. On failure it returns
// an *swc.Error naming the model, status and attempts: EUNAVAILABLE when
// retries ran out or ctx ended, EINVALID for a request the API rejected
// (4xx other than 408, 409, 429) or that could not be translated.
func (l *LLM) Complete(ctx context.Context, req swc.LLMRequest) (swc.LLMResponse, error) {
	params, err := toParams(req, l.model, l.cfg.MaxTokens)
	if err != nil {
		return swc.LLMResponse{}, err
	}
	var opts []option.RequestOption
	if l.cfg.sendsTemperature() { // the SDK's params have no field for it
		opts = append(opts, option.WithJSONSet("temperature", req.Temperature))
	}
	var msg *anthropic.Message
	n, v, err := l.runner.Do(ctx, func(ctx context.Context) error {
		m, err := l.send(ctx, params, opts...)
		msg = m
		return err
	})
	if err != nil {
		return swc.LLMResponse{}, retry.Failed("anthropic", l.model, n, v, err)
	}
	return fromMessage(msg, l.model)
}
