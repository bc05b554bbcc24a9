package bench_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/tokens"
)

func TestSupportLines(t *testing.T) {
	ctx := "[Session 1 — 1:56 pm on 8 May, 2023]\nCaroline: I went to a support group yesterday.\nMelanie: That's great!\n\n" +
		"[Sessions 2–3 omitted]\n\n" +
		"[Session 4 — 10:00 am on 1 June, 2023] (summary)\nMelanie painted a lake. She ran a charity race! Why?\n"
	want := []string{
		"[Session 1 — 1:56 pm on 8 May, 2023] Caroline: I went to a support group yesterday.",
		"[Session 1 — 1:56 pm on 8 May, 2023] Melanie: That's great!",
		"[Session 4 — 10:00 am on 1 June, 2023] (summary) Melanie painted a lake.",
		"[Session 4 — 10:00 am on 1 June, 2023] (summary) She ran a charity race!",
		"[Session 4 — 10:00 am on 1 June, 2023] (summary) Why?",
	}
	s := bench.NewSupport(ctx)
	if got := s.Lines(); !reflect.DeepEqual(got, want) {
		t.Fatalf("lines:\n%q\nwant\n%q", got, want)
	}
	tests := []struct {
		question, gold string
		k              int
		want           float64
	}{
		{"When did Caroline go to the support group?", "7 May 2023", 1, 2.0 / 3}, // "may", "2023" from the header; not "7"
		{"What did Melanie paint?", "a lake", 1, 1},
		{"What did Melanie paint?", "a lake", 0, 1},
		{"What did Melanie run?", "a lake", 1, 0}, // "ran" is not "run": the shortest Melanie line ranks first
		{"What did Melanie run?", "a lake", 5, 1},
		{"Who is Bob?", "a lake", 5, 0}, // no line shares a term
		{"What did Melanie paint?", "", 5, 0},
	}
	for _, tt := range tests {
		if got := s.Recall(tt.question, tt.gold, tt.k); got != tt.want {
			t.Errorf("Recall(%q, %q, %d) = %v, want %v", tt.question, tt.gold, tt.k, got, tt.want)
		}
	}
}

func TestSupportWindowsLongLines(t *testing.T) {
	words := make([]string, 2*bench.SupportWindow+1)
	for i := range words {
		words[i] = "w"
	}
	if n := len(bench.NewSupport(strings.Join(words, " ")).Lines()); n != 3 {
		t.Errorf("a line of %d words made %d lines, want 3", len(words), n)
	}
}

// wordSalad returns every distinct word of c's transcript, shuffled, cut
// to budget tokens.
func wordSalad(c *swc.Conversation, budget int, seed uint64) string {
	seen := map[string]bool{}
	var words []string
	for _, w := range strings.Fields(swc.RenderConversation(c)) {
		w = strings.ToLower(strings.Trim(w, ".,!?;:\"()[]'"))
		if w != "" && !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	r := rand.New(rand.NewPCG(seed, seed))
	r.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
	return tokens.Truncate(strings.Join(words, " "), budget)
}

// meanMetrics returns the mean answer-token recall and support_recall@5 of
// context over c's questions in categories 1–4.
func meanMetrics(c *swc.Conversation, context string) (recall, support float64) {
	idx, sup := bench.NewIndex(context), bench.NewSupport(context)
	n := 0
	for _, q := range c.Questions {
		if q.Category == swc.Adversarial || !locomo.TextOnly(q) {
			continue
		}
		gold := bench.GoldFor(q)
		recall += idx.TokenRecall(gold)
		support += sup.Recall(q.Question, gold, bench.SupportK)
		n++
	}
	return recall / float64(n), support / float64(n)
}

// TestWordSaladCannotGameSupportRecall is why support_recall exists: a bag
// of every distinct word of the conversation scores high on answer-token
// recall, but its lines do not support the answer.
func TestWordSaladCannotGameSupportRecall(t *testing.T) {
	convs, err := locomo.Sample()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "shared", "data", "locomo", "locomo10.json")
	if _, err := os.Stat(path); err == nil {
		all, _, err := locomo.LoadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		convs = append(convs, all[0], all[5])
	} else {
		t.Logf("LoCoMo not found at %s: testing the built-in sample only", path)
	}
	for _, c := range convs {
		const budget = 4000
		salad := wordSalad(c, budget, 1)
		if n := tokens.Count(salad); n > budget {
			t.Fatalf("%s: salad has %d tokens, budget %d", c.ID, n, budget)
		}
		sr, ss := meanMetrics(c, salad)
		fr, fs := meanMetrics(c, swc.RenderConversation(c))
		t.Logf("%s: word salad recall %.3f support %.3f; full context recall %.3f support %.3f", c.ID, sr, ss, fr, fs)
		if sr < 0.6 {
			t.Errorf("%s: word salad answer-token recall %.3f, want ≥ 0.6 (the metric it games)", c.ID, sr)
		}
		if ss > 0.3 {
			t.Errorf("%s: word salad support_recall@5 %.3f, want ≤ 0.3", c.ID, ss)
		}
		if fs < ss+0.3 {
			t.Errorf("%s: full context support_recall@5 %.3f is not well above the salad's %.3f", c.ID, fs, ss)
		}
	}
}
