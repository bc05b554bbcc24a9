package bench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/mock"
)

// textLLM answers with a function of the request, 10 tokens in and 2 out.
func textLLM(name string, reply func(req swc.LLMRequest) (string, error)) *mock.LLM {
	return &mock.LLM{ID: name, CompleteFn: func(_ context.Context, req swc.LLMRequest) (swc.LLMResponse, error) {
		s, err := reply(req)
		if err != nil {
			return swc.LLMResponse{}, err
		}
		return swc.LLMResponse{Text: s, Usage: swc.Usage{InputTokens: 10, OutputTokens: 2, Calls: 1}}, nil
	}}
}

// wholeStrategy keeps the whole conversation.
type wholeStrategy struct{ name string }

func (w wholeStrategy) Name() string { return w.name }
func (w wholeStrategy) Compress(ctx context.Context, c *swc.Conversation, opts swc.CompressOptions) (*swc.Context, error) {
	text := swc.RenderConversation(c)
	var ids []string
	for _, s := range c.Sessions {
		for _, t := range s.Turns {
			ids = append(ids, t.ID)
		}
	}
	return &swc.Context{Strategy: w.name, Text: text, Tokens: len(text) / 4, Verbatim: ids}, nil
}

func testConv() *swc.Conversation {
	return &swc.Conversation{
		ID: "c1", SpeakerA: "Ana", SpeakerB: "Ben",
		Sessions: []swc.Session{{Index: 0, DateText: "1:00 pm on 8 May, 2023", Start: time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC), Turns: []swc.Turn{
			{ID: "D1:1", Speaker: "Ana", Text: "I adopted a dog named Rex in Lisbon."},
			{ID: "D1:2", Speaker: "Ben", Text: "I ran the Boston marathon last Sunday."},
		}}},
		Questions: []swc.Question{
			{ID: "c1:q0", Question: "What is the dog's name?", Answer: "Rex", Category: swc.SingleHop, Evidence: []string{"D1:1"}},
			{ID: "c1:q1", Question: "Which marathon did Ben run?", Answer: "Boston marathon", Category: swc.SingleHop, Evidence: []string{"D1:2"}},
			{ID: "c1:q2", Question: "Where did Ben adopt a cat?", Category: swc.Adversarial, AdversarialAnswer: "Lisbon", Evidence: []string{"D1:1"}},
			{ID: "c1:q3", Question: "Where does Ana live?", Answer: "Paris", Category: swc.MultiHop, Evidence: []string{"D1:1", "D9:9"}},
		},
	}
}

func TestRunnerOffline(t *testing.T) {
	st, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r := &Runner{Strategies: []swc.Strategy{wholeStrategy{"a"}}, Conversations: []*swc.Conversation{testConv()}, Store: st, Budget: 100}
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	rows := map[string]Row{}
	for _, row := range st.Rows() {
		rows[row.QuestionID] = row
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows", len(rows))
	}
	if m := rows["c1:q0"].Metrics; m[MetricAnswerRetention] != 1 || m[MetricAnswerTokenRecall] != 1 || m[MetricEvidenceRetention] != 1 {
		t.Errorf("q0 metrics %v", m)
	}
	if m := rows["c1:q3"].Metrics; m[MetricAnswerRetention] != 0 || m[MetricEvidenceRetention] != 0.5 {
		t.Errorf("q3 metrics %v (evidence D9:9 is not in the context)", m)
	}
	if _, ok := rows["c1:q2"].Metrics[MetricAnswerRetention]; ok || rows["c1:q2"].Gold != AdversarialGold {
		t.Errorf("category 5 row %+v", rows["c1:q2"])
	}
}

func TestRunnerLLM(t *testing.T) {
	st, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	qa := textLLM("fake:qa", func(req swc.LLMRequest) (string, error) {
		if req.Temperature != 0 || req.Purpose != "qa" || !strings.Contains(req.Messages[0].Content, QAInstruction) {
			t.Errorf("bad QA request %+v", req)
		}
		_, q, _ := strings.Cut(req.Messages[0].Content, "Question: ")
		switch {
		case strings.Contains(q, "dog's name"):
			return "Rex", nil
		case strings.Contains(q, "marathon"):
			return "", errors.New("overloaded after 5 attempts")
		case strings.Contains(q, "cat"):
			return "Not mentioned in the conversation", nil
		}
		return "London", nil
	})
	judge := textLLM("fake:judge", func(req swc.LLMRequest) (string, error) {
		if strings.Contains(req.Messages[0].Content, "Model answer: Rex.") {
			return "YES", nil
		}
		if strings.Contains(req.Messages[0].Content, "Paris") {
			return "maybe", nil
		}
		return "NO", nil
	})
	r := &Runner{Strategies: []swc.Strategy{wholeStrategy{"a"}}, Conversations: []*swc.Conversation{testConv()}, Store: st, QA: qa, Judge: judge}
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	rows := map[string]Row{}
	for _, row := range st.Rows() {
		rows[row.QuestionID] = row
	}
	if row := rows["c1:q0"]; row.Metrics[MetricJudge] != 1 || row.Metrics[MetricF1] != 1 || row.Verdict != "YES" || row.Tokens.Prompt == 0 {
		t.Errorf("q0 = %+v", row)
	}
	if _, ok := rows["c1:q1"]; ok {
		t.Error("a failed QA call was stored as done")
	}
	if row := rows["c1:q2"]; row.Metrics[MetricF1] != 1 {
		t.Errorf("category 5 decline scored %v", row.Metrics[MetricF1])
	}
	if _, ok := rows["c1:q3"]; ok {
		t.Error("an unreadable verdict was stored as done")
	}
	data, _ := os.ReadFile(st.path)
	if !strings.Contains(string(data), "overloaded after 5 attempts") || !strings.Contains(string(data), `neither YES nor NO`) {
		t.Errorf("failures not recorded in results.jsonl:\n%s", data)
	}
}

func TestStoreResume(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.jsonl")
	lines := `{"condition":"a","question_id":"q0","metrics":{"f1":1}}
{"condition":"a","question_id":"q1","metrics":{},"error":"qa: boom"}
{"condition":"a","question_id":"q0","metrics":{"f1":0.5}}
{"condition":"b","question_id":"q0","metr`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Len() != 1 {
		t.Errorf("Len = %d, want 1 (q0 once; q1 failed; the torn line dropped)", st.Len())
	}
	if _, ok := st.Done("a", "q1"); ok {
		t.Error("a failed row counts as done")
	}
	if err := st.Add(Row{Condition: "a", QuestionID: "q1", Metrics: map[string]float64{"f1": 1}}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	data, _ := os.ReadFile(path)
	if n := strings.Count(string(data), "\n"); n != 2 {
		t.Errorf("compacted file has %d lines:\n%s", n, data)
	}
}

// TestSummarizeCountsFailures goes through the Store, as swc bench does:
// a failed row is not done, is counted as an error, and a rerun's success
// replaces it.
func TestSummarizeCountsFailures(t *testing.T) {
	st, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	add := func(r Row) {
		if err := st.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	add(Row{Condition: "x", Conversation: "c", QuestionID: "c:q0", Category: 2, Metrics: map[string]float64{"f1": 1}})
	add(Row{Condition: "x", Conversation: "c", QuestionID: "c:q1", Category: 2, Metrics: map[string]float64{}, Error: "qa: boom"})
	add(Row{Condition: "other", Conversation: "c", QuestionID: "c:q0", Category: 2, Metrics: map[string]float64{"f1": 0}})
	in := SummaryInput{Order: []string{"x"}, Conversations: []*swc.Conversation{{ID: "c"}}, Rows: append(st.Rows(), st.Failed()...), Resamples: 50, Seed: 1}
	s := Summarize(in)
	if s.Conditions["x"].Errors != 1 || s.Matched.N != 1 {
		t.Errorf("errors %d, matched %d (the condition outside the run must not count)", s.Conditions["x"].Errors, s.Matched.N)
	}
	add(Row{Condition: "x", Conversation: "c", QuestionID: "c:q1", Category: 2, Metrics: map[string]float64{"f1": 0}})
	if len(st.Failed()) != 0 {
		t.Errorf("a retried success still counts as failed")
	}
}

func TestSummarizeMatchedAndPaired(t *testing.T) {
	rows := []Row{
		{Condition: "x", QuestionID: "c:q0", Conversation: "c", Category: 2, Metrics: map[string]float64{"f1": 1}},
		{Condition: "x", QuestionID: "c:q1", Conversation: "c", Category: 2, Metrics: map[string]float64{"f1": 1}},
		{Condition: "x", QuestionID: "c:q2", Conversation: "c", Category: 4, Metrics: map[string]float64{"f1": 0}},
		{Condition: "y", QuestionID: "c:q0", Conversation: "c", Category: 2, Metrics: map[string]float64{"f1": 0}},
		{Condition: "y", QuestionID: "c:q1", Conversation: "c", Category: 2, Metrics: map[string]float64{"f1": 1}},
		{Condition: "y", QuestionID: "c:q2", Conversation: "c", Category: 4, Error: "judge: boom"},
	}
	s := Summarize(SummaryInput{Order: []string{"x", "y"}, Conversations: []*swc.Conversation{{ID: "c"}}, Rows: rows, Resamples: 200, Seed: 42, Pairs: [][2]string{{"x", "y"}}})
	if s.Matched.N != 2 || s.Matched.ByCategory["2"] != 2 {
		t.Errorf("matched = %+v", s.Matched)
	}
	if got := s.Conditions["x"].Categories["2"]["f1"]; got.Mean != 1 || got.N != 2 {
		t.Errorf("x cat 2 = %+v", got)
	}
	if _, ok := s.Conditions["x"].Categories["4"]; ok {
		t.Error("category 4 of x counted a question y has no result for")
	}
	if s.Conditions["y"].Errors != 1 {
		t.Errorf("errors = %d", s.Conditions["y"].Errors)
	}
	var found bool
	for _, p := range s.Paired {
		if p.Category == "2" && p.Metric == "f1" {
			found = true
			if p.Diff.Mean != 0.5 || p.PerConversation["c"] != 0.5 {
				t.Errorf("paired %+v", p)
			}
		}
	}
	if !found {
		t.Error("no paired difference")
	}
}

func TestAuditJudge(t *testing.T) {
	c := testConv()
	c.Questions = append(c.Questions, swc.Question{ID: "c1:q4", Question: "What did Ana adopt?", Answer: "a dog", Category: swc.SingleHop})
	judge := textLLM("j", func(req swc.LLMRequest) (string, error) {
		// A lenient judge: accepts every hedge.
		if strings.Contains(req.Messages[0].Content, "it had to do with") {
			return "YES", nil
		}
		return "NO", nil
	})
	a, err := AuditJudge(context.Background(), judge, []*swc.Conversation{c}, 10, 42, AuditOptions{Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if a.Questions != 3 {
		t.Errorf("questions = %d, want 3 (categories 1–4 with an answer)", a.Questions)
	}
	if v := a.Kinds[AuditVague]; v.Asked != 3 || v.Rate != 1 {
		t.Errorf("vague = %+v", v)
	}
	if o := a.Kinds[AuditOtherAnswer]; o.Rate != 0 {
		t.Errorf("other-answer = %+v", o)
	}
}

func TestParseVerdict(t *testing.T) {
	for in, want := range map[string]float64{"YES": 1, "yes.": 1, " Yes, it does": 1, "NO": 0, "no": 0, "**NO**": 0, "No.": 0} {
		if got, err := ParseVerdict(in); err != nil || got != want {
			t.Errorf("ParseVerdict(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "maybe", "I think so", "Not sure", "Nothing", "Yesterday", "Nope"} {
		if _, err := ParseVerdict(bad); err == nil {
			t.Errorf("ParseVerdict(%q) accepted", bad)
		}
	}
}

func TestJudgePromptVerbatim(t *testing.T) {
	got := JudgePrompt("When?", "7 May 2023", "May 7")
	want := "Question: When?. Gold answer: 7 May 2023. Model answer: May 7. Does the model answer correctly answer the question, given the gold answer? Reply only YES or NO."
	if got != want {
		t.Errorf("judge prompt:\n%s\nwant\n%s", got, want)
	}
}
