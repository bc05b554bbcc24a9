package bench

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/longmemeval"
)

// TestLongMemEvalLLMPath asks the tiny file's questions with fake models:
// the QA prompt carries the question's date, the judge gets LongMemEval's
// prompt for each type, and its reply is read as the authors read it.
func TestLongMemEvalLLMPath(t *testing.T) {
	convs, err := longmemeval.LoadFile("../longmemeval/testdata/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	qaPrompts, judgePrompts := map[string]string{}, map[string]string{}
	qa := textLLM("qa", func(req swc.LLMRequest) (string, error) {
		p := req.Messages[0].Content
		mu.Lock()
		defer mu.Unlock()
		for _, c := range convs {
			if strings.Contains(p, c.Questions[0].Question) {
				qaPrompts[c.ID] = p
			}
		}
		return "an answer", nil
	})
	judge := textLLM("judge", func(req swc.LLMRequest) (string, error) {
		p := req.Messages[0].Content
		mu.Lock()
		defer mu.Unlock()
		for _, c := range convs {
			if strings.Contains(p, c.Questions[0].Question) {
				judgePrompts[c.ID] = p
			}
		}
		if req.MaxTokens != LongMemEvalJudgeMaxTokens {
			t.Errorf("judge max tokens %d", req.MaxTokens)
		}
		if strings.Contains(p, "unanswerable") {
			return "No.", nil
		}
		return "Yes, it is.", nil
	})
	st, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r := &Runner{Strategies: []swc.Strategy{wholeStrategy{"a"}}, Conversations: convs, Store: st, Budget: 4000, QA: qa, Judge: judge}
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := "Current Date: 2023/05/30 (Tue) 23:40\nQuestion: What breed is my dog?\nAnswer:"; !strings.HasSuffix(qaPrompts["q-user-1"], want) {
		t.Errorf("QA prompt ends %q, want %q", qaPrompts["q-user-1"][max(0, len(qaPrompts["q-user-1"])-80):], want)
	}
	if !strings.HasPrefix(qaPrompts["q-user-1"], "I will give you several history chats between you and a user.") || !strings.Contains(qaPrompts["q-user-1"], "border collie") {
		t.Error("QA prompt lacks the instruction or the context")
	}
	for id, want := range map[string]string{
		"q-user-1":       "Correct Answer: a border collie",
		"q-temporal-2":   "do not penalize off-by-one errors",
		"q-update-3_abs": "Does the model correctly identify the question as unanswerable?",
	} {
		if !strings.Contains(judgePrompts[id], want) {
			t.Errorf("%s: judge prompt lacks %q:\n%s", id, want, judgePrompts[id])
		}
	}
	for _, row := range st.Rows() {
		want := 1.0
		if row.Abstention {
			want = 0
		}
		if row.Metrics[MetricJudge] != want || row.Error != "" {
			t.Errorf("%s: judge %v (error %q), want %v", row.QuestionID, row.Metrics[MetricJudge], row.Error, want)
		}
		if _, ok := row.Metrics[MetricF1]; ok {
			t.Errorf("%s: an F1 for a LongMemEval question", row.QuestionID)
		}
	}
	if len(st.Rows()) != 3 {
		t.Errorf("%d rows", len(st.Rows()))
	}
}

func TestLongMemEvalJudgePrompt(t *testing.T) {
	for _, typ := range longmemeval.Types {
		p, err := LongMemEvalJudgePrompt(typ, false, "Q?", "A", "R")
		if err != nil || !strings.Contains(p, "Question: Q?") || !strings.HasSuffix(p, "Answer yes or no only.") {
			t.Errorf("%s: %q, %v", typ, p, err)
		}
	}
	if _, err := LongMemEvalJudgePrompt("trivia", false, "Q?", "A", "R"); err == nil {
		t.Error("unknown type: no error")
	}
	for reply, want := range map[string]float64{"yes": 1, "Yes.": 1, "no": 0, "No, it does not.": 0, "": 0} {
		if got := LongMemEvalVerdict(reply); got != want {
			t.Errorf("verdict(%q) = %v, want %v", reply, got, want)
		}
	}
}
