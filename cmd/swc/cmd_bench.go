package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/longmemeval"
	"github.com/swcmem/swc/strategy"
	"github.com/swcmem/swc/tokens"
)

func init() {
	register("bench", "run the LoCoMo or LongMemEval protocol over strategies and write results and reports", runBench)
}

// benchProgressHook, when set (by tests), is called after every question.
var benchProgressHook func(done, total int)

type benchFlags struct {
	data, conditions, conversations, out string
	windows                              string
	offline                              bool
	qa, judge                            string
	seed                                 uint64
	resamples                            int
	judgeAudit                           int
	eng                                  *engineFlags
	gold                                 goldFlags
	budgets                              string
	saveContexts                         bool
	trajectories, strategies             string
	cpuProfile, memProfile               string
	parallel                             int
	memoryLimit                          memLimitFlag
}

// benchMemoryLimit is bench's --memory-limit default when GOMEMLIMIT is
// unset: the soft limit the garbage collector works to keep the heap
// under. Without it a run over LongMemEval_S peaked at 2.25 GiB of RSS
// with 757 MB live (the collector lets the heap grow to twice what is
// live); with it at 1.51 GiB, for 40% more time.
const benchMemoryLimit = 1536 << 20

// memLimitFlag is --memory-limit: a size, or "off" (also 0) for none.
type memLimitFlag struct {
	bytes int64 // 0: no limit
	set   bool
}

func (m *memLimitFlag) String() string {
	if m.bytes == 0 {
		return "off"
	}
	return formatBytes(m.bytes)
}

func (m *memLimitFlag) Set(s string) error {
	m.set = true
	if t := strings.TrimSpace(s); strings.EqualFold(t, "off") || t == "0" {
		m.bytes = 0
		return nil
	}
	n, err := parseBytes(s)
	if err != nil {
		return fmt.Errorf("%v, or off", err)
	}
	m.bytes = n
	return nil
}

// limit returns the soft memory limit the run sets, and false when it
// sets none: the flag when given, else none when GOMEMLIMIT is set (the
// runtime already applies it), else benchMemoryLimit.
func (m *memLimitFlag) limit(env *Env) (int64, bool) {
	switch {
	case m.set:
		return m.bytes, m.bytes > 0
	case env.Vars["GOMEMLIMIT"] != "":
		return 0, false
	}
	return benchMemoryLimit, true
}

func runBench(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "bench", "[--data FILE | --trajectories DIR] [--conditions LIST] [--conversations LIST] [--budget 4000] [--out DIR] [--offline | --qa PROVIDER:MODEL --judge PROVIDER:MODEL] [--gold original|corrected] [--judge-prompt paper|strict] [engine flags]")
	f := &benchFlags{}
	data := addDataFlags(fs)
	fs.StringVar(&f.conditions, "conditions", "", "comma-separated conditions (default: all: "+strings.Join(strategy.Names(strategy.All), ",")+"; see 'swc compress -h' for what each keeps; with --trajectories: truncation, mask-5, mask-10, trim-half, swc, and, when named, swc-hold, swc with --hold-budget)")
	fs.StringVar(&f.conversations, "conversations", "", "comma-separated sample ids or positions (default: all); with --trajectories, trajectory names or positions")
	fs.StringVar(&f.out, "out", "swc-bench", "output directory (results.jsonl, summary.json, summary.csv, report.md, report.html)")
	fs.BoolVar(&f.offline, "offline", false, "offline metrics only (the default without --qa; says so explicitly)")
	fs.StringVar(&f.qa, "qa", "", "QA model, e.g. anthropic:claude-sonnet-4-6 (none: offline)")
	fs.StringVar(&f.judge, "judge", "", "judge model (default: anthropic:claude-haiku-4-5-20251001 when --qa is an anthropic model, else the --qa model)")
	fs.Uint64Var(&f.seed, "seed", 42, "bootstrap seed")
	fs.IntVar(&f.resamples, "resamples", 2000, "bootstrap resamples")
	fs.IntVar(&f.judgeAudit, "judge-audit", 0, "ask the judge about N sampled questions with deliberately wrong answers")
	fs.StringVar(&f.budgets, "budgets", "", "comma-separated budgets, e.g. 1000,2000,4000,8000: run every condition at each (DIR/budget-N, each resumable) and draw accuracy-versus-tokens curves (DIR/curves.*); replaces --budget")
	fs.BoolVar(&f.saveContexts, "save-contexts", false, "write DIR/contexts.jsonl: every context scored (condition, budget, conversation, question_id, tokens, text); with --trajectories, DIR/requests.jsonl: every request as each condition sent it (trajectory, format, budget, condition, request, body)")
	fs.StringVar(&f.trajectories, "trajectories", "", "run the trajectory bench instead: every request of the coding-agent runs in DIR (*.json trajectory files or request bodies, in OpenAI Chat Completions, Anthropic Messages, OpenAI Responses or Gemini API form; SWE-agent *.traj files; Claude Code *.jsonl session transcripts; Codex CLI rollout-*.jsonl and Gemini CLI session-*.jsonl session files; opencode's opencode.db, each session a run) under truncation, mask-5, mask-10, trim-half and swc at --budgets (default "+defaultTrajectoryBudgets+"): forward-reference retention, tokens, refusals, breaches, prefix stability, time (docs/benchmark.md)")
	fs.StringVar(&f.strategies, "strategies", "", "with --trajectories: more swc strategies to run as conditions (comma-separated compressor strategies, e.g. swc-anchored)")
	fs.StringVar(&f.windows, "windows", "", "with --trajectories: more tool-loop windows to run swc with, KEEP/EVERY, KEEP/EVERY/STUB_TOKENS or KEEP/EVERY/STUB_TOKENS/TURN_TOKENS each (comma-separated, e.g. 0/3,3/5,2/3/80,2/3/0/-1; KEEP 0: no window; STUB_TOKENS 0: the default; TURN_TOKENS -1: turns kept whole), each a condition named swc-KEEP-EVERY[-STUB_TOKENS[-TURN_TOKENS]] (see swc serve's --loop-keep, --loop-every, --stub-tokens, --turn-tokens)")
	fs.IntVar(&f.parallel, "parallel", 0, "conversations compressed and scored at once (default: 1 for LoCoMo, the number of CPUs for LongMemEval)")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	fs.StringVar(&f.memProfile, "memprofile", "", "write a heap profile (live objects at the end, and allocations) to this file")
	fs.Var(&f.memoryLimit, "memory-limit", "the run's soft memory limit (1536MiB, 2GiB, bytes; off: none): the garbage collector works harder as the heap nears it, trading time for memory (default: 1536MiB, or GOMEMLIMIT when set)")
	f.eng = addEngineFlags(fs)
	f.gold.add(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	stop, err := startProfiles(f.cpuProfile, f.memProfile)
	if err != nil {
		return err
	}
	defer stop()
	if n, ok := f.memoryLimit.limit(env); ok {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(n))
	}
	if f.trajectories != "" {
		if fs.NArg() > 0 {
			return usagef("bench: unexpected argument %q", fs.Arg(0))
		}
		return runTrajectoryBench(ctx, env, fs, f)
	}
	if f.windows != "" {
		return usagef("bench: --windows applies with --trajectories only")
	}
	if f.strategies != "" {
		return usagef("bench: --strategies applies with --trajectories only (LoCoMo conditions are --conditions)")
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
	budgets, err := parseBudgets(f.budgets)
	if err != nil {
		return err
	}
	lme := isLongMemEval(env, data.path)
	if err := checkLongMemEval(lme, f); err != nil {
		return err
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
	var (
		convs []*swc.Conversation
		gold  *bench.GoldSetup
		lmed  *lmeData
	)
	if lme { // streamed: convs are stubs without sessions
		if lmed, err = scanLongMemEval(env, f.data, f.conversations, f.eng.budget); err != nil {
			return err
		}
		convs, gold = lmed.stubs, &bench.GoldSetup{Conversations: lmed.stubs} // no audit
	} else {
		all, _, err := loadPicked(env, data, nil, f.conversations)
		if err != nil {
			return err
		}
		if gold, err = loadGold(env, "bench", &f.gold, f.data, all); err != nil {
			return err
		}
		if convs, err = pickConversations(gold.Conversations, f.conversations); err != nil {
			return err
		}
		if err := checkBudget(f.eng.budget, convs); err != nil {
			return err
		}
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
	qa, judge, err := openBenchLLMs(ctx, env, eng, f)
	if err != nil {
		return err
	}
	if qa == nil {
		fmt.Fprintln(env.Stderr, "swc: bench: no --qa model: running offline (answer retention, answer-token recall, support recall, evidence retention)")
	}
	r := &benchRun{f: f, eng: eng, strategies: strategies, order: order, convs: convs, ids: ids, gold: gold,
		dataName: dataName, dataHash: dataHash, qa: qa, judge: judge, filter: locomo.TextOnly}
	if lme {
		r.types, r.filter, r.lme = longmemeval.Types, nil, lmed // every LongMemEval question is text
	}
	if budgets == nil {
		_, err := r.at(ctx, env, f.out, f.eng.budget)
		return err
	}
	var sums []*bench.Summary
	for _, b := range budgets {
		f.eng.budget = b
		sum, err := r.at(ctx, env, filepath.Join(f.out, fmt.Sprintf("budget-%d", b)), b)
		if err != nil {
			return err
		}
		sums = append(sums, sum)
	}
	return writeCurves(env, f.out, sums)
}

// benchRun is what every budget of one bench invocation shares.
type benchRun struct {
	f                  *benchFlags
	eng                *engines
	strategies         []swc.Strategy
	order, ids         []string
	convs              []*swc.Conversation
	gold               *bench.GoldSetup
	dataName, dataHash string
	qa, judge          swc.LLM
	// types are LongMemEval's question types (nil for LoCoMo: categories);
	// filter selects the questions asked (LoCoMo: text-only ones).
	types  []string
	filter func(swc.Question) bool
	// lme is the LongMemEval file streamed (nil for LoCoMo).
	lme *lmeData
}

// checkLongMemEval returns a usage error for the flags a LongMemEval run
// does not take: the LoCoMo audit, the judge audit and another judge
// prompt than LongMemEval's own.
func checkLongMemEval(lme bool, f *benchFlags) error {
	switch {
	case !lme:
		return nil
	case f.judgeAudit > 0:
		return usagef("bench: --judge-audit asks about LoCoMo's categories; LongMemEval data has none")
	case f.gold.judgePrompt != bench.JudgePromptPaper:
		return usagef("bench: LongMemEval data is judged with LongMemEval's own prompts, one per question type: drop --judge-prompt")
	case f.gold.gold != bench.GoldOriginal || f.gold.audit != "":
		return usagef("bench: --gold corrected and --audit are the LoCoMo audit's; LongMemEval data has none")
	}
	return nil
}

// parseBudgets reads --budgets; nil when it is empty.
func parseBudgets(list string) ([]int, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	var out []int
	seen := map[int]bool{}
	for _, p := range strings.Split(list, ",") {
		b, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || b <= 0 {
			return nil, usagef("bench: --budgets: %q is not a positive number of tokens", p)
		}
		if !seen[b] {
			seen[b] = true
			out = append(out, b)
		}
	}
	sort.Ints(out)
	return out, nil
}

// at runs the bench at one budget into dir and writes its outputs.
func (r *benchRun) at(ctx context.Context, env *Env, dir string, budget int) (*bench.Summary, error) {
	f, eng, strategies, order, convs, ids, gold := r.f, r.eng, r.strategies, r.order, r.convs, r.ids, r.gold
	dataName, dataHash, qa, judge := r.dataName, r.dataHash, r.qa, r.judge
	settings := bench.Settings{
		Data: dataName, Conversations: ids, Conditions: order, Budget: budget,
		Offline: f.qa == "", Gister: eng.gister.Name(), Embedder: eng.embedder.Name(),
		Schedule: eng.schedule.String(), Calibration: string(eng.cfg.Calibration),
		Seed: f.seed, Resamples: f.resamples, Tokenizer: tokens.Name, Version: Version,
		Gold: f.gold.gold, JudgePrompt: f.gold.judgePrompt,
	}
	runner := &bench.Runner{
		Strategies: strategies, Conversations: convs, Budget: budget,
		Concurrency: f.eng.prov.concurrency, Filter: r.filter,
	}
	runner.JudgePrompt, _ = bench.JudgePromptFor(f.gold.judgePrompt) // checked above
	runner.Parallel = f.parallel
	if runner.Parallel <= 0 {
		runner.Parallel = defaultParallel(r.lme != nil)
	}
	runner.Done = eng.forget // a conversation's analyses go when it is done
	if qa != nil {
		runner.QA, runner.Judge = qa, judge
		settings.QA, settings.Judge, settings.QAPrompt = qa.Name(), judge.Name(), bench.QAInstruction
		if r.lme != nil {
			settings.QAPrompt = "LongMemEval's answer prompt (History Chats, Current Date, Question), the question's date as Current Date"
			settings.JudgePrompt = bench.JudgePromptLongMemEval
		}
	}
	lock, err := bench.LockDir(dir) // one run per directory
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	auditHash, note := gold.ResumeAuditHash(dir, f.gold.gold)
	if note != "" {
		fmt.Fprintf(env.Stderr, "swc: bench: %s\n", note)
	}
	runner.Alt = gold.Alt
	if err := bench.CheckResume(dir, resumeKey(settings, dataHash, auditHash, r.eng)); err != nil {
		return nil, err
	}
	store, err := bench.OpenStore(dir)
	if err != nil {
		return nil, err
	}
	if n := store.Len(); n > 0 {
		fmt.Fprintf(env.Stderr, "swc: bench: resuming: %d rows already in %s\n", n, filepath.Join(dir, "results.jsonl"))
	}
	runner.Store = store
	if r.lme != nil {
		runner.Source, runner.Total = r.lme.source, r.lme.questions
		lean, err := bench.OpenLeanStore(dir)
		if err != nil {
			store.Close()
			return nil, err
		}
		defer lean.Close()
		runner.Lean = lean
	}
	if f.saveContexts {
		cw, err := bench.CreateContexts(dir)
		if err != nil {
			store.Close()
			return nil, err
		}
		defer cw.Close()
		runner.SaveContexts = cw
	}
	bar := newProgress(env.Stderr, env.StderrTTY, fmt.Sprintf("bench %d", budget), "questions", time.Now)
	defer bar.clear()
	runner.Progress = func(done, total int) {
		bar.update(done, total)
		if benchProgressHook != nil {
			benchProgressHook(done, total)
		}
	}
	start := time.Now()
	contexts, runErr := runner.Run(ctx)
	writeHeap()
	if err := store.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return nil, fmt.Errorf("%w (finished rows are kept in %s; rerun the same command to resume)", runErr, dir)
	}
	bar.step("summarising and writing reports…")
	failed := store.Failed()
	sum := bench.Summarize(bench.SummaryInput{
		Settings: settings, Order: order, Conversations: convs, Rows: append(store.Rows(), failed...),
		Contexts: contexts, Resamples: f.resamples, Seed: f.seed, QueryAware: bench.QueryAwareNames(runner.Strategies),
		Types: r.types,
	})
	sum.Gold = gold.Summarize(f.gold.gold, order, ids, store.Rows(), f.resamples, f.seed)
	if err := finishSummary(ctx, env, sum, convs, contexts, eng, judge, f); err != nil {
		return nil, err
	}
	if err := writeBenchOutputs(dir, sum); err != nil {
		return nil, err
	}
	bar.clear()
	printBenchTable(env.Stdout, sum)
	fmt.Fprintf(env.Stderr, "swc: bench: %s × %s in %s at %d tokens; wrote %s\n", count(len(order), "condition", "conditions"), count(len(convs), "conversation", "conversations"), time.Since(start).Round(time.Millisecond), budget, dir)
	fmt.Fprintf(env.Stderr, "swc: bench: open %s\n", filepath.Join(dir, "report.html"))
	eng.printUsage(env.Stderr)
	if len(failed) > 0 {
		return nil, swc.Errorf(swc.EUNAVAILABLE, "bench: %d questions failed (first: %s %s: %s); their rows in %s carry the error, and rerunning the same command retries them",
			len(failed), failed[0].Condition, failed[0].QuestionID, failed[0].Error, filepath.Join(dir, "results.jsonl"))
	}
	return sum, nil
}

// dataIdentity names the data and hashes its bytes, so a resumed run can
// tell whether the data changed.
func dataIdentity(env *Env, path string) (string, string, error) {
	h := sha256.New()
	name := locomo.SampleName
	switch path {
	case "":
		h.Write(locomo.SampleJSON())
	case "-":
		b, n, err := readInput(env, path)
		if err != nil {
			return "", "", fmt.Errorf("bench: %w", err)
		}
		h.Write(b)
		name = n
	default: // streamed: a LongMemEval file can be gigabytes
		if st, err := os.Stat(path); err == nil && st.IsDir() { // REALTALK's files
			if err := hashDir(h, path); err != nil {
				return "", "", fmt.Errorf("bench: %w", err)
			}
			return filepath.Base(path), hex.EncodeToString(h.Sum(nil)), nil
		}
		fh, err := os.Open(path)
		if err != nil {
			_, _, err = readInput(env, path) // its error names the problem
			return "", "", fmt.Errorf("bench: %w", err)
		}
		defer fh.Close()
		if _, err := io.Copy(h, fh); err != nil {
			return "", "", swc.Errorf(swc.EINVALID, "bench: %s: %v", path, err)
		}
		name = filepath.Base(path)
	}
	return name, hex.EncodeToString(h.Sum(nil)), nil
}

// hashDir writes the names and bytes of dir's *.json files, in name
// order, to h.
func hashDir(h io.Writer, dir string) error {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return swc.Errorf(swc.EINVALID, "%s: %v", dir, err)
	}
	sort.Strings(paths)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return swc.Errorf(swc.EINVALID, "%s: %v", p, err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.Base(p), len(b))
		h.Write(b)
	}
	return nil
}

// resumeKey returns the resume key of a run (bench.NewResumeKey) with the
// engines' settings.
func resumeKey(s bench.Settings, dataHash, auditHash string, eng *engines) bench.ResumeKey {
	f := eng.flags
	in := bench.ResumeInput{
		DataSHA256: dataHash, AuditSHA256: auditHash, Weights: f.weights,
		Thresholds:  fmt.Sprintf("%g/%g/top-%d/demote=%v", f.high, f.low, f.topK, f.demote),
		GistPrompts: eng.gistPrompts,
	}
	if f.prov != nil {
		in.AnthropicAPIVersion = f.prov.anthropicVersion
	}
	return bench.NewResumeKey(s, in)
}
