package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResumeKey(t *testing.T) {
	s := Settings{Budget: 4000, Gister: "extractive", Tokenizer: "cl100k_base", Version: "1", Gold: GoldOriginal, JudgePrompt: JudgePromptPaper}
	k := NewResumeKey(s, ResumeInput{DataSHA256: "d", AnthropicAPIVersion: "2023-06-01"})
	if k.Gold != "" || k.JudgePrompt != "" || k.QAPromptSHA256 != "" || k.AnthropicAPIVersion != "" {
		t.Errorf("offline key with the defaults: %+v", k)
	}
	s.QA, s.Judge, s.Gold = "anthropic:m", "anthropic:j", GoldCorrected
	k = NewResumeKey(s, ResumeInput{DataSHA256: "d", AnthropicAPIVersion: "2023-06-01"})
	if k.Gold != GoldCorrected || len(k.QAPromptSHA256) != 64 || len(k.JudgePromptSHA256) != 64 || k.QAMaxTokens != DefaultQAMaxTokens || k.AnthropicAPIVersion != "2023-06-01" {
		t.Errorf("key with a QA model: %+v", k)
	}

	dir := filepath.Join(t.TempDir(), "out")
	if err := CheckResume(dir, k); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "run.json")); err != nil {
		t.Fatal(err)
	}
	if err := CheckResume(dir, k); err != nil {
		t.Errorf("same settings refused: %v", err)
	}
	k2 := k
	k2.Budget, k2.Version = 2000, "2"
	err := CheckResume(dir, k2)
	if err == nil || !strings.Contains(err.Error(), "budget was 4000, now 2000; version was 1, now 2") {
		t.Errorf("other settings: %v", err)
	}
}
