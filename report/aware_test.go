package report

import (
	"strings"
	"testing"

	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/locomo"
)

// awareSummary is testSummary with swc-temporal, the best condition,
// question-aware.
func awareSummary() *bench.Summary {
	s := testSummary()
	s.Conditions["swc-temporal"].QueryAware = true
	return s
}

// oneConversation keeps only the first conversation of s, as a run on the
// built-in sample has it.
func oneConversation(s *bench.Summary) *bench.Summary {
	first := s.Settings.Conversations[0]
	s.Settings.Conversations = s.Settings.Conversations[:1]
	s.Settings.Data = locomo.SampleName
	for conv := range s.PerConversation {
		if conv != first {
			delete(s.PerConversation, conv)
		}
	}
	for i := range s.Paired {
		s.Paired[i].PerConversation = map[string]float64{first: s.Paired[i].PerConversation[first]}
	}
	return s
}

func TestQuestionAwareLabelled(t *testing.T) {
	md := string(rendered(t, Markdown, awareSummary()))
	page := string(rendered(t, HTML, awareSummary()))
	for _, want := range []string{
		"Highest judge accuracy on categories 1–4 under the 4000-token budget: swc-temporal (question-aware: its context is built for each question, knowing it)",
		"Highest judge accuracy on categories 1–4 under the 4000-token budget among the conditions that build one context per conversation: swc-full,",
		"swc-temporal † − swc-full, 2 Temporal",
		"| swc-temporal † |",
		awareNote,
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	for _, want := range []string{
		`<text class="legend" x="804" y="56" font-size="12" dominant-baseline="middle">swc-temporal †</text>`,
		`<text class="row-label" x="190" y="74.0" font-size="12" text-anchor="end" dominant-baseline="middle">swc-temporal †</text>`,
		`>† question-aware</text>`,
		"<td>swc-temporal †</td>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	// Without a question-aware condition, nothing is marked.
	for name, out := range map[string][]byte{"md": rendered(t, Markdown, testSummary()), "html": rendered(t, HTML, testSummary())} {
		if strings.Contains(string(out), "†") || strings.Contains(string(out), "question-aware") {
			t.Errorf("%s marks a condition question-aware though none is", name)
		}
	}
}

func TestFewConversationsCaveat(t *testing.T) {
	md := string(rendered(t, Markdown, oneConversation(testSummary())))
	want := "> Caveat: every verdict below comes from one conversation (the built-in sample is one synthetic conversation)."
	if !strings.Contains(md, want) {
		t.Errorf("report.md lacks %q:\n%.1500s", want, md)
	}
	if i, j := strings.Index(md, "> Caveat"), strings.Index(md, "— better."); j < 0 || i > j {
		t.Errorf("caveat at %d, first verdict at %d: want the caveat first", i, j)
	}
	page := string(rendered(t, HTML, oneConversation(testSummary())))
	if !strings.Contains(page, `<p class="caveat" role="note">Caveat: every verdict below comes from one conversation`) {
		t.Error("report.html shows no caveat")
	}
	two := testSummary()
	for i := range two.Paired {
		delete(two.Paired[i].PerConversation, "conv-41")
	}
	if md := string(rendered(t, Markdown, two)); !strings.Contains(md, "> Caveat: every verdict below comes from 2 conversations. ") {
		t.Error("no caveat for verdicts from 2 conversations")
	}
	for name, s := range map[string]*bench.Summary{"three conversations": testSummary(), "no verdicts": oneConversation(minimalSummary())} {
		if out := string(rendered(t, Markdown, s)); strings.Contains(out, "Caveat") {
			t.Errorf("%s: a caveat", name)
		}
	}
}
