package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/locomo"
)

// GoldSetup is the LoCoMo audit applied to the data: the conversations to
// score (corrected or not, per the gold option), the other gold of every
// audited question, and what the summary's gold section needs.
type GoldSetup struct {
	// Conversations are all of the data file, per the gold option.
	Conversations []*swc.Conversation
	// Alt maps an audited question's id to the question under the other
	// gold; Faults to whether the audit faults its answer (true) or only
	// its evidence.
	Alt    map[string]swc.Question
	Faults map[string]bool
	// Entries is the number of corrections in the audit, Path its file,
	// SHA256 the hash of its bytes ("" when no audit was loaded).
	Entries int
	Path    string
	SHA256  string
	// NoAlt is set when rows are not scored under the other gold (an
	// output directory started before the audit was used): ceilings are
	// still reported, the paired comparison is not.
	NoAlt bool
	// Warnings are the audit's remarks about the data (usable oddities).
	Warnings []locomo.Warning
	// Skipped says why an audit that was found is not used (it does not
	// fit the data); "" otherwise.
	Skipped string
}

// GoldOptions choose the gold answers: Gold is GoldOriginal or
// GoldCorrected; Audit the audit's errors.json ("" looks for it beside
// Data, see locomo.DefaultAuditPath); Data the LoCoMo file ("" for the
// built-in sample).
type GoldOptions struct {
	Gold, Audit, Data string
}

// LoadGold applies the audit to all (the whole data file, in file order).
// With GoldCorrected the audit is required: a missing file is an
// ENOTFOUND error naming the path expected. With the original gold the
// audit is used when found (for ceilings and the paired comparison) and
// skipped otherwise, or when it does not fit the data (GoldSetup.Skipped
// says so); an Audit named explicitly must load. Errors name the flags
// (--gold, --audit, --data) that would fix them.
func LoadGold(o GoldOptions, all []*swc.Conversation) (*GoldSetup, error) {
	setup := &GoldSetup{Conversations: all}
	path := o.Audit
	if path == "" {
		path = locomo.DefaultAuditPath(o.Data)
	}
	corrected := o.Gold == GoldCorrected
	if path == "" {
		if corrected {
			return nil, swc.Errorf(swc.EINVALID, "--gold corrected needs the LoCoMo audit's errors.json and LoCoMo's locomo10.json: pass --data locomo10.json (the audit is looked for at ../locomo-audit/errors.json beside its directory) or --audit FILE")
		}
		return setup, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if corrected || o.Audit != "" {
			if errors.Is(err, os.ErrNotExist) {
				return nil, swc.Errorf(swc.ENOTFOUND, "--gold corrected needs the LoCoMo audit's errors.json, expected at %s (pass --audit FILE)", path)
			}
			return nil, swc.Errorf(swc.EINVALID, "%v", err)
		}
		return setup, nil
	}
	cs, err := locomo.ParseCorrections(data, path)
	var fixed *locomo.Corrected
	if err == nil {
		fixed, err = locomo.ApplyCorrections(all, cs)
	}
	if err != nil {
		if corrected || o.Audit != "" {
			return nil, err
		}
		setup.Skipped = fmt.Sprintf("the audit at %s does not fit this data, no ceilings: %v", path, err)
		return setup, nil
	}
	setup.Warnings = fixed.Warnings
	sum := sha256.Sum256(data)
	setup.SHA256, setup.Path, setup.Entries = hex.EncodeToString(sum[:]), path, len(cs)
	setup.Alt, setup.Faults = map[string]swc.Question{}, map[string]bool{}
	other := fixed.Conversations
	if corrected {
		setup.Conversations, other = fixed.Conversations, all
	}
	for _, c := range other {
		for _, q := range c.Questions {
			if fix, ok := fixed.Fixes[q.ID]; ok {
				setup.Alt[q.ID] = q
				setup.Faults[q.ID] = fix.AnswerWrong()
			}
		}
	}
	return setup, nil
}

// ResumeAuditHash returns the audit hash to record in dir's run.json. A
// directory whose run.json predates the audit (no audit_sha256) and is
// resumed under the original gold keeps going without scoring rows under
// the corrected gold (an expensive run must not be lost to an upgrade):
// the hash is then "", s.NoAlt is set, and note says so for the user.
func (s *GoldSetup) ResumeAuditHash(dir, gold string) (hash, note string) {
	if s.SHA256 == "" || gold != GoldOriginal {
		return s.SHA256, ""
	}
	have, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		return s.SHA256, ""
	}
	var old map[string]any
	if json.Unmarshal(have, &old) != nil || old["audit_sha256"] != nil {
		return s.SHA256, ""
	}
	s.NoAlt, s.Alt = true, nil
	return "", fmt.Sprintf("%s was started without the LoCoMo audit: ceilings are reported, the paired original-vs-corrected comparison is not (use a new --out for it)", dir)
}

// Summarize computes the gold section from the run's rows, or nil when no
// audit was loaded.
func (s *GoldSetup) Summarize(gold string, order, convs []string, rows []Row, resamples int, seed uint64) *GoldSummary {
	if s.SHA256 == "" {
		return nil
	}
	g := SummarizeGold(GoldInput{
		Option: gold, Audit: s.Path, Entries: s.Entries, Faults: s.Faults,
		Order: order, Conversations: convs, Rows: rows, Resamples: resamples, Seed: seed,
	})
	if s.NoAlt {
		g.Paired, g.Incomplete = map[string][]Paired{}, 0
	}
	return g
}
