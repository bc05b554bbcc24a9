package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/locomo"
)

// goldFlags are the flags that choose the gold answers and the judge
// prompt, shared by bench and score.
type goldFlags struct {
	gold, audit, judgePrompt string
}

func (g *goldFlags) add(fs interface {
	StringVar(p *string, name, value, usage string)
}) {
	fs.StringVar(&g.gold, "gold", bench.GoldOriginal, "gold answers: original (LoCoMo's, the paper's) or corrected (the LoCoMo audit's corrections; needs its errors.json)")
	fs.StringVar(&g.audit, "audit", "", "the LoCoMo audit's errors.json (default: ../locomo-audit/errors.json beside the --data file's directory)")
	fs.StringVar(&g.judgePrompt, "judge-prompt", bench.JudgePromptPaper, "judge prompt: paper (the paper's, verbatim) or strict (ours: asks for the specific fact; see README)")
}

// check validates the choices (usage errors, exit status 2).
func (g *goldFlags) check(cmd string) error {
	if g.gold != bench.GoldOriginal && g.gold != bench.GoldCorrected {
		return usagef("%s: --gold must be original or corrected, not %q", cmd, g.gold)
	}
	if _, err := bench.JudgePromptFor(g.judgePrompt); err != nil {
		return usagef("%s: --judge-prompt must be paper or strict, not %q", cmd, g.judgePrompt)
	}
	return nil
}

// goldSetup is the audit applied to the data: the conversations to score
// (corrected or not, per --gold), the other gold of every audited question,
// and what the summary's gold section needs.
type goldSetup struct {
	convs   []*swc.Conversation // all of the file, per --gold
	alt     map[string]swc.Question
	faults  map[string]bool // audited question id → the answer is faulted
	entries int
	path    string
	sha256  string // of the audit file; "" when no audit was loaded
	// noAlt is set when rows are not scored under the other gold (an
	// output directory started before the audit was used): ceilings are
	// still reported, the paired comparison is not.
	noAlt bool
}

// resumeAuditHash returns the audit hash for run.json. A directory whose
// run.json predates the audit (no audit_sha256) and is resumed under the
// original gold keeps going without scoring rows under the corrected gold
// (an expensive run must not be lost to an upgrade); it says so on stderr.
func (s *goldSetup) resumeAuditHash(env *Env, dir, gold string) string {
	if s.sha256 == "" || gold != bench.GoldOriginal {
		return s.sha256
	}
	have, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		return s.sha256
	}
	var old map[string]any
	if json.Unmarshal(have, &old) != nil || old["audit_sha256"] != nil {
		return s.sha256
	}
	s.noAlt, s.alt = true, nil
	fmt.Fprintf(env.Stderr, "swc: bench: %s was started without the LoCoMo audit: ceilings are reported, the paired original-vs-corrected comparison is not (use a new --out for it)\n", dir)
	return ""
}

// loadGold applies the audit to all (the whole data file, in file order).
// With --gold corrected the audit is required: a missing file is an error
// naming the path expected. With the original gold the audit is used when
// found (for ceilings and the paired comparison) and skipped with a note
// otherwise, or when it does not fit the data; an --audit named explicitly
// must load.
func loadGold(env *Env, cmd string, g *goldFlags, dataPath string, all []*swc.Conversation) (*goldSetup, error) {
	setup := &goldSetup{convs: all}
	path := g.audit
	if path == "" {
		path = locomo.DefaultAuditPath(dataPath)
	}
	corrected := g.gold == bench.GoldCorrected
	if path == "" {
		if corrected {
			return nil, swc.Errorf(swc.EINVALID, "%s: --gold corrected needs the LoCoMo audit's errors.json and LoCoMo's locomo10.json: pass --data locomo10.json (the audit is looked for at ../locomo-audit/errors.json beside its directory) or --audit FILE", cmd)
		}
		return setup, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if corrected || g.audit != "" {
			if errors.Is(err, os.ErrNotExist) {
				return nil, swc.Errorf(swc.ENOTFOUND, "%s: --gold corrected needs the LoCoMo audit's errors.json, expected at %s (pass --audit FILE)", cmd, path)
			}
			return nil, swc.Errorf(swc.EINVALID, "%s: %v", cmd, err)
		}
		return setup, nil
	}
	cs, err := locomo.ParseCorrections(data, path)
	var fixed *locomo.Corrected
	if err == nil {
		fixed, err = locomo.ApplyCorrections(all, cs)
	}
	if err != nil {
		if corrected || g.audit != "" {
			return nil, fmt.Errorf("%s: %w", cmd, err)
		}
		fmt.Fprintf(env.Stderr, "swc: %s: the audit at %s does not fit this data, no ceilings: %v\n", cmd, path, err)
		return setup, nil
	}
	for _, w := range fixed.Warnings {
		fmt.Fprintf(env.Stderr, "swc: warning: audit: %s\n", w)
	}
	sum := sha256.Sum256(data)
	setup.sha256, setup.path, setup.entries = hex.EncodeToString(sum[:]), path, len(cs)
	setup.alt, setup.faults = map[string]swc.Question{}, map[string]bool{}
	other := fixed.Conversations
	if corrected {
		setup.convs, other = fixed.Conversations, all
	}
	for _, c := range other {
		for _, q := range c.Questions {
			if fix, ok := fixed.Fixes[q.ID]; ok {
				setup.alt[q.ID] = q
				setup.faults[q.ID] = fix.AnswerWrong()
			}
		}
	}
	return setup, nil
}

// summarize computes the gold section from the run's rows, or nil when no
// audit was loaded.
func (s *goldSetup) summarize(gold string, order, convs []string, rows []bench.Row, resamples int, seed uint64) *bench.GoldSummary {
	if s.sha256 == "" {
		return nil
	}
	g := bench.SummarizeGold(bench.GoldInput{
		Option: gold, Audit: s.path, Entries: s.entries, Faults: s.faults,
		Order: order, Conversations: convs, Rows: rows, Resamples: resamples, Seed: seed,
	})
	if s.noAlt {
		g.Paired, g.Incomplete = map[string][]bench.Paired{}, 0
	}
	return g
}

func ceilingCell(m map[string]float64, key string) string {
	v, ok := m[key]
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.3f", v)
}

// printGoldLine says which gold was used and what the audit changed.
func printGoldLine(w io.Writer, g *bench.GoldSummary) {
	if g == nil {
		return
	}
	var parts []string
	for _, k := range []string{"1-4", "1", "2", "3", "4"} {
		counts := g.Changed
		if g.Option == bench.GoldOriginal {
			counts = g.Faulted
		}
		if c, ok := counts[k]; ok {
			parts = append(parts, fmt.Sprintf("cat %s: %d answers, %d evidence", k, c.Answer, c.Evidence))
		}
	}
	verb := "changed"
	if g.Option == bench.GoldOriginal {
		verb = "faults (not applied)"
	}
	fmt.Fprintf(w, "gold: %s; the audit (%d entries, %s) %s on the matched set: %s\n", g.Option, g.Entries, g.Audit, verb, strings.Join(parts, "; "))
}
