package bench

import (
	"fmt"
	"strings"

	"github.com/swcmem/swc"
)

// The judge prompts a run can use (--judge-prompt).
const (
	// JudgePromptPaper is the paper's prompt (JudgePrompt), the default.
	JudgePromptPaper = "paper"
	// JudgePromptStrict is ours (StrictJudgePrompt): it asks for the
	// specific fact and rejects vague answers.
	JudgePromptStrict = "strict"
)

// JudgePromptNames lists the judge prompts, the default first.
var JudgePromptNames = []string{JudgePromptPaper, JudgePromptStrict}

// StrictJudgeInstruction is what StrictJudgePrompt asks after the
// question, gold and model answer (docs/benchmark.md quotes it verbatim).
const StrictJudgeInstruction = "Count the model answer as correct only if it states the specific fact the gold answer gives " +
	"(the same person, place, object, number or date, in any wording). " +
	"An answer that is vague, hedges, only restates the topic of the question, or would fit many different facts is not correct, " +
	"even when it does not contradict the gold answer. " +
	"Does the model answer state the specific fact? Reply only YES or NO."

// StrictJudgePrompt is our stricter judge prompt: the paper's layout, then
// StrictJudgeInstruction.
func StrictJudgePrompt(question, gold, answer string) string {
	return fmt.Sprintf("Question: %s. Gold answer: %s. Model answer: %s. %s", question, gold, answer, StrictJudgeInstruction)
}

// JudgePromptFor returns the prompt builder named name (JudgePromptNames;
// "" is the paper's). It returns an EINVALID error naming the choices for
// any other name.
func JudgePromptFor(name string) (func(question, gold, answer string) string, error) {
	switch name {
	case "", JudgePromptPaper:
		return JudgePrompt, nil
	case JudgePromptStrict:
		return StrictJudgePrompt, nil
	}
	return nil, swc.Errorf(swc.EINVALID, "bench: unknown judge prompt %q (want %s)", name, strings.Join(JudgePromptNames, " or "))
}
