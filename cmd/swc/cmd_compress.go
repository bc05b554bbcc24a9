package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/strategy"
	"github.com/swcmem/swc/tokens"
)

func init() {
	register("compress", "compress a conversation into a budgeted context", runCompress)
	register("inspect", "show where each session landed under a strategy, and why", runInspect)
}

// compressCmd is what compress and inspect share.
type compressCmd struct {
	data           *dataFlags
	conv, strategy string
	upto           int
	eng            *engineFlags
	chat           *chatFlags
	isChat         bool        // compress chat messages (memory package)
	input          *chat.Input // --input's messages as read (nil for LoCoMo)
	body           []byte      // --input's bytes, trimmed
}

func parseCompress(env *Env, name, usage string, args []string) (*compressCmd, *bool, error) {
	fs := newFlags(env, name, usage+"\n\n"+strategyHelp())
	c := &compressCmd{}
	c.data = addDataFlags(fs)
	fs.StringVar(&c.conv, "conversation", "", "sample id or 0-based position (default: the first)")
	fs.StringVar(&c.strategy, "strategy", strategy.Default, "one of "+strings.Join(strategy.Names(strategy.All), ", ")+" (listed below)")
	fs.IntVar(&c.upto, "upto", 0, "compress only the first N sessions (0 = all)")
	asJSON := fs.Bool("json", false, "print the context and its report as JSON")
	c.eng = addEngineFlags(fs)
	c.chat = addChatFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return nil, nil, err
	}
	if fs.NArg() > 0 {
		return nil, nil, usagef("%s: unexpected argument %q", name, fs.Arg(0))
	}
	if c.upto < 0 {
		return nil, nil, usagef("--upto must not be negative")
	}
	var err error
	if c.isChat, err = c.chat.check(c.data.path, c.upto); err != nil {
		return nil, nil, err
	}
	if *asJSON && c.isChat && c.chat.output != "json" {
		return nil, nil, usagef("--json with chat messages: use --output-format json")
	}
	return c, asJSON, nil
}

// strategyHelp lists the strategies with what each keeps (package
// strategy), for the usage of the commands that take --strategy.
func strategyHelp() string {
	var b strings.Builder
	b.WriteString("Strategies (--strategy, default " + strategy.Default + "; for chat messages " + strings.Join(strategy.Names(strategy.ForCompressor), ", ") +
		"). The question-aware ones are built per question by swc bench; here they have none.\n")
	for _, i := range strategy.List() {
		doc := i.Doc
		if i.QueryAware {
			doc += " (question-aware)"
		}
		fmt.Fprintf(&b, "  %-18s %s\n", i.Name, doc)
	}
	return strings.TrimRight(b.String(), "\n")
}

// run loads the data and compresses the chosen conversation.
func (c *compressCmd) run(ctx context.Context, env *Env) (*swc.Context, error) {
	eng, err := openEngines(ctx, env, c.eng)
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	strat, err := eng.strategy(c.strategy)
	if err != nil {
		return nil, err
	}
	if c.conv == "" {
		c.conv = "0"
	}
	_, picked, err := loadPicked(env, c.data, nil, c.conv)
	if err != nil {
		return nil, err
	}
	if len(picked) != 1 {
		return nil, usagef("--conversation names one conversation")
	}
	conv := picked[0]
	if n := len(conv.Sessions); c.upto > n {
		return nil, usagef("--upto %d: %s has only %s", c.upto, conv.ID, count(n, "session", "sessions"))
	}
	if err := checkBudget(c.eng.budget, picked); err != nil {
		return nil, err
	}
	out, err := strat.Compress(ctx, conv, swc.CompressOptions{Budget: c.eng.budget, Upto: c.upto})
	if err != nil {
		return nil, err
	}
	eng.printUsage(env.Stderr)
	return out, nil
}

// checkBudget returns a usage error when budget cannot hold even the
// smallest session of convs as a header and one turn, so that a context
// would come out empty; the message gives the smallest useful budget.
func checkBudget(budget int, convs []*swc.Conversation) error {
	if least := leastBudget(convs); least > 0 && budget < least {
		return usagef("--budget %d is too small: no session header and turn fit, the context would be empty; the smallest useful budget here is %d tokens", budget, least)
	}
	return nil
}

// leastBudget returns the fewest tokens a session header and its first
// turn take in convs (0 when no session has a turn).
func leastBudget(convs []*swc.Conversation) int {
	least := 0
	for _, c := range convs {
		for i := range c.Sessions {
			s := &c.Sessions[i]
			if len(s.Turns) == 0 {
				continue
			}
			if n := tokens.Header(s) + tokens.Turn(s.Turns[0]); least == 0 || n < least {
				least = n
			}
		}
	}
	return least
}

func runCompress(ctx context.Context, env *Env, args []string) error {
	c, asJSON, err := parseCompress(env, "compress", "[--data FILE | --input FILE [--format F]] [--conversation ID] [--strategy NAME] [--budget 4000] [--keep-recent 8] [--tokenizer T] [--output-format text|openai|anthropic|json|request] [--gister …] [--embedder …] [--schedule …] [--json]", args)
	if err != nil {
		return err
	}
	if c.isChat {
		res, err := c.runChat(ctx, env)
		if err != nil {
			return err
		}
		if c.chat.output == "request" {
			return writeRequest(env.Stdout, c.input, c.body, res)
		}
		return writeChat(env.Stdout, res, c.chat.output)
	}
	out, err := c.run(ctx, env)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(env.Stdout, out)
	}
	_, err = io.WriteString(env.Stdout, out.Text)
	fmt.Fprintf(env.Stderr, "swc: %s: %d tokens (budget %d), %s dropped or cut\n", out.Strategy, out.Tokens, out.Budget, count(len(out.Dropped), "session", "sessions"))
	return err
}

func runInspect(ctx context.Context, env *Env, args []string) error {
	c, asJSON, err := parseCompress(env, "inspect", "[--data FILE | --input FILE [--format F]] [--conversation ID] [--strategy NAME] [--budget 4000] [chat and engine flags]", args)
	if err != nil {
		return err
	}
	if c.isChat {
		res, err := c.runChat(ctx, env)
		if err != nil {
			return err
		}
		if c.chat.output == "json" {
			return writeJSON(env.Stdout, res)
		}
		printGrouping(env.Stdout, res)
		if res.Context != nil && len(res.Context.Chunks) > 0 {
			printInspect(env.Stdout, res.Context, env.StdoutTTY && env.Vars["NO_COLOR"] == "")
		}
		return nil
	}
	out, err := c.run(ctx, env)
	if err != nil {
		return err
	}
	if *asJSON {
		out.Text = ""
		return writeJSON(env.Stdout, out)
	}
	printInspect(env.Stdout, out, env.StdoutTTY && env.Vars["NO_COLOR"] == "")
	return nil
}

// printInspect writes the per-chunk table; colour marks the action when
// colour is true.
func printInspect(w io.Writer, out *swc.Context, colour bool) {
	fmt.Fprintf(w, "%s: %d tokens of %d budget", out.Strategy, out.Tokens, out.Budget)
	if out.Schedule != "" {
		fmt.Fprintf(w, ", schedule %s (consolidated after sessions %v)", out.Schedule, out.Consolidations)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "session\tdate\ttokens\tdownstream\trecency\tdensity\tscore\ttier\tpinned\taction\tgist\twhy")
	for _, ch := range out.Chunks {
		pinned := ""
		if ch.Pinned {
			pinned = "yes"
		}
		action := string(ch.Action)
		if colour {
			action = colourAction(ch.Action) + action + "\x1b[0m"
		}
		gist := ""
		if ch.GistTokens > 0 {
			gist = fmt.Sprint(ch.GistTokens)
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t%s\t%s\t%s\t%s\n",
			ch.Session+1, ch.Date, ch.Tokens, ch.Signals.Downstream, ch.Signals.Recency, ch.Signals.Density, ch.Score, ch.Tier, pinned, action, gist, ch.Reason)
	}
	tw.Flush()
	tiers := map[swc.Tier]int{}
	for _, ch := range out.Chunks {
		tiers[ch.Tier]++
	}
	if len(tiers) > 0 && out.Chunks[0].Tier != "" {
		fmt.Fprintf(w, "tiers: %d high, %d mid, %d low\n", tiers[swc.TierHigh], tiers[swc.TierMid], tiers[swc.TierLow])
	}
	for _, d := range out.Dropped {
		if d.Turns > 0 {
			fmt.Fprintf(w, "cut: session %d, %s: %s\n", d.Session+1, count(d.Turns, "turn", "turns"), d.Reason)
		} else {
			fmt.Fprintf(w, "dropped: session %d: %s\n", d.Session+1, d.Reason)
		}
	}
}

func colourAction(a swc.Action) string {
	switch a {
	case swc.ActionVerbatim:
		return "\x1b[32m"
	case swc.ActionGist:
		return "\x1b[33m"
	case swc.ActionPartial:
		return "\x1b[36m"
	}
	return "\x1b[31m"
}
