package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/tokens"
)

func init() {
	register("stats", "statistics of a dataset: sessions, turns, tokens, questions", runStats)
}

// catCounts maps "1".."5" to a count; JSON keys stay in order.
type catCounts map[string]int

type convStats struct {
	ID                 string    `json:"id"`
	Speakers           [2]string `json:"speakers"`
	Sessions           int       `json:"sessions"`
	Turns              int       `json:"turns"`
	Tokens             int       `json:"tokens"`
	First              string    `json:"first_session"`
	Last               string    `json:"last_session"`
	Questions          int       `json:"questions"`
	TextOnly           int       `json:"text_only"`
	ByCategory         catCounts `json:"by_category"`
	TextOnlyByCategory catCounts `json:"text_only_by_category"`
}

type totalStats struct {
	Conversations      int       `json:"conversations"`
	Sessions           int       `json:"sessions"`
	Turns              int       `json:"turns"`
	Tokens             int       `json:"tokens"`
	Questions          int       `json:"questions"`
	TextOnly           int       `json:"text_only"`
	ByCategory         catCounts `json:"by_category"`
	TextOnlyByCategory catCounts `json:"text_only_by_category"`
}

type statsReport struct {
	Tokenizer     string      `json:"tokenizer"`
	Conversations []convStats `json:"conversations"`
	Totals        totalStats  `json:"totals"`
}

func newCatCounts() catCounts {
	m := catCounts{}
	for _, c := range swc.Categories {
		m[strconv.Itoa(int(c))] = 0
	}
	return m
}

// computeStats counts sessions, turns, rendered-transcript tokens and
// questions per conversation and in total.
func computeStats(convs []*swc.Conversation) statsReport {
	r := statsReport{Tokenizer: tokens.Name, Totals: totalStats{ByCategory: newCatCounts(), TextOnlyByCategory: newCatCounts()}}
	for _, c := range convs {
		cs := convStats{
			ID: c.ID, Speakers: [2]string{c.SpeakerA, c.SpeakerB},
			Sessions: len(c.Sessions), Turns: c.TurnCount(),
			Tokens:     tokens.Count(swc.RenderConversation(c)),
			First:      c.Sessions[0].DateText,
			Last:       c.Sessions[len(c.Sessions)-1].DateText,
			Questions:  len(c.Questions),
			ByCategory: newCatCounts(), TextOnlyByCategory: newCatCounts(),
		}
		for _, q := range c.Questions {
			k := strconv.Itoa(int(q.Category))
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

func runStats(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "stats", "[--data FILE | --input FILE [--format F]] [--json]")
	data := addDataFlags(fs)
	asJSON := fs.Bool("json", false, "print one JSON object")
	in := addInputFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := in.check(data.path); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("stats: unexpected argument %q", fs.Arg(0))
	}
	_, convs, err := loadPicked(env, data, in, "")
	if err != nil {
		return err
	}
	r := computeStats(convs)
	if *asJSON {
		return writeJSON(env.Stdout, r)
	}
	printStats(env.Stdout, r)
	return nil
}

func printStats(w io.Writer, r statsReport) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "conversation\tsessions\tturns\ttokens\tquestions\ttext-only\tcat1\tcat2\tcat3\tcat4\tcat5\t")
	row := func(id string, s, t, tok, q, to int, cats, tcats catCounts) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t", id, s, t, tok, q, to)
		for _, c := range swc.Categories {
			k := strconv.Itoa(int(c))
			fmt.Fprintf(tw, "%d/%d\t", tcats[k], cats[k])
		}
		fmt.Fprintln(tw)
	}
	for _, c := range r.Conversations {
		row(c.ID, c.Sessions, c.Turns, c.Tokens, c.Questions, c.TextOnly, c.ByCategory, c.TextOnlyByCategory)
	}
	t := r.Totals
	row(fmt.Sprintf("total (%d)", t.Conversations), t.Sessions, t.Turns, t.Tokens, t.Questions, t.TextOnly, t.ByCategory, t.TextOnlyByCategory)
	tw.Flush()
	fmt.Fprintf(w, "\ntokens: %s over the rendered transcript; catN: text-only/all questions.\n", r.Tokenizer)
	fmt.Fprintf(w, "text-only: %d of %d (%d in categories 1–4, %d in category 5)\n",
		t.TextOnly, t.Questions, t.TextOnly-t.TextOnlyByCategory["5"], t.TextOnlyByCategory["5"])
}
