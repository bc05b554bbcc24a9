package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/swcmem/swc"
)

// defaultJudge is the paper's judge model.
const defaultJudge = "anthropic:claude-haiku-4-5-20251001"

// judgeSpec returns the judge model: --judge, else the paper's judge when
// the QA model is Anthropic's, else the QA model itself.
func judgeSpec(qa, judge string) string {
	switch {
	case judge != "":
		return judge
	case strings.HasPrefix(qa, "anthropic:"):
		return defaultJudge
	}
	return qa
}

// openBenchLLMs returns the QA and judge models, or nils when offline.
func openBenchLLMs(ctx context.Context, env *Env, eng *engines, f *benchFlags) (qa, judge swc.LLM, err error) {
	if f.qa == "" {
		return nil, nil, nil
	}
	if qa, err = eng.llm(ctx, env, f.qa); err != nil {
		return nil, nil, fmt.Errorf("--qa: %w", err)
	}
	if judge, err = eng.llm(ctx, env, judgeSpec(f.qa, f.judge)); err != nil {
		return nil, nil, fmt.Errorf("--judge: %w", err)
	}
	return qa, judge, nil
}
