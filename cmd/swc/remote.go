package main

import (
	"context"
)

// openLLMGister wires an LLM gister behind the REM cache.
func (e *engines) openLLMGister(ctx context.Context, env *Env) error {
	return usagef("--gister %q: LLM gisters are not wired yet (use extractive)", e.flags.gister)
}

// openRemoteEmbedder wires a remote embedder behind the embedding cache.
func (e *engines) openRemoteEmbedder(ctx context.Context, env *Env) error {
	return usagef("--embedder %q: remote embedders are not wired yet (use lexical)", e.flags.embedder)
}
