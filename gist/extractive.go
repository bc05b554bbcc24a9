// Package gist holds swc's gisters, which condense a chunk (one session's
// rendered turns, or for the sliding-window baseline several sessions) into
// a short gist: Extractive, the deterministic offline default, and LLM,
// which sends the paper's prompts to an swc.LLM.
package gist

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	swc "github.com/swcmem/swc"
)

// Defaults of the Extractive settings.
const (
	DefaultMinSentences    = 3
	DefaultMaxSentences    = 5
	DefaultMaxTemporal     = 5
	DefaultMaxSummaryWords = 400
)

// Extractive is the offline gister. It splits the chunk into
// sentences, keeping each one's speaker, scores every sentence for
// information (entities, numbers, plan/decision/life-event verbs, first
// person, causal links, length; small talk, laughter, questions back to
// the other speaker, bare reactions and very short sentences count
// against), and keeps the best ones in their original order, as
// "Speaker: sentence" lines (sentences of the same turn share a line).
//
// Selection, per variant:
//   - full: the MaxSentences best sentences scoring as informative; if
//     fewer than MinSentences qualify, the best remaining ones fill up to
//     MinSentences (so a chunk of small talk still yields its best lines).
//   - temporal: the full selection plus up to MaxTemporal sentences
//     carrying a temporal expression (best-scored first): a temporal gist
//     contains the full gist and has at most MaxSentences+MaxTemporal
//     sentences.
//   - summary, summary-temporal (the sliding-window running summary, whose
//     input spans several sessions): the same with MaxSentences and
//     MaxTemporal multiplied by the number of session header lines in the
//     input (at least 1), and a total bound of MaxSummaryWords words
//     (temporal sentences are chosen first, so they win that bound).
//
// Exact repeats of an already chosen sentence are skipped. The gister is
// deterministic: ties are broken by position.
type Extractive struct {
	// MinSentences is the least a non-empty chunk yields (default 3).
	MinSentences int
	// MaxSentences bounds the informative sentences (default 5).
	MaxSentences int
	// MaxTemporal bounds the temporal sentences the temporal variants
	// keep (default 5).
	MaxTemporal int
	// MaxSummaryWords bounds the summary variants' output, in words
	// (default 400, about 520 cl100k tokens).
	MaxSummaryWords int
	// Temporal reports whether a sentence carries a temporal expression;
	// the CLI injects mention.HasTemporal. When nil, a built-in regexp is
	// used (month names, weekdays, yesterday/today/tomorrow, "… ago",
	// last/next week|month|year|weekend|night, clock times, years 19xx/20xx).
	Temporal func(sentence string) bool
}

var _ swc.Gister = (*Extractive)(nil)

// NewExtractive returns an Extractive gister with the default settings and
// the built-in temporal recogniser.
func NewExtractive() *Extractive { return &Extractive{} }

// Name returns "extractive", followed by the settings in parentheses when
// any differs from its default (the name is part of REM cache keys). The
// Temporal function is not part of the name.
func (e *Extractive) Name() string {
	c := e.config()
	if c == (Extractive{}).config() {
		return "extractive"
	}
	return fmt.Sprintf("extractive(min=%d,max=%d,temporal=%d,words=%d)", c.min, c.max, c.temporal, c.words)
}

type config struct{ min, max, temporal, words int }

func (e Extractive) config() config {
	c := config{e.MinSentences, e.MaxSentences, e.MaxTemporal, e.MaxSummaryWords}
	if c.min <= 0 {
		c.min = DefaultMinSentences
	}
	if c.max <= 0 {
		c.max = DefaultMaxSentences
	}
	c.min = min(c.min, c.max)
	if c.temporal <= 0 {
		c.temporal = DefaultMaxTemporal
	}
	if c.words <= 0 {
		c.words = DefaultMaxSummaryWords
	}
	return c
}

// Gist returns the extractive gist of req.Text, which is non-empty
// whenever the text holds any line besides blanks and session headers
// (lines in no known turn format are read as text of an unknown speaker;
// see parse). It returns "" with no error for text without such a line,
// an EINVALID error for an unknown variant, and the context's error when
// ctx is done.
func (e *Extractive) Gist(ctx context.Context, req swc.GistRequest) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("gist: extractive: %w", err)
	}
	var temporal, summary bool
	switch req.Variant {
	case swc.GistFull:
	case swc.GistTemporal:
		temporal = true
	case swc.GistSummary:
		summary = true
	case swc.GistSummaryTemporal:
		temporal, summary = true, true
	default:
		return "", swc.Errorf(swc.EINVALID, "gist: extractive: unknown variant %q", req.Variant)
	}
	sents, headers := parse(req.Text)
	if len(sents) == 0 {
		return "", nil // blank or session headers only: nothing to gist
	}
	c := e.config()
	words := 0 // no bound
	if summary {
		k := max(headers, 1)
		c.min, c.max, c.temporal, words = c.min*k, c.max*k, c.temporal*k, c.words
	}
	isTemporal := e.Temporal
	if isTemporal == nil {
		isTemporal = hasTemporalFallback
	}
	chosen := choose(sents, c, temporal, words, isTemporal)
	return render(sents, chosen), nil
}

// choose returns which sentences go into the gist (see Extractive).
func choose(sents []sentence, c config, temporal bool, maxWords int, isTemporal func(string) bool) []bool {
	type cand struct {
		i     int
		score float64
	}
	ranked := make([]cand, len(sents))
	for i, s := range sents {
		ranked[i] = cand{i, scoreCached(s.text)}
	}
	slices.SortStableFunc(ranked, func(a, b cand) int { return cmp.Compare(b.score, a.score) })

	chosen := make([]bool, len(sents))
	seen := map[string]bool{}
	total, words := 0, 0
	take := func(i int) bool {
		key := strings.ToLower(sents[i].text)
		w := len(strings.Fields(sents[i].text))
		if chosen[i] || seen[key] || (maxWords > 0 && total > 0 && words+w > maxWords) {
			return false
		}
		chosen[i], seen[key] = true, true
		total++
		words += w
		return true
	}
	if temporal {
		n := 0
		for _, r := range ranked {
			if n >= c.temporal {
				break
			}
			if isTemporal(sents[r.i].text) && take(r.i) {
				n++
			}
		}
	}
	// The full selection: the best informative sentences, then the best
	// others up to the minimum. A sentence already in (a temporal pick, or
	// a repeat of one) fills its slot, so a temporal gist is the full gist
	// plus its temporal sentences.
	counted := make([]bool, len(sents))
	slot := func(i int) bool {
		if !counted[i] && (chosen[i] || seen[strings.ToLower(sents[i].text)] || take(i)) {
			counted[i] = true
			return true
		}
		return false
	}
	n := 0
	for _, r := range ranked {
		if n >= c.max || r.score < informative {
			break
		}
		if slot(r.i) {
			n++
		}
	}
	for _, r := range ranked {
		if n >= c.min {
			break
		}
		if slot(r.i) {
			n++
		}
	}
	return chosen
}

// render writes the chosen sentences in their original order, one line
// per turn: "Speaker: sentence sentence".
func render(sents []sentence, chosen []bool) string {
	var b strings.Builder
	lastTurn := -1
	for i, s := range sents {
		if !chosen[i] {
			continue
		}
		switch {
		case s.turn == lastTurn:
			b.WriteByte(' ')
		case b.Len() > 0:
			b.WriteByte('\n')
			fallthrough
		default:
			if s.speaker != "" {
				b.WriteString(s.speaker)
				b.WriteString(": ")
			}
		}
		b.WriteString(s.text)
		lastTurn = s.turn
	}
	return b.String()
}
