package bench

import (
	"context"
	"fmt"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/tokens"
)

// JudgePromptLongMemEval names the judge prompts of a LongMemEval run:
// LongMemEval's own, one per question type (LongMemEvalJudgePrompt). A
// LongMemEval run with a QA model always uses them.
const JudgePromptLongMemEval = "longmemeval"

// LongMemEvalDateLayout is how a question's date is written into the QA
// prompt: as LongMemEval's question_date ("2023/05/30 (Tue) 23:40").
const LongMemEvalDateLayout = "2006/01/02 (Mon) 15:04"

// The QA and judge calls of a LongMemEval run, as its authors' code makes
// them (src/generation/run_generation.py: the answer prompt without chain
// of thought or fact expansion; src/evaluation/evaluate_qa.py: max_tokens
// 10 and a reply counted correct when it contains "yes").
const (
	lmeQATemplate = "I will give you several history chats between you and a user. Please answer the question based on the relevant chat history.\n\n\nHistory Chats:\n\n%s\n\nCurrent Date: %s\nQuestion: %s\nAnswer:"
	// LongMemEvalQAMaxTokens bounds a LongMemEval answer (ours: the
	// authors leave it to the model; preference answers are sentences).
	LongMemEvalQAMaxTokens = 256
	// LongMemEvalJudgeMaxTokens is the authors' max_tokens for the judge.
	LongMemEvalJudgeMaxTokens = 10
)

// The judge templates of evaluate_qa.py, verbatim (Python's {} as %s).
const (
	lmeJudgeBasic      = "I will give you a question, a correct answer, and a response from a model. Please answer yes if the response contains the correct answer. Otherwise, answer no. If the response is equivalent to the correct answer or contains all the intermediate steps to get the correct answer, you should also answer yes. If the response only contains a subset of the information required by the answer, answer no. \n\nQuestion: %s\n\nCorrect Answer: %s\n\nModel Response: %s\n\nIs the model response correct? Answer yes or no only."
	lmeJudgeTemporal   = "I will give you a question, a correct answer, and a response from a model. Please answer yes if the response contains the correct answer. Otherwise, answer no. If the response is equivalent to the correct answer or contains all the intermediate steps to get the correct answer, you should also answer yes. If the response only contains a subset of the information required by the answer, answer no. In addition, do not penalize off-by-one errors for the number of days. If the question asks for the number of days/weeks/months, etc., and the model makes off-by-one errors (e.g., predicting 19 days when the answer is 18), the model's response is still correct. \n\nQuestion: %s\n\nCorrect Answer: %s\n\nModel Response: %s\n\nIs the model response correct? Answer yes or no only."
	lmeJudgeUpdate     = "I will give you a question, a correct answer, and a response from a model. Please answer yes if the response contains the correct answer. Otherwise, answer no. If the response contains some previous information along with an updated answer, the response should be considered as correct as long as the updated answer is the required answer.\n\nQuestion: %s\n\nCorrect Answer: %s\n\nModel Response: %s\n\nIs the model response correct? Answer yes or no only."
	lmeJudgePreference = "I will give you a question, a rubric for desired personalized response, and a response from a model. Please answer yes if the response satisfies the desired response. Otherwise, answer no. The model does not need to reflect all the points in the rubric. The response is correct as long as it recalls and utilizes the user's personal information correctly.\n\nQuestion: %s\n\nRubric: %s\n\nModel Response: %s\n\nIs the model response correct? Answer yes or no only."
	lmeJudgeAbstention = "I will give you an unanswerable question, an explanation, and a response from a model. Please answer yes if the model correctly identifies the question as unanswerable. The model could say that the information is incomplete, or some other information is given but the asked information is not.\n\nQuestion: %s\n\nExplanation: %s\n\nModel Response: %s\n\nDoes the model correctly identify the question as unanswerable? Answer yes or no only."
)

// LongMemEvalQAPrompt returns the user message sent to the QA model for a
// LongMemEval question asked at date (LongMemEvalDateLayout).
func LongMemEvalQAPrompt(context, date, question string) string {
	return fmt.Sprintf(lmeQATemplate, strings.TrimRight(context, "\n"), date, question)
}

// LongMemEvalJudgePrompt returns LongMemEval's judge prompt for a question
// of type qtype (the abstention one for any abstention question), or an
// EINVALID error for a type it does not know.
func LongMemEvalJudgePrompt(qtype string, abstention bool, question, answer, response string) (string, error) {
	var t string
	switch {
	case abstention:
		t = lmeJudgeAbstention
	case qtype == "single-session-user" || qtype == "single-session-assistant" || qtype == "multi-session":
		t = lmeJudgeBasic
	case qtype == TemporalType:
		t = lmeJudgeTemporal
	case qtype == "knowledge-update":
		t = lmeJudgeUpdate
	case qtype == "single-session-preference":
		t = lmeJudgePreference
	default:
		return "", swc.Errorf(swc.EINVALID, "bench: no LongMemEval judge prompt for question type %q", qtype)
	}
	return fmt.Sprintf(t, question, answer, response), nil
}

// LongMemEvalJudgeRequest returns the judge call for a LongMemEval prompt:
// the prompt as the only user message, temperature 0, at most
// LongMemEvalJudgeMaxTokens, Purpose "judge".
func LongMemEvalJudgeRequest(prompt string) swc.LLMRequest {
	return swc.LLMRequest{
		Messages:    []swc.Message{{Role: swc.RoleUser, Content: prompt}},
		Temperature: 0, MaxTokens: LongMemEvalJudgeMaxTokens, Purpose: "judge",
	}
}

// LongMemEvalVerdict reads a judge's reply as evaluate_qa.py does: 1 when
// its lower-cased text contains "yes", else 0.
func LongMemEvalVerdict(reply string) float64 {
	if strings.Contains(strings.ToLower(strings.TrimSpace(reply)), "yes") {
		return 1
	}
	return 0
}

// lmePromptHashes returns the SHA-256 of the LongMemEval QA prompt and of
// its judge prompts (all, in a fixed order), with placeholders.
func lmePromptHashes() (qa, judge string) {
	qa = hashText(LongMemEvalQAPrompt("{context}", "{question_date}", "{question}"))
	var all strings.Builder
	for _, t := range []string{lmeJudgeBasic, lmeJudgeTemporal, lmeJudgeUpdate, lmeJudgePreference, lmeJudgeAbstention} {
		all.WriteString(t)
		all.WriteByte(0)
	}
	return qa, hashText(all.String())
}

// askLongMemEval asks a LongMemEval question (q.Type set) of the QA model
// and the judge, filling row: the authors' QA prompt with the question's
// date, their judge prompt for its type and their reading of the verdict.
// LongMemEval has no token F1, so none is computed.
func (r *Runner) askLongMemEval(ctx context.Context, x *swc.Context, q swc.Question, row *Row) {
	prompt := LongMemEvalQAPrompt(x.Text, q.Date.Format(LongMemEvalDateLayout), q.Question)
	row.Tokens.Prompt = x.Tokens + tokens.Count(strings.Replace(prompt, strings.TrimRight(x.Text, "\n"), "", 1))
	maxTok := r.QAMaxTokens
	if maxTok <= 0 {
		maxTok = LongMemEvalQAMaxTokens
	}
	resp, err := r.QA.Complete(ctx, swc.LLMRequest{
		Messages:    []swc.Message{{Role: swc.RoleUser, Content: prompt}},
		Temperature: 0, MaxTokens: maxTok, Purpose: "qa",
	})
	if err != nil {
		row.Error = "qa: " + err.Error()
		return
	}
	row.Answer = resp.Text
	if r.Judge == nil {
		return
	}
	jp, err := LongMemEvalJudgePrompt(q.Type, q.Abstention, q.Question, q.Answer, row.Answer)
	if err != nil {
		row.Error = "judge: " + err.Error()
		return
	}
	jr, err := r.Judge.Complete(ctx, LongMemEvalJudgeRequest(jp))
	if err != nil {
		row.Error = "judge: " + err.Error()
		return
	}
	row.Verdict = jr.Text
	row.Metrics[MetricJudge] = LongMemEvalVerdict(jr.Text)
}
