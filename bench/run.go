// Package bench runs the LoCoMo evaluation protocol (and LongMemEval's,
// by question type) over compression strategies: offline retention
// metrics for every question, and with a QA model the answer, LoCoMo
// token F1 and an LLM judge's verdict; then bootstrap statistics for
// summary.json. The metrics and
// statistics are pure functions; the Runner calls models, and the Store,
// LockDir and WriteSummary do file I/O in the output directory.
package bench

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/tokens"
)

// Runner runs one benchmark. Strategies, Conversations (or Source) and
// Store are required; QA and Judge are optional (both nil = offline).
type Runner struct {
	Strategies    []swc.Strategy
	Conversations []*swc.Conversation
	Store         *Store
	Budget        int
	// QA answers questions; Judge grades answers. Nil QA means offline.
	QA, Judge swc.LLM
	// Concurrency bounds questions in flight per conversation (default 8).
	Concurrency int
	// QAMaxTokens bounds the answer (default DefaultQAMaxTokens).
	QAMaxTokens int
	// Filter selects the questions asked (default: all).
	Filter func(swc.Question) bool
	// Progress, when set, is called after every question with the number
	// done and the total.
	Progress func(done, total int)
	// Alt maps a question id to the same question under the other gold
	// (see GoldCorrected); rows of those questions also carry their scores
	// against it (Row.Alt). Nil: none.
	Alt map[string]swc.Question
	// SaveContexts, when set, receives every context scored: once per
	// conversation for question-agnostic conditions, once per question for
	// question-aware ones (resumed questions included).
	SaveContexts *ContextWriter
	// JudgePrompt builds the judge's prompt (default JudgePrompt, the
	// paper's; see JudgePromptFor).
	JudgePrompt func(question, gold, answer string) string

	// Source, when set, yields the conversations one at a time in place of
	// Conversations (a file streamed from disk, so that only those in
	// flight are held); Total is then the number of questions it yields
	// that Filter selects, for Progress.
	Source func(yield func(*swc.Conversation) error) error
	Total  int
	// Parallel is how many conversations are compressed and scored at
	// once (default 1).
	Parallel int
	// Lean, when set, keeps in the returned Contexts only what Summarize
	// reads (see Lean) and records it there; a conversation whose
	// questions are all done under a condition whose lean context Lean
	// holds is then not compressed again under it (unless SaveContexts is
	// set). Nil: every context is kept whole and always made.
	Lean *LeanStore
	// Done, when set, is called once every condition is done with a
	// conversation (the CLI forgets its analyses then).
	Done func(*swc.Conversation)
}

// Contexts maps condition → conversation id → context.
type Contexts map[string]map[string]*swc.Context

// Run compresses every conversation under every strategy once and scores
// every selected question against the context, appending rows to the
// store; questions already in the store are skipped. Conversations go one
// after another (Parallel at once), each under every strategy in turn. It
// returns the contexts, and an error only for failures that stop the run
// (a broken store, a cancelled context, a strategy that fails); per-question
// LLM failures are recorded in their rows.
func (r *Runner) Run(ctx context.Context) (Contexts, error) {
	conc := r.Concurrency
	if conc <= 0 {
		conc = 8
	}
	filter := r.Filter
	if filter == nil {
		filter = func(swc.Question) bool { return true }
	}
	total := r.Total
	if r.Source == nil {
		total = 0
		for _, c := range r.Conversations {
			for _, q := range c.Questions {
				if filter(q) {
					total++
				}
			}
		}
	}
	total *= len(r.Strategies)
	done := 0
	var mu sync.Mutex
	tick := func() {
		mu.Lock()
		done++
		d := done
		mu.Unlock()
		if r.Progress != nil {
			r.Progress(d, total)
		}
	}
	out := Contexts{}
	for _, s := range r.Strategies {
		out[s.Name()] = map[string]*swc.Context{}
	}
	source := r.Source
	if source == nil {
		source = func(yield func(*swc.Conversation) error) error {
			for _, c := range r.Conversations {
				if err := yield(c); err != nil {
					return err
				}
			}
			return nil
		}
	}
	par := max(r.Parallel, 1)
	var (
		wg    sync.WaitGroup
		sem   = make(chan struct{}, par)
		errMu sync.Mutex
		first error
	)
	failed := func() error {
		errMu.Lock()
		defer errMu.Unlock()
		return first
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	srcErr := source(func(c *swc.Conversation) error {
		if err := failed(); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := r.conversation(runCtx, c, out, &mu, filter, conc, tick); err != nil {
				errMu.Lock()
				if first == nil {
					first = err
					cancel()
				}
				errMu.Unlock()
			}
		}()
		return nil
	})
	wg.Wait()
	if err := failed(); err != nil {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		return out, err
	}
	if srcErr != nil {
		return out, srcErr
	}
	return out, ctx.Err()
}

// conversation runs every strategy over c, recording each context in out
// (under mu).
func (r *Runner) conversation(ctx context.Context, c *swc.Conversation, out Contexts, mu *sync.Mutex, filter func(swc.Question) bool, conc int, tick func()) error {
	for _, s := range r.Strategies {
		if err := ctx.Err(); err != nil {
			return err
		}
		if x, ok := r.resumed(s.Name(), c, filter); ok {
			for _, q := range c.Questions {
				if filter(q) {
					tick()
				}
			}
			mu.Lock()
			out[s.Name()][c.ID] = x
			mu.Unlock()
			continue
		}
		x, err := s.Compress(ctx, c, swc.CompressOptions{Budget: r.Budget})
		if err != nil {
			return fmt.Errorf("bench: compress %s under %s: %w", c.ID, s.Name(), err)
		}
		kept := x
		if r.Lean != nil {
			if kept, err = r.Lean.Add(s.Name(), c.ID, x); err != nil {
				return err
			}
		}
		mu.Lock()
		out[s.Name()][c.ID] = kept
		mu.Unlock()
		var per func(swc.Question) (*swc.Context, error)
		if qa, ok := s.(swc.QueryAware); ok && qa.QueryAware() {
			per = func(q swc.Question) (*swc.Context, error) {
				return s.Compress(ctx, c, swc.CompressOptions{Budget: r.Budget, Query: q.Question})
			}
			if err := r.saveAware(s.Name(), c, per, filter); err != nil {
				return err
			}
		} else if err := r.save(s.Name(), c.ID, "", x); err != nil {
			return err
		}
		if err := r.askAll(ctx, s.Name(), c, x, per, filter, conc, tick); err != nil {
			return err
		}
	}
	if r.Done != nil {
		r.Done(c)
	}
	return nil
}

// resumed returns the lean context of c under condition when the run is
// lean, saves no contexts, and every selected question of c is done under
// condition: then c need not be compressed again.
func (r *Runner) resumed(condition string, c *swc.Conversation, filter func(swc.Question) bool) (*swc.Context, bool) {
	if r.Lean == nil || r.SaveContexts != nil {
		return nil, false
	}
	x, ok := r.Lean.Get(condition, c.ID)
	if !ok {
		return nil, false
	}
	for _, q := range c.Questions {
		if !filter(q) {
			continue
		}
		if _, ok := r.Store.Done(condition, q.ID); !ok {
			return nil, false
		}
	}
	return x, true
}

// save writes one context to SaveContexts, if set.
func (r *Runner) save(condition, conv, questionID string, x *swc.Context) error {
	if r.SaveContexts == nil {
		return nil
	}
	return r.SaveContexts.Write(ContextRecord{Condition: condition, Budget: r.Budget, Conversation: conv, QuestionID: questionID, Tokens: x.Tokens, Text: x.Text})
}

// saveAware writes the context of every selected question of c under a
// question-aware condition, if SaveContexts is set.
func (r *Runner) saveAware(condition string, c *swc.Conversation, per func(swc.Question) (*swc.Context, error), filter func(swc.Question) bool) error {
	if r.SaveContexts == nil {
		return nil
	}
	for _, q := range c.Questions {
		if !filter(q) {
			continue
		}
		x, err := per(q)
		if err != nil {
			return fmt.Errorf("bench: compress %s %s under %s: %w", c.ID, q.ID, condition, err)
		}
		if err := r.save(condition, c.ID, q.ID, x); err != nil {
			return err
		}
	}
	return nil
}

// askAll scores the questions of one conversation under one condition.
// A question-aware condition passes per, which builds the context of one
// question; x is then only the question-agnostic context of the summary.
func (r *Runner) askAll(ctx context.Context, condition string, c *swc.Conversation, x *swc.Context, per func(swc.Question) (*swc.Context, error), filter func(swc.Question) bool, conc int, tick func()) error {
	var (
		idx  *Index
		sup  *Support
		kept map[string]bool
	)
	if per == nil {
		idx, sup, kept = NewIndex(x.Text), NewSupport(x.Text), VerbatimSet(x.Verbatim)
	}
	var (
		wg       sync.WaitGroup
		sem      = make(chan struct{}, conc)
		errMu    sync.Mutex
		storeErr error
	)
	for _, q := range c.Questions {
		if !filter(q) {
			continue
		}
		if _, ok := r.Store.Done(condition, q.ID); ok {
			tick()
			continue
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(q swc.Question) {
			defer wg.Done()
			defer func() { <-sem }()
			qx, qIdx, qSup, qKept := x, idx, sup, kept
			var row Row
			if per != nil {
				var err error
				if qx, err = per(q); err != nil {
					row = newRow(condition, c.ID, q)
					row.Error = "compress: " + err.Error()
				} else {
					qIdx, qSup, qKept = NewIndex(qx.Text), NewSupport(qx.Text), VerbatimSet(qx.Verbatim)
				}
			}
			if row.Error == "" {
				row = r.ask(ctx, condition, c, qx, qIdx, qSup, qKept, q)
			}
			if alt, ok := r.Alt[q.ID]; ok && row.Error == "" {
				r.scoreAlt(ctx, &row, qIdx, qSup, qKept, alt)
			}
			if ctx.Err() != nil && row.Error != "" {
				return // cancelled: leave it for the rerun
			}
			if err := r.Store.Add(row); err != nil {
				errMu.Lock()
				storeErr = errors.Join(storeErr, err)
				errMu.Unlock()
			}
			tick()
		}(q)
	}
	wg.Wait()
	if storeErr != nil {
		return storeErr
	}
	return ctx.Err()
}

// ask scores one question.
func (r *Runner) ask(ctx context.Context, condition string, c *swc.Conversation, x *swc.Context, idx *Index, sup *Support, kept map[string]bool, q swc.Question) Row {
	gold := GoldFor(q)
	ctxTokens := x.Tokens
	row := newRow(condition, c.ID, q)
	row.Tokens = RowTokens{Context: ctxTokens}
	if q.Category != swc.Adversarial && !q.Abstention {
		row.Metrics[MetricAnswerRetention] = idx.Retention(gold)
		row.Metrics[MetricAnswerTokenRecall] = idx.TokenRecall(gold)
		row.Metrics[MetricSupportRecall] = sup.Recall(q.Question, gold, SupportK)
	}
	if share, ok := EvidenceRetention(kept, q.Evidence); ok {
		row.Metrics[MetricEvidenceRetention] = share
	}
	if r.QA == nil {
		return row
	}
	if q.Type != "" {
		r.askLongMemEval(ctx, x, q, &row)
		return row
	}
	prompt := QAPrompt(x.Text, q.Question)
	// The context's tokens plus those of what follows it: counting the
	// whole prompt again for every question would re-tokenise the context.
	row.Tokens.Prompt = ctxTokens + tokens.Count(strings.TrimPrefix(prompt, strings.TrimRight(x.Text, "\n")))
	maxTok := r.QAMaxTokens
	if maxTok <= 0 {
		maxTok = DefaultQAMaxTokens
	}
	resp, err := r.QA.Complete(ctx, swc.LLMRequest{
		Messages:    []swc.Message{{Role: swc.RoleUser, Content: prompt}},
		Temperature: 0, MaxTokens: maxTok, Purpose: "qa",
	})
	if err != nil {
		row.Error = "qa: " + err.Error()
		return row
	}
	row.Answer = resp.Text
	f1, err := F1(q.Category, row.Answer, gold)
	if err != nil {
		row.Error = "f1: " + err.Error()
		return row
	}
	row.Metrics[MetricF1] = f1
	if r.Judge == nil {
		return row
	}
	jr, err := r.Judge.Complete(ctx, JudgeRequest(r.judgePrompt(q.Question, gold, row.Answer)))
	if err != nil {
		row.Error = "judge: " + err.Error()
		return row
	}
	row.Verdict = jr.Text
	v, err := ParseVerdict(jr.Text)
	if err != nil {
		row.Error = "judge: " + err.Error()
		return row
	}
	row.Metrics[MetricJudge] = v
	return row
}

// newRow returns the row of q under condition, without metrics yet.
func newRow(condition, conv string, q swc.Question) Row {
	return Row{
		Condition: condition, Conversation: conv, QuestionID: q.ID, Category: int(q.Category),
		Type: q.Type, Abstention: q.Abstention, Question: q.Question, Gold: GoldFor(q), Metrics: map[string]float64{},
	}
}

// sortRows orders rows by condition order, then conversation, then
// question position, so that summaries never depend on completion order.
func sortRows(rows []Row, order []string, convOrder map[string]int) {
	pos := map[string]int{}
	for i, n := range order {
		pos[n] = i
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if pos[a.Condition] != pos[b.Condition] {
			return pos[a.Condition] < pos[b.Condition]
		}
		if convOrder[a.Conversation] != convOrder[b.Conversation] {
			return convOrder[a.Conversation] < convOrder[b.Conversation]
		}
		return questionIndex(a.QuestionID) < questionIndex(b.QuestionID)
	})
}

// questionIndex reads the n of "conv:qn" (question ids the locomo loader
// makes); other ids sort first.
func questionIndex(id string) int {
	for i := len(id) - 1; i >= 0; i-- {
		if id[i] == 'q' && i > 0 && id[i-1] == ':' {
			n := 0
			for _, ch := range id[i+1:] {
				if ch < '0' || ch > '9' {
					return -1
				}
				n = n*10 + int(ch-'0')
			}
			return n
		}
	}
	return -1
}
