package bench

import (
	"context"

	"github.com/swcmem/swc"
)

// The gold options of a run: LoCoMo's own answers and evidence (the
// paper's), or those corrected by the LoCoMo audit (see locomo.Correction).
const (
	GoldOriginal  = "original"
	GoldCorrected = "corrected"
)

// AltRow is a row's scores under the other gold (corrected when the run
// scores against the original, and the reverse). Only questions the audit
// corrected carry one.
type AltRow struct {
	Gold    string             `json:"gold"`
	Metrics map[string]float64 `json:"metrics"`
	Verdict string             `json:"verdict,omitempty"`
	Error   string             `json:"error,omitempty"`
}

// scoreAlt adds row.Alt: the offline metrics against alt's answer and
// evidence and, when the row was answered, F1 and (with a judge) the
// verdict against alt's gold. The judge is asked again only when the gold
// answer differs; a failed call is recorded in Alt.Error.
func (r *Runner) scoreAlt(ctx context.Context, row *Row, idx *Index, sup *Support, kept map[string]bool, alt swc.Question) {
	gold := GoldFor(alt)
	a := &AltRow{Gold: gold, Metrics: map[string]float64{}}
	row.Alt = a
	if alt.Category != swc.Adversarial {
		a.Metrics[MetricAnswerRetention] = idx.Retention(gold)
		a.Metrics[MetricAnswerTokenRecall] = idx.TokenRecall(gold)
		a.Metrics[MetricSupportRecall] = sup.Recall(alt.Question, gold, SupportK)
	}
	if share, ok := EvidenceRetention(kept, alt.Evidence); ok {
		a.Metrics[MetricEvidenceRetention] = share
	}
	if _, answered := row.Metrics[MetricF1]; !answered {
		return
	}
	if f1, err := F1(alt.Category, row.Answer, gold); err == nil {
		a.Metrics[MetricF1] = f1
	}
	v, judged := row.Metrics[MetricJudge]
	if !judged {
		return
	}
	if gold == row.Gold {
		a.Metrics[MetricJudge], a.Verdict = v, row.Verdict
		return
	}
	jr, err := r.Judge.Complete(ctx, swc.LLMRequest{
		Messages:    []swc.Message{{Role: swc.RoleUser, Content: r.judgePrompt(alt.Question, gold, row.Answer)}},
		Temperature: 0, MaxTokens: 8, Purpose: "judge",
	})
	if err != nil {
		a.Error = "judge: " + err.Error()
		return
	}
	a.Verdict = jr.Text
	if v, err = ParseVerdict(jr.Text); err != nil {
		a.Error = "judge: " + err.Error()
		return
	}
	a.Metrics[MetricJudge] = v
}

// judgePrompt returns the judge prompt the runner uses.
func (r *Runner) judgePrompt(question, gold, answer string) string {
	if r.JudgePrompt != nil {
		return r.JudgePrompt(question, gold, answer)
	}
	return JudgePrompt(question, gold, answer)
}

// GoldSummary is the gold section of summary.json: which gold the run
// scored against, what the audit changed, the ceilings, and what the
// errors did to each condition.
type GoldSummary struct {
	Option string `json:"option"`
	// Audit names the audit file; Entries counts its corrections.
	Audit   string `json:"audit"`
	Entries int    `json:"entries"`
	// Changed maps a category key to how many matched questions the
	// option changed (zero everywhere under the original gold); Faulted to
	// how many the audit faults, whichever gold was used.
	Changed map[string]GoldCount `json:"changed"`
	Faulted map[string]GoldCount `json:"faulted"`
	// Ceiling maps a category key to the best score a perfect system can
	// reach under this option: the share of matched questions whose gold
	// answer the audit did not fault under the original gold, 1 under the
	// corrected. EvidenceCeiling is the same for evidence.
	Ceiling         map[string]float64 `json:"ceiling"`
	EvidenceCeiling map[string]float64 `json:"evidence_ceiling"`
	// OriginalCeiling is Ceiling under the original gold, for reference.
	OriginalCeiling map[string]float64 `json:"original_ceiling"`
	// Paired maps a condition to paired-bootstrap differences corrected −
	// original (A "corrected", B "original") per category key and metric,
	// over the matched questions; rows the audit did not touch differ by 0.
	Paired map[string][]Paired `json:"paired"`
	// Incomplete counts matched rows of audited questions whose score
	// under the other gold is missing (rows kept from a run without the
	// audit, or a failed judge call); they are left out of Paired.
	Incomplete int `json:"incomplete,omitempty"`
}

// GoldCount counts questions whose gold answer, and whose evidence, differ.
type GoldCount struct {
	Answer   int `json:"answer"`
	Evidence int `json:"evidence"`
}

// GoldInput is what SummarizeGold needs.
type GoldInput struct {
	Option string
	Audit  string
	// Entries is the number of corrections in the audit.
	Entries int
	// Faults maps an audited question id to whether the audit faults its
	// answer (true) or only its evidence (false).
	Faults map[string]bool
	// Order and Rows as for Summarize; Conversations are the run's
	// conversation ids in report order: rows of other conversations are
	// ignored, and rows are sorted so that the bootstrap does not depend on
	// the order they were read in.
	Order         []string
	Conversations []string
	Rows          []Row
	Resamples     int
	Seed          uint64
}

// SummarizeGold computes the gold section over the matched set (questions
// with a finished row under every condition of in.Order).
func SummarizeGold(in GoldInput) *GoldSummary {
	g := &GoldSummary{
		Option: in.Option, Audit: in.Audit, Entries: in.Entries,
		Changed: map[string]GoldCount{}, Faulted: map[string]GoldCount{},
		Ceiling: map[string]float64{}, EvidenceCeiling: map[string]float64{}, OriginalCeiling: map[string]float64{},
		Paired: map[string][]Paired{},
	}
	inRun := map[string]bool{}
	for _, c := range in.Order {
		inRun[c] = true
	}
	convOrder := map[string]int{}
	for i, c := range in.Conversations {
		convOrder[c] = i
	}
	rows := make([]Row, 0, len(in.Rows))
	for _, r := range in.Rows {
		if _, ok := convOrder[r.Conversation]; ok {
			rows = append(rows, r) // rows of other selections in the same directory are not this run's
		}
	}
	sortRows(rows, in.Order, convOrder)
	count := map[string]int{}
	for _, r := range rows {
		if r.Error == "" && inRun[r.Condition] {
			count[r.QuestionID]++
		}
	}
	byCond := map[string][]Row{}
	seen := map[string]bool{}
	n := map[string]int{}
	for _, r := range rows {
		if r.Error != "" || !inRun[r.Condition] || count[r.QuestionID] != len(in.Order) {
			continue
		}
		byCond[r.Condition] = append(byCond[r.Condition], r)
		if seen[r.QuestionID] {
			continue
		}
		seen[r.QuestionID] = true
		answerFault, audited := in.Faults[r.QuestionID]
		for _, key := range CategoryKeys {
			if !inKey(r, key) {
				continue
			}
			n[key]++
			if !audited {
				continue
			}
			f := g.Faulted[key]
			f.Evidence++
			if answerFault {
				f.Answer++
			}
			g.Faulted[key] = f
		}
	}
	for key, total := range n {
		f := g.Faulted[key]
		g.OriginalCeiling[key] = 1 - float64(f.Answer)/float64(total)
		if in.Option == GoldCorrected {
			g.Changed[key] = f
			g.Ceiling[key], g.EvidenceCeiling[key] = 1, 1
		} else {
			g.Changed[key] = GoldCount{}
			g.Ceiling[key] = g.OriginalCeiling[key]
			g.EvidenceCeiling[key] = 1 - float64(f.Evidence)/float64(total)
		}
	}
	for _, c := range in.Order {
		var corr, orig []Row
		for _, r := range byCond[c] {
			cr, or := r, r
			if _, audited := in.Faults[r.QuestionID]; audited {
				if r.Alt == nil || r.Alt.Error != "" {
					g.Incomplete++
					continue
				}
				alt := r
				alt.Metrics = r.Alt.Metrics
				if in.Option == GoldCorrected {
					or = alt
				} else {
					cr = alt
				}
			}
			corr = append(corr, cr)
			orig = append(orig, or)
		}
		if len(corr) > 0 {
			g.Paired[c] = paired("corrected", "original", corr, orig, CategoryKeys, in.Resamples, in.Seed)
		}
	}
	return g
}
