package bench

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/swcmem/swc"
)

// QAInstruction follows the compressed context in every QA request. It is
// LoCoMo's short-answer instruction, plus the sentence that lets a model
// decline, which category 5 scoring looks for.
const QAInstruction = "Based on the above context, write an answer in the form of a short phrase for the following question. " +
	"Answer with exact words from the context whenever possible. " +
	"If the context does not contain the answer, reply: Not mentioned in the conversation."

// QAPrompt returns the user message sent to the QA model.
func QAPrompt(context, question string) string {
	return fmt.Sprintf("%s\n\n%s\n\nQuestion: %s Short answer:", strings.TrimRight(context, "\n"), QAInstruction, question)
}

// JudgePrompt is the paper's judge prompt (Appendix E), verbatim.
func JudgePrompt(question, gold, answer string) string {
	return fmt.Sprintf("Question: %s. Gold answer: %s. Model answer: %s. Does the model answer correctly answer the question, given the gold answer? Reply only YES or NO.", question, gold, answer)
}

// AdversarialGold is the gold answer given to the judge for category-5
// questions, which have none in LoCoMo (their correct behaviour is to
// decline).
const AdversarialGold = "Not mentioned in the conversation"

// GoldFor returns the gold answer a question is scored against: its
// answer, or AdversarialGold for every category-5 question (even one the
// dataset gives an answer, "Is Oscar Melanie's pet?" → "No").
func GoldFor(q swc.Question) string {
	if q.Category == swc.Adversarial {
		return AdversarialGold
	}
	return q.Answer
}

// DefaultQAMaxTokens bounds a QA answer; JudgeMaxTokens a judge's reply.
const (
	DefaultQAMaxTokens = 64
	JudgeMaxTokens     = 8
)

// JudgeRequest returns the judge call for one judge prompt (JudgePrompt
// or another of JudgePromptFor's): the prompt as the only user message,
// temperature 0, at most JudgeMaxTokens, Purpose "judge", and a Check that
// rejects a reply ParseVerdict cannot read, so that a response cache never
// keeps one and a rerun asks again.
func JudgeRequest(prompt string) swc.LLMRequest {
	return swc.LLMRequest{
		Messages:    []swc.Message{{Role: swc.RoleUser, Content: prompt}},
		Temperature: 0, MaxTokens: JudgeMaxTokens, Purpose: "judge",
		Check: func(r swc.LLMResponse) error { _, err := ParseVerdict(r.Text); return err },
	}
}

// ParseVerdict reads the judge's reply: 1 when its first word is YES, 0
// when it is NO (case-insensitive, punctuation and markdown around it
// ignored). Anything else is an error (the row records it; it is never
// scored as wrong).
func ParseVerdict(reply string) (float64, error) {
	first := strings.FieldsFunc(reply, func(r rune) bool { return !unicode.IsLetter(r) })
	if len(first) > 0 {
		switch strings.ToUpper(first[0]) {
		case "YES":
			return 1, nil
		case "NO":
			return 0, nil
		}
	}
	return 0, fmt.Errorf("judge reply is neither YES nor NO: %q", reply)
}
