package bench

import (
	"github.com/swcmem/swc/preserve"
	"github.com/swcmem/swc/usage"
)

// The metric names of results.jsonl and summary.json.
const (
	MetricAnswerRetention   = "answer_retention"
	MetricAnswerTokenRecall = "answer_token_recall"
	MetricEvidenceRetention = "evidence_retention"
	// MetricSupportRecall is support_recall@k with k = SupportK: the gold's
	// content tokens inside the k context lines BM25 ranks best for the
	// question (see Support).
	MetricSupportRecall = "support_recall@5"
	MetricF1            = "f1"
	MetricJudge         = "judge"
)

// Metrics lists the metric names in report order.
var Metrics = []string{MetricJudge, MetricF1, MetricAnswerRetention, MetricAnswerTokenRecall, MetricSupportRecall, MetricEvidenceRetention}

// CategoryKeys lists the category keys of summaries in report order: each
// category, then "1-4" (categories 1–4 together, the paper's primary
// aggregate).
var CategoryKeys = []string{"1", "2", "3", "4", "5", "1-4"}

// Row is one line of results.jsonl: one question under one condition.
type Row struct {
	Condition    string `json:"condition"`
	Conversation string `json:"conversation"`
	QuestionID   string `json:"question_id"`
	Category     int    `json:"category"`
	// Type and Abstention are the question's (swc.Question), for typed
	// data sets (LongMemEval); empty and false for LoCoMo.
	Type       string             `json:"type,omitempty"`
	Abstention bool               `json:"abstention,omitempty"`
	Question   string             `json:"question"`
	Gold       string             `json:"gold"`
	Metrics    map[string]float64 `json:"metrics"`
	Answer     string             `json:"answer,omitempty"`
	Verdict    string             `json:"verdict,omitempty"`
	Tokens     RowTokens          `json:"tokens"`
	Error      string             `json:"error,omitempty"`
	// Alt is the row scored against the other gold, for questions the
	// LoCoMo audit corrected (see GoldSummary).
	Alt *AltRow `json:"alt,omitempty"`
}

// RowTokens counts a row's tokens: the context, and everything sent to the
// QA model for the question (Tok/Q; 0 offline).
type RowTokens struct {
	Context int `json:"context"`
	Prompt  int `json:"prompt"`
}

// Stat is a mean with its 95% percentile-bootstrap interval, as
// summary.json writes it: {"mean", "ci": [lo, hi], "n"}.
type Stat struct {
	Mean float64    `json:"mean"`
	CI   [2]float64 `json:"ci"`
	N    int        `json:"n"`
}

// StatOf converts a bootstrap Estimate.
func StatOf(e Estimate) Stat { return Stat{Mean: e.Mean, CI: [2]float64{e.Lo, e.Hi}, N: e.N} }

// Summary is summary.json. Maps marshal with sorted keys and no timings
// are stored, so identical runs give identical bytes.
type Summary struct {
	Settings Settings `json:"settings"`
	// Order is the order conditions were run and are reported in.
	Order []string `json:"order"`
	// Types are the question types results are broken down by, in report
	// order, for a typed data set (LongMemEval); empty for LoCoMo, whose
	// categories are used. See Breakdown.
	Types      []string                     `json:"types,omitempty"`
	Conditions map[string]*ConditionSummary `json:"conditions"`
	Matched    Matched                      `json:"matched"`
	// Paired holds paired-bootstrap differences A − B on the matched set.
	Paired []Paired `json:"paired"`
	// PerConversation maps conversation id → condition → summary.
	PerConversation map[string]map[string]*ConvSummary `json:"per_conversation"`
	// Preservation is the preservation analysis of the gists made, when
	// any were (see package preserve); nil otherwise.
	Preservation *preserve.Report `json:"preservation,omitempty"`
	// Usage is LLM usage by role ("gist", "qa", "judge") and by model,
	// with estimated costs; zero when offline.
	Usage usage.Summary `json:"usage"`
	// JudgeAudit is the judge audit, when one was asked for.
	JudgeAudit *JudgeAudit `json:"judge_audit,omitempty"`
	// Gold is the gold option, what the LoCoMo audit changed and the
	// ceilings, when the audit was available.
	Gold *GoldSummary `json:"gold,omitempty"`
}

// Settings records what the run used.
type Settings struct {
	Data          string   `json:"data"`
	Conversations []string `json:"conversations"`
	Conditions    []string `json:"conditions"`
	Budget        int      `json:"budget"`
	Offline       bool     `json:"offline"`
	QA            string   `json:"qa,omitempty"`
	Judge         string   `json:"judge,omitempty"`
	Gister        string   `json:"gister"`
	Embedder      string   `json:"embedder"`
	Schedule      string   `json:"schedule"`
	Calibration   string   `json:"calibration"`
	Seed          uint64   `json:"seed"`
	Resamples     int      `json:"resamples"`
	Tokenizer     string   `json:"tokenizer"`
	QAPrompt      string   `json:"qa_prompt,omitempty"`
	Version       string   `json:"version"`
	// Gold is the gold option (GoldOriginal when empty); JudgePrompt the
	// judge prompt's name (JudgePromptPaper when empty).
	Gold        string `json:"gold,omitempty"`
	JudgePrompt string `json:"judge_prompt,omitempty"`
}

// ConditionSummary is one condition over every conversation.
type ConditionSummary struct {
	// Categories maps a category key ("1".."5", "1-4") to metric → estimate.
	Categories map[string]map[string]Stat `json:"categories"`
	// TokPerQ is the mean number of tokens sent to the QA model per
	// question (the context when offline).
	TokPerQ           float64 `json:"tok_per_q"`
	MeanContextTokens float64 `json:"mean_context_tokens"`
	MaxContextTokens  int     `json:"max_context_tokens"`
	// Tiers counts chunks per tier over all conversations (SWC only).
	Tiers map[string]int `json:"tiers,omitempty"`
	// Actions counts chunks per action over all conversations.
	Actions map[string]int `json:"actions"`
	Rows    int            `json:"rows"`
	Errors  int            `json:"errors"`
	// QueryAware says the condition's context was built for each
	// question, knowing it (swc.QueryAware), rather than once per
	// conversation.
	QueryAware bool `json:"query_aware,omitempty"`
}

// ConvSummary is one condition on one conversation.
type ConvSummary struct {
	Categories    map[string]map[string]Stat `json:"categories"`
	ContextTokens int                        `json:"context_tokens"`
	Tiers         map[string]int             `json:"tiers,omitempty"`
	Actions       map[string]int             `json:"actions"`
}

// Matched describes the questions with a result under every condition.
type Matched struct {
	N          int            `json:"n"`
	ByCategory map[string]int `json:"by_category"`
}

// Paired is a paired-bootstrap difference A − B of one metric on one
// category key, over the matched questions.
type Paired struct {
	A        string `json:"a"`
	B        string `json:"b"`
	Category string `json:"category"`
	Metric   string `json:"metric"`
	Diff     Stat   `json:"diff"`
	// PerConversation is the mean difference per conversation.
	PerConversation map[string]float64 `json:"per_conversation"`
}

// JudgeAudit reports how often the judge accepted answers that are wrong.
type JudgeAudit struct {
	Questions int `json:"questions"`
	// Kinds maps an answer kind (AuditVague, AuditOtherAnswer) to its
	// counts under the run's judge prompt.
	Kinds map[string]AuditCount `json:"kinds"`
	// Prompt names the run's judge prompt; ByPrompt holds the counts under
	// every judge prompt audited (JudgePromptNames), Kinds among them.
	Prompt   string                           `json:"prompt,omitempty"`
	ByPrompt map[string]map[string]AuditCount `json:"by_prompt,omitempty"`
}

// AuditCount is how many audit answers of a kind were asked and accepted.
type AuditCount struct {
	Asked    int     `json:"asked"`
	Accepted int     `json:"accepted"`
	Errors   int     `json:"errors"`
	Rate     float64 `json:"rate"` // accepted ÷ (asked − errors)
	// FirstError is the cause of the first failed judge call, if any.
	FirstError string `json:"first_error,omitempty"`
}
