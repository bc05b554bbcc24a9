package evalfile

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bench"
)

// Summary is the score of an evaluation file.
type Summary struct {
	Format string `json:"format"`
	Gold   string `json:"gold"`
	// Categories maps "1".."5" and "1-4" (LoCoMo's categories, by
	// question) to metric → estimate: "f1", "file_judge" (the file's own
	// verdicts: per question the mean over runs), "judge" (ours, with a
	// judge), and with the corrected gold "f1_original" and
	// "judge_original".
	Categories map[string]map[string]bench.Stat `json:"categories"`
	// Ceiling maps a category key to the share of matched questions whose
	// gold answer the audit did not fault: the most a perfect system can
	// score against the original gold (the file's judgments were made
	// against it). Absent without the audit.
	Ceiling   map[string]float64 `json:"ceiling,omitempty"`
	Rows      int                `json:"rows"`
	Matched   int                `json:"matched"`
	Unmatched []string           `json:"unmatched"`
	// LabelMismatch counts rows whose category label in the file differs
	// from LoCoMo's category, as "label→locomo".
	LabelMismatch map[string]int `json:"label_mismatch"`
	// GoldDiffers counts rows whose golden_answer differs from LoCoMo's.
	GoldDiffers int `json:"gold_differs"`
	Errors      int `json:"errors"`
}

// Options are what Score needs besides the rows.
type Options struct {
	// Gold is the LoCoMo data with the audit applied (bench.LoadGold), and
	// Option the gold it was loaded for (bench.GoldOriginal or
	// bench.GoldCorrected).
	Gold   *bench.GoldSetup
	Option string
	// Judge, when set, is asked about every matched row with Prompt
	// (bench.JudgePromptFor), Concurrency calls at a time.
	Judge       swc.LLM
	Prompt      func(question, gold, answer string) string
	Concurrency int
	// Resamples and Seed drive the bootstrap of every estimate.
	Resamples int
	Seed      uint64
}

// Score maps rows to LoCoMo's questions and scores them: F1 against
// LoCoMo's gold, the file's own verdicts, the judge's with o.Judge, and
// ceilings when an audit was loaded. Every matched row's Fields gain
// "f1", "locomo_id", "locomo_category", "gold" and, as they apply,
// "file_judge", "judge", "verdict", "judge_error". It returns an EINVALID
// error when two rows have one question_id or map to one question, and
// ctx's error when the judging is interrupted.
func Score(ctx context.Context, rows []*Row, o Options) (Summary, error) {
	gold := o.Gold
	sum := Summary{Format: "detailed_results", Gold: o.Option, Categories: map[string]map[string]bench.Stat{},
		Rows: len(rows), Unmatched: []string{}, LabelMismatch: map[string]int{}}
	if err := match(rows, gold.Conversations); err != nil {
		return sum, err
	}
	corrected := o.Option == bench.GoldCorrected
	for _, r := range rows {
		if r.matched == nil {
			id := r.id
			if id == "" {
				id = r.question
			}
			sum.Unmatched = append(sum.Unmatched, id)
			continue
		}
		sum.Matched++
		q := r.matched
		if alt, ok := gold.Alt[q.ID]; ok {
			r.alt = &alt
			r.answerFaulted = gold.Faults[q.ID]
		}
		if r.label != "" && r.label != strconv.Itoa(int(q.Category)) && !strings.EqualFold(r.label, q.Category.String()) {
			sum.LabelMismatch[r.label+"→"+strconv.Itoa(int(q.Category))]++
		}
		orig := q
		if corrected && r.alt != nil {
			orig = r.alt
		}
		if r.fileGold != "" && normQuestion(r.fileGold) != normQuestion(bench.GoldFor(*orig)) {
			sum.GoldDiffers++
		}
	}
	if o.Judge != nil {
		judgeRows(ctx, o.Judge, o.Prompt, rows, o.Concurrency, corrected)
		if err := ctx.Err(); err != nil {
			return sum, err
		}
	}
	vals := map[string]map[string][]float64{}
	add := func(cat swc.Category, metric string, v float64) {
		for _, key := range categoryKeys(cat) {
			if vals[key] == nil {
				vals[key] = map[string][]float64{}
			}
			vals[key][metric] = append(vals[key][metric], v)
		}
	}
	faulted, total := map[string]int{}, map[string]int{}
	for _, r := range rows {
		q := r.matched
		if q == nil {
			continue
		}
		g := bench.GoldFor(*q)
		f1, _ := bench.F1(q.Category, r.answer, g) // LoCoMo's categories are valid
		r.Fields["f1"] = f1
		r.Fields["locomo_id"], r.Fields["locomo_category"], r.Fields["gold"] = q.ID, int(q.Category), g
		add(q.Category, "f1", f1)
		if len(r.judgments) > 0 {
			m := 0.0
			for _, v := range r.judgments {
				m += v
			}
			m /= float64(len(r.judgments))
			r.Fields["file_judge"] = m
			add(q.Category, "file_judge", m)
		}
		if r.judged {
			r.Fields["judge"] = r.judge
			add(q.Category, "judge", r.judge)
		}
		if r.judgeErr != "" {
			r.Fields["judge_error"] = r.judgeErr
			sum.Errors++
		}
		if r.verdict != "" {
			r.Fields["verdict"] = r.verdict
		}
		if corrected {
			og, oj := g, r.judge
			if r.alt != nil {
				og = bench.GoldFor(*r.alt)
				oj = r.altJudg
			}
			of1, _ := bench.F1(q.Category, r.answer, og)
			add(q.Category, "f1_original", of1)
			if r.judged && (r.alt == nil || r.altJudged) {
				add(q.Category, "judge_original", oj)
			}
		}
		for _, key := range categoryKeys(q.Category) {
			total[key]++
			if r.alt != nil && r.answerFaulted {
				faulted[key]++
			}
		}
	}
	sum.Categories = estimates(vals, o.Resamples, o.Seed)
	if gold.SHA256 != "" {
		sum.Ceiling = map[string]float64{}
		for key, n := range total {
			sum.Ceiling[key] = 1 - float64(faulted[key])/float64(n)
		}
	}
	return sum, nil
}

// categoryKeys returns the summary keys a question of cat counts under:
// its category, and "1-4" unless it is adversarial.
func categoryKeys(cat swc.Category) []string {
	if cat == swc.Adversarial {
		return []string{strconv.Itoa(int(cat))}
	}
	return []string{strconv.Itoa(int(cat)), "1-4"}
}

// estimates bootstraps every key's and metric's values.
func estimates(vals map[string]map[string][]float64, resamples int, seed uint64) map[string]map[string]bench.Stat {
	out := map[string]map[string]bench.Stat{}
	for key, ms := range vals {
		out[key] = map[string]bench.Stat{}
		for m, xs := range ms {
			out[key][m] = bench.StatOf(bench.Bootstrap(xs, resamples, seed))
		}
	}
	return out
}

// Notes are the remarks about a scored file named name: unmatched rows,
// category labels that differ from LoCoMo's, gold answers that differ,
// rows the judge could not score, and file verdicts above the ceiling.
func Notes(sum Summary, name string) []string {
	var out []string
	if n := len(sum.Unmatched); n > 0 {
		show := sum.Unmatched
		if len(show) > 5 {
			show = show[:5]
		}
		more := ""
		if n > 5 {
			more = ", …"
		}
		out = append(out, fmt.Sprintf("%d of %d rows of %s match no LoCoMo question (by question_id or text) and are not scored: %s", n, sum.Rows, name, strings.Join(quoteAll(show), ", ")+more))
	}
	if len(sum.LabelMismatch) > 0 {
		var parts []string
		n := 0
		for _, k := range sortedKeys(sum.LabelMismatch) {
			parts = append(parts, fmt.Sprintf("%s ×%d", k, sum.LabelMismatch[k]))
			n += sum.LabelMismatch[k]
		}
		out = append(out, fmt.Sprintf("the file's category labels differ from LoCoMo's on %d of %d matched rows (file label→LoCoMo category: %s); rows are scored under LoCoMo's category, found by question", n, sum.Matched, strings.Join(parts, ", ")))
	}
	if sum.GoldDiffers > 0 {
		out = append(out, fmt.Sprintf("%d matched rows carry a golden_answer that differs from LoCoMo's; F1 and --judge use LoCoMo's (%s gold)", sum.GoldDiffers, sum.Gold))
	}
	if sum.Errors > 0 {
		out = append(out, fmt.Sprintf("%d rows could not be judged (see --json)", sum.Errors))
	}
	for _, k := range bench.CategoryKeys {
		st, ok := sum.Categories[k]["file_judge"]
		c, hasCeil := sum.Ceiling[k]
		if ok && hasCeil && st.Mean > c+1e-9 {
			out = append(out, fmt.Sprintf("category %s: the file's own judge accuracy %.3f exceeds the ceiling %.3f (the share of these questions whose original gold the audit did not fault): its judge accepted answers to gold the audit found wrong", k, st.Mean, c))
		}
	}
	return out
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Quote(x)
	}
	return out
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// judgeRows asks judge about every matched row under the run's gold
// and, withAlt, under the other gold too where the audit changed the
// answer.
func judgeRows(ctx context.Context, judge swc.LLM, prompt func(q, g, a string) string, rows []*Row, conc int, withAlt bool) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(conc, 1))
	ask := func(q, g, a string) (float64, string, error) {
		resp, err := judge.Complete(ctx, swc.LLMRequest{
			Messages:    []swc.Message{{Role: swc.RoleUser, Content: prompt(q, g, a)}},
			Temperature: 0, MaxTokens: 8, Purpose: "judge",
		})
		if err != nil {
			return 0, "", err
		}
		v, err := bench.ParseVerdict(resp.Text)
		return v, resp.Text, err
	}
	for _, r := range rows {
		if r.matched == nil || ctx.Err() != nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(r *Row) {
			defer wg.Done()
			defer func() { <-sem }()
			g := bench.GoldFor(*r.matched)
			v, text, err := ask(r.matched.Question, g, r.answer)
			r.verdict = text
			if err != nil {
				r.judgeErr = err.Error()
				return
			}
			r.judge, r.judged = v, true
			if r.alt == nil || !withAlt {
				return
			}
			ag := bench.GoldFor(*r.alt)
			if ag == g {
				r.altJudg, r.altJudged = v, true
				return
			}
			if av, _, err := ask(r.alt.Question, ag, r.answer); err == nil {
				r.altJudg, r.altJudged = av, true
			}
		}(r)
	}
	wg.Wait()
}
