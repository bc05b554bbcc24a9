package bench

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/swcmem/swc"
)

// ResumeKey is what must match for the rows in an output directory to be
// reused, written to DIR/run.json: everything a row depends on. Prompts
// are recorded by the SHA-256 of their text (with placeholders for what
// varies per question), so that an upgrade that changes one refuses to
// mix its rows with older ones.
type ResumeKey struct {
	DataSHA256  string `json:"data_sha256"`
	Budget      int    `json:"budget"`
	QA          string `json:"qa"`
	Judge       string `json:"judge"`
	Gister      string `json:"gister"`
	Embedder    string `json:"embedder"`
	Schedule    string `json:"schedule"`
	Calibration string `json:"calibration"`
	Weights     string `json:"weights"`
	Thresholds  string `json:"thresholds"`
	Tokenizer   string `json:"tokenizer"`
	// The gold (with the audit's hash when one was used: rows then carry
	// scores under both golds) and the judge prompt; empty for the
	// defaults.
	Gold        string `json:"gold,omitempty"`
	AuditSHA256 string `json:"audit_sha256,omitempty"`
	JudgePrompt string `json:"judge_prompt,omitempty"`
	// GistPrompts hashes the LLM gister's prompts, user template and
	// max_tokens (absent for the extractive gister).
	GistPrompts string `json:"gist_prompts_sha256,omitempty"`
	// The QA and judge requests (with a QA model only): the SHA-256 of the
	// QA prompt and of the judge prompt in use, with placeholders, and
	// their max_tokens.
	QAPromptSHA256    string `json:"qa_prompt_sha256,omitempty"`
	QAMaxTokens       int    `json:"qa_max_tokens,omitempty"`
	JudgePromptSHA256 string `json:"judge_prompt_sha256,omitempty"`
	JudgeMaxTokens    int    `json:"judge_max_tokens,omitempty"`
	// AnthropicAPIVersion is the anthropic-version sent (it decides
	// whether temperature 0 is sent); empty for the SDK's.
	AnthropicAPIVersion string `json:"anthropic_api_version,omitempty"`
	// Version is swc's: metrics, renderer and strategies change with it.
	Version string `json:"version"`
}

// ResumeInput is what a resume key records besides the run's Settings.
type ResumeInput struct {
	DataSHA256, AuditSHA256 string
	// Weights and Thresholds describe the SWC settings ("0.5,0.3,0.2",
	// "0.6/0.3/top-5/demote=false").
	Weights, Thresholds string
	// GistPrompts hashes an LLM gister's prompts ("" for the extractive
	// gister).
	GistPrompts string
	// AnthropicAPIVersion is recorded only when an anthropic: model is in
	// use.
	AnthropicAPIVersion string
}

// NewResumeKey returns the resume key of a run with settings s.
func NewResumeKey(s Settings, in ResumeInput) ResumeKey {
	key := ResumeKey{
		DataSHA256: in.DataSHA256, Budget: s.Budget, QA: s.QA, Judge: s.Judge, Gister: s.Gister,
		Embedder: s.Embedder, Schedule: s.Schedule, Calibration: s.Calibration,
		Weights: in.Weights, Thresholds: in.Thresholds, Tokenizer: s.Tokenizer,
		AuditSHA256: in.AuditSHA256, GistPrompts: in.GistPrompts, Version: s.Version,
	}
	if in.AnthropicAPIVersion != "" && strings.Contains(s.QA+" "+s.Judge+" "+s.Gister, "anthropic:") {
		key.AnthropicAPIVersion = in.AnthropicAPIVersion
	}
	if s.Gold != GoldOriginal {
		key.Gold = s.Gold
	}
	if s.JudgePrompt != JudgePromptPaper {
		key.JudgePrompt = s.JudgePrompt
	}
	if s.QA != "" && s.JudgePrompt == JudgePromptLongMemEval {
		key.QAPromptSHA256, key.JudgePromptSHA256 = lmePromptHashes()
		key.QAMaxTokens, key.JudgeMaxTokens = LongMemEvalQAMaxTokens, LongMemEvalJudgeMaxTokens
	} else if s.QA != "" {
		key.QAPromptSHA256 = hashText(QAPrompt("{context}", "{question}"))
		key.QAMaxTokens = DefaultQAMaxTokens
		if prompt, err := JudgePromptFor(s.JudgePrompt); err == nil {
			key.JudgePromptSHA256 = hashText(prompt("{question}", "{gold_answer}", "{model_answer}"))
		}
		key.JudgeMaxTokens = JudgeMaxTokens
	}
	return key
}

// hashText returns the lowercase hex SHA-256 of s.
func hashText(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// CheckResume writes DIR/run.json on a first run and, on a rerun, refuses
// with an EINVALID error naming the fields that differ to mix rows made
// with other settings.
func CheckResume(dir string, key ResumeKey) error {
	want, _ := json.MarshalIndent(key, "", "  ")
	path := filepath.Join(dir, "run.json")
	have, err := os.ReadFile(path)
	if err == nil {
		if !bytes.Equal(bytes.TrimSpace(have), bytes.TrimSpace(want)) {
			return swc.Errorf(swc.EINVALID, "bench: %s holds results made with other settings (%s); use another --out or remove the directory", dir, diffKeys(have, want))
		}
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return os.WriteFile(path, append(want, '\n'), 0o644)
}

// diffKeys names the fields in which two run.json files differ.
func diffKeys(a, b []byte) string {
	var am, bm map[string]any
	_ = json.Unmarshal(a, &am)
	_ = json.Unmarshal(b, &bm)
	keys := map[string]bool{}
	for k := range am {
		keys[k] = true
	}
	for k := range bm {
		keys[k] = true
	}
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if fmt.Sprint(am[k]) != fmt.Sprint(bm[k]) {
			diffs = append(diffs, fmt.Sprintf("%s was %v, now %v", k, orNone(am[k]), orNone(bm[k])))
		}
	}
	return strings.Join(diffs, "; ")
}

func orNone(v any) any {
	if v == nil {
		return "(none)"
	}
	return v
}
