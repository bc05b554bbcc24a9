package main

import (
	"context"
	"io"

	"github.com/swc-project/swc"
)

// benchLLMs are the QA and judge models of a bench run.
type benchLLMs struct {
	qa, judge swc.LLM
}

// openBenchLLMs returns nil when the run is offline.
func openBenchLLMs(ctx context.Context, env *Env, eng *engines, f *benchFlags) (*benchLLMs, error) {
	if f.qa == "" {
		return nil, nil
	}
	return nil, usagef("bench: --qa %q: LLM providers are not wired yet", f.qa)
}

func (b *benchLLMs) usage() (map[string]swc.Usage, *float64) { return map[string]swc.Usage{}, nil }

func (b *benchLLMs) printUsage(w io.Writer) {}
