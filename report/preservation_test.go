package report

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/preserve"
)

// analyzedReport runs the preservation analysis on a two-turn
// conversation gisted by swc-full (which drops the date) and swc-temporal
// (which keeps it).
func analyzedReport(t *testing.T) *preserve.Report {
	t.Helper()
	conv := &swc.Conversation{ID: "conv-x", SpeakerA: "Caroline", SpeakerB: "Melanie", Sessions: []swc.Session{{
		Index: 0, Start: time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC), DateText: "1:56 pm on 8 May, 2023",
		Turns: []swc.Turn{
			{ID: "D1:1", Speaker: "Caroline", Text: "I went to Paris with Maria on 7 May 2023 and we visited the Louvre."},
			{ID: "D1:2", Speaker: "Melanie", Text: "That sounds lovely, Caroline!"},
		},
	}}}
	gist := func(strategy string, v swc.GistVariant, text string) map[string]*swc.Context {
		return map[string]*swc.Context{conv.ID: {Strategy: strategy, Gists: []swc.GistRecord{
			{Variant: v, Sessions: []int{0}, Turns: []string{"D1:1", "D1:2"}, Text: text, InContext: true},
		}}}
	}
	rep := preserve.Analyze([]*swc.Conversation{conv}, map[string]map[string]*swc.Context{
		"swc-full":     gist("swc-full", swc.GistFull, "Caroline went to Paris with Maria and visited the Louvre."),
		"swc-temporal": gist("swc-temporal", swc.GistTemporal, "Caroline went to Paris with Maria on 7 May 2023 and visited the Louvre."),
	})
	if !rep.HasGists() {
		t.Fatal("analysis audited no gists")
	}
	if c := rep.Counts(preserve.Temporal, "swc-full"); c == nil || c.Found == 0 {
		t.Fatalf("no temporal mention found: %+v", c)
	}
	return rep
}

func TestPreservationAnalyzed(t *testing.T) {
	rep := analyzedReport(t)
	s := minimalSummary()
	s.Order = []string{"swc-temporal", "swc-full"}
	s.Preservation = rep
	md := string(rendered(t, Markdown, s))
	for _, ty := range preserve.Types {
		for _, v := range s.Order {
			c := rep.Counts(ty, v)
			row := fmt.Sprintf("| %s | %s | %d | %d | %s |", typeName(ty), v, c.Found, c.Preserved, pct(c.Rate))
			if ty == preserve.Temporal {
				row += " " + pct(*c.ValueRate) + " |"
			}
			if !strings.Contains(md, row) {
				t.Errorf("report lacks row %q:\n%s", row, md)
			}
		}
	}
	full, temp := rep.Counts(preserve.Temporal, "swc-full"), rep.Counts(preserve.Temporal, "swc-temporal")
	if full.Rate != 0 || temp.Rate == 0 {
		t.Fatalf("fixture rates: swc-full %v, swc-temporal %v", full.Rate, temp.Rate)
	}
	// swc-full kept no date, so the ratio is undefined.
	if want := fmt.Sprintf("| Temporal | %d | 0.00%% | %s | — |", full.Found, pct(temp.Rate)); !strings.Contains(md, want) {
		t.Errorf("Table 3 lacks %q:\n%s", want, md)
	}
	checkWellFormed(t, string(rendered(t, HTML, s)))
}

func TestPreservationNoCounts(t *testing.T) {
	for name, rep := range map[string]*preserve.Report{
		"empty":      {},
		"nil type":   {Types: map[string]*preserve.TypeReport{preserve.Temporal: nil}},
		"nil counts": {Types: map[string]*preserve.TypeReport{preserve.Entity: {Variants: map[string]*preserve.Counts{"swc-full": nil}}}},
	} {
		t.Run(name, func(t *testing.T) {
			s := minimalSummary()
			s.Preservation = rep
			md := string(rendered(t, Markdown, s))
			if !strings.Contains(md, "## Preservation of gisted content") || !strings.Contains(md, "holds no counts") {
				t.Errorf("report without counts not explained:\n%s", md)
			}
			checkWellFormed(t, string(rendered(t, HTML, s)))
		})
	}
	if md := string(rendered(t, Markdown, minimalSummary())); strings.Contains(md, "Preservation") {
		t.Error("preservation section without an analysis")
	}
}
