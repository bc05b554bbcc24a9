package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"text/tabwriter"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/longmemeval"
)

func init() {
	register("stats", "statistics of a dataset: sessions, turns, tokens, questions", runStats)
}

func runStats(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "stats", "[--data FILE | --input FILE [--format F]] [--json]")
	data := addDataFlags(fs)
	asJSON := fs.Bool("json", false, "print one JSON object")
	in := addInputFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := in.check(data.path); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("stats: unexpected argument %q", fs.Arg(0))
	}
	_, convs, err := loadPicked(env, data, in, "")
	if err != nil {
		return err
	}
	r := bench.ComputeDataStats(convs)
	if *asJSON {
		return writeJSON(env.Stdout, r)
	}
	printStats(env.Stdout, r)
	return nil
}

func printStats(w io.Writer, r bench.DataStats) {
	if r.Typed {
		printTypedStats(w, r)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "conversation\tsessions\tturns\ttokens\tquestions\ttext-only\tcat1\tcat2\tcat3\tcat4\tcat5\t")
	row := func(id string, s, t, tok, q, to int, cats, tcats bench.CategoryCounts) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t", id, s, t, tok, q, to)
		for _, c := range swc.Categories {
			k := strconv.Itoa(int(c))
			fmt.Fprintf(tw, "%d/%d\t", tcats[k], cats[k])
		}
		fmt.Fprintln(tw)
	}
	for _, c := range r.Conversations {
		row(c.ID, c.Sessions, c.Turns, c.Tokens, c.Questions, c.TextOnly, c.ByCategory, c.TextOnlyByCategory)
	}
	t := r.Totals
	row(fmt.Sprintf("total (%d)", t.Conversations), t.Sessions, t.Turns, t.Tokens, t.Questions, t.TextOnly, t.ByCategory, t.TextOnlyByCategory)
	tw.Flush()
	fmt.Fprintf(w, "\ntokens: %s over the rendered transcript; catN: text-only/all questions.\n", r.Tokenizer)
	fmt.Fprintf(w, "text-only: %d of %d (%d in categories 1–4, %d in category 5)\n",
		t.TextOnly, t.Questions, t.TextOnly-t.TextOnlyByCategory["5"], t.TextOnlyByCategory["5"])
}

// printTypedStats is printStats for a typed data set (LongMemEval): the
// totals by question type, abstention questions apart, and one row per
// conversation without them (each has one question).
func printTypedStats(w io.Writer, r bench.DataStats) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "conversation\tsessions\tturns\ttokens\tquestions\tfirst session\tlast session\t")
	for _, c := range r.Conversations {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t\n", c.ID, c.Sessions, c.Turns, c.Tokens, c.Questions, c.First, c.Last)
	}
	t := r.Totals
	fmt.Fprintf(tw, "total (%d)\t%d\t%d\t%d\t%d\t\t\t\n", t.Conversations, t.Sessions, t.Turns, t.Tokens, t.Questions)
	tw.Flush()
	fmt.Fprintf(w, "\ntokens: %s over the rendered transcript.\nquestions by type:", r.Tokenizer)
	keys := slices.DeleteFunc(slices.Sorted(maps.Keys(t.ByCategory)), func(k string) bool { return slices.Contains(longmemeval.Types, k) })
	for _, k := range append(slices.Clone(longmemeval.Types), keys...) {
		if n, ok := t.ByCategory[k]; ok && k != bench.KeyAbstention {
			fmt.Fprintf(w, " %s %d,", k, n)
		}
	}
	fmt.Fprintf(w, " and %d abstention questions apart\n", t.ByCategory[bench.KeyAbstention])
}
