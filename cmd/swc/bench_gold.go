package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bench"
)

// goldFlags are the flags that choose the gold answers and the judge
// prompt, shared by bench and score.
type goldFlags struct {
	gold, audit, judgePrompt string
}

func (g *goldFlags) add(fs interface {
	StringVar(p *string, name, value, usage string)
}) {
	fs.StringVar(&g.gold, "gold", bench.GoldOriginal, "gold answers: original (LoCoMo's, the paper's) or corrected (the LoCoMo audit's corrections; needs its errors.json)")
	fs.StringVar(&g.audit, "audit", "", "the LoCoMo audit's errors.json (default: ../locomo-audit/errors.json beside the --data file's directory)")
	fs.StringVar(&g.judgePrompt, "judge-prompt", bench.JudgePromptPaper, "judge prompt: paper (the paper's, verbatim) or strict (ours: asks for the specific fact; see docs/benchmark.md)")
}

// check validates the choices (usage errors, exit status 2).
func (g *goldFlags) check(cmd string) error {
	if g.gold != bench.GoldOriginal && g.gold != bench.GoldCorrected {
		return usagef("%s: --gold must be original or corrected, not %q", cmd, g.gold)
	}
	if _, err := bench.JudgePromptFor(g.judgePrompt); err != nil {
		return usagef("%s: --judge-prompt must be paper or strict, not %q", cmd, g.judgePrompt)
	}
	return nil
}

// loadGold applies the audit to all (bench.LoadGold) and prints what the
// user must know: the audit's warnings, or why an audit found was not used.
func loadGold(env *Env, cmd string, g *goldFlags, dataPath string, all []*swc.Conversation) (*bench.GoldSetup, error) {
	setup, err := bench.LoadGold(bench.GoldOptions{Gold: g.gold, Audit: g.audit, Data: dataPath}, all)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	if setup.Skipped != "" {
		fmt.Fprintf(env.Stderr, "swc: %s: %s\n", cmd, setup.Skipped)
	}
	for _, w := range setup.Warnings {
		fmt.Fprintf(env.Stderr, "swc: warning: audit: %s\n", w)
	}
	return setup, nil
}

func ceilingCell(m map[string]float64, key string) string {
	v, ok := m[key]
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.3f", v)
}

// printGoldLine says which gold was used and what the audit changed.
func printGoldLine(w io.Writer, g *bench.GoldSummary) {
	if g == nil {
		return
	}
	var parts []string
	for _, k := range []string{"1-4", "1", "2", "3", "4"} {
		counts := g.Changed
		if g.Option == bench.GoldOriginal {
			counts = g.Faulted
		}
		if c, ok := counts[k]; ok {
			parts = append(parts, fmt.Sprintf("cat %s: %d answers, %d evidence", k, c.Answer, c.Evidence))
		}
	}
	verb := "changed"
	if g.Option == bench.GoldOriginal {
		verb = "faults (not applied)"
	}
	fmt.Fprintf(w, "gold: %s; the audit (%d entries, %s) %s on the matched set: %s\n", g.Option, g.Entries, g.Audit, verb, strings.Join(parts, "; "))
}
