package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"

	"github.com/swcmem/swc"
)

// Audit answer kinds: deliberately wrong answers shown to the judge.
const (
	// AuditVague is a hedge on the question's own topic that names nothing
	// ("Something to do with Caroline's research").
	AuditVague = "vague"
	// AuditOtherAnswer is the gold answer of another question of the same
	// category in the same conversation: specific, plausible and wrong.
	AuditOtherAnswer = "other-answer"
)

// AuditOptions tune AuditJudge.
type AuditOptions struct {
	// Filter selects the questions that may be sampled (default: all).
	Filter func(swc.Question) bool
	// Concurrency bounds judge calls in flight (default 8).
	Concurrency int
	// Prompt names the run's judge prompt (default JudgePromptPaper); its
	// counts are JudgeAudit.Kinds. Every prompt of JudgePromptNames is
	// audited, so that their strictness can be compared.
	Prompt string
}

// AuditJudge asks the judge, with every prompt of JudgePromptNames, about
// n questions of categories 1–4 sampled with seed, each paired with a
// vague answer and with another question's gold answer, and reports how
// often it says YES. Every such YES is a false acceptance. It returns an error only when the
// context ends; failed judge calls are counted in AuditCount.Errors, the
// first one's cause in AuditCount.FirstError.
func AuditJudge(ctx context.Context, judge swc.LLM, convs []*swc.Conversation, n int, seed uint64, opts AuditOptions) (*JudgeAudit, error) {
	type item struct {
		q      swc.Question
		kind   string
		answer string
		prompt string
	}
	primary := opts.Prompt
	if primary == "" {
		primary = JudgePromptPaper
	}
	if _, err := JudgePromptFor(primary); err != nil {
		return nil, err
	}
	var pool []struct {
		q     swc.Question
		other string
	}
	for _, c := range convs {
		byCat := map[swc.Category][]swc.Question{}
		for _, q := range c.Questions {
			if q.Category >= swc.MultiHop && q.Category <= swc.SingleHop && q.Answer != "" && (opts.Filter == nil || opts.Filter(q)) {
				byCat[q.Category] = append(byCat[q.Category], q)
			}
		}
		for _, qs := range byCat {
			for i, q := range qs {
				for k := 1; k < len(qs); k++ { // the next question with a different answer
					o := qs[(i+k)%len(qs)]
					if NormalizeAnswer(o.Answer) != NormalizeAnswer(q.Answer) {
						pool = append(pool, struct {
							q     swc.Question
							other string
						}{q, o.Answer})
						break
					}
				}
			}
		}
	}
	sort.Slice(pool, func(i, j int) bool { return pool[i].q.ID < pool[j].q.ID })
	rng := rand.New(rand.NewPCG(seed, seed^0x5bd1e995))
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	if n > len(pool) {
		n = len(pool)
	}
	var items []item
	for _, name := range JudgePromptNames {
		for _, p := range pool[:n] {
			items = append(items, item{p.q, AuditVague, VagueAnswer(p.q.Question), name}, item{p.q, AuditOtherAnswer, p.other, name})
		}
	}
	audit := &JudgeAudit{Questions: n, Prompt: primary, ByPrompt: map[string]map[string]AuditCount{}}
	for _, name := range JudgePromptNames {
		audit.ByPrompt[name] = map[string]AuditCount{}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	conc := opts.Concurrency
	if conc <= 0 {
		conc = 8
	}
	sem := make(chan struct{}, conc)
	for _, it := range items {
		wg.Add(1)
		sem <- struct{}{}
		go func(it item) {
			defer wg.Done()
			defer func() { <-sem }()
			prompt, _ := JudgePromptFor(it.prompt) // every name is known
			resp, err := judge.Complete(ctx, JudgeRequest(prompt(it.q.Question, it.q.Answer, it.answer)))
			mu.Lock()
			defer mu.Unlock()
			c := audit.ByPrompt[it.prompt][it.kind]
			c.Asked++
			var v float64
			if err == nil {
				v, err = ParseVerdict(resp.Text)
			}
			switch {
			case err != nil:
				c.Errors++
				if c.FirstError == "" {
					c.FirstError = err.Error()
				}
			case v == 1:
				c.Accepted++
			}
			audit.ByPrompt[it.prompt][it.kind] = c
		}(it)
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, kinds := range audit.ByPrompt {
		for k, c := range kinds {
			if judged := c.Asked - c.Errors; judged > 0 {
				c.Rate = float64(c.Accepted) / float64(judged)
			}
			kinds[k] = c
		}
	}
	audit.Kinds = audit.ByPrompt[primary]
	return audit, nil
}

// VagueAnswer returns a non-committal answer on the question's topic:
// "When did Melanie paint a sunrise?" → "At some point; it had to do with
// Melanie paint a sunrise."
func VagueAnswer(question string) string {
	words := strings.Fields(strings.TrimRight(strings.TrimSpace(question), "?"))
	var topic []string
	for i, w := range words {
		lw := strings.ToLower(w)
		if i == 0 || lw == "did" || lw == "does" || lw == "do" || lw == "is" || lw == "was" || lw == "were" || lw == "has" || lw == "have" {
			continue
		}
		topic = append(topic, w)
	}
	lead := "Something"
	switch strings.ToLower(firstWord(words)) {
	case "when":
		lead = "At some point"
	case "where":
		lead = "Somewhere"
	case "who":
		lead = "Someone"
	case "how":
		lead = "In some way"
	}
	return fmt.Sprintf("%s; it had to do with %s.", lead, strings.Join(topic, " "))
}

func firstWord(ws []string) string {
	if len(ws) == 0 {
		return ""
	}
	return ws[0]
}
