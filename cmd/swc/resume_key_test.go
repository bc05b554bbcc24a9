package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/sqlite"
)

// TestResumeKeyComplete: run.json records everything a row depends on —
// the version, and with --qa the QA instruction, the judge prompt and
// both max_tokens, and the LLM gister's prompts — and a rerun after an
// upgrade is refused, naming what changed.
func TestResumeKeyComplete(t *testing.T) {
	h, vars := newHesitantJudge(t)
	h.reply.Store("YES")
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	args := []string{"bench", "--out", out, "--conditions", "truncation,swc-full",
		"--qa", "anthropic:claude-sonnet-4-6", "--gister", "anthropic:claude-haiku-4-5-20251001",
		"--cache", filepath.Join(dir, "cache.db"), "--resamples", "20"}
	if _, stderr, err := run(t, vars, args...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var key map[string]any
	if err := json.Unmarshal(data, &key); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"version":             Version,
		"qa_prompt_sha256":    sqlite.Hash(bench.QAPrompt("{context}", "{question}")),
		"qa_max_tokens":       float64(bench.DefaultQAMaxTokens),
		"judge_prompt_sha256": sqlite.Hash(bench.JudgePrompt("{question}", "{gold_answer}", "{model_answer}")),
		"judge_max_tokens":    float64(bench.JudgeMaxTokens),
	}
	for k, v := range want {
		if key[k] != v {
			t.Errorf("run.json %s = %v, want %v", k, key[k], v)
		}
	}
	if g, _ := key["gist_prompts_sha256"].(string); len(g) != 64 {
		t.Errorf("run.json gist_prompts_sha256 = %v", key["gist_prompts_sha256"])
	}
	// An upgrade: the same command with another version is refused.
	old := Version
	Version = "9.9.9"
	defer func() { Version = old }()
	_, _, err = run(t, vars, args...)
	if err == nil || !strings.Contains(err.Error(), "version was "+old+", now 9.9.9") {
		t.Errorf("rerun after an upgrade: %v", err)
	}
	Version = old
	// A run.json without the prompt hashes (made before they were
	// recorded) is refused too.
	delete(key, "qa_prompt_sha256")
	b, _ := json.MarshalIndent(key, "", "  ")
	if err := os.WriteFile(filepath.Join(out, "run.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = run(t, vars, args...)
	if err == nil || !strings.Contains(err.Error(), "qa_prompt_sha256 was (none), now ") {
		t.Errorf("rerun over a run.json without the QA prompt: %v", err)
	}
}
