package bench

import (
	"strconv"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/tokens"
)

// CategoryCounts maps a category ("1".."5"), or in a typed data set a
// question type or KeyAbstention, to a count.
type CategoryCounts map[string]int

// ConversationStats counts one conversation: sessions, turns, tokens of
// the rendered transcript, the dates of its first and last sessions,
// questions (text-only ones apart) by category.
type ConversationStats struct {
	ID                 string         `json:"id"`
	Speakers           [2]string      `json:"speakers"`
	Sessions           int            `json:"sessions"`
	Turns              int            `json:"turns"`
	Tokens             int            `json:"tokens"`
	First              string         `json:"first_session"`
	Last               string         `json:"last_session"`
	Questions          int            `json:"questions"`
	TextOnly           int            `json:"text_only"`
	ByCategory         CategoryCounts `json:"by_category"`
	TextOnlyByCategory CategoryCounts `json:"text_only_by_category"`
}

// TotalStats sums ConversationStats over a data set.
type TotalStats struct {
	Conversations      int            `json:"conversations"`
	Sessions           int            `json:"sessions"`
	Turns              int            `json:"turns"`
	Tokens             int            `json:"tokens"`
	Questions          int            `json:"questions"`
	TextOnly           int            `json:"text_only"`
	ByCategory         CategoryCounts `json:"by_category"`
	TextOnlyByCategory CategoryCounts `json:"text_only_by_category"`
}

// DataStats is what swc stats reports of a data set; Tokenizer is the one the
// tokens are counted with.
type DataStats struct {
	Tokenizer string `json:"tokenizer"`
	// Typed says the questions have types (LongMemEval): the counts are by
	// type, abstention questions apart, and there are no categories.
	Typed         bool                `json:"typed,omitempty"`
	Conversations []ConversationStats `json:"conversations"`
	Totals        TotalStats          `json:"totals"`
}

func newCatCounts() CategoryCounts {
	m := CategoryCounts{}
	for _, c := range swc.Categories {
		m[strconv.Itoa(int(c))] = 0
	}
	return m
}

// ComputeDataStats counts sessions, turns, rendered-transcript tokens and
// questions per conversation and in total (text-only: see locomo.TextOnly).
func ComputeDataStats(convs []*swc.Conversation) DataStats {
	r := DataStats{Tokenizer: tokens.Name}
	for _, c := range convs {
		for _, q := range c.Questions {
			r.Typed = r.Typed || q.Type != ""
		}
	}
	counts := newCatCounts
	if r.Typed {
		counts = func() CategoryCounts { return CategoryCounts{} }
	}
	r.Totals.ByCategory, r.Totals.TextOnlyByCategory = counts(), counts()
	for _, c := range convs {
		cs := ConversationStats{
			ID: c.ID, Speakers: [2]string{c.SpeakerA, c.SpeakerB},
			Sessions: len(c.Sessions), Turns: c.TurnCount(),
			Tokens:     tokens.Count(swc.RenderConversation(c)),
			First:      c.Sessions[0].DateText,
			Last:       c.Sessions[len(c.Sessions)-1].DateText,
			Questions:  len(c.Questions),
			ByCategory: counts(), TextOnlyByCategory: counts(),
		}
		for _, q := range c.Questions {
			k := groupKey(Row{Category: int(q.Category), Type: q.Type, Abstention: q.Abstention})
			cs.ByCategory[k]++
			r.Totals.ByCategory[k]++
			if locomo.TextOnly(q) {
				cs.TextOnly++
				cs.TextOnlyByCategory[k]++
				r.Totals.TextOnlyByCategory[k]++
			}
		}
		r.Conversations = append(r.Conversations, cs)
		r.Totals.Conversations++
		r.Totals.Sessions += cs.Sessions
		r.Totals.Turns += cs.Turns
		r.Totals.Tokens += cs.Tokens
		r.Totals.Questions += cs.Questions
		r.Totals.TextOnly += cs.TextOnly
	}
	return r
}
