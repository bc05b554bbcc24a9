package gist

import (
	"context"
	"github.com/swcmem/swc/internal/golden"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	swc "github.com/swcmem/swc"
)

func readFile(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestExtractiveGolden(t *testing.T) {
	tests := []struct {
		input   string
		variant swc.GistVariant
		golden  string
	}{
		{"session.txt", swc.GistFull, "session.full.golden"},
		{"session.txt", swc.GistTemporal, "session.temporal.golden"},
		{"sessions.txt", swc.GistSummary, "sessions.summary.golden"},
		{"sessions.txt", swc.GistSummaryTemporal, "sessions.summary-temporal.golden"},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			got, err := NewExtractive().Gist(context.Background(), swc.GistRequest{Variant: tt.variant, Date: "14 March 2024", Text: readFile(t, tt.input)})
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", tt.golden), []byte(got+"\n"))
		})
	}
}

func gistOf(t *testing.T, g *Extractive, v swc.GistVariant, text string) string {
	t.Helper()
	out, err := g.Gist(context.Background(), swc.GistRequest{Variant: v, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestExtractiveTemporalKeepsWhatFullDrops(t *testing.T) {
	text := readFile(t, "session.txt")
	const s = "It happened yesterday."
	full := gistOf(t, NewExtractive(), swc.GistFull, text)
	temp := gistOf(t, NewExtractive(), swc.GistTemporal, text)
	if strings.Contains(full, s) {
		t.Errorf("full gist keeps the low-information temporal sentence %q:\n%s", s, full)
	}
	if !strings.Contains(temp, s) {
		t.Errorf("temporal gist drops the temporal sentence %q:\n%s", s, temp)
	}
	for _, want := range []string{"next Thursday", "in two weeks", "on Friday night"} {
		if !strings.Contains(temp, want) {
			t.Errorf("temporal gist lacks %q:\n%s", want, temp)
		}
	}
	for line := range strings.SplitSeq(full, "\n") {
		if !strings.Contains(temp, line) && !strings.Contains(temp, strings.SplitN(line, ": ", 2)[1]) {
			t.Errorf("full-gist line %q missing from the temporal gist", line)
		}
	}
}

func TestExtractiveDropsSmallTalk(t *testing.T) {
	full := gistOf(t, NewExtractive(), swc.GistFull, readFile(t, "session.txt"))
	for _, s := range []string{"Hey Nate!", "Congrats!", "Aww, so cute!", "Bye!", "Talk soon!", "it means a lot", "How are you?"} {
		if strings.Contains(full, s) {
			t.Errorf("full gist keeps small talk %q:\n%s", s, full)
		}
	}
	for _, s := range []string{"quit my job at the bank", "Los Angeles", "1,200 followers"} {
		if !strings.Contains(full, s) {
			t.Errorf("full gist lacks the fact %q:\n%s", s, full)
		}
	}
}

func TestExtractiveInjectedTemporal(t *testing.T) {
	var calls int
	g := &Extractive{Temporal: func(s string) bool {
		calls++
		return strings.Contains(s, "Joanna!") // "Hey Joanna!" is small talk
	}}
	out := gistOf(t, g, swc.GistTemporal, readFile(t, "session.txt"))
	if calls == 0 || !strings.Contains(out, "Hey Joanna!") {
		t.Errorf("injected Temporal not used (%d calls):\n%s", calls, out)
	}
	if strings.Contains(out, "It happened yesterday.") {
		t.Errorf("built-in recogniser used despite an injected one:\n%s", out)
	}
}

func TestExtractiveLimits(t *testing.T) {
	text := readFile(t, "session.txt")
	g := &Extractive{MinSentences: 1, MaxSentences: 2, MaxTemporal: 1}
	if n := len(gistSentences(gistOf(t, g, swc.GistFull, text))); n != 2 {
		t.Errorf("MaxSentences 2: got %d sentences", n)
	}
	if n := len(gistSentences(gistOf(t, g, swc.GistTemporal, text))); n != 3 {
		t.Errorf("MaxSentences 2 + MaxTemporal 1: got %d sentences", n)
	}
	if n := len(gistSentences(gistOf(t, NewExtractive(), swc.GistFull, text))); n < DefaultMinSentences || n > DefaultMaxSentences {
		t.Errorf("defaults: got %d sentences, want 3–5", n)
	}
	// The summary scales with the three session headers, bounded by words.
	multi := readFile(t, "sessions.txt")
	if n := len(gistSentences(gistOf(t, g, swc.GistSummary, multi))); n != 6 {
		t.Errorf("summary of 3 sessions at MaxSentences 2: got %d sentences, want 6", n)
	}
	small := &Extractive{MaxSummaryWords: 20}
	if w := len(strings.Fields(gistOf(t, small, swc.GistSummary, multi))); w > 20+2*3 { // + speaker prefixes
		t.Errorf("MaxSummaryWords 20: got %d words", w)
	}
	// Only small talk still gives a non-empty gist.
	if out := gistOf(t, NewExtractive(), swc.GistFull, "A: Hi!\nB: Hey!\nA: Bye!"); out == "" {
		t.Error("small-talk-only chunk gave an empty gist")
	}
}

func TestExtractiveErrorsAndEmpty(t *testing.T) {
	g := NewExtractive()
	ctx := context.Background()
	if out, err := g.Gist(ctx, swc.GistRequest{Variant: swc.GistFull, Text: " \n "}); out != "" || err != nil {
		t.Errorf("empty input = %q, %v; want \"\", nil", out, err)
	}
	if _, err := g.Gist(ctx, swc.GistRequest{Variant: "bogus", Text: "A: hello there"}); swc.ErrorCode(err) != swc.EINVALID {
		t.Errorf("unknown variant: err = %v, want EINVALID", err)
	}
	for _, text := range []string{"Session 1 — 8 May 2023", "[Session 1 — 8 May, 2023]\n\n[Summary of sessions 1–5]"} {
		if out, err := g.Gist(ctx, swc.GistRequest{Variant: swc.GistFull, Text: text}); out != "" || err != nil {
			t.Errorf("header-only input %q = %q, %v; want \"\", nil", text, out, err)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := g.Gist(cctx, swc.GistRequest{Variant: swc.GistFull, Text: "A: hello there"}); err == nil {
		t.Error("cancelled context: no error")
	}
}

// TestExtractiveAnySpeakerForm checks that transcripts whose speakers are
// not capitalised names, or in no turn format at all, still get a gist
// made of their own sentences.
func TestExtractiveAnySpeakerForm(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string // lines of the full gist, in order
	}{
		{"user/assistant", "[Session 1 — 1:56 pm on 8 May, 2023]\n" +
			"user: Hi!\n" +
			"assistant: Hello! How can I help you today?\n" +
			"user: I adopted a dog named Biscuit last week and I need advice on training him.\n" +
			"assistant: Congrats! Start with short sessions of 5 minutes, twice a day.\n" +
			"user: Thanks, I will try that with my sister Anna on Saturday.",
			[]string{
				"user: I adopted a dog named Biscuit last week and I need advice on training him.",
				"assistant: Start with short sessions of 5 minutes, twice a day.",
				"user: Thanks, I will try that with my sister Anna on Saturday.",
			}},
		{"lower-case and digits", "User1: I moved to Berlin in 2021 for a job at Siemens.\nbot-2: ok.\nUser1: We plan to buy a flat there next year.",
			[]string{"User1: I moved to Berlin in 2021 for a job at Siemens.", "bot-2: ok.", "User1: We plan to buy a flat there next year."}},
		{"chinese", "王伟: 我下个月去北京工作。你呢？\n李娜: 我还在上海。",
			[]string{"王伟: 我下个月去北京工作。 你呢？", "李娜: 我还在上海。"}},
		{"no turn format", "[Session 2 — 9 May, 2023]\n> I started a new job at the bakery\n> it is going well",
			[]string{"> I started a new job at the bakery", "> it is going well"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := NewExtractive().Gist(context.Background(), swc.GistRequest{Variant: swc.GistFull, Text: tt.text})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Split(out, "\n"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("gist =\n%s\nwant\n%s", out, strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestExtractiveDeterministic(t *testing.T) {
	text := readFile(t, "session.txt")
	first := gistOf(t, NewExtractive(), swc.GistTemporal, text)
	for range 20 {
		if got := gistOf(t, NewExtractive(), swc.GistTemporal, text); got != first {
			t.Fatalf("gists differ between runs:\n%s\n---\n%s", first, got)
		}
	}
}

func TestExtractiveName(t *testing.T) {
	if n := NewExtractive().Name(); n != "extractive" {
		t.Errorf("Name = %q", n)
	}
	if n := (&Extractive{MaxSentences: 5, MinSentences: 3}).Name(); n != "extractive" {
		t.Errorf("Name with explicit defaults = %q", n)
	}
	if n := (&Extractive{MaxSentences: 4}).Name(); n != "extractive(min=3,max=4,temporal=5,words=400)" {
		t.Errorf("Name = %q", n)
	}
}

func BenchmarkExtractive(b *testing.B) {
	text := readFile(b, "session.txt") // 30 turns
	for _, v := range []swc.GistVariant{swc.GistFull, swc.GistTemporal} {
		b.Run(string(v)+"/turns=30", func(b *testing.B) {
			g := NewExtractive()
			req := swc.GistRequest{Variant: v, Text: text}
			for b.Loop() {
				if _, err := g.Gist(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
