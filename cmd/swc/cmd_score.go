package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/bench/evalfile"
	"github.com/swcmem/swc/usage"
)

func init() {
	register("score", "rescore predictions made anywhere with LoCoMo F1 (and a judge)", runScore)
}

func runScore(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "score", "--pred FILE [--data locomo10.json] [--gold original|corrected] [--judge PROVIDER:MODEL [--judge-prompt paper|strict]] [--json]")
	pred := fs.String("pred", "", "predictions (- for stdin): JSONL rows with question, answer (gold), prediction, category (other fields are kept), or a Mem0/MemOS/EverMemOS evaluation file {\"detailed_results\": …} (needs --data)")
	data := fs.String("data", "", "LoCoMo's locomo10.json, to map an evaluation file's rows to LoCoMo's questions")
	var gf goldFlags
	gf.add(fs)
	judgeSpec := fs.String("judge", "", "also ask this judge model (paper prompt), e.g. anthropic:claude-haiku-4-5-20251001")
	asJSON := fs.Bool("json", false, `print {"rows": [...], "summary": {...}}`)
	seed := fs.Uint64("seed", 42, "bootstrap seed")
	resamples := fs.Int("resamples", 2000, "bootstrap resamples")
	// Only what the judge needs: provider and cache flags.
	opts := &engineFlags{prov: addProviderFlags(fs)}
	opts.cache.add(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *pred == "" {
		return usagef("score: --pred FILE is required")
	}
	if err := gf.check("score"); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("score: unexpected argument %q", fs.Arg(0))
	}
	var r io.Reader = env.Stdin
	name := "stdin"
	if *pred != "-" {
		f, err := os.Open(*pred)
		if err != nil {
			return swc.Errorf(swc.ENOTFOUND, "score: %v", err)
		}
		defer f.Close()
		r, name = f, *pred
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return swc.Errorf(swc.EINVALID, "score: %s: %v", name, err)
	}
	evalRows, isEval, err := evalfile.Parse(raw, name)
	if err != nil {
		return fmt.Errorf("score: %w", err)
	}
	if !isEval && gf.gold == bench.GoldCorrected {
		return swc.Errorf(swc.EINVALID, "score: --gold corrected needs rows mapped to LoCoMo's questions: give an evaluation file (detailed_results) and --data locomo10.json")
	}
	if !isEval {
		if err := evalfile.CheckShape(raw, name); err != nil {
			return fmt.Errorf("score: %w", err)
		}
	}
	var rows []evalfile.Prediction
	if !isEval {
		if rows, err = evalfile.ReadPredictions(bytes.NewReader(raw), name); err != nil {
			return fmt.Errorf("score: %w", err)
		}
	}
	var judge swc.LLM
	e := &engines{flags: opts, meter: &usage.Meter{}}
	defer e.Close()
	if *judgeSpec != "" {
		if judge, err = e.llm(ctx, env, *judgeSpec); err != nil {
			return fmt.Errorf("--judge: %w", err)
		}
	}
	if isEval {
		err := scoreEval(ctx, env, evalRows, name, scoreEvalOptions{data: *data, gold: &gf, judge: judge,
			conc: opts.prov.concurrency, resamples: *resamples, seed: *seed, asJSON: *asJSON})
		if err == nil {
			e.printUsage(env.Stderr)
		}
		return err
	}
	prompt, _ := bench.JudgePromptFor(gf.judgePrompt) // checked above
	sum, err := evalfile.ScorePredictions(ctx, rows, judge, prompt, opts.prov.concurrency, *resamples, *seed)
	if err != nil {
		return err
	}
	if *asJSON {
		out := struct {
			Rows    []map[string]any           `json:"rows"`
			Summary evalfile.PredictionSummary `json:"summary"`
		}{Rows: make([]map[string]any, len(rows)), Summary: sum}
		for i, p := range rows {
			out.Rows[i] = p.Fields
		}
		if err := writeJSON(env.Stdout, out); err != nil {
			return err
		}
		return judgeFailures(sum)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "category\tn\tF1\t95% CI\tjudge")
	for _, k := range bench.CategoryKeys {
		m, ok := sum.Categories[k]
		if !ok {
			continue
		}
		f1 := m[bench.MetricF1]
		j := "-"
		if js, ok := m[bench.MetricJudge]; ok {
			j = fmt.Sprintf("%.3f", js.Mean)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t[%.3f, %.3f]\t%s\n", k, f1.N, f1.Mean, f1.CI[0], f1.CI[1], j)
	}
	tw.Flush()
	e.printUsage(env.Stderr)
	return judgeFailures(sum)
}

// judgeFailures returns an error counting the rows the judge could not
// score (exit status 1, as bench), or nil.
func judgeFailures(sum evalfile.PredictionSummary) error {
	if sum.Errors == 0 {
		return nil
	}
	return swc.Errorf(swc.EUNAVAILABLE, "score: %d rows could not be judged (their judge_error is in --json); rerunning the same command asks the judge again", sum.Errors)
}

// scoreEvalOptions are what scoreEval needs besides the file.
type scoreEvalOptions struct {
	data      string
	gold      *goldFlags
	judge     swc.LLM
	conc      int
	resamples int
	seed      uint64
	asJSON    bool
}

// scoreEval scores an evaluation file's rows against LoCoMo
// (evalfile.Score) and prints the summary, or rows and summary as JSON.
func scoreEval(ctx context.Context, env *Env, rows []*evalfile.Row, name string, o scoreEvalOptions) error {
	if o.data == "" {
		return swc.Errorf(swc.EINVALID, "score: %s is an evaluation file (detailed_results); mapping it to LoCoMo's questions needs --data locomo10.json", name)
	}
	all, _, err := loadPicked(env, &dataFlags{path: o.data}, nil, "")
	if err != nil {
		return err
	}
	gold, err := loadGold(env, "score", o.gold, o.data, all)
	if err != nil {
		return err
	}
	prompt, _ := bench.JudgePromptFor(o.gold.judgePrompt) // checked by the caller
	sum, err := evalfile.Score(ctx, rows, evalfile.Options{Gold: gold, Option: o.gold.gold, Judge: o.judge, Prompt: prompt,
		Concurrency: o.conc, Resamples: o.resamples, Seed: o.seed})
	if err != nil {
		return fmt.Errorf("score: %w", err)
	}
	if o.asJSON {
		out := struct {
			Rows    []map[string]any `json:"rows"`
			Summary evalfile.Summary `json:"summary"`
		}{Summary: sum}
		for _, r := range rows {
			out.Rows = append(out.Rows, r.Fields)
		}
		return writeJSON(env.Stdout, out)
	}
	printEvalSummary(env.Stdout, sum)
	for _, n := range evalfile.Notes(sum, name) {
		fmt.Fprintln(env.Stderr, "swc: score: "+n)
	}
	return nil
}

// printEvalSummary prints one line per category: n, F1, the file's
// judgments, ours, and the ceiling, each estimate with its 95% CI.
func printEvalSummary(w io.Writer, sum evalfile.Summary) {
	fmt.Fprintf(w, "LoCoMo categories (by question), %s gold; mean [95%% CI]\n", sum.Gold)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := "category\tn\tF1\tfile judge\tjudge"
	if sum.Gold == bench.GoldCorrected {
		header += "\tF1 original\tjudge original"
	}
	if sum.Ceiling != nil {
		header += "\tceiling (original gold)"
	}
	fmt.Fprintln(tw, header)
	ci := func(m map[string]bench.Stat, k string) string {
		st, ok := m[k]
		if !ok {
			return "-"
		}
		return fmt.Sprintf("%.3f [%.3f, %.3f]", st.Mean, st.CI[0], st.CI[1])
	}
	for _, k := range bench.CategoryKeys {
		m, ok := sum.Categories[k]
		if !ok {
			continue
		}
		line := fmt.Sprintf("%s\t%d\t%s\t%s\t%s", k, m["f1"].N, ci(m, "f1"), ci(m, "file_judge"), ci(m, "judge"))
		if sum.Gold == bench.GoldCorrected {
			line += "\t" + ci(m, "f1_original") + "\t" + ci(m, "judge_original")
		}
		if sum.Ceiling != nil {
			line += "\t" + ceilingCell(sum.Ceiling, k)
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}
