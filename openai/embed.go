package openai

import (
	"context"
	"sync"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/retry"
)

var _ swc.Embedder = (*Embedder)(nil)

// Embedder is an embedding model behind an OpenAI-compatible /embeddings
// (OpenAI text-embedding-3-*, Ollama all-minilm, vLLM, TEI). Each vector
// depends on its text alone, so a caching decorator may look texts up one
// by one and embed only the misses (the sqlite package's cache is meant to
// wrap an swc.Embedder that way, keyed by Name). It is safe for
// concurrent use.
type Embedder struct {
	model  string
	cfg    Config
	client *client
	runner *retry.Runner
	// OnUsage, if set, is called after each successful batch with its
	// token count (InputTokens, Calls 1), e.g. to feed a usage.Meter.
	OnUsage func(swc.Usage)
}

// NewEmbedder returns an Embedder for model; apiKey may be empty for
// servers without authentication. Zero fields of cfg take their defaults
// (BatchSize 64). It returns an EINVALID *swc.Error when model is empty.
func NewEmbedder(model, apiKey string, cfg Config) (*Embedder, error) {
	cfg = cfg.withDefaults()
	if model == "" {
		return nil, swc.Errorf(swc.EINVALID, "%s: no embedding model given", cfg.Provider)
	}
	return &Embedder{model: model, cfg: cfg, client: newClient(apiKey, cfg), runner: retry.New(cfg.Config, classify)}, nil
}

// Name returns "PROVIDER:MODEL".
func (e *Embedder) Name() string { return e.cfg.Provider + ":" + e.model }

// Embed returns one vector per text, in order. Texts go in batches of
// BatchSize, sent concurrently within the Concurrency limit, each retried
// like a chat call. If any batch fails for good, Embed returns no vectors
// and that batch's error (an *swc.Error naming provider, model, status and
// attempts).
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	if len(texts) == 0 {
		return out, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	for lo := 0; lo < len(texts); lo += e.cfg.BatchSize {
		batch := texts[lo:min(lo+e.cfg.BatchSize, len(texts))]
		wg.Go(func() {
			vecs, err := e.embedBatch(ctx, batch)
			if err != nil {
				once.Do(func() { firstErr = err; cancel() })
				return
			}
			copy(out[lo:], vecs)
		})
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

func (e *Embedder) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	params := toEmbeddingParams(texts, e.model)
	var res embeddingResponse
	n, v, err := e.runner.Do(ctx, func(ctx context.Context) error {
		res = embeddingResponse{}
		return e.client.post(ctx, "/embeddings", params, &res)
	})
	if err != nil {
		return nil, retry.Failed(e.cfg.Provider, e.model, n, v, err)
	}
	vecs, u, err := fromEmbeddings(&res, len(texts), e.cfg.Provider, e.model)
	if err != nil {
		return nil, err
	}
	if e.OnUsage != nil {
		e.OnUsage(u)
	}
	return vecs, nil
}
