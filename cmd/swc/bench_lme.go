package main

import (
	"bytes"
	"runtime"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/longmemeval"
)

// lmeData is a LongMemEval file as bench streams it: the picked
// conversations as stubs (ids and questions, no sessions), for settings,
// progress and the summary, and a source that decodes them whole one at a
// time, so that a run holds only those in flight.
type lmeData struct {
	stubs     []*swc.Conversation
	questions int
	source    func(yield func(*swc.Conversation) error) error
}

// scanLongMemEval reads path ("-" for stdin) once for its ids and
// questions, picks the conversations ids names (see pickConversations)
// and checks budget against them (checkBudget).
func scanLongMemEval(env *Env, path, ids string, budget int) (*lmeData, error) {
	scan := func(fn func(*swc.Conversation) error) error {
		if path != "-" {
			return longmemeval.ScanFile(path, fn)
		}
		b, name, err := readInput(env, path)
		if err != nil {
			return err
		}
		return longmemeval.Scan(bytes.NewReader(b), name, fn)
	}
	var all []*swc.Conversation
	least := map[string]int{}
	err := scan(func(c *swc.Conversation) error {
		all = append(all, &swc.Conversation{ID: c.ID, SpeakerA: c.SpeakerA, SpeakerB: c.SpeakerB, Questions: c.Questions})
		least[c.ID] = leastBudget([]*swc.Conversation{c})
		return nil
	})
	if err != nil {
		return nil, err
	}
	picked, err := pickConversations(all, ids)
	if err != nil {
		return nil, err
	}
	d := &lmeData{stubs: picked}
	in := map[string]bool{}
	low := 0
	for _, c := range picked {
		in[c.ID] = true
		d.questions += len(c.Questions)
		if n := least[c.ID]; n > 0 && (low == 0 || n < low) {
			low = n
		}
	}
	if low > 0 && budget < low {
		return nil, usagef("--budget %d is too small: no session header and turn fit, the context would be empty; the smallest useful budget here is %d tokens", budget, low)
	}
	d.source = func(yield func(*swc.Conversation) error) error {
		return scan(func(c *swc.Conversation) error {
			if !in[c.ID] {
				return nil
			}
			return yield(c)
		})
	}
	return d, nil
}

// defaultParallel is how many conversations bench runs at once: one for
// LoCoMo (ten long conversations, questions in parallel within each), one
// per CPU for LongMemEval (one question per conversation).
func defaultParallel(lme bool) int {
	if lme {
		return runtime.GOMAXPROCS(0)
	}
	return 1
}
