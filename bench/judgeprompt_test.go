package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestJudgePromptFor(t *testing.T) {
	paper, err := JudgePromptFor("")
	if err != nil || paper("q", "g", "a") != JudgePrompt("q", "g", "a") {
		t.Errorf("default prompt is not the paper's: %v", err)
	}
	strict, err := JudgePromptFor(JudgePromptStrict)
	if err != nil {
		t.Fatal(err)
	}
	got := strict("When?", "7 May 2023", "May 7")
	if want := "Question: When?. Gold answer: 7 May 2023. Model answer: May 7. " + StrictJudgeInstruction; got != want {
		t.Errorf("strict prompt:\n%s\nwant\n%s", got, want)
	}
	if _, err := JudgePromptFor("lenient"); err == nil || !strings.Contains(err.Error(), "paper or strict") {
		t.Errorf("unknown prompt: %v", err)
	}
}

// TestStrictPromptInDocs keeps docs/benchmark.md's verbatim copy true.
func TestStrictPromptInDocs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "benchmark.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(string(data)), " "), StrictJudgeInstruction) {
		t.Error("docs/benchmark.md does not quote StrictJudgeInstruction verbatim")
	}
}
