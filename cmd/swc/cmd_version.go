package main

import (
	"context"
	"fmt"
	"runtime"

	"github.com/swcmem/swc/tokens"
)

func init() {
	register("version", "print the version", func(ctx context.Context, env *Env, args []string) error {
		fs := newFlags(env, "version", "")
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if err := noArgs(fs); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "swc %s (%s, tokenizer %s)\n", Version, runtime.Version(), tokens.Name)
		return nil
	})
}
