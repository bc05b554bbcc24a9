package selection_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/mock"
	"github.com/swcmem/swc/selection"
	"github.com/swcmem/swc/tokens"
)

func TestSentences(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Hi! How are you? I'm fine.", []string{"Hi!", "How are you?", "I'm fine."}},
		{"Wait... what?! \"Really.\" Yes", []string{"Wait...", "what?!", "\"Really.\"", "Yes"}},
		{"3.5 kg of it", []string{"3.5 kg of it"}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := selection.Sentences(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Sentences(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// checkContext checks what every swc-select or swc-recall context must
// be: within budget, with an exact token count; blocks in session order;
// every line a header, a marker or a turn of the session (anchored, whole
// or with "…" for left-out sentences); markers where turns were left out.
func checkContext(t *testing.T, c *swc.Conversation, x *swc.Context, budget int) {
	t.Helper()
	if n := tokens.Count(x.Text); n != x.Tokens || n > budget {
		t.Fatalf("%s budget %d: Tokens %d, counted %d", c.ID, budget, x.Tokens, n)
	}
	last := -1
	for _, block := range strings.Split(strings.TrimSuffix(x.Text, "\n"), "\n\n") {
		lines := strings.Split(block, "\n")
		if strings.HasSuffix(lines[0], "omitted]") {
			if len(lines) != 1 {
				t.Errorf("omission marker with lines: %q", block)
			}
			continue
		}
		idx := -1
		for i := range c.Sessions {
			if lines[0] == selection.SessionHeader(&c.Sessions[i]) {
				idx = i
			}
		}
		if idx <= last {
			t.Fatalf("%s: block %q out of order or without a header", c.ID, lines[0])
		}
		last = idx
		shown := 0
		for _, l := range lines[1:] {
			if l == selection.Gap {
				continue
			}
			shown++
			sp, rest, ok := strings.Cut(l, ": ")
			if !ok {
				t.Fatalf("%s: line %q is not a turn", c.ID, l)
			}
			found := false
			for _, turn := range c.Sessions[idx].Turns {
				if turn.Speaker != sp {
					continue
				}
				for _, piece := range strings.Split(rest, " "+selection.Gap) {
					piece = strings.TrimSpace(strings.TrimPrefix(piece, selection.Gap))
					if piece == "" {
						continue
					}
					// Anchors are inserted after temporal expressions: compare
					// the text with the bracketed anchors removed.
					if strings.Contains(stripAnchors(swc.RenderTurn(turn)), stripAnchors(piece)) {
						found = true
					}
				}
			}
			if !found {
				t.Errorf("%s session %d: line %q is no turn's text", c.ID, idx+1, l)
			}
		}
		if shown < len(c.Sessions[idx].Turns) && !strings.Contains(block, selection.Gap) {
			t.Errorf("%s session %d: %d of %d turns shown and no marker", c.ID, idx+1, shown, len(c.Sessions[idx].Turns))
		}
	}
}

func stripAnchors(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '[':
			depth++
		case r == ']' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(b.String()), "")
}

func convsForTest(t *testing.T) []*swc.Conversation {
	convs, err := locomo.Sample()
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		return convs // LoCoMo conversations run without -short
	}
	if all, _, err := locomo.LoadFile(locomoPath); err == nil {
		convs = append(convs, all[0], all[7])
	}
	return convs
}

func TestSelectContexts(t *testing.T) {
	a := newAnalyzer()
	for _, sentences := range []bool{false, true} {
		s := selection.New("swc-select", a)
		s.Weights.Sentences = sentences
		for _, c := range convsForTest(t) {
			for _, budget := range []int{300, 1000, 4000} {
				x, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: budget})
				if err != nil {
					t.Fatal(err)
				}
				checkContext(t, c, x, budget)
				if x.Tokens < budget*9/10 && x.Tokens < tokens.Count(swc.RenderConversation(c))*9/10 {
					t.Errorf("%s budget %d: only %d tokens used", c.ID, budget, x.Tokens)
				}
				again, _ := s.Compress(context.Background(), c, swc.CompressOptions{Budget: budget})
				if again.Text != x.Text {
					t.Errorf("%s budget %d: not deterministic", c.ID, budget)
				}
			}
		}
	}
	if _, err := selection.New("x", a).Compress(context.Background(), convsForTest(t)[0], swc.CompressOptions{}); swc.ErrorCode(err) != swc.EINVALID {
		t.Errorf("budget 0: err = %v, want EINVALID", err)
	}
}

func TestRecallContexts(t *testing.T) {
	r := selection.NewRecall("swc-recall", selection.New("swc-select", newAnalyzer()))
	for _, c := range convsForTest(t) {
		for _, budget := range []int{1000, 4000} {
			for _, q := range c.Questions[:10] {
				x, err := r.Compress(context.Background(), c, swc.CompressOptions{Budget: budget, Query: q.Question})
				if err != nil {
					t.Fatal(err)
				}
				checkContext(t, c, x, budget)
			}
		}
	}
}

// TestRecallFindsTheTurn: the turn that answers a question is recalled
// even when the question-agnostic part left it out.
func TestRecallFindsTheTurn(t *testing.T) {
	c := convsForTest(t)[0]
	sel := selection.New("swc-select", newAnalyzer())
	r := selection.NewRecall("swc-recall", sel)
	base, err := sel.Compress(context.Background(), c, swc.CompressOptions{Budget: 600})
	if err != nil {
		t.Fatal(err)
	}
	kept := map[string]bool{}
	for _, id := range base.Verbatim {
		kept[id] = true
	}
	tried := 0
	for _, ses := range c.Sessions {
		for _, turn := range ses.Turns {
			if kept[turn.ID] || len(strings.Fields(turn.Text)) < 12 {
				continue
			}
			tried++
			x, err := r.Compress(context.Background(), c, swc.CompressOptions{Budget: 600, Query: turn.Text})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(stripAnchors(x.Text), stripAnchors(swc.RenderTurn(turn))) {
				t.Errorf("querying with the text of %s did not recall it", turn.ID)
			}
			if tried == 5 {
				return
			}
		}
	}
}

// wordEmbedder maps a text to a one-hot vector on whether it holds word
// (or is the query).
func wordEmbedder(word string) *mock.Embedder {
	return &mock.Embedder{ID: "fake", EmbedFn: func(_ context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i, t := range texts {
			if strings.Contains(strings.ToLower(t), word) || strings.Contains(t, "QUERY") {
				out[i] = []float32{1, 0}
			} else {
				out[i] = []float32{0, 1}
			}
		}
		return out, nil
	}}
}

// TestRecallFusesEmbedder: a turn that shares no term with the query is
// recalled when the embedder finds it similar, and not without one.
func TestRecallFusesEmbedder(t *testing.T) {
	c := convsForTest(t)[0]
	a := newAnalyzer()
	sel := selection.New("swc-select", a)
	base, err := sel.Compress(context.Background(), c, swc.CompressOptions{Budget: 400})
	if err != nil {
		t.Fatal(err)
	}
	// A turn the base left out, found by a word in it.
	var target swc.Turn
	kept := map[string]bool{}
	for _, id := range base.Verbatim {
		kept[id] = true
	}
	for _, ses := range c.Sessions {
		for _, turn := range ses.Turns {
			if !kept[turn.ID] && strings.Contains(turn.Text, "Biscuit") && target.ID == "" {
				target = turn
			}
		}
	}
	if target.ID == "" {
		t.Skip("no left-out turn mentions Biscuit")
	}
	query := "QUERY zzzz" // no term in common with any turn
	plain := selection.NewRecall("swc-recall", sel)
	x, err := plain.Compress(context.Background(), c, swc.CompressOptions{Budget: 600, Query: query})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stripAnchors(x.Text), stripAnchors(swc.RenderTurn(target))) {
		t.Fatalf("BM25 alone recalled %s for a query sharing no term", target.ID)
	}
	before := strings.Count(x.Text, "Biscuit")
	emb := wordEmbedder("biscuit")
	fused := selection.NewRecall("swc-recall", sel)
	fused.Embedder = emb
	for range 2 {
		x, err = fused.Compress(context.Background(), c, swc.CompressOptions{Budget: 600, Query: query})
		if err != nil {
			t.Fatal(err)
		}
		checkContext(t, c, x, 600)
	}
	if after := strings.Count(x.Text, "Biscuit"); after <= before {
		t.Errorf("with the embedder %d mentions of Biscuit, without %d: its ranking recalled nothing", after, before)
	}
	if n := emb.Calls.Load(); n != 3 { // the turns once, the query twice
		t.Errorf("embedder called %d times, want 3", n)
	}
}

// TestWeightsPersonalQuestion: with room for one turn, the one where the
// speaker tells of themselves is kept over a rarer-worded impersonal one
// and a question; with those weights at 0 the rarer words win.
func TestWeightsPersonalQuestion(t *testing.T) {
	day := time.Date(2023, 5, 1, 10, 0, 0, 0, time.UTC)
	c := &swc.Conversation{ID: "w", SpeakerA: "Ann", SpeakerB: "Bob", Sessions: []swc.Session{
		{Index: 0, Start: day, DateText: "10:00 am on 1 May, 2023", Turns: []swc.Turn{
			{ID: "D1:1", Speaker: "Ann", Text: "Kayaks drift past lighthouses."},
			{ID: "D1:2", Speaker: "Bob", Text: "Did gliders circle over orchards?"},
			{ID: "D1:3", Speaker: "Ann", Text: "I saw gliders circle over orchards."},
		}},
	}}
	for _, tc := range []struct {
		name string
		w    func(*selection.Weights)
		want string
	}{
		{"defaults", func(*selection.Weights) {}, "D1:3"},
		{"no personal or question weight", func(w *selection.Weights) { w.Impersonal, w.Question, w.Recency = 0, 0, 0 }, "D1:1"},
	} {
		s := selection.New("swc-select", &selection.Analyzer{})
		tc.w(&s.Weights)
		x := s.Analyzer.Analyze(c)
		// Room for the header, one turn and the "…" lines around it.
		one := tokens.Count(selection.SessionHeader(&c.Sessions[0])) + x.Turns[2].Tokens + 4
		ctx, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: one})
		if err != nil {
			t.Fatal(err)
		}
		if len(ctx.Verbatim) != 1 || ctx.Verbatim[0] != tc.want {
			t.Errorf("%s: kept %v, want only %s\n%s", tc.name, ctx.Verbatim, tc.want, ctx.Text)
		}
	}
}

// TestAssistantRole: in a user/assistant conversation, the assistant's
// sentences are not personal and a long assistant turn's sentences are
// worth less, so that with room for one turn the user's own is kept over
// the assistant's rarer-worded list; the same turns between two people
// (LoCoMo's kind) keep the richer one, as before.
func TestAssistantRole(t *testing.T) {
	day := time.Date(2023, 5, 1, 10, 0, 0, 0, time.UTC)
	conv := func(user, assistant string) *swc.Conversation {
		return &swc.Conversation{ID: "r", SpeakerA: user, SpeakerB: assistant, Sessions: []swc.Session{
			{Index: 0, Start: day, DateText: "10:00 am on 1 May, 2023", Turns: []swc.Turn{
				{ID: "S1:1", Speaker: user, Text: "I adopted a beagle from the shelter."},
				{ID: "S1:2", Speaker: assistant, Text: "I pick kibble, crates, frisbees, leashes. I like harnesses, whistles. I love blankets, brushes."},
			}},
		}}
	}
	for _, tc := range []struct {
		user, assistant string
		personal        bool // the assistant turn's first sentence
		want            string
	}{
		{"user", "assistant", false, "S1:1"},
		{"User", "Assistant", false, "S1:1"},
		{"Ann", "Bob", true, "S1:2"},
	} {
		c := conv(tc.user, tc.assistant)
		s := selection.New("swc-select", &selection.Analyzer{})
		s.Weights.Recency = 0
		x := s.Analyzer.Analyze(c)
		x.SentenceUnits()
		if p := x.Turns[1].Units[0].Personal; p != tc.personal {
			t.Errorf("%s/%s: the second turn's first sentence personal = %v, want %v", tc.user, tc.assistant, p, tc.personal)
		}
		// Room for the header, the user's turn and the "…" line after it:
		// one sentence of the other turn fits instead.
		room := tokens.Count(selection.SessionHeader(&c.Sessions[0])) + x.Turns[0].Tokens + 2
		ctx, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: room})
		if err != nil {
			t.Fatal(err)
		}
		kept := keptTurns(ctx)
		if len(kept) != 1 || kept[0] != tc.want {
			t.Errorf("%s/%s: kept %v, want only %s\n%s", tc.user, tc.assistant, kept, tc.want, ctx.Text)
		}
	}
}

// TestLongTokens: a pasted log (one "sentence" of ~280 tokens, a new term
// every line) outbids a person's short sentence about themselves while
// long units pay only TokenPower of their tokens; past LongTokens they pay
// in full, and with room for either the sentence is kept.
func TestLongTokens(t *testing.T) {
	day := time.Date(2023, 5, 1, 10, 0, 0, 0, time.UTC)
	var table strings.Builder
	table.WriteString("Here is the log")
	for i := range 40 {
		fmt.Fprintf(&table, " step %d passed with no warning,", 100+i)
	}
	c := &swc.Conversation{ID: "l", SpeakerA: "user", SpeakerB: "assistant", Sessions: []swc.Session{
		{Index: 0, Start: day, DateText: "10:00 am on 1 May, 2023", Turns: []swc.Turn{
			{ID: "S1:1", Speaker: "user", Text: table.String()},
			{ID: "S1:2", Speaker: "user", Text: "I moved to Lisbon with my sister in 2021."},
		}},
	}}
	for _, tc := range []struct {
		long int
		want string
	}{{0, "S1:1"}, {selection.DefaultWeights().LongTokens, "S1:2"}} {
		s := selection.New("swc-select", &selection.Analyzer{})
		s.Weights.Recency, s.Weights.LongTokens = 0, tc.long
		x := s.Analyzer.Analyze(c)
		// Room for the header and the table, not for both turns.
		room := tokens.Count(selection.SessionHeader(&c.Sessions[0])) + x.Turns[0].Tokens + 4
		ctx, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: room})
		if err != nil {
			t.Fatal(err)
		}
		kept := keptTurns(ctx)
		if len(kept) != 1 || kept[0] != tc.want {
			t.Errorf("LongTokens %d: kept %v, want only %s\n%s", tc.long, kept, tc.want, ctx.Text)
		}
	}
}

// keptTurns returns the ids of the turns a context keeps, in order.
func keptTurns(ctx *swc.Context) []string {
	var kept []string
	for _, ch := range ctx.Chunks {
		kept = append(kept, ch.KeptTurns...)
	}
	return kept
}
