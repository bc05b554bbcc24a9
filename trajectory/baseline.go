package trajectory

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

// A Condition compresses a request to a budget and returns the body to
// send, in the request's format. An error is a refusal: the compressor
// would not send the request.
type Condition interface {
	Name() string
	Compress(ctx context.Context, q *Request, budget int) ([]byte, error)
}

// Truncation drops the oldest conversation messages after the task, an
// assistant turn with its results at a time, until the request fits (or
// only the latest turn is left).
type Truncation struct{}

func (Truncation) Name() string { return "truncation" }

func (Truncation) Compress(_ context.Context, q *Request, budget int) ([]byte, error) {
	p := newPlan(q)
	p.truncate(budget)
	return p.body()
}

// Masked is the placeholder of an observation Mask hides.
const Masked = "[output omitted]"

// Mask is observation masking: the last K observations verbatim, older ones
// replaced by Masked, then Truncation if the request is still over.
type Mask struct{ K int }

func (m Mask) Name() string { return fmt.Sprintf("mask-%d", m.K) }

func (m Mask) Compress(_ context.Context, q *Request, budget int) ([]byte, error) {
	p := newPlan(q)
	obs := p.observations()
	for _, i := range obs[:max(0, len(obs)-m.K)] {
		p.rewrite(i, Masked)
	}
	p.truncate(budget)
	return p.body()
}

// TrimTokens is the size over which TrimHalf cuts an observation.
const TrimTokens = 512

// TrimHalf cuts each observation over TrimTokens tokens to its last half
// (from the first line break after its middle byte, when one is near),
// marked by a line saying so, then Truncation if the request is still over.
type TrimHalf struct{}

func (TrimHalf) Name() string { return "trim-half" }

func (TrimHalf) Compress(_ context.Context, q *Request, budget int) ([]byte, error) {
	p := newPlan(q)
	for _, i := range p.observations() {
		if s := q.Input.Messages[i].Content; q.Replay.count(s) > TrimTokens {
			p.rewrite(i, lastHalf(s))
		}
	}
	p.truncate(budget)
	return p.body()
}

// lastHalf returns the last half of s after a line saying the first half
// is omitted; a cut inside a line moves to the next line break within a
// tenth of s, else back to the start of a character.
func lastHalf(s string) string {
	cut := len(s) / 2
	if nl := strings.IndexByte(s[cut:], '\n'); cut > 0 && s[cut-1] != '\n' && nl >= 0 && nl <= len(s)/10 {
		cut += nl + 1
	}
	for cut > 0 && cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return "[first half of the output omitted]\n" + s[cut:]
}
