package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/usage"
)

func init() {
	register("score", "rescore predictions made anywhere with LoCoMo F1 (and a judge)", runScore)
}

type scoreSummary struct {
	// Categories maps "1".."5" and "1-4" to metric → estimate.
	Categories map[string]map[string]bench.Stat `json:"categories"`
	Rows       int                              `json:"rows"`
	Errors     int                              `json:"errors"`
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
	evalRows, isEval, err := parseEvalFile(raw, name)
	if err != nil {
		return err
	}
	if !isEval && gf.gold == bench.GoldCorrected {
		return swc.Errorf(swc.EINVALID, "score: --gold corrected needs rows mapped to LoCoMo's questions: give an evaluation file (detailed_results) and --data locomo10.json")
	}
	if !isEval {
		if err := checkJSONLShape(raw, name); err != nil {
			return err
		}
	}
	var rows []prediction
	if !isEval {
		if rows, err = readPredictions(bytes.NewReader(raw), name); err != nil {
			return err
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
	sum, err := scoreRows(ctx, rows, judge, prompt, opts.prov.concurrency, *resamples, *seed)
	if err != nil {
		return err
	}
	if *asJSON {
		out := struct {
			Rows    []map[string]any `json:"rows"`
			Summary scoreSummary     `json:"summary"`
		}{Rows: make([]map[string]any, len(rows)), Summary: sum}
		for i, p := range rows {
			out.Rows[i] = p.fields
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
func judgeFailures(sum scoreSummary) error {
	if sum.Errors == 0 {
		return nil
	}
	return swc.Errorf(swc.EUNAVAILABLE, "score: %d rows could not be judged (their judge_error is in --json); rerunning the same command asks the judge again", sum.Errors)
}

// prediction is one input row: its fields as read, and what scoring needs.
type prediction struct {
	fields            map[string]any
	question, gold, p string
	category          swc.Category
}

// readPredictions reads JSONL rows; a row without prediction or category,
// or with a category outside 1–5, is an error naming its line.
func readPredictions(r io.Reader, name string) ([]prediction, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []prediction
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var fields map[string]any
		if err := dec.Decode(&fields); err != nil {
			return nil, swc.Errorf(swc.EINVALID, "score: %s:%d: not a JSON object: %v", name, line, err)
		}
		p := prediction{fields: fields}
		p.question = text(fields["question"])
		p.gold = text(fields["answer"])
		pv, ok := fields["prediction"]
		if !ok {
			return nil, swc.Errorf(swc.EINVALID, "score: %s:%d: missing field \"prediction\"", name, line)
		}
		ps, isString := pv.(string)
		if !isString {
			return nil, swc.Errorf(swc.EINVALID, "score: %s:%d: prediction: want a string answer, found %s", name, line, kindOf(pv))
		}
		p.p = strings.TrimSpace(ps)
		cat, err := strconv.Atoi(text(fields["category"]))
		if err != nil || !swc.Category(cat).Valid() {
			return nil, swc.Errorf(swc.EINVALID, "score: %s:%d: category must be 1–5, found %q", name, line, text(fields["category"]))
		}
		p.category = swc.Category(cat)
		if p.gold == "" && p.category != swc.Adversarial {
			return nil, swc.Errorf(swc.EINVALID, "score: %s:%d: missing field \"answer\" (the gold answer)", name, line)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, swc.Errorf(swc.EINVALID, "score: %s: %v", name, err)
	}
	if len(out) == 0 {
		return nil, swc.Errorf(swc.EINVALID, "score: %s: no rows", name)
	}
	return out, nil
}

func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(x)
	case json.Number:
		return x.String()
	}
	return fmt.Sprint(v)
}

// scoreRows adds "f1" (and "judge", "verdict" or "judge_error") to every
// row and summarises per category. Judge calls run conc at a time; it
// returns ctx's error when the run is interrupted.
func scoreRows(ctx context.Context, rows []prediction, judge swc.LLM, prompt func(question, gold, answer string) string, conc, resamples int, seed uint64) (scoreSummary, error) {
	sum := scoreSummary{Categories: map[string]map[string]bench.Stat{}, Rows: len(rows)}
	gold := func(p prediction) string {
		if p.category == swc.Adversarial { // as bench.GoldFor
			return bench.AdversarialGold
		}
		return p.gold
	}
	for _, p := range rows {
		f1, _ := bench.F1(p.category, p.p, gold(p)) // the category was validated
		p.fields["f1"] = f1
	}
	if judge != nil {
		var wg sync.WaitGroup
		sem := make(chan struct{}, max(conc, 1))
		for _, p := range rows {
			if ctx.Err() != nil {
				break
			}
			wg.Add(1)
			sem <- struct{}{}
			go func(p prediction) {
				defer wg.Done()
				defer func() { <-sem }()
				resp, err := judge.Complete(ctx, bench.JudgeRequest(prompt(p.question, gold(p), p.p)))
				var v float64
				if err == nil {
					v, err = bench.ParseVerdict(resp.Text)
				}
				// Each goroutine writes only its own row's map.
				if resp.Text != "" {
					p.fields["verdict"] = resp.Text
				}
				if err != nil {
					p.fields["judge_error"] = err.Error()
					return
				}
				p.fields["judge"] = v
			}(p)
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return sum, err
		}
	}
	vals := map[string]map[string][]float64{}
	for _, p := range rows {
		for _, m := range []string{bench.MetricF1, bench.MetricJudge} {
			v, ok := p.fields[m].(float64)
			if !ok {
				continue
			}
			for _, key := range []string{strconv.Itoa(int(p.category)), "1-4"} {
				if key == "1-4" && p.category == swc.Adversarial {
					continue
				}
				if vals[key] == nil {
					vals[key] = map[string][]float64{}
				}
				vals[key][m] = append(vals[key][m], v)
			}
		}
		if _, failed := p.fields["judge_error"]; failed {
			sum.Errors++
		}
	}
	for key, ms := range vals {
		sum.Categories[key] = map[string]bench.Stat{}
		for m, xs := range ms {
			sum.Categories[key][m] = bench.StatOf(bench.Bootstrap(xs, resamples, seed))
		}
	}
	return sum, nil
}
