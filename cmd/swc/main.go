// Command swc compresses long multi-session conversations into a token
// budget by Salience-Weighted Consolidation and benchmarks memory strategies
// on LoCoMo. Run "swc help" for the commands.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env := NewEnv(os.Stdin, os.Stdout, os.Stderr, os.Environ())
	if err := Run(ctx, env, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "swc:", err)
		os.Exit(exitCode(err))
	}
}
