package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/locomo"
)

// The result files memory systems publish for LoCoMo. Mem0's, MemOS's and
// EverMemOS's evaluation harnesses write the same per-question records:
//
//	{"detailed_results": {"<run or user>": [{"question_id", "question",
//	  "golden_answer", "generated_answer", "category",
//	  "llm_judgments": {"judgment_1": true, …}}, …]}, …}
//
// and MemOS's per-user files are that inner map without the wrapper
// (answers in "response"); Mem0's evals.py writes the same map keyed by
// conversation index with one verdict, "llm_score" (0 or 1). The
// category is a string ("4") or a number, and harnesses number categories
// differently, so rows are mapped to LoCoMo's questions by question_id
// ("locomo_<conversation>_qa<question>", 0-based positions) or by question
// text, and scored under LoCoMo's category.

// acceptedShapes says which inputs score reads, for the unknown-shape error.
const acceptedShapes = `JSONL rows {"question", "answer", "prediction", "category"}, ` +
	`or a Mem0/MemOS/EverMemOS evaluation file {"detailed_results": {"<run or user>": [{"question_id", "question", "golden_answer", "generated_answer", "category", "llm_judgments"}]}} ` +
	`(or its inner {"<user>": [...]} map)`

// checkJSONLShape rejects, naming the accepted shapes, input that is
// neither an evaluation file nor JSONL prediction rows: a JSON list, or a
// single JSON object with neither "prediction" nor "question".
func checkJSONLShape(data []byte, name string) error {
	t := bytes.TrimSpace(data)
	var one map[string]json.RawMessage
	switch {
	case len(t) > 0 && t[0] == '[':
	case json.Unmarshal(t, &one) == nil && one["prediction"] == nil && one["question"] == nil:
	default:
		return nil
	}
	return swc.Errorf(swc.EINVALID, "score: %s: unknown shape; accepted: %s", name, acceptedShapes)
}

// evalRow is one record of an evaluation file.
type evalRow struct {
	group, where   string // the run or user key; "detailed_results[\"u\"][3]"
	id, question   string
	fileGold       string
	answer         string
	label          string // the file's category label, as written
	judgments      []float64
	hasID          bool
	matched        *swc.Question
	fields         map[string]any
	alt            *swc.Question // the question under the other gold, if audited
	answerFaulted  bool
	judgeErr       string
	verdict        string
	judge, altJudg float64
	judged         bool
	altJudged      bool
}

// parseEvalFile reads an evaluation file held in memory. ok is false when
// data is not one (the caller then tries JSONL); a file that is one but is
// malformed returns an error naming the record and field.
func parseEvalFile(data []byte, name string) (rows []*evalRow, ok bool, err error) {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return nil, false, nil
	}
	groups := top
	prefix := ""
	if dr, has := top["detailed_results"]; has {
		groups = nil // a fresh map: Unmarshal merges into an existing one
		if err := json.Unmarshal(dr, &groups); err != nil {
			return nil, true, swc.Errorf(swc.EINVALID, "score: %s: detailed_results must be an object of run or user → list of records", name)
		}
		prefix = "detailed_results"
	} else {
		// A bare {"<user>": [records]} map: every value a list of objects.
		if len(top) == 0 {
			return nil, false, nil
		}
		for _, v := range top {
			var recs []map[string]json.RawMessage
			if json.Unmarshal(v, &recs) != nil || len(recs) == 0 || recs[0]["question"] == nil {
				return nil, false, nil
			}
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return naturalLess(keys[i], keys[j]) })
	for _, g := range keys {
		var recs []json.RawMessage
		if err := json.Unmarshal(groups[g], &recs); err != nil {
			return nil, true, swc.Errorf(swc.EINVALID, "score: %s: %s[%q]: want a list of records", name, prefix, g)
		}
		for i, raw := range recs {
			where := fmt.Sprintf("%s[%q][%d]", prefix, g, i)
			if prefix == "" {
				where = fmt.Sprintf("[%q][%d]", g, i)
			}
			r, err := parseEvalRow(raw, g, where)
			if err != nil {
				return nil, true, swc.Errorf(swc.EINVALID, "score: %s: %v", name, err)
			}
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return nil, true, swc.Errorf(swc.EINVALID, "score: %s: no records", name)
	}
	return rows, true, nil
}

func parseEvalRow(raw json.RawMessage, group, where string) (*evalRow, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var f map[string]any
	if err := dec.Decode(&f); err != nil || f == nil {
		return nil, fmt.Errorf("%s: not a JSON object", where)
	}
	r := &evalRow{group: group, where: where, fields: f}
	q, ok := f["question"].(string)
	if !ok || strings.TrimSpace(q) == "" {
		return nil, fmt.Errorf("%s.question: want a non-empty string, found %s", where, kindOf(f["question"]))
	}
	r.question = strings.TrimSpace(q)
	answerKey := "generated_answer"
	if _, has := f[answerKey]; !has {
		if _, has := f["response"]; has { // MemOS's name for it
			answerKey = "response"
		}
	}
	a, ok := f[answerKey].(string)
	if !ok {
		return nil, fmt.Errorf("%s.%s: want a string answer, found %s", where, answerKey, kindOf(f[answerKey]))
	}
	r.answer = strings.TrimSpace(a)
	if v, has := f["question_id"]; has && v != nil {
		id, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%s.question_id: want a string, found %s", where, kindOf(v))
		}
		r.id, r.hasID = strings.TrimSpace(id), true
	}
	for _, k := range []string{"golden_answer", "answer"} {
		if v, has := f[k]; has {
			r.fileGold = text(v)
			break
		}
	}
	switch c := f["category"].(type) {
	case nil:
	case string:
		r.label = strings.TrimSpace(c)
	case json.Number:
		r.label = c.String()
	default:
		return nil, fmt.Errorf("%s.category: want a string or number, found %s", where, kindOf(c))
	}
	if v, has := f["llm_score"]; has && f["llm_judgments"] == nil { // Mem0's evals.py: one verdict
		x, err := verdictValue(v)
		if err != nil {
			return nil, fmt.Errorf("%s.llm_score: %v", where, err)
		}
		r.judgments = []float64{x}
	}
	if j, has := f["llm_judgments"]; has && j != nil {
		m, ok := j.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s.llm_judgments: want an object of verdicts, found %s", where, kindOf(j))
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v, err := verdictValue(m[k])
			if err != nil {
				return nil, fmt.Errorf("%s.llm_judgments.%s: %v", where, k, err)
			}
			r.judgments = append(r.judgments, v)
		}
	}
	return r, nil
}

// verdictValue reads one harness verdict: true/false, 1/0, or the labels
// CORRECT/WRONG (or YES/NO).
func verdictValue(v any) (float64, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case json.Number:
		if f, err := x.Float64(); err == nil && (f == 0 || f == 1) {
			return f, nil
		}
	case string:
		switch strings.ToUpper(strings.TrimSpace(x)) {
		case "CORRECT", "YES", "TRUE":
			return 1, nil
		case "WRONG", "INCORRECT", "NO", "FALSE":
			return 0, nil
		}
	}
	return 0, fmt.Errorf("want true/false, 1/0 or CORRECT/WRONG, found %s", kindOf(v))
}

func kindOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("string %q", x)
	case json.Number:
		return "number " + x.String()
	case bool:
		return "boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

var trailingNumber = regexp.MustCompile(`(\d+)$`)

// naturalLess orders "user_2" before "user_10".
func naturalLess(a, b string) bool {
	ma, mb := trailingNumber.FindString(a), trailingNumber.FindString(b)
	if ma != "" && mb != "" && strings.TrimSuffix(a, ma) == strings.TrimSuffix(b, mb) {
		na, _ := strconv.Atoi(ma)
		nb, _ := strconv.Atoi(mb)
		return na < nb
	}
	return a < b
}

func normQuestion(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// matchRows maps every row to a LoCoMo question of convs (the whole file,
// in file order): by question_id when it names a position whose question
// has the row's text, else by question text (unique in the data, or unique
// within the conversation the row's group number names). Rows that match
// nothing stay unmatched. Two rows with one question_id, or mapping to one
// question, are an error.
func matchRows(rows []*evalRow, convs []*swc.Conversation) error {
	type ref struct {
		q    *swc.Question
		conv int
	}
	byText := map[string][]ref{}
	for ci, c := range convs {
		for qi := range c.Questions {
			q := &c.Questions[qi]
			byText[normQuestion(q.Question)] = append(byText[normQuestion(q.Question)], ref{q, ci})
		}
	}
	seenID := map[string]string{}
	taken := map[string]string{}
	for _, r := range rows {
		if r.hasID && r.id != "" {
			if prev, dup := seenID[r.id]; dup {
				return swc.Errorf(swc.EINVALID, "score: duplicate question_id %q at %s and %s", r.id, prev, r.where)
			}
			seenID[r.id] = r.where
		}
		var hit *ref
		if ci, qi, ok := locomo.AuditPosition(r.id); ok && ci < len(convs) && qi < len(convs[ci].Questions) {
			if q := &convs[ci].Questions[qi]; normQuestion(q.Question) == normQuestion(r.question) {
				hit = &ref{q, ci}
			}
		}
		if hit == nil {
			cands := byText[normQuestion(r.question)]
			if len(cands) > 1 {
				// Ambiguous text: the group's or id's number may name the conversation.
				var narrowed []ref
				if m := trailingNumber.FindString(r.group); m != "" {
					n, _ := strconv.Atoi(m)
					for _, c := range cands {
						if c.conv == n {
							narrowed = append(narrowed, c)
						}
					}
				}
				cands = narrowed
			}
			if len(cands) == 1 {
				hit = &cands[0]
			}
		}
		if hit == nil {
			continue
		}
		if prev, dup := taken[hit.q.ID]; dup {
			return swc.Errorf(swc.EINVALID, "score: %s and %s both map to LoCoMo question %s (%q)", prev, r.where, hit.q.ID, hit.q.Question)
		}
		taken[hit.q.ID] = r.where
		r.matched = hit.q
	}
	return nil
}

// evalSummary is score's summary for an evaluation file.
type evalSummary struct {
	Format string `json:"format"`
	Gold   string `json:"gold"`
	// Categories maps "1".."5" and "1-4" (LoCoMo's categories, by
	// question) to metric → estimate: "f1", "file_judge" (the file's own
	// verdicts: per question the mean over runs), "judge" (ours, with
	// --judge), and with --gold corrected "f1_original" and
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

// scoreEval scores an evaluation file's rows against LoCoMo.
func scoreEval(ctx context.Context, env *Env, rows []*evalRow, name string, o scoreEvalOptions) error {
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
	if err := matchRows(rows, gold.convs); err != nil {
		return err
	}
	prompt, _ := bench.JudgePromptFor(o.gold.judgePrompt) // checked by the caller
	sum := evalSummary{Format: "detailed_results", Gold: o.gold.gold, Categories: map[string]map[string]bench.Stat{},
		Rows: len(rows), Unmatched: []string{}, LabelMismatch: map[string]int{}}
	corrected := o.gold.gold == bench.GoldCorrected
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
		if alt, ok := gold.alt[q.ID]; ok {
			r.alt = &alt
			r.answerFaulted = gold.faults[q.ID]
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
	if o.judge != nil {
		judgeEvalRows(ctx, o.judge, prompt, rows, o.conc, o.gold.gold == bench.GoldCorrected)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	vals := map[string]map[string][]float64{}
	add := func(cat swc.Category, metric string, v float64) {
		for _, key := range []string{strconv.Itoa(int(cat)), "1-4"} {
			if key == "1-4" && cat == swc.Adversarial {
				continue
			}
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
		r.fields["f1"] = f1
		r.fields["locomo_id"], r.fields["locomo_category"], r.fields["gold"] = q.ID, int(q.Category), g
		add(q.Category, "f1", f1)
		if len(r.judgments) > 0 {
			m := 0.0
			for _, v := range r.judgments {
				m += v
			}
			m /= float64(len(r.judgments))
			r.fields["file_judge"] = m
			add(q.Category, "file_judge", m)
		}
		if r.judged {
			r.fields["judge"] = r.judge
			add(q.Category, "judge", r.judge)
		}
		if r.judgeErr != "" {
			r.fields["judge_error"] = r.judgeErr
			sum.Errors++
		}
		if r.verdict != "" {
			r.fields["verdict"] = r.verdict
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
		for _, key := range []string{strconv.Itoa(int(q.Category)), "1-4"} {
			if key == "1-4" && q.Category == swc.Adversarial {
				continue
			}
			total[key]++
			if r.alt != nil && r.answerFaulted {
				faulted[key]++
			}
		}
	}
	for key, ms := range vals {
		sum.Categories[key] = map[string]bench.Stat{}
		for m, xs := range ms {
			sum.Categories[key][m] = bench.StatOf(bench.Bootstrap(xs, o.resamples, o.seed))
		}
	}
	if gold.sha256 != "" {
		sum.Ceiling = map[string]float64{}
		for key, n := range total {
			sum.Ceiling[key] = 1 - float64(faulted[key])/float64(n)
		}
	}
	if o.asJSON {
		out := struct {
			Rows    []map[string]any `json:"rows"`
			Summary evalSummary      `json:"summary"`
		}{Summary: sum}
		for _, r := range rows {
			out.Rows = append(out.Rows, r.fields)
		}
		return writeJSON(env.Stdout, out)
	}
	printEvalSummary(env.Stdout, sum)
	notes := evalNotes(sum, name)
	for _, n := range notes {
		fmt.Fprintln(env.Stderr, "swc: score: "+n)
	}
	return nil
}

// evalNotes are the remarks printed after the table: unmatched rows,
// category labels that differ from LoCoMo's, gold answers that differ.
func evalNotes(sum evalSummary, name string) []string {
	var out []string
	if n := len(sum.Unmatched); n > 0 {
		show := sum.Unmatched
		if len(show) > 5 {
			show = show[:5]
		}
		out = append(out, fmt.Sprintf("%d of %d rows of %s match no LoCoMo question (by question_id or text) and are not scored: %s", n, sum.Rows, name, strings.Join(quoteAll(show), ", ")+map[bool]string{true: ", …", false: ""}[n > 5]))
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

// printEvalSummary prints one line per category: n, F1, the file's
// judgments, ours, and the ceiling, each estimate with its 95% CI.
func printEvalSummary(w io.Writer, sum evalSummary) {
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

// judgeEvalRows asks judge about every matched row under the run's gold
// and, withAlt, under the other gold too where the audit changed the
// answer.
func judgeEvalRows(ctx context.Context, judge swc.LLM, prompt func(q, g, a string) string, rows []*evalRow, conc int, withAlt bool) {
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
		go func(r *evalRow) {
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
