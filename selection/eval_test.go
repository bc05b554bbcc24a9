package selection_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/internal/locomotest"
	"github.com/swcmem/swc/internal/skipnote"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/longmemeval"
	"github.com/swcmem/swc/retrieval"
	"github.com/swcmem/swc/selection"
)

var evalBudgets = budgetsFromEnv()

func budgetsFromEnv() []int {
	if v := os.Getenv("SWC_EVAL_BUDGETS"); v != "" {
		var out []int
		for _, f := range strings.Split(v, ",") {
			var n int
			fmt.Sscan(f, &n)
			out = append(out, n)
		}
		return out
	}
	return []int{1000, 2000, 4000, 8000}
}

type evalQ struct {
	conv *swc.Conversation
	q    swc.Question
	gold string
}

// lmeSample is the shared LongMemEval sample, beside the repository.
var lmeSample = filepath.Join("..", "..", "shared", "data", "longmemeval", "longmemeval_s_sample14.json")

// evalQuestions returns LoCoMo's text-only questions of categories 1–4
// (of the conversations SWC_EVAL_CONVS lists, when set; SWC_EVAL_LOCOMO=FILE:
// of another file in LoCoMo's format), or with
// SWC_EVAL_DATA=lme the LongMemEval sample's questions but the abstention
// ones (SWC_EVAL_DATA=FILE: another LongMemEval file); it skips under
// -short.
func evalQuestions(t testing.TB) []evalQ {
	t.Helper()
	if d := os.Getenv("SWC_EVAL_DATA"); d != "" {
		return evalLME(t, d)
	}
	file := os.Getenv("SWC_EVAL_LOCOMO")
	if file == "" {
		file = locomotest.Wide(t)
	}
	convs, _, err := locomo.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	only := map[string]bool{}
	for _, id := range strings.Split(os.Getenv("SWC_EVAL_CONVS"), ",") {
		if id != "" {
			only[id] = true
		}
	}
	var qs []evalQ
	for _, c := range convs {
		if len(only) > 0 && !only[c.ID] {
			continue
		}
		for _, q := range c.Questions {
			if q.Category != swc.Adversarial && locomo.TextOnly(q) {
				qs = append(qs, evalQ{conv: c, q: q, gold: bench.GoldFor(q)})
			}
		}
	}
	return qs
}

// evalLME returns the questions of a LongMemEval file (data "lme": the
// shared sample) but the abstention ones, which have no answer to retain.
func evalLME(t testing.TB, data string) []evalQ {
	t.Helper()
	if testing.Short() {
		t.Skip("LongMemEval-wide: runs without -short")
	}
	if data == "lme" {
		data = lmeSample
		if _, err := os.Stat(data); err != nil {
			skipnote.Skip(t, "LongMemEval sample", "not found at "+data+", so the evaluation over it skips")
		}
	}
	convs, err := longmemeval.LoadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	var qs []evalQ
	for _, c := range convs {
		for _, q := range c.Questions {
			if !q.Abstention {
				qs = append(qs, evalQ{conv: c, q: q, gold: bench.GoldFor(q)})
			}
		}
	}
	return qs
}

// evalScores are one strategy's per-question answer-token recall and
// support_recall@5 at one budget, in the order of the questions.
type evalScores struct{ atr, sup []float64 }

// evaluate scores s on every question at budget, as the bench does.
func evaluate(t testing.TB, s swc.Strategy, qs []evalQ, budget int) evalScores {
	t.Helper()
	out := evalScores{atr: make([]float64, len(qs)), sup: make([]float64, len(qs))}
	aware := false
	if qa, ok := s.(swc.QueryAware); ok {
		aware = qa.QueryAware()
	}
	agnostic := map[string]*swc.Context{}
	var mu sync.Mutex
	ctxOf := func(q evalQ) *swc.Context {
		opts := swc.CompressOptions{Budget: budget}
		if aware {
			opts.Query = q.q.Question
		} else {
			mu.Lock()
			defer mu.Unlock()
			if x, ok := agnostic[q.conv.ID]; ok {
				return x
			}
		}
		x, err := s.Compress(context.Background(), q.conv, opts)
		if err != nil {
			t.Error(err)
			return &swc.Context{}
		}
		if x.Tokens > budget {
			t.Errorf("%s %s at %d: %d tokens", s.Name(), q.q.ID, budget, x.Tokens)
		}
		if !aware {
			agnostic[q.conv.ID] = x
		}
		return x
	}
	workers := min(2, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(qs); i += workers {
				x := ctxOf(qs[i])
				out.atr[i] = bench.NewIndex(x.Text).TokenRecall(qs[i].gold)
				out.sup[i] = bench.NewSupport(x.Text).Recall(qs[i].q.Question, qs[i].gold, bench.SupportK)
			}
		}()
	}
	wg.Wait()
	return out
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// evalVariant returns the strategy a TestEvalLoCoMo variant names:
// rag-bm25, rag-bm25-anchored, swc-select or swc-recall, the last with
// options ":standout=X", ":reply=Y", ":prompt=P", ":fill=F", ":asked=0",
// ":longturn=K", ":longmin=N" and ":around=A" (Recall's fields; e.g.
// swc-recall:standout=0.5),
// both with the weight options of selectOption (swc-select:tokens=1).
func evalVariant(t *testing.T, spec string) swc.Strategy {
	t.Helper()
	name, opts, _ := strings.Cut(spec, ":")
	switch name {
	case "rag-bm25":
		return retrieval.New(name, &selection.Analyzer{})
	case "rag-bm25-anchored":
		return retrieval.New(name, newAnalyzer())
	case "swc-select":
		sel := selection.New(name, newAnalyzer())
		for _, o := range strings.Split(opts, ":") {
			if o != "" {
				selectOption(t, spec, &sel.Weights, o)
			}
		}
		return sel
	case "swc-recall":
		r := selection.NewRecall(name, selection.New("swc-select", newAnalyzer()))
		for _, o := range strings.Split(opts, ":") {
			if o == "" {
				continue
			}
			k, v, _ := strings.Cut(o, "=")
			f, err := strconv.ParseFloat(v, 64)
			switch {
			case err != nil:
				t.Fatalf("variant %q: option %q: %v", spec, o, err)
			case k == "standout":
				r.StandOut = f
			case k == "reply":
				r.Reply = f
			case k == "prompt":
				r.Prompt = f
			case k == "longturn":
				r.LongTurn = f
			case k == "longmin":
				r.LongMin = int(f)
			case k == "around":
				r.Around = int(f)
			case k == "fill":
				r.Fill = f
			case k == "asked":
				r.Asked = f == 1
			case k == "day":
				r.Day = f
			default:
				selectOption(t, spec, &r.Select.Weights, o)
			}
		}
		return r
	}
	t.Fatalf("unknown variant %q", spec)
	return nil
}

// selectOption sets the swc-select weight option o ("name=value") of w:
// salient, dated, recency, idf, sentences (0 or 1), impersonal, question,
// tokens (TokenPower), long (LongTokens).
func selectOption(t *testing.T, spec string, w *selection.Weights, o string) {
	t.Helper()
	k, v, _ := strings.Cut(o, "=")
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatalf("variant %q: option %q: %v", spec, o, err)
	}
	switch k {
	case "salient":
		w.Salient = f
	case "dated":
		w.Dated = f
	case "recency":
		w.Recency = f
	case "idf":
		w.IDFPower = f
	case "sentences":
		w.Sentences = f != 0
	case "impersonal":
		w.Impersonal = f
	case "question":
		w.Question = f
	case "tokens":
		w.TokenPower = f
	case "long":
		w.LongTokens = int(f)
	default:
		t.Fatalf("variant %q: unknown option %q", spec, k)
	}
}

// TestEvalLoCoMo is the experiment loop: SWC_EVAL="a b c" scores those
// variants (see evalVariant) on all of LoCoMo's questions of categories
// 1–4 at 1,000–8,000 tokens (SWC_EVAL_BUDGETS=… for others) and prints
// their means and their paired differences against the first, with 95%
// bootstrap CIs (SWC_EVAL_PERQ=FILE: and every question's recall, see
// writePerQuestion).
func TestEvalLoCoMo(t *testing.T) {
	list := os.Getenv("SWC_EVAL")
	if list == "" {
		t.Skip("set SWC_EVAL=\"variant …\" to score variants on LoCoMo")
	}
	qs := evalQuestions(t)
	names := strings.Fields(list)
	res := map[string]map[int]evalScores{}
	for _, n := range names {
		s := evalVariant(t, n)
		res[n] = map[int]evalScores{}
		for _, b := range evalBudgets {
			res[n][b] = evaluate(t, s, qs, b)
		}
	}
	t.Log(evalTable(t, names, res, len(qs)))
	if f := os.Getenv("SWC_EVAL_PERQ"); f != "" {
		writePerQuestion(t, f, names, res, qs)
	}
	if os.Getenv("SWC_EVAL_TYPES") != "" {
		t.Log(evalTypes(names, res, qs))
	}
}

// writePerQuestion writes every question's answer-token recall under
// every variant and budget to file f, a line each: question id, type,
// variant, budget, recall (tab-separated), to compare variants question
// by question.
func writePerQuestion(t *testing.T, f string, names []string, res map[string]map[int]evalScores, qs []evalQ) {
	var sb strings.Builder
	for i, q := range qs {
		for _, n := range names {
			for _, b := range evalBudgets {
				fmt.Fprintf(&sb, "%s\t%s\t%s\t%d\t%.4f\n", q.q.ID, q.q.Type, n, b, res[n][b].atr[i])
			}
		}
	}
	if err := os.WriteFile(f, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// evalTypes formats every variant's answer-token recall per question type
// (LongMemEval) or category (LoCoMo) at each budget.
func evalTypes(names []string, res map[string]map[int]evalScores, qs []evalQ) string {
	var keys []string
	of := make([]string, len(qs))
	for i, q := range qs {
		of[i] = q.q.Type
		if of[i] == "" {
			of[i] = fmt.Sprintf("category %d", q.q.Category)
		}
		if !slices.Contains(keys, of[i]) {
			keys = append(keys, of[i])
		}
	}
	slices.Sort(keys)
	var sb strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&sb, "\n%s\n", k)
		for _, n := range names {
			fmt.Fprintf(&sb, "  %-30s", n)
			for _, b := range evalBudgets {
				s, c := 0.0, 0
				for i := range qs {
					if of[i] == k {
						s += res[n][b].atr[i]
						c++
					}
				}
				fmt.Fprintf(&sb, " %9.3f", s/float64(c))
			}
			sb.WriteString("\n")
		}
	}
	return sb.String()
}

// evalTable formats the means of every variant and the paired differences
// against the first.
func evalTable(t *testing.T, names []string, res map[string]map[int]evalScores, n int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n%-32s", fmt.Sprintf("variant (n = %d)", n))
	for _, b := range evalBudgets {
		fmt.Fprintf(&sb, " ATR %-5d", b)
	}
	for _, b := range evalBudgets {
		fmt.Fprintf(&sb, " S@5 %-5d", b)
	}
	sb.WriteString("\n")
	ref := names[0]
	for _, n := range names {
		fmt.Fprintf(&sb, "%-32s", n)
		for _, b := range evalBudgets {
			fmt.Fprintf(&sb, " %9.3f", mean(res[n][b].atr))
		}
		for _, b := range evalBudgets {
			fmt.Fprintf(&sb, " %9.3f", mean(res[n][b].sup))
		}
		sb.WriteString("\n")
		if n == ref {
			continue
		}
		fmt.Fprintf(&sb, "  − %-28s", ref)
		for _, sup := range []bool{false, true} {
			for _, b := range evalBudgets {
				d := paired(t, res[n][b], res[ref][b], sup)
				fmt.Fprintf(&sb, " %+.3f[%+.3f,%+.3f]", d.Mean, d.Lo, d.Hi)
			}
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

// paired is the paired bootstrap a − b of answer-token recall (or, with
// sup, support_recall@5), 2,000 resamples, seed 42 as the bench.
func paired(t *testing.T, a, b evalScores, sup bool) bench.Estimate {
	t.Helper()
	x, y := a.atr, b.atr
	if sup {
		x, y = a.sup, b.sup
	}
	d, err := bench.PairedBootstrap(x, y, 2000, 42)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestRecallBeatsRetrieval: on all of LoCoMo (categories 1–4), swc-recall
// is ahead of both retrieval baselines at 1,000, 2,000, 4,000 and 8,000
// tokens on answer-token recall and support_recall@5 (paired mean
// difference above zero), with the 95% CI above zero at 4,000.
func TestRecallBeatsRetrieval(t *testing.T) {
	qs := evalQuestions(t) // LoCoMo-wide: three strategies at four budgets
	names := []string{"swc-recall", "rag-bm25", "rag-bm25-anchored"}
	res := map[string]map[int]evalScores{}
	for _, n := range names {
		s := evalVariant(t, n)
		res[n] = map[int]evalScores{}
		for _, b := range evalBudgets {
			res[n][b] = evaluate(t, s, qs, b)
		}
	}
	for _, base := range names[1:] {
		for _, b := range evalBudgets {
			for _, sup := range []bool{false, true} {
				d := paired(t, res["swc-recall"][b], res[base][b], sup)
				metric := "answer-token recall"
				if sup {
					metric = "support_recall@5"
				}
				if d.Mean <= 0 || b == 4000 && d.Lo <= 0 {
					t.Errorf("%d tokens, %s: swc-recall − %s = %+.3f [%+.3f, %+.3f]", b, metric, base, d.Mean, d.Lo, d.Hi)
				}
			}
		}
	}
	if t.Failed() {
		t.Log(evalTable(t, names, res, len(qs)))
	}
}
