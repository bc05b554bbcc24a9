package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/tokens"
)

func init() {
	register("bench", "run the LoCoMo protocol over strategies and write results and reports", runBench)
}

// benchProgressHook, when set (by tests), is called after every question.
var benchProgressHook func(done, total int)

type benchFlags struct {
	data, conditions, conversations, out string
	offline                              bool
	qa, judge                            string
	seed                                 uint64
	resamples                            int
	judgeAudit                           int
	eng                                  *engineFlags
	gold                                 goldFlags
}

func runBench(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "bench", "[--data FILE] [--conditions LIST] [--conversations LIST] [--budget 4000] [--out DIR] [--offline | --qa PROVIDER:MODEL --judge PROVIDER:MODEL] [--gold original|corrected] [--judge-prompt paper|strict] [engine flags]")
	f := &benchFlags{}
	data := addDataFlags(fs)
	fs.StringVar(&f.conditions, "conditions", "", "comma-separated conditions (default: all: "+strings.Join(conditionNames, ",")+")")
	fs.StringVar(&f.conversations, "conversations", "", "comma-separated sample ids or positions (default: all)")
	fs.StringVar(&f.out, "out", "swc-bench", "output directory (results.jsonl, summary.json, summary.csv, report.md, report.html)")
	fs.BoolVar(&f.offline, "offline", false, "offline metrics only (the default without --qa; says so explicitly)")
	fs.StringVar(&f.qa, "qa", "", "QA model, e.g. anthropic:claude-sonnet-4-6 (none: offline)")
	fs.StringVar(&f.judge, "judge", "", "judge model (default: anthropic:claude-haiku-4-5-20251001 when --qa is an anthropic model, else the --qa model)")
	fs.Uint64Var(&f.seed, "seed", 42, "bootstrap seed")
	fs.IntVar(&f.resamples, "resamples", 2000, "bootstrap resamples")
	fs.IntVar(&f.judgeAudit, "judge-audit", 0, "ask the judge about N sampled questions with deliberately wrong answers")
	f.eng = addEngineFlags(fs)
	f.gold.add(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := f.gold.check("bench"); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("bench: unexpected argument %q", fs.Arg(0))
	}
	if f.offline && (f.qa != "" || f.judge != "") {
		return usagef("bench: --offline and --qa/--judge exclude each other")
	}
	if f.judge != "" && f.qa == "" {
		return usagef("bench: --judge needs --qa")
	}
	if f.resamples < 1 {
		return usagef("bench: --resamples must be at least 1")
	}
	if f.judgeAudit < 0 {
		return usagef("bench: --judge-audit must not be negative")
	}
	eng, err := openEngines(ctx, env, f.eng)
	if err != nil {
		return err
	}
	defer eng.Close()
	strategies, err := eng.strategies(f.conditions)
	if err != nil {
		return err
	}
	f.data = data.path
	all, _, err := loadPicked(env, data, nil, f.conversations)
	if err != nil {
		return err
	}
	gold, err := loadGold(env, "bench", &f.gold, f.data, all)
	if err != nil {
		return err
	}
	convs, err := pickConversations(gold.convs, f.conversations)
	if err != nil {
		return err
	}
	if err := checkBudget(f.eng.budget, convs); err != nil {
		return err
	}
	var order []string
	for _, s := range strategies {
		order = append(order, s.Name())
	}
	var ids []string
	for _, c := range convs {
		ids = append(ids, c.ID)
	}
	dataName, dataHash, err := dataIdentity(env, f.data)
	if err != nil {
		return err
	}
	settings := bench.Settings{
		Data: dataName, Conversations: ids, Conditions: order, Budget: f.eng.budget,
		Offline: f.qa == "", Gister: eng.gister.Name(), Embedder: eng.embedder.Name(),
		Schedule: eng.schedule.String(), Calibration: string(eng.cfg.Calibration),
		Seed: f.seed, Resamples: f.resamples, Tokenizer: tokens.Name, Version: Version,
		Gold: f.gold.gold, JudgePrompt: f.gold.judgePrompt,
	}
	runner := &bench.Runner{
		Strategies: strategies, Conversations: convs, Budget: f.eng.budget,
		Concurrency: f.eng.prov.concurrency, Filter: locomo.TextOnly,
	}
	runner.JudgePrompt, _ = bench.JudgePromptFor(f.gold.judgePrompt) // checked above
	qa, judge, err := openBenchLLMs(ctx, env, eng, f)
	if err != nil {
		return err
	}
	if qa != nil {
		runner.QA, runner.Judge = qa, judge
		settings.QA, settings.Judge, settings.QAPrompt = qa.Name(), judge.Name(), bench.QAInstruction
	} else {
		fmt.Fprintln(env.Stderr, "swc: bench: no --qa model: running offline (answer retention, answer-token recall, evidence retention)")
	}
	auditHash := gold.resumeAuditHash(env, f.out, f.gold.gold)
	runner.Alt = gold.alt
	if err := checkResume(f.out, settings, dataHash, auditHash, f.eng); err != nil {
		return err
	}
	store, err := bench.OpenStore(f.out)
	if err != nil {
		return err
	}
	if n := store.Len(); n > 0 {
		fmt.Fprintf(env.Stderr, "swc: bench: resuming: %d rows already in %s\n", n, filepath.Join(f.out, "results.jsonl"))
	}
	runner.Store = store
	bar := newProgress(env.Stderr, env.StderrTTY, "bench", "questions", time.Now)
	defer bar.clear()
	runner.Progress = func(done, total int) {
		bar.update(done, total)
		if benchProgressHook != nil {
			benchProgressHook(done, total)
		}
	}
	start := time.Now()
	contexts, runErr := runner.Run(ctx)
	if err := store.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return fmt.Errorf("%w (finished rows are kept in %s; rerun the same command to resume)", runErr, f.out)
	}
	bar.step("summarising and writing reports…")
	failed := store.Failed()
	sum := bench.Summarize(bench.SummaryInput{
		Settings: settings, Order: order, Conversations: convs, Rows: append(store.Rows(), failed...),
		Contexts: contexts, Resamples: f.resamples, Seed: f.seed,
	})
	sum.Gold = gold.summarize(f.gold.gold, order, ids, store.Rows(), f.resamples, f.seed)
	if err := finishSummary(ctx, env, sum, convs, contexts, eng, judge, f); err != nil {
		return err
	}
	if err := writeBenchOutputs(f.out, sum); err != nil {
		return err
	}
	bar.clear()
	printBenchTable(env.Stdout, sum)
	fmt.Fprintf(env.Stderr, "swc: bench: %s × %s in %s; wrote %s\n", count(len(order), "condition", "conditions"), count(len(convs), "conversation", "conversations"), time.Since(start).Round(time.Millisecond), f.out)
	fmt.Fprintf(env.Stderr, "swc: bench: open %s\n", filepath.Join(f.out, "report.html"))
	eng.printUsage(env.Stderr)
	if len(failed) > 0 {
		return swc.Errorf(swc.EUNAVAILABLE, "bench: %d questions failed (first: %s %s: %s); their rows in %s carry the error, and rerunning the same command retries them",
			len(failed), failed[0].Condition, failed[0].QuestionID, failed[0].Error, filepath.Join(f.out, "results.jsonl"))
	}
	return nil
}

// dataIdentity names the data and hashes its bytes, so a resumed run can
// tell whether the data changed.
func dataIdentity(env *Env, path string) (string, string, error) {
	var data []byte
	name := locomo.SampleName
	if path == "" {
		data = locomo.SampleJSON()
	} else {
		b, n, err := readInput(env, path)
		if err != nil {
			return "", "", fmt.Errorf("bench: %w", err)
		}
		data, name = b, filepath.Base(n)
	}
	sum := sha256.Sum256(data)
	return name, hex.EncodeToString(sum[:]), nil
}

// resumeKey is what must match for rows in DIR to be reused.
type resumeKey struct {
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
	// defaults, so run.json of older runs still matches.
	Gold        string `json:"gold,omitempty"`
	AuditSHA256 string `json:"audit_sha256,omitempty"`
	JudgePrompt string `json:"judge_prompt,omitempty"`
}

// checkResume writes DIR/run.json on a first run and, on a rerun, refuses
// to mix rows made with other settings.
func checkResume(dir string, s bench.Settings, dataHash, auditHash string, eng *engineFlags) error {
	key := resumeKey{
		DataSHA256: dataHash, Budget: s.Budget, QA: s.QA, Judge: s.Judge, Gister: s.Gister,
		Embedder: s.Embedder, Schedule: s.Schedule, Calibration: s.Calibration,
		Weights: eng.weights, Thresholds: fmt.Sprintf("%g/%g/top-%d/demote=%v", eng.high, eng.low, eng.topK, eng.demote), Tokenizer: s.Tokenizer,
		AuditSHA256: auditHash,
	}
	if s.Gold != bench.GoldOriginal {
		key.Gold = s.Gold
	}
	if s.JudgePrompt != bench.JudgePromptPaper {
		key.JudgePrompt = s.JudgePrompt
	}
	want, _ := json.MarshalIndent(key, "", "  ")
	path := filepath.Join(dir, "run.json")
	have, err := os.ReadFile(path)
	if err == nil {
		if !bytes.Equal(bytes.TrimSpace(have), bytes.TrimSpace(want)) {
			var old resumeKey
			_ = json.Unmarshal(have, &old)
			return swc.Errorf(swc.EINVALID, "bench: %s holds results made with other settings (%s); use another --out or remove the directory", dir, diffKeys(old, key))
		}
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return os.WriteFile(path, append(want, '\n'), 0o644)
}

func diffKeys(a, b resumeKey) string {
	var am, bm map[string]any
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	_ = json.Unmarshal(ja, &am)
	_ = json.Unmarshal(jb, &bm)
	var diffs []string
	for _, k := range []string{"data_sha256", "budget", "qa", "judge", "gister", "embedder", "schedule", "calibration", "weights", "thresholds", "tokenizer", "gold", "audit_sha256", "judge_prompt"} {
		if fmt.Sprint(am[k]) != fmt.Sprint(bm[k]) {
			diffs = append(diffs, fmt.Sprintf("%s was %v, now %v", k, am[k], bm[k]))
		}
	}
	return strings.Join(diffs, "; ")
}
