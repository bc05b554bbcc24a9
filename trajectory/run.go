package trajectory

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// A Runner replays trajectories under conditions at budgets, one request
// at a time (compression times are then the compressor's alone).
type Runner struct {
	Trajectories []Trajectory
	Conditions   []Condition
	Budgets      []int
	// Done reports whether a row is already written (a resumed run); nil:
	// none is. A run whose every row is done is skipped; one with rows
	// missing is replayed from its start (prefix stability needs the
	// previous request's body) and only the missing rows are written.
	Done func(Key) bool
	// Write receives each new row as it is made (required).
	Write func(Row) error
	// Sent, when set, receives each new row's request body as its
	// condition sent it (nil for a refusal), before Write gets the row.
	Sent func(Row, []byte) error
	// Progress, when set, is called after every row with the rows done and
	// the total.
	Progress func(done, total int)
	// Skipped, when set, is told of each body with nothing to replay
	// (ErrNothingToReplay: no assistant turn after its first message),
	// which the run leaves out rather than failing.
	Skipped func(err error)
	// Now and CPU time each compression (defaults: time.Now and
	// ProcessCPU).
	Now func() time.Time
	CPU func() time.Duration
}

// Run replays every request of every trajectory's bodies. It returns the
// first error of Write, of a replay (a body that is not a valid run), or
// ctx's; a compressor's error is a row's refusal, not an error, and a body
// with nothing to replay is skipped (Skipped).
func (r *Runner) Run(ctx context.Context) error {
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.CPU == nil {
		r.CPU = ProcessCPU
	}
	var replays []*Replay
	total := 0
	for _, t := range r.Trajectories {
		for _, b := range t.Bodies {
			rp, err := NewReplay(t.Name, b)
			if errors.Is(err, ErrNothingToReplay) {
				if r.Skipped != nil {
					r.Skipped(err)
				}
				continue
			}
			if err != nil {
				return err
			}
			replays = append(replays, rp)
			total += rp.Len() * len(r.Budgets) * len(r.Conditions)
		}
	}
	done := 0
	for _, rp := range replays {
		err := r.replay(ctx, rp, func(rows int) {
			done += rows
			if r.Progress != nil {
				r.Progress(done, total)
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// group is one run of one replay under one condition at one budget.
type group struct {
	cond     Condition
	budget   int
	complete bool  // every row already written
	prev     *sent // the previous request's sent body; nil after a refusal
	marks    markCache
}

// replay runs every request of rp; progress is told of each row.
func (r *Runner) replay(ctx context.Context, rp *Replay, progress func(int)) error {
	var groups []*group
	open := 0
	for _, b := range r.Budgets {
		for _, c := range r.Conditions {
			g := &group{cond: c, budget: b, complete: r.Done != nil}
			for i := 0; g.complete && i < rp.Len(); i++ {
				g.complete = r.Done(r.key(rp, g, i))
			}
			if !g.complete {
				open++
			}
			groups = append(groups, g)
		}
	}
	if open == 0 {
		progress(len(groups) * rp.Len())
		return nil
	}
	raw := newRawCosts(rp)
	for i := 0; i < rp.Len(); i++ {
		q, err := rp.Request(i)
		if err != nil {
			return err
		}
		targets, own := q.Targets(), q.OwnTargets()
		rawCost := raw.next(q)
		for _, g := range groups {
			if err := ctx.Err(); err != nil {
				return err
			}
			if g.complete {
				progress(1)
				continue
			}
			row := r.compress(ctx, q, g, targets)
			row.OwnTargets = len(own)
			if row.Refused == "" {
				row.OwnRetained = retained(row.text, own)
				row.RawCost = rawCost
			}
			row.text = ""
			body := row.body
			row.body = nil
			if r.Done == nil || !r.Done(row.Key()) {
				if r.Sent != nil {
					if err := r.Sent(row, body); err != nil {
						return err
					}
				}
				if err := r.Write(row); err != nil {
					return err
				}
			}
			progress(1)
		}
	}
	return nil
}

func (r *Runner) key(rp *Replay, g *group, i int) Key {
	return Key{Trajectory: rp.Trajectory, Format: string(rp.Format), Condition: g.cond.Name(), Budget: g.budget, Request: i}
}

// compress compresses q under g's condition and measures the result.
func (r *Runner) compress(ctx context.Context, q *Request, g *group, targets []string) Row {
	rp := q.Replay
	row := Row{Trajectory: rp.Trajectory, Format: string(rp.Format), Budget: g.budget, Condition: g.cond.Name(),
		Request: q.Index, Messages: q.Cut, RawTokens: q.Tokens, Targets: len(targets)}
	cpu0, t0 := r.CPU(), r.Now()
	body, err := g.cond.Compress(ctx, q, g.budget)
	row.WallMS = float64(r.Now().Sub(t0).Microseconds()) / 1000
	row.CPUMS = float64((r.CPU() - cpu0).Microseconds()) / 1000
	if err != nil {
		row.Refused = oneLine(swc.ErrorMessage(err))
		g.prev = nil
		return row
	}
	var text string
	row.SentTokens, text = rp.Measure(body)
	row.text, row.body = text, body
	row.OverBudget = row.SentTokens > g.budget
	for _, id := range targets {
		if strings.Contains(text, id) {
			row.Retained++
			row.Recoverable++
			continue
		}
		row.Lost = append(row.Lost, id)
		if why := q.recoverable(id, text); why == "" {
			row.Recoverable++
		} else {
			row.Unrecoverable = append(row.Unrecoverable, Miss{ID: id, Why: why})
		}
	}
	out := q.decode(body)
	row.Breaches, row.InputBreaches = ownBreaches(out.breaches, q.decode(q.Body).breaches)
	var marked int
	if rp.Format == chat.Anthropic {
		marked = g.marks.serve(out, rp.codec.list)
	}
	if g.prev != nil {
		s := prefixStable(g.prev, out, rp.codec.list)
		row.Stable = &s
		row.CachedBytes, row.ListBytes = cachedPrefix(g.prev, out, rp.codec.list)
		row.MarkCachedBytes = marked
	}
	served := row.CachedBytes
	if rp.Format == chat.Anthropic {
		served = row.MarkCachedBytes
	}
	row.Cost = priceRuleOf(rp.Format).cost(row.SentTokens, served, row.ListBytes)
	g.prev = out
	return row
}

// ownBreaches returns the breaches of sent whose rule input (the
// request as the agent sent it) does not already break, and input's
// breaches. A recorded session can break a provider rule itself (a
// Gemini CLI record opening with the model's call of a skill, before the
// user's prompt): what every condition then inherits is not theirs. A
// rule is a breach's text without the places it names (breachRule).
func ownBreaches(sent, input []string) (own, in []string) {
	if len(input) == 0 || len(sent) == 0 {
		return sent, input
	}
	rules := make(map[string]bool, len(input))
	for _, b := range input {
		rules[breachRule(b)] = true
	}
	for _, b := range sent {
		if !rules[breachRule(b)] {
			own = append(own, b)
		}
	}
	return own, input
}

// breachRule is breach b without where it is: its leading place
// ("contents[3]: ", "messages[2].content[1]: ") gone, and its numbers and
// quoted names written as # and "…" ("messages[4]: tool_use \"x\" of
// messages[3] answered 2 times" is "tool_use "…" of messages[#] answered
// # times").
func breachRule(b string) string {
	if place, rest, ok := strings.Cut(b, ": "); ok && !strings.ContainsRune(place, ' ') {
		b = rest
	}
	b = quotedRE.ReplaceAllString(b, `"…"`)
	return digitsRE.ReplaceAllString(b, "#")
}

var (
	quotedRE = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	digitsRE = regexp.MustCompile(`\d+`)
)

// retained counts the ids text holds.
func retained(text string, ids []string) int {
	n := 0
	for _, id := range ids {
		if strings.Contains(text, id) {
			n++
		}
	}
	return n
}

// oneLine shortens an error message to one line of at most 300 bytes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		n := 300
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "…"
	}
	return s
}

// String names the runner's work, for progress lines.
func (r *Runner) String() string {
	names := make([]string, len(r.Conditions))
	for i, c := range r.Conditions {
		names[i] = c.Name()
	}
	return fmt.Sprintf("%d trajectories × %s × budgets %v", len(r.Trajectories), strings.Join(names, ","), r.Budgets)
}
