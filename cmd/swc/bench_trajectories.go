package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/memory"
	"github.com/swcmem/swc/report"
	"github.com/swcmem/swc/tokens"
	"github.com/swcmem/swc/trajectory"
)

// defaultTrajectoryBudgets are --budgets' default under --trajectories.
const defaultTrajectoryBudgets = "8000,16000,32000"

// defaultTrajectoryOut is --out's default under --trajectories (not the
// LoCoMo bench's directory: the two write different rows).
const defaultTrajectoryOut = "swc-bench-trajectories"

// trajectoryFlags are bench's settings that apply under --trajectories.
var trajectoryFlags = map[string]bool{"trajectories": true, "out": true, "budgets": true, "conditions": true, "strategies": true, "windows": true, "conversations": true, "save-contexts": true, "cpuprofile": true, "memprofile": true, "memory-limit": true}

// parseWindow reads one of --windows: KEEP/EVERY, or KEEP/EVERY/STUB
// with a stub size, or KEEP/EVERY/STUB/TURN with an old assistant turn's
// most tokens of prose too (swc serve's --stub-tokens and --turn-tokens; 0, or without it: the
// default).
func parseWindow(w string) (keep, every, stub, turn int, err error) {
	n, _ := fmt.Sscanf(w, "%d/%d/%d/%d", &keep, &every, &stub, &turn)
	switch {
	case n == 4 && fmt.Sprintf("%d/%d/%d/%d", keep, every, stub, turn) == w:
		if stub != 0 && stub < minStubTokens {
			return 0, 0, 0, 0, usagef("bench: --windows %q: a stub of at least %d tokens, please (got %d)", w, minStubTokens, stub)
		}
		if turn != 0 && turn != -1 && turn < minTurnTokens {
			return 0, 0, 0, 0, usagef("bench: --windows %q: a turn of at least %d tokens, or -1 for whole turns, please (got %d)", w, minTurnTokens, turn)
		}
	case n == 2 && fmt.Sprintf("%d/%d", keep, every) == w:
		stub = 0
	case n == 3 && fmt.Sprintf("%d/%d/%d", keep, every, stub) == w:
		if stub != 0 && stub < minStubTokens {
			return 0, 0, 0, 0, usagef("bench: --windows %q: a stub of at least %d tokens, please (got %d)", w, minStubTokens, stub)
		}
	default:
		return 0, 0, 0, 0, usagef("bench: --windows %q: want KEEP/EVERY, KEEP/EVERY/STUB_TOKENS or KEEP/EVERY/STUB_TOKENS/TURN_TOKENS, e.g. 2/3, 2/3/80 or 2/3/0/-1", w)
	}
	return keep, every, stub, turn, nil
}

// trajectoryConditions returns the conditions of the trajectory bench:
// the baselines and swc (memory.DefaultOptions, as compress and the proxy
// run it), then one more per extra compressor strategy and per extra
// tool-loop window (KEEP/EVERY), all filtered by --conditions when it is
// set, which may name swc-hold too (swc holding the budget).
func trajectoryConditions(conditions, strategies, windows string) ([]trajectory.Condition, error) {
	base, err := memory.New(memory.DefaultOptions())
	if err != nil {
		return nil, err
	}
	all := []trajectory.Condition{trajectory.Truncation{}, trajectory.Mask{K: 5}, trajectory.Mask{K: 10}, trajectory.TrimHalf{}, trajectory.NewSWC("swc", base)}
	for _, name := range splitList(strategies) {
		o := memory.DefaultOptions()
		o.Strategy = name
		c, err := memory.New(o)
		if err != nil {
			return nil, usagef("bench: --strategies: %s", swc.ErrorMessage(err))
		}
		all = append(all, trajectory.NewSWC(name, c))
	}
	for _, w := range splitList(windows) {
		keep, every, stub, turn, err := parseWindow(w)
		if err != nil {
			return nil, err
		}
		k, e, err := loopWindow(keep, every)
		if err != nil {
			return nil, usagef("bench: --windows %q: %s", w, swc.ErrorMessage(err))
		}
		o := memory.DefaultOptions()
		o.LoopKeep, o.LoopEvery, o.StubTokens = k, e, stub
		if turn != 0 {
			o.TurnTokens = turn
		}
		c, err := memory.New(o)
		if err != nil {
			return nil, err
		}
		all = append(all, trajectory.NewSWC("swc-"+strings.ReplaceAll(w, "/", "-"), c))
	}
	want := splitList(conditions)
	if len(want) == 0 {
		return all, nil
	}
	// Run only when named: swc holding the budget (Options.HoldBudget,
	// swc serve --hold-budget).
	ho := memory.DefaultOptions()
	ho.HoldBudget = true
	hold, err := memory.New(ho)
	if err != nil {
		return nil, err
	}
	all = append(all, trajectory.NewSWC("swc-hold", hold))
	var out []trajectory.Condition
	var names []string
	for _, c := range all {
		names = append(names, c.Name())
	}
	for _, w := range want {
		i := slices.Index(names, w)
		if i < 0 {
			return nil, usagef("bench: --conditions %q: under --trajectories the conditions are %s (more swc strategies with --strategies)", w, strings.Join(names, ", "))
		}
		out = append(out, all[i])
	}
	return out, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// runTrajectoryBench is `swc bench --trajectories DIR`: every request of
// every trajectory in DIR (or those --conversations names) compressed
// under every condition at every budget, rows in OUT/results.jsonl as
// they are made (a rerun resumes), with --save-contexts each request as
// sent in OUT/requests.jsonl, then summary.json, summary.csv, report.md
// and report.html.
func runTrajectoryBench(ctx context.Context, env *Env, fs *flag.FlagSet, f *benchFlags) error {
	var other []string
	outSet := false
	fs.Visit(func(fl *flag.Flag) {
		outSet = outSet || fl.Name == "out"
		if !trajectoryFlags[fl.Name] {
			other = append(other, "--"+fl.Name)
		}
	})
	if !outSet {
		f.out = defaultTrajectoryOut
	}
	if len(other) > 0 {
		return usagef("bench: %s do not apply under --trajectories (it takes --out, --budgets, --conditions, --strategies, --windows, --conversations, --save-contexts, --cpuprofile, --memprofile and --memory-limit)", strings.Join(other, ", "))
	}
	if f.budgets == "" {
		f.budgets = defaultTrajectoryBudgets
	}
	budgets, err := parseBudgets(f.budgets)
	if err != nil {
		return err
	}
	conds, err := trajectoryConditions(f.conditions, f.strategies, f.windows)
	if err != nil {
		return err
	}
	var skipped []string
	trajs, hash, err := trajectory.LoadSkipping(f.trajectories, func(err error) {
		msg := strings.TrimPrefix(swc.ErrorMessage(err), "trajectory: ")
		skipped = append(skipped, msg)
		fmt.Fprintf(env.Stderr, "swc: bench: warning: %s; skipped\n", msg)
	})
	if err != nil {
		return err
	}
	if trajs, err = trajectory.Pick(trajs, f.conversations); err != nil {
		return fmt.Errorf("bench: --conversations: %w", err)
	}
	dir := f.out
	lock, err := bench.LockDir(dir)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := trajectory.CheckResume(dir, trajectory.ResumeKey{DataSHA256: hash, Tokenizer: tokens.Name, Version: Version}); err != nil {
		return err
	}
	res, err := trajectory.OpenResults(dir)
	if err != nil {
		return err
	}
	defer res.Close()
	if n := res.Len(); n > 0 {
		fmt.Fprintf(env.Stderr, "swc: bench: resuming: %d rows already in %s\n", n, filepath.Join(dir, trajectory.ResultsFile))
	}
	settings := trajectory.Settings{Data: f.trajectories, DataSHA256: hash, Skipped: skipped, Budgets: budgets, Tokenizer: tokens.Name, Version: Version}
	for _, t := range trajs {
		settings.Trajectories = append(settings.Trajectories, t.Name)
	}
	for _, c := range conds {
		settings.Conditions = append(settings.Conditions, c.Name())
	}
	bar := newProgress(env.Stderr, env.StderrTTY, "bench trajectories", "requests", time.Now)
	defer bar.clear()
	var sentBodies func(trajectory.Row, []byte) error
	if f.saveContexts && res.Len() > 0 {
		fmt.Fprintf(env.Stderr, "swc: bench: warning: --save-contexts writes the bodies of the rows this run makes; the %d rows already in %s get none from it (a new --out has every body)\n", res.Len(), filepath.Join(dir, trajectory.ResultsFile))
	}
	if f.saveContexts {
		bodies, err := trajectory.OpenBodies(dir)
		if err != nil {
			return err
		}
		defer bodies.Close()
		sentBodies = bodies.Write
	}
	runner := &trajectory.Runner{Trajectories: trajs, Conditions: conds, Budgets: budgets, Done: res.Done, Write: res.Write, Sent: sentBodies,
		Progress: func(done, total int) {
			bar.update(done, total)
			if benchProgressHook != nil {
				benchProgressHook(done, total)
			}
		},
		Skipped: func(err error) { fmt.Fprintf(env.Stderr, "swc: bench: warning: %v; skipped\n", err) }}
	fmt.Fprintf(env.Stderr, "swc: bench: %s\n", runner)
	start := time.Now()
	if err := runner.Run(ctx); err != nil {
		return fmt.Errorf("bench: %w (finished rows are kept in %s; rerun the same command to resume)", err, dir)
	}
	writeHeap()
	bar.step("summarising and writing reports…")
	sum := trajectory.Summarize(settings, res.Rows())
	if err := report.WriteTrajectories(dir, sum); err != nil {
		return err
	}
	bar.clear()
	printTrajectoryTable(env, sum)
	fmt.Fprintf(env.Stderr, "swc: bench: %d rows in %s; wrote %s\n", res.Len(), time.Since(start).Round(time.Millisecond), dir)
	fmt.Fprintf(env.Stderr, "swc: bench: open %s\n", filepath.Join(dir, report.HTMLFile))
	return nil
}

// printTrajectoryTable prints the summary's main figures, a line per cell.
func printTrajectoryTable(env *Env, s *trajectory.Summary) {
	fmt.Fprintf(env.Stdout, "%-10s %6s  %-14s %6s %5s %8s %5s %7s %6s %6s %9s %8s %8s %7s %7s %7s %6s %10s\n", "format", "budget", "condition", "FRR", "n", "FRR-over", "n", "recFRR", "missed", "own", "sent/raw", "refused", "breaches", "stable", "cached", "marks", "cost", "p50/p99ms")
	for _, c := range s.Cells {
		frr, over, stable, cached, marks, rec, missed, own, cost := "—", "—", "—", "—", "—", "—", "—", "—", "—"
		if c.CostRatio > 0 {
			cost = fmt.Sprintf("%.3f", c.CostRatio)
		}
		if c.ORRN > 0 {
			own = fmt.Sprintf("%.3f", c.ORR)
		}
		if c.FRRN > 0 {
			frr, rec = fmt.Sprintf("%.3f", c.FRR), fmt.Sprintf("%.3f", c.RecFRR)
			n := 0
			for _, k := range c.Misses {
				n += k
			}
			missed = strconv.Itoa(n)
		}
		if c.FRROverN > 0 {
			over = fmt.Sprintf("%.3f", c.FRROver)
		}
		if c.Pairs > 0 {
			stable = fmt.Sprintf("%.1f%%", 100*c.StableShare)
			cached = fmt.Sprintf("%.1f%%", 100*c.CachedShare)
			if c.Format == string(chat.Anthropic) {
				marks = fmt.Sprintf("%.1f%%", 100*c.MarkCachedShare)
			}
		}
		fmt.Fprintf(env.Stdout, "%-10s %6d  %-14s %6s %5d %8s %5d %7s %6s %6s %9.3f %8s %8d %7s %7s %7s %6s %10s\n", c.Format, c.Budget, c.Condition, frr, c.FRRN, over, c.FRROverN, rec, missed, own, c.Ratio,
			fmt.Sprintf("%d/%d", c.Refusals, c.Requests), c.Breaches, stable, cached, marks, cost, fmt.Sprintf("%.1f/%.1f", c.WallP50, c.WallP99))
	}
	in := map[string]int{} // per format: requests that break a rule as the agent sent them
	for _, c := range s.Cells {
		in[c.Format] = max(in[c.Format], c.InputBreaches)
	}
	for _, f := range s.Formats {
		if n := in[f]; n > 0 {
			fmt.Fprintf(env.Stderr, "swc: bench: warning: %d %s requests break a provider rule as the agent sent them (results.jsonl: input_breaches); breaches counts only what a condition broke\n", n, f)
		}
	}
}
