package baseline

import (
	"context"
	"fmt"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/tokens"
)

// Sliding keeps the most recent turns and condenses everything older into
// one running summary made by the gister; the summary counts against the
// budget. With Variant swc.GistSummaryTemporal it is the
// sliding-temporal condition, whose summary must keep temporal expressions.
type Sliding struct {
	name    string
	Gister  swc.Gister
	Variant swc.GistVariant
	// SummaryShare is the part of the budget reserved for the summary while
	// the window is chosen (default 0.15, 600 of 4,000 tokens: room for a
	// 3–5 sentence LLM summary or the extractive one of at most 400 words).
	// The window does not depend on the summary, so sliding and
	// sliding-temporal summarise the same history; if the real summary is
	// larger, the window's oldest turns are cut.
	SummaryShare float64
}

var _ swc.Strategy = (*Sliding)(nil)

// NewSliding returns the sliding-window baseline; name is "sliding" or
// "sliding-temporal", variant swc.GistSummary or swc.GistSummaryTemporal.
func NewSliding(name string, g swc.Gister, variant swc.GistVariant) *Sliding {
	return &Sliding{name: name, Gister: g, Variant: variant, SummaryShare: 0.15}
}

// Name returns the condition name.
func (s *Sliding) Name() string { return s.name }

// Compress returns the running summary of the older history followed by
// the most recent turns. A conversation that fits the budget is returned
// whole, without a summary. It returns EINVALID for a non-positive budget
// and the gister's error when it fails.
func (s *Sliding) Compress(ctx context.Context, c *swc.Conversation, opts swc.CompressOptions) (*swc.Context, error) {
	c = c.Upto(opts.Upto)
	if len(c.Sessions) == 0 {
		return nil, swc.Errorf(swc.EINVALID, "conversation %s has no sessions", c.ID)
	}
	if opts.Budget <= 0 {
		return nil, swc.Errorf(swc.EINVALID, "%s needs a positive token budget", s.name)
	}
	sel := newSelection(c)
	all := make([]int, 0, len(c.Sessions))
	for i := len(c.Sessions) - 1; i >= 0; i-- {
		all = append(all, i)
	}
	left := opts.Budget
	fillRecent(c, sel, all, &left, 0)
	if fullyKept(c, sel) {
		text := fitExact(c, sel, opts.Budget, nil)
		return s.context(c, sel, nil, "", text, opts.Budget), nil
	}
	share := s.SummaryShare
	if share <= 0 || share >= 1 {
		share = 0.15
	}
	reserve := int(float64(opts.Budget) * share)
	sel = newSelection(c)
	left = opts.Budget - reserve
	fillRecent(c, sel, all, &left, 1)

	// Everything before the window goes into the summary.
	var history []swc.Block
	summarized := map[int]bool{}
	first, last := -1, -1
	for i := range c.Sessions {
		ses := &c.Sessions[i]
		upto := sel.from[i]
		if sel.to[i] == sel.from[i] {
			upto = len(ses.Turns)
			if isAfterWindow(sel, i) {
				continue
			}
		}
		if upto == 0 {
			continue
		}
		history = append(history, swc.Block{Session: ses, Turns: ses.Turns[:upto]})
		summarized[i] = true
		if first < 0 {
			first = i
		}
		last = i
	}
	variant := s.Variant
	if variant == "" {
		variant = swc.GistSummary
	}
	date := c.Sessions[first].DateText
	if last != first {
		date = fmt.Sprintf("%s to %s", c.Sessions[first].DateText, c.Sessions[last].DateText)
	}
	summary, err := s.Gister.Gist(ctx, swc.GistRequest{Variant: variant, Date: date, Text: swc.Render(history)})
	if err != nil {
		return nil, fmt.Errorf("%s: summary of sessions %d–%d: %w", s.name, first+1, last+1, err)
	}
	shown := summary
	if over := tokens.Count(swc.RenderBlock(swc.Block{First: first, Last: last, Gist: summary})) - opts.Budget; over > 0 {
		// The summary alone is too long: shorten it, keep no window.
		shown = tokens.Truncate(summary, tokens.Count(summary)-over-2)
		sel = newSelection(c)
	}
	var prefix []swc.Block
	if strings.TrimSpace(shown) != "" {
		prefix = []swc.Block{{First: first, Last: last, Gist: shown}}
	} else {
		shown = ""
	}
	text := fitExact(c, sel, opts.Budget, prefix)
	if len(prefix) > 0 && tokens.Count(text) > opts.Budget { // not even the summary's header fits
		prefix, shown = nil, ""
		text = fitExact(c, sel, opts.Budget, nil)
	}
	out := s.context(c, sel, summarized, shown, text, opts.Budget)
	if summary != "" {
		g := swc.GistRecord{Variant: variant, Text: summary, InContext: shown != ""}
		for _, b := range history {
			g.Sessions = append(g.Sessions, b.Session.Index)
			for _, t := range b.Turns {
				g.Turns = append(g.Turns, t.ID)
			}
		}
		out.Gists = []swc.GistRecord{g}
	}
	return out, nil
}

// isAfterWindow reports whether session i comes after the first session of
// the window (so an empty selection there means "cut", not "history").
func isAfterWindow(sel *selection, i int) bool {
	for j := 0; j < i; j++ {
		if sel.to[j] > sel.from[j] {
			return true
		}
	}
	return false
}

func fullyKept(c *swc.Conversation, sel *selection) bool {
	for i, s := range c.Sessions {
		if sel.from[i] != 0 || sel.to[i] != len(s.Turns) {
			return false
		}
	}
	return true
}

func (s *Sliding) context(c *swc.Conversation, sel *selection, summarized map[int]bool, summary, text string, budget int) *swc.Context {
	chunks, drops, verbatim := report(c, sel, summarized, func(i int, a swc.Action) string {
		switch a {
		case swc.ActionVerbatim:
			return "in the recent window"
		case swc.ActionPartial:
			if summarized[i] {
				return "older turns in the running summary, recent ones in the window"
			}
			return "partly in the window"
		case swc.ActionGist:
			return "condensed into the running summary"
		}
		return "beyond the budget"
	})
	if summary != "" {
		// The summary block's size, header included, as SWC reports gists.
		st := tokens.Count(swc.RenderBlock(swc.Block{First: firstOf(summarized), Last: lastOf(summarized), Gist: summary}))
		for i := range chunks {
			if summarized[i] {
				chunks[i].GistTokens = st // the shared summary's size
			}
		}
	}
	return &swc.Context{Strategy: s.name, Budget: budget, Tokens: tokens.Count(text), Text: text, Chunks: chunks, Dropped: drops, Verbatim: verbatim}
}

func firstOf(m map[int]bool) int {
	first := -1
	for i := range m {
		if first < 0 || i < first {
			first = i
		}
	}
	return first
}

func lastOf(m map[int]bool) int {
	last := -1
	for i := range m {
		last = max(last, i)
	}
	return last
}
