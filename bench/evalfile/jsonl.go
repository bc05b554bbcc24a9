package evalfile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bench"
)

// Prediction is one JSONL row of swc score's own format, {"question",
// "answer" (the gold), "prediction", "category"}: its fields as read
// (others are kept), and what scoring needs.
type Prediction struct {
	Fields            map[string]any
	question, gold, p string
	category          swc.Category
}

// PredictionSummary is the score of JSONL prediction rows.
type PredictionSummary struct {
	// Categories maps "1".."5" and "1-4" to metric → estimate.
	Categories map[string]map[string]bench.Stat `json:"categories"`
	Rows       int                              `json:"rows"`
	Errors     int                              `json:"errors"`
}

// ReadPredictions reads JSONL rows from r (named name in errors). A row
// that is not a JSON object, lacks prediction or (outside category 5)
// answer, or has a category outside 1–5 is an EINVALID error naming its
// line; so is input without rows.
func ReadPredictions(r io.Reader, name string) ([]Prediction, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []Prediction
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
			return nil, swc.Errorf(swc.EINVALID, "%s:%d: not a JSON object: %v", name, line, err)
		}
		p := Prediction{Fields: fields}
		p.question = text(fields["question"])
		p.gold = text(fields["answer"])
		pv, ok := fields["prediction"]
		if !ok {
			return nil, swc.Errorf(swc.EINVALID, "%s:%d: missing field \"prediction\"", name, line)
		}
		ps, isString := pv.(string)
		if !isString {
			return nil, swc.Errorf(swc.EINVALID, "%s:%d: prediction: want a string answer, found %s", name, line, kindOf(pv))
		}
		p.p = strings.TrimSpace(ps)
		cat, err := strconv.Atoi(text(fields["category"]))
		if err != nil || !swc.Category(cat).Valid() {
			return nil, swc.Errorf(swc.EINVALID, "%s:%d: category must be 1–5, found %q", name, line, text(fields["category"]))
		}
		p.category = swc.Category(cat)
		if p.gold == "" && p.category != swc.Adversarial {
			return nil, swc.Errorf(swc.EINVALID, "%s:%d: missing field \"answer\" (the gold answer)", name, line)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, swc.Errorf(swc.EINVALID, "%s: %v", name, err)
	}
	if len(out) == 0 {
		return nil, swc.Errorf(swc.EINVALID, "%s: no rows", name)
	}
	return out, nil
}

// text returns a JSON value as text: a string trimmed, a number as
// written, "" for null.
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

// ScorePredictions adds "f1" (and with a judge "judge", "verdict" or
// "judge_error") to every row's Fields and summarises per category. Judge
// calls run conc at a time with prompt; it returns ctx's error when the
// run is interrupted.
func ScorePredictions(ctx context.Context, rows []Prediction, judge swc.LLM, prompt func(question, gold, answer string) string, conc, resamples int, seed uint64) (PredictionSummary, error) {
	sum := PredictionSummary{Categories: map[string]map[string]bench.Stat{}, Rows: len(rows)}
	gold := func(p Prediction) string {
		if p.category == swc.Adversarial { // as bench.GoldFor
			return bench.AdversarialGold
		}
		return p.gold
	}
	for _, p := range rows {
		f1, _ := bench.F1(p.category, p.p, gold(p)) // the category was validated
		p.Fields["f1"] = f1
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
			go func(p Prediction) {
				defer wg.Done()
				defer func() { <-sem }()
				resp, err := judge.Complete(ctx, bench.JudgeRequest(prompt(p.question, gold(p), p.p)))
				var v float64
				if err == nil {
					v, err = bench.ParseVerdict(resp.Text)
				}
				// Each goroutine writes only its own row's map.
				if resp.Text != "" {
					p.Fields["verdict"] = resp.Text
				}
				if err != nil {
					p.Fields["judge_error"] = err.Error()
					return
				}
				p.Fields["judge"] = v
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
			v, ok := p.Fields[m].(float64)
			if !ok {
				continue
			}
			for _, key := range categoryKeys(p.category) {
				if vals[key] == nil {
					vals[key] = map[string][]float64{}
				}
				vals[key][m] = append(vals[key][m], v)
			}
		}
		if _, failed := p.Fields["judge_error"]; failed {
			sum.Errors++
		}
	}
	sum.Categories = estimates(vals, resamples, seed)
	return sum, nil
}
