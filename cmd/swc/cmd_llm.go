package main

import (
	"context"
	"fmt"
	"time"

	"github.com/swcmem/swc"
)

func init() {
	register("llm", "check an LLM provider: llm ping PROVIDER:MODEL", runLLM)
}

// pingRequest is the tiny request of swc llm ping.
var pingRequest = swc.LLMRequest{
	Messages:    []swc.Message{{Role: swc.RoleUser, Content: "Reply with the single word: pong"}},
	MaxTokens:   16,
	Temperature: 0,
	Purpose:     "ping",
}

func runLLM(ctx context.Context, env *Env, args []string) error {
	const usage = "ping [flags] PROVIDER:MODEL"
	if len(args) == 0 || args[0] != "ping" {
		fs := newFlags(env, "llm", usage)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fs.Usage()
			return nil
		}
		return usagef("llm: want \"swc llm %s\"", usage)
	}
	fs := newFlags(env, "llm ping", "[flags] PROVIDER:MODEL")
	o := addProviderFlags(fs)
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("llm ping: want one PROVIDER:MODEL argument (%s)", providers)
	}
	llm, err := newLLM(env, fs.Arg(0), o)
	if err != nil {
		return err
	}
	start := time.Now()
	resp, err := llm.Complete(ctx, pingRequest)
	latency := time.Since(start)
	if err != nil {
		return fmt.Errorf("llm ping: %w", err)
	}
	fmt.Fprintf(env.Stdout, "%s (%s) replied %q in %v, %d input / %d output tokens, stop %s\n",
		llm.Name(), resp.Model, resp.Text, latency.Round(time.Millisecond), resp.Usage.InputTokens, resp.Usage.OutputTokens, resp.StopReason)
	return nil
}
