package main

import (
	"context"
	"io"

	"github.com/swcmem/swc"
)

func init() {
	register("render", "print the full rendered transcript of a conversation", runRender)
}

func runRender(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "render", "[--data FILE | --input FILE [--format F]] [--conversation ID]")
	data := addDataFlags(fs)
	id := fs.String("conversation", "", "sample id or 0-based position (default: the first)")
	in := addInputFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := in.check(data.path); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("render: unexpected argument %q", fs.Arg(0))
	}
	if *id == "" {
		*id = "0"
	}
	_, picked, err := loadPicked(env, data, in, *id)
	if err != nil {
		return err
	}
	for _, c := range picked {
		if _, err := io.WriteString(env.Stdout, swc.RenderConversation(c)); err != nil {
			return err
		}
	}
	return nil
}
