package selection_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bm25"
	"github.com/swcmem/swc/internal/locomotest"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/selection"
	"github.com/swcmem/swc/tokens"
)

// allConvs returns every LoCoMo conversation and the built-in sample (the
// sample alone under -short or without the data).
func allConvs(t *testing.T) []*swc.Conversation {
	t.Helper()
	convs := locomotest.Load(t)
	if !testing.Short() {
		sample, err := locomo.Sample()
		if err != nil {
			t.Fatal(err)
		}
		convs = append(sample, convs...)
	}
	return convs
}

// wholeSize returns the tokens of c rendered with every turn kept, as
// swc-select renders it (anchored), counted here.
func wholeSize(t *testing.T, x *selection.Analysis) int {
	var b strings.Builder
	for i := range x.Conv.Sessions {
		if i > 0 {
			b.WriteString(swc.BlockSeparator)
		}
		b.WriteString(selection.SessionHeader(&x.Conv.Sessions[i]))
		for k := x.First[i]; k < x.First[i+1]; k++ {
			b.WriteString("\n" + x.Turns[k].Line)
		}
	}
	b.WriteString("\n")
	n := tokens.Count(b.String())
	if n != x.WholeTokens() {
		t.Errorf("%s: WholeTokens %d, counted %d", x.Conv.ID, x.WholeTokens(), n)
	}
	return n
}

// TestWholeConversationFits: any budget the whole conversation fits (its
// size, one more, twice it, a million tokens) keeps every turn, under
// swc-select and under swc-recall with a question (conv-47's first turn,
// which every later turn makes worth nothing more, included).
func TestWholeConversationFits(t *testing.T) {
	a := newAnalyzer()
	sel := selection.New("swc-select", a)
	rec := selection.NewRecall("swc-recall", sel)
	for _, c := range allConvs(t) {
		x := a.Analyze(c)
		size := wholeSize(t, x)
		query := "What did they talk about?"
		if len(c.Questions) > 0 {
			query = c.Questions[0].Question
		}
		for _, budget := range []int{size - 1, size, size + 1, 2 * size, 1_000_000} {
			for _, s := range []swc.Strategy{sel, rec} {
				ctx, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: budget, Query: query})
				if err != nil {
					t.Fatal(err)
				}
				if budget < size {
					if len(ctx.Verbatim) == len(x.Turns) {
						t.Errorf("%s %s: all %d turns in %d tokens, under their size %d", s.Name(), c.ID, len(x.Turns), budget, size)
					}
					continue
				}
				if len(ctx.Verbatim) != len(x.Turns) || len(ctx.Dropped) != 0 || ctx.Tokens != size {
					t.Errorf("%s %s budget %d (size %d): %d of %d turns, %d tokens, dropped %v", s.Name(), c.ID, budget, size, len(ctx.Verbatim), len(x.Turns), ctx.Tokens, ctx.Dropped)
				}
			}
		}
	}
}

// TestBudgetBelowMarker: a budget below the omission marker of an empty
// context is an EINVALID error (it used to loop forever).
func TestBudgetBelowMarker(t *testing.T) {
	c := convsForTest(t)[0]
	sel := selection.New("swc-select", newAnalyzer())
	for _, s := range []swc.Strategy{sel, selection.NewRecall("swc-recall", sel)} {
		done := make(chan error, 1)
		go func() {
			_, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: 3, Query: c.Questions[0].Question})
			done <- err
		}()
		select {
		case err := <-done:
			if swc.ErrorCode(err) != swc.EINVALID || !strings.Contains(err.Error(), "below the") {
				t.Errorf("%s at 3 tokens: %v, want EINVALID", s.Name(), err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s at 3 tokens: no answer after 10 s", s.Name())
		}
	}
}

// turn is a turn of a test conversation.
func turn(id, sp, text string) swc.Turn { return swc.Turn{ID: id, Speaker: sp, Text: text} }

// recallConv has one question turn, its reply, and filler.
func recallConv() *swc.Conversation {
	day := time.Date(2023, 5, 1, 13, 0, 0, 0, time.UTC)
	return &swc.Conversation{ID: "r", SpeakerA: "Ann", SpeakerB: "Bob", Sessions: []swc.Session{
		{Index: 0, Start: day, DateText: "1 May, 2023", Turns: []swc.Turn{
			turn("D1:1", "Ann", "The weather was lovely this morning."),
			turn("D1:2", "Bob", "Which breed is your new puppy?"),
			turn("D1:3", "Ann", "A golden retriever called Max."),
			turn("D1:4", "Bob", "Lovely weather indeed, the sun is out."),
			turn("D1:5", "Ann", "Puppy training starts next week."),
		}},
	}}
}

// TestRecallScores: a reply inherits Reply × the score of the question
// turn before it; a turn that follows no question does not, nor does an
// assistant's reply (a user/assistant conversation: the same turns with
// Bob as the user and Ann as the assistant), nor a user's reply to an
// assistant's question (Ann the user, Bob the assistant). In a
// user/assistant conversation a user's turn takes Prompt × the score of
// the assistant's answer after it instead.
func TestRecallScores(t *testing.T) {
	for _, tc := range []struct {
		ann, bob string
		inherits bool // D1:3, Ann's reply to Bob's question
	}{
		{"Ann", "Bob", true},
		{"Assistant", "User", false},
		{"assistant", "user", false},
		{"User", "Assistant", false},
		{"Carol", "assistant", false},
	} {
		a := newAnalyzer()
		c := recallConv()
		for i := range c.Sessions[0].Turns {
			tu := &c.Sessions[0].Turns[i]
			tu.Speaker = map[string]string{"Ann": tc.ann, "Bob": tc.bob}[tu.Speaker]
		}
		x := a.Analyze(c)
		r := selection.NewRecall("swc-recall", selection.New("swc-select", a))
		own := x.LineIndex().Scores([]string{"breed", "puppi"})
		got := r.Scores(x, "What breed is the puppy?")
		want := slices.Clone(own)
		if tc.inherits {
			want[2] += own[1]
		}
		// A user's turn before the assistant's answer to it takes
		// DefaultPrompt of the answer's score.
		for i := range len(own) - 1 {
			if sp, next := c.Sessions[0].Turns[i].Speaker, c.Sessions[0].Turns[i+1].Speaker; !selection.Assistant(sp) && selection.Assistant(next) {
				want[i] += selection.DefaultPrompt * own[i+1]
			}
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s/%s turn %d: score %v, want %v (own %v)", tc.ann, tc.bob, i, got[i], want[i], own)
			}
		}
		if tc.bob == "User" && got[3] <= own[3] { // D1:5, the assistant's answer, names the puppy
			t.Errorf("%s/%s: the user's turn D1:4 scores %v, no more than its own %v though the answer after it matches", tc.ann, tc.bob, got[3], own[3])
		}
	}
	a := newAnalyzer()
	c := recallConv()
	x := a.Analyze(c)
	r := selection.NewRecall("swc-recall", selection.New("swc-select", a))
	own := x.LineIndex().Scores([]string{"breed", "puppi"})
	r.Reply = 0
	if got := r.Scores(x, "What breed is the puppy?"); got[2] != own[2] {
		t.Errorf("Reply 0: the reply scores %v, want its own %v", got[2], own[2])
	}
	for i := range c.Sessions[0].Turns { // a user and an assistant
		c.Sessions[0].Turns[i].Speaker = map[string]string{"Ann": "assistant", "Bob": "user"}[c.Sessions[0].Turns[i].Speaker]
	}
	x = a.Analyze(c)
	r.Prompt = 0
	if got := r.Scores(x, "What breed is the puppy?"); !slices.Equal(got, x.LineIndex().Scores([]string{"breed", "puppi"})) {
		t.Errorf("Prompt 0: scores %v, want every turn's own", got)
	}
}

// TestRecallScoresRuns: in a chat people send a thought as several
// messages in a row (a run); the message opening the other person's next
// run takes Reply × the best score of the questions in the run before it,
// even when the asker's own follow-ups come between; a message that
// continues its run, or follows a run holding no question, does not; nor
// does a run after a session break.
func TestRecallScoresRuns(t *testing.T) {
	day := time.Date(2023, 12, 30, 22, 0, 0, 0, time.UTC)
	c := &swc.Conversation{ID: "runs", SpeakerA: "Kate", SpeakerB: "Elise", Sessions: []swc.Session{
		{Index: 0, Start: day, DateText: "30 December, 2023", Turns: []swc.Turn{
			turn("D1:1", "Elise", "What pasta dish did you learn to make?"),
			turn("D1:2", "Elise", "Did you take any photos of the pasta?"),
			turn("D1:3", "Elise", "The fair was great, I loved the paintings."),
			turn("D1:4", "Kate", "We whipped up a dish with ham and peas."),
			turn("D1:5", "Kate", "It tasted great with cheese."),
			turn("D1:6", "Elise", "Yum."),
			turn("D1:7", "Kate", "Which pasta do you like?"),
		}},
		{Index: 1, Start: day.Add(24 * time.Hour), DateText: "31 December, 2023", Turns: []swc.Turn{
			turn("D2:1", "Elise", "Linguine with clams."),
		}},
	}}
	a := newAnalyzer()
	x := a.Analyze(c)
	r := selection.NewRecall("swc-recall", selection.New("swc-select", a))
	q := "What kind of pasta did Kate make?"
	own := x.LineIndex().Scores(bm25.Terms(q))
	got := r.Scores(x, q)
	want := slices.Clone(own)
	want[3] += max(own[0], own[1]) // D1:4 opens Kate's run after Elise's questions
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("turn %s: score %v, want %v (own %v)", x.Turns[i].Turn.ID, got[i], want[i], own)
		}
	}
	if got[3] <= own[3] || own[0] == 0 || own[1] == 0 {
		t.Fatalf("the answer D1:4 scores %v (own %v): the test does not test the rule", got[3], own[3])
	}
}

// TestRecallScoresDay: a question naming a day ("on 2 May, 2023", "on
// 02.05.2023") adds to every turn held that day, and to a turn whose
// anchored line names it ("yesterday [2 May 2023]"), the IDF of a word in
// just those turns; the sharks movie of another day no longer ties the
// space movie of that day. Without a day, or with Day 0, the scores are
// BM25's own.
func TestRecallScoresDay(t *testing.T) {
	may := func(d, h int) time.Time { return time.Date(2023, 5, d, h, 0, 0, 0, time.UTC) }
	c := &swc.Conversation{ID: "days", SpeakerA: "Ann", SpeakerB: "Bo", Sessions: []swc.Session{
		{Index: 0, Start: may(1, 20), DateText: "8:00 pm on 1 May, 2023", Turns: []swc.Turn{
			turn("D1:1", "Ann", "I watched a movie about sharks."), turn("D1:2", "Bo", "Scary!")}},
		{Index: 1, Start: may(2, 20), DateText: "8:00 pm on 2 May, 2023", Turns: []swc.Turn{
			turn("D2:1", "Ann", "I watched a movie about space."), turn("D2:2", "Bo", "Nice.")}},
		{Index: 2, Start: may(3, 20), DateText: "8:00 pm on 3 May, 2023", Turns: []swc.Turn{
			turn("D3:1", "Bo", "The popcorn yesterday was stale."), turn("D3:2", "Ann", "Agreed.")}},
	}}
	a := newAnalyzer()
	x := a.Analyze(c)
	r := selection.NewRecall("swc-recall", selection.New("swc-select", a))
	for _, q := range []string{"What movie did Ann watch on 2 May, 2023?", "What movie did Ann watch on 02.05.2023?"} {
		own := x.LineIndex().Scores(bm25.Terms(q))
		if own[0] != own[2] {
			t.Fatalf("%q: the movies score %v and %v on their words: the test does not test the rule", q, own[0], own[2])
		}
		got := r.Scores(x, q)
		bonus := bm25.IDF(len(x.Turns), 3) // D2:1, D2:2, D3:1
		for i, id := range []string{"D1:1", "D1:2", "D2:1", "D2:2", "D3:1", "D3:2"} {
			want := own[i]
			if id == "D2:1" || id == "D2:2" || id == "D3:1" {
				want += bonus
			}
			if math.Abs(got[i]-want) > 1e-9 {
				t.Errorf("%q: turn %s (%s): score %v, want %v", q, id, x.Turns[i].Line, got[i], want)
			}
		}
		r.Day = 0
		if got := r.Scores(x, q); !slices.Equal(got, own) {
			t.Errorf("%q, Day 0: scores %v, want BM25's %v", q, got, own)
		}
		r.Day = selection.DefaultDay
	}
	if q := "What movie did Ann watch?"; !slices.Equal(r.Scores(x, q), x.LineIndex().Scores(bm25.Terms(q))) {
		t.Errorf("%q: a question naming no day changed the scores", q)
	}
}

// TestRecallStandsOut: the turns standing out for the question (here the
// question turn and its reply) are kept even at a budget the
// question-agnostic selection spends elsewhere.
func TestRecallStandsOut(t *testing.T) {
	a := newAnalyzer()
	c := recallConv()
	sel := selection.New("swc-select", a)
	r := selection.NewRecall("swc-recall", sel)
	const budget = 40
	agn, err := sel.Compress(context.Background(), c, swc.CompressOptions{Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	x, err := r.Compress(context.Background(), c, swc.CompressOptions{Budget: budget, Query: "What breed is the puppy?"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(x.Text, "A golden retriever called Max.") || !strings.Contains(x.Text, "Which breed is your new puppy?") {
		t.Errorf("the question turn and its reply are not both kept:\n%s", x.Text)
	}
	if agn.Text == x.Text {
		t.Errorf("the question changed nothing:\n%s", x.Text)
	}
	if n := tokens.Count(x.Text); n > budget || n != x.Tokens {
		t.Errorf("%d tokens (reported %d), budget %d", n, x.Tokens, budget)
	}
}

// TestRecallKeepsLongTurnWhole: a recalled turn of many short sentences
// costs its line, not the sum of its sentences tokenized apart (which
// overstates it), so it is kept whole at a budget its line fits.
func TestRecallKeepsLongTurnWhole(t *testing.T) {
	day := time.Date(2023, 5, 1, 13, 0, 0, 0, time.UTC)
	var items []string
	for i := range 60 {
		items = append(items, fmt.Sprintf("Step %d.", i+1))
	}
	long := "The zebra recipe: " + strings.Join(items, " ")
	c := &swc.Conversation{ID: "l", SpeakerA: "user", SpeakerB: "assistant", Sessions: []swc.Session{
		{Index: 0, Start: day, DateText: "1 May, 2023", Turns: []swc.Turn{
			{ID: "S1:1", Speaker: "user", Text: "How do I cook it?"},
			{ID: "S1:2", Speaker: "assistant", Text: long},
			{ID: "S1:3", Speaker: "user", Text: "Thanks, I will try it on Sunday with my sister."},
		}},
	}}
	a := newAnalyzer()
	x := a.Analyze(c)
	x.SentenceUnits()
	sum := 0
	for _, u := range x.Turns[1].Units {
		sum += u.Tokens
	}
	line := x.Turns[1].Tokens
	if sum <= line+10 {
		t.Fatalf("the fixture does not overstate: sentences %d, line %d tokens", sum, line)
	}
	for _, budget := range []int{line + 30, (line + sum) / 2} {
		r := selection.NewRecall("swc-recall", selection.New("swc-select", a))
		ctx, err := r.Compress(context.Background(), c, swc.CompressOptions{Budget: budget, Query: "What was the zebra recipe?"})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(ctx.Verbatim, "S1:2") {
			t.Errorf("budget %d (line %d, sentences %d tokens): S1:2 not kept whole\n%s", budget, line, sum, ctx.Text)
		}
		if ctx.Tokens > budget {
			t.Errorf("budget %d: %d tokens", budget, ctx.Tokens)
		}
	}
}

// TestRecallLongTurnPart: with LongTurn set, a recalled turn longer than
// LongTurn × the median turn is kept as its first sentence and those
// holding a term of the question (with Around either side), a gap for
// the rest, within the budget; the room freed keeps the other recalled
// turn, which the long turn whole left no room for. LongTurn 0 keeps it
// whole.
func TestRecallLongTurnPart(t *testing.T) {
	day := time.Date(2023, 5, 1, 13, 0, 0, 0, time.UTC)
	const tip = "Keep a steady routine for feeding and walks."
	long := "Congratulations on the new puppy! " + strings.Repeat(tip+" ", 5) +
		"A crate helps a puppy settle at night. " + strings.TrimSpace(strings.Repeat(tip+" ", 5))
	turns := []swc.Turn{
		{ID: "S1:1", Speaker: "user", Text: "We got a puppy."},
		{ID: "S1:2", Speaker: "assistant", Text: long},
	}
	// Other turns, more than the budget, with new terms each.
	for i := range 60 {
		w := fmt.Sprintf("K%c%c", 'a'+i%26, 'a'+i/26)
		turns = append(turns, swc.Turn{ID: fmt.Sprintf("S1:%d", i+3), Speaker: []string{"user", "assistant"}[i%2],
			Text: fmt.Sprintf("My cousin %sor moved to %sville and sells %sel bread.", w, w, w)})
	}
	c := &swc.Conversation{ID: "p", SpeakerA: "user", SpeakerB: "assistant", Sessions: []swc.Session{
		{Index: 0, Start: day, DateText: "1 May, 2023", Turns: turns},
	}}
	const q = "What did you say about the crate for the puppy?"
	a := newAnalyzer()
	x := a.Analyze(c)
	budget := x.Header[0] + x.Turns[1].Tokens + 3 // the long turn whole, not with S1:1
	if m := x.MedianTokens(); x.Turns[1].Tokens <= 3*m {
		t.Fatalf("the fixture's long turn is %d tokens, the median %d", x.Turns[1].Tokens, m)
	}
	for _, tc := range []struct {
		longTurn float64
		around   int
		want     string // the long turn's line begins so; "": LongTurn 0
	}{
		{0, 0, ""},
		{3, 0, "assistant: Congratulations on the new puppy! … A crate helps a puppy settle at night. "},
		{3, 1, "assistant: Congratulations on the new puppy! " + tip + " … " + tip + " A crate helps a puppy settle at night. " + tip + " …"},
	} {
		r := selection.NewRecall("swc-recall", selection.New("swc-select", a))
		r.LongTurn, r.Around = tc.longTurn, tc.around
		ctx, err := r.Compress(context.Background(), c, swc.CompressOptions{Budget: budget, Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if ctx.Tokens > budget || tokens.Count(ctx.Text) != ctx.Tokens {
			t.Errorf("LongTurn %v: %d tokens (counted %d), budget %d", tc.longTurn, ctx.Tokens, tokens.Count(ctx.Text), budget)
		}
		if !slices.Contains(ctx.Verbatim, "S1:1") {
			t.Errorf("LongTurn %v, Around %d: S1:1, the best turn, not kept whole (verbatim %v)\n%s", tc.longTurn, tc.around, ctx.Verbatim, ctx.Text)
		}
		if tc.want == "" {
			if slices.Contains(ctx.Verbatim, "S1:2") {
				t.Errorf("LongTurn 0: the long turn kept whole beside S1:1 over the budget's room\n%s", ctx.Text)
			}
			continue
		}
		if !strings.Contains(ctx.Text, "\n"+tc.want) {
			t.Errorf("LongTurn %v, Around %d: the long turn is not kept as %q:\n%s", tc.longTurn, tc.around, tc.want, ctx.Text)
		}
	}
}

// TestRecallPerCost: among the turns standing out, a long assistant
// answer that scores a little higher than the user's short turn naming
// what was asked comes after it (a turn past LongTokens pays for its
// length), so at a budget with room for one of them the user's turn is
// kept; with LongTokens 0 the order is by score alone and the answer
// takes the room.
func TestRecallPerCost(t *testing.T) {
	day := time.Date(2023, 5, 1, 13, 0, 0, 0, time.UTC)
	var steps []string
	for i := range 40 {
		steps = append(steps, fmt.Sprintf("Water the basil plant in step %d, then check its leaves.", i+1))
	}
	answer := "Basil plant care, basil plant watering and basil plant light: " + strings.Join(steps, " ")
	user := "I repotted my basil plant into a terracotta pot on my balcony."
	c := &swc.Conversation{ID: "p", SpeakerA: "user", SpeakerB: "assistant", Sessions: []swc.Session{
		{Index: 0, Start: day, DateText: "1 May, 2023", Turns: []swc.Turn{
			{ID: "S1:1", Speaker: "user", Text: user},
			{ID: "S1:2", Speaker: "assistant", Text: "Nice! Terracotta breathes well."},
			{ID: "S1:3", Speaker: "user", Text: "How should I look after it?"},
			{ID: "S1:4", Speaker: "assistant", Text: answer},
		}},
	}}
	const query = "Where did I put my basil plant?"
	a := newAnalyzer()
	x := a.Analyze(c)
	r := selection.NewRecall("swc-recall", selection.New("swc-select", a))
	if s := r.Scores(x, query); s[3] <= s[0] || s[0] < selection.DefaultStandOut*s[3] {
		t.Fatalf("fixture: the answer must score above the user's turn and both stand out: %v", s)
	}
	if x.Turns[3].Tokens <= 4*r.Select.Weights.LongTokens {
		t.Fatalf("fixture: the answer has %d tokens", x.Turns[3].Tokens)
	}
	budget := x.Turns[3].Tokens + 20 // room for the answer or the user's turn, not both
	for _, long := range []int{selection.DefaultWeights().LongTokens, 0} {
		r.Select.Weights.LongTokens = long
		ctx, err := r.Compress(context.Background(), c, swc.CompressOptions{Budget: budget, Query: query})
		if err != nil {
			t.Fatal(err)
		}
		kept := strings.Contains(ctx.Text, "terracotta pot on my balcony")
		if kept != (long > 0) {
			t.Errorf("LongTokens %d: user's turn kept %v\n%s", long, kept, ctx.Text)
		}
		if ctx.Tokens > budget {
			t.Errorf("LongTokens %d: %d tokens over %d", long, ctx.Tokens, budget)
		}
	}
}

// fillConv is a user/assistant conversation where one turn stands out
// for "What colour is my bike now?" (it names both terms) and a later
// one, naming only the bike, scores under DefaultStandOut of it: the
// later value of a fact that changed. Filler turns about other things
// surround them.
func fillConv() *swc.Conversation {
	day := time.Date(2023, 5, 1, 13, 0, 0, 0, time.UTC)
	fill := []string{
		"We visited Lisbon with Maria and Tom in March, the tram rides were great.",
		"Sure! Here are some ideas for a weekend in Porto: the Ribeira, port cellars, Livraria Lello.",
		"My sister Anna starts her new job at Siemens in Munich next Monday.",
		"Congratulations to Anna! Munich has great beer gardens and the English Garden.",
		"I adopted a cat named Pixel from the shelter on Oak Street last week.",
		"Pixel is a lovely name. Cats settle in within two weeks usually.",
		"I finished the Berlin marathon in 3 hours 58 minutes on 24 September.",
		"That is a great time for a first marathon, well done on Berlin!",
	}
	var sessions []swc.Session
	for s := range 3 {
		var turns []swc.Turn
		for i, f := range fill {
			sp := "user"
			if i%2 == 1 {
				sp = "assistant"
			}
			turns = append(turns, swc.Turn{ID: fmt.Sprintf("D%d:%d", s+1, i+1), Speaker: sp, Text: f})
		}
		sessions = append(sessions, swc.Session{Index: s, Start: day.AddDate(0, 0, 7*s), DateText: day.AddDate(0, 0, 7*s).Format("2 January, 2006"), Turns: turns})
	}
	sessions[0].Turns[2].Text = "I painted my bike green; the colour of the bike is green now."
	sessions[2].Turns[4].Text = "The repainted frame came back from the shop, a deep blue, the bike looks new."
	return &swc.Conversation{ID: "f", SpeakerA: "user", SpeakerB: "assistant", Sessions: sessions}
}

// TestRecallFills: the turn standing out is recalled either way; the
// question's next-best turn, scoring under StandOut × the best, is
// recalled too with Fill (the default) and left to the consolidated
// part without it, which spends the budget elsewhere here. The budget
// holds either way.
func TestRecallFills(t *testing.T) {
	const q = "What colour is my bike now?"
	a := newAnalyzer()
	c := fillConv()
	r := selection.NewRecall("swc-recall", selection.New("swc-select", a))
	score := r.Scores(a.Analyze(c), q)
	best, next := score[2], score[2*8+4]
	if best <= 0 || next <= 0 || next >= selection.DefaultStandOut*best {
		t.Fatalf("fixture: the later turn scores %v, the best %v; want it under %v of the best", next, best, selection.DefaultStandOut)
	}
	const budget = 120
	for _, tc := range []struct {
		fill float64
		want bool
	}{{0, false}, {selection.DefaultFill, true}} {
		r.Fill = tc.fill
		x, err := r.Compress(context.Background(), c, swc.CompressOptions{Budget: budget, Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(x.Verbatim, "D1:3") {
			t.Errorf("Fill %v: the turn standing out is not kept\n%s", tc.fill, x.Text)
		}
		if got := slices.Contains(x.Verbatim, "D3:5"); got != tc.want {
			t.Errorf("Fill %v: the later value kept %v, want %v\n%s", tc.fill, got, tc.want, x.Text)
		}
		if n := tokens.Count(x.Text); n > budget || n != x.Tokens {
			t.Errorf("Fill %v: %d tokens (reported %d), budget %d", tc.fill, n, x.Tokens, budget)
		}
	}
}

// TestAsksAssistant: questions about what the assistant said, and
// others.
func TestAsksAssistant(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want bool
	}{
		{"Can you remind me of the vegan eatery you recommended last time?", true},
		{"How many eggs did you say we need for the omelette?", true},
		{"What was the phone number you gave me for the tourism board?", true},
		{"What was Andy wearing in the script you wrote?", true},
		{"What was the second tip you had mentioned about sleep?", true},
		{"Remind me of the book you'd suggested.", true},
		{"Which café had you previously recommended?", true},
		{"What was the park you found for the picnic?", true},
		{"I was going through our previous conversation about The Library of Babel - what did Borges say about its center?", true},
		{"Looking back at our previous chat, how many times did the Chiefs play the Jaguars?", true},
		{"In our earlier discussion, which show did I give as an example?", true},
		{"What was the previous conversation I had with my sister about?", false},
		{"How long was my last chat with the landlord?", false},
		{"Do you need anything else from me?", false},
		{"Thank you indeed, what is my gym time?", false},
		{"Can you suggest some accessories for my camera?", false},
		{"Do you have any tips for Denver?", false},
		{"What degree did I graduate with?", false},
		{"How many times did I ride rollercoasters?", false},
		{"What did Caroline research?", false},
	} {
		if got := selection.AsksAssistant(tc.q); got != tc.want {
			t.Errorf("AsksAssistant(%q) = %v, want %v", tc.q, got, tc.want)
		}
	}
}

// askedConv is a user/assistant chat where the user asks where to have
// lunch (in the words of ask) and the assistant's long answer recommends
// a vegan café.
func askedConv(ask string) *swc.Conversation {
	day := time.Date(2023, 5, 1, 13, 0, 0, 0, time.UTC)
	long := "For vegan food in the city I would try Green Fork, a vegan café on Baker Street with several locations." +
		strings.Repeat(" They also serve seasonal bowls, fresh juices and cakes without dairy.", 12)
	return &swc.Conversation{ID: "a", SpeakerA: "user", SpeakerB: "assistant", Sessions: []swc.Session{
		{Index: 0, Start: day, DateText: "1 May, 2023", Turns: []swc.Turn{
			{ID: "S1:1", Speaker: "user", Text: ask},
			{ID: "S1:2", Speaker: "assistant", Text: long},
			{ID: "S1:3", Speaker: "user", Text: "Thanks, I will go on Friday with my brother Sam."},
			{ID: "S1:4", Speaker: "assistant", Text: "Enjoy the lunch with Sam!"},
		}},
	}}
}

// TestRecallAsked: asked what the assistant recommended, swc-recall (as
// NewRecall makes it) recalls the assistant's long answer first, at a
// budget that holds the answer alone. Without Asked the user's question
// before it comes first and leaves no room for the answer: where the
// question shares no word with the query, because it takes Prompt of the
// answer's score and costs less; where it names the food ("vegan"),
// because it costs less than the answer, which scores more. The same with
// an embedder, whose fused ranking orders the turns standing out.
func TestRecallAsked(t *testing.T) {
	const q = "Can you remind me of the vegan café you recommended?"
	for _, ask := range []string{
		"Where should I have lunch in the city on Friday?",
		"Any vegan food for lunch in the city on Friday?",
	} {
		a := newAnalyzer()
		c := askedConv(ask)
		x := a.Analyze(c)
		budget := x.Turns[1].Tokens + 20
		for _, tc := range []struct{ asked, emb bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
			asked := tc.asked
			r := selection.NewRecall("swc-recall", selection.New("swc-select", a))
			r.Fill = 0
			if !asked {
				r.Asked = false
			}
			if tc.emb {
				// The fused ranking: the embedder finds the answer, the
				// one turn naming a café, similar to the query.
				r.Embedder = wordEmbedder("café")
			}
			own := x.LineIndex().Scores(bm25.Terms(q))
			if score := r.Scores(x, q); asked && score[0] != own[0] || !asked && score[0] != own[0]+selection.DefaultPrompt*own[1] {
				t.Fatalf("%q, Asked %v: the question scores %v, own %v, the answer %v", ask, asked, score[0], own[0], own[1])
			}
			ctx, err := r.Compress(context.Background(), c, swc.CompressOptions{Budget: budget, Query: q})
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Contains(ctx.Verbatim, "S1:2"); got != asked {
				t.Errorf("%q, Asked %v, embedder %v: the answer kept whole %v, want %v\n%s", ask, asked, tc.emb, got, asked, ctx.Text)
			}
			if ctx.Tokens > budget {
				t.Errorf("%q, Asked %v: %d tokens, budget %d", ask, asked, ctx.Tokens, budget)
			}
		}
	}
}
