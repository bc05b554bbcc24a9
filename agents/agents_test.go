package agents

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/internal/skipnote"
)

// The loop every agent runs: Steps tool calls, then the final answer, at
// each of budgets through swc.
const (
	Steps      = 40
	DirectStep = 6               // the control run, straight to the upstream
	runTimeout = 2 * time.Minute // one run; they take seconds
	npmDir     = "testdata/npm"
	installCmd = "(cd agents/testdata/npm && npm ci)"
)

var budgets = []int{8000, 16000}

// agent is how to run one program.
type agent struct {
	name string
	bin  string // its path under node_modules (".bin/node" for a script of npmDir)
	// setup writes the agent's configuration under home and returns its
	// environment and arguments, for base (swc's or the upstream's URL
	// without /v1) and key.
	setup func(t *testing.T, home, base, key string) (env, args []string)
	// needs, when set, says what this build of swc lacks for the agent:
	// the runs through swc skip with it, the direct run goes on.
	needs string
	// proseUpTo is the upstream's Upstream.ProseUpTo for the agent's runs
	// (nil: reasoning beside every call, in every protocol).
	proseUpTo map[string]int
	// noClip, when set, says why the agent's runs at clipBudget see no
	// clipped turn: check does not ask for one.
	noClip string
	// clipAt is the budget whose run must see a clipped turn (0:
	// clipBudget).
	clipAt int
	// search, when set, says the agent's tool is deferred behind the
	// API's own tool search: every run must see the script search.
	search bool
	// noRecall, when set, says why swc offers no swc_recall in the
	// agent's protocol: check wants none offered.
	noRecall string
	// media, when set, is the tokens of the files the agent's task names
	// by URI after uploading them through the Files API: swc must count
	// its first loop request at least these.
	media int
	// uploadAround says the agent uploads its files straight to the
	// upstream (SWC_AGENTS_UPSTREAM), not through swc: swc learns of them
	// by asking the Files API.
	uploadAround bool
}

// clipBudget is the budget at which every run must see at least one of
// the agent's turns clipped (its prose cut to a head and a handle).
const clipBudget = 8000

const prompt = "Print the files step-01.txt, step-02.txt and so on of this directory, one per tool call, in order, until told to stop; then say what you found."

// npmBin returns the path of an installed program (name: its path under
// node_modules), or skips (locally) or fails (CI=true) naming the install
// command.
func npmBin(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(npmDir, "node_modules", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (%s): run %s", name, p, installCmd)
		}
		skipnote.Skip(t, "agents", "the pinned agent programs are not installed: "+installCmd)
	}
	return p
}

// result is what one run measured.
type result struct {
	Agent        string
	Budget       int // 0: straight to the upstream
	Steps        int
	Finished     bool
	Loop         int    // loop requests the upstream got
	Rejected     int    // 4xx/5xx swc answered
	SentTokens   int    // X-SWC-Tokens-Before of the last loop request
	FwdTokens    int    // X-SWC-Tokens-After of it
	SentBytes    int    // the agent's last loop request
	Mode         string // X-SWC-Mode of it
	FwdBytes     int    // what the upstream got of it
	Breaches     []Breach
	Clipped      int            // the agent's turns the upstream got clipped (Stats.Clipped)
	ClippedCalls int            // those that came with long call arguments clipped (Stats.ClippedCalls)
	LongArgs     bool           // the script's calls had a long argument (Stats.LongArgs)
	Unreasoned   int            // old turns sent whole without their thinking (Stats.Unreasoned)
	NoClip       string         // why none are to be clipped (agent.noClip)
	ClipAt       int            // the budget whose run must see one (agent.clipAt, or clipBudget)
	WantRecall   bool           // swc offers swc_recall in this run's protocol
	Recall       RecallStats    // what the upstream saw of it
	RecallRounds int            // swc_recall calls swc answered (X-SWC-Recall, summed)
	Leaks        []int          // the agent's requests (by number) that hold swc_recall
	WantSearch   bool           // the agent's tool is deferred (agent.search)
	Searches     int            // replies of the upstream that ran its tool search
	Media        int            // agent.media
	UploadAround bool           // agent.uploadAround
	FirstTokens  int            // X-SWC-Tokens-Before of the first request swc counted
	Uploads      []UploadedFile // the Files API's uploads the upstream received
	Wall         time.Duration
	ExitErr      error
	Output       string
	FirstRejects []string
}

func (r result) String() string {
	route := fmt.Sprintf("budget %d", r.Budget)
	if r.Budget == 0 {
		route = "direct"
	}
	recall := "none"
	if r.Recall.Handle != "" {
		recall = fmt.Sprintf("%s at request %d, answered %v", r.Recall.Handle, r.Recall.Request, r.Recall.Answered)
	}
	return fmt.Sprintf("%s %s: steps %d, finished %v, loop requests %d, swc errors %d, last request %d→%d tokens, %d→%d bytes (mode %s), breaches %d, clipped turns %d (calls' long arguments %d of %v; whole without thinking %d), recall rounds %d (offered on %d requests; called %s), %.1fs",
		r.Agent, route, r.Steps, r.Finished, r.Loop, r.Rejected, r.SentTokens, r.FwdTokens, r.SentBytes, r.FwdBytes, r.Mode, len(r.Breaches),
		r.Clipped, r.ClippedCalls, r.LongArgs, r.Unreasoned, r.RecallRounds, r.Recall.Offered, recall, r.Wall.Seconds())
}

// runAgent runs a through swc at budget (0: straight to the upstream)
// for steps steps and returns what it measured.
func runAgent(t *testing.T, a agent, budget, steps int) result {
	t.Helper()
	rn := prepare(t, a, budget, steps, "")
	base, key := rn.up.URL, "sk-direct"
	var px *proxy
	if budget > 0 {
		px = startProxy(t, every(rn.up), budget)
		base, key = px.URL, px.Key
	}
	r := rn.start(t, base, key)()
	rn.measure(&r, px, nil)
	return r
}

// run is one run of an agent, prepared: its program, its work directory
// holding the step files, and its scripted upstream.
type run struct {
	a             agent
	budget, steps int
	bin, nodeDir  string
	work, home    string
	up            *Upstream
}

// prepare writes the step files of a run of a (each line starting with
// tag, when set) and starts its upstream, closed when t ends.
func prepare(t *testing.T, a agent, budget, steps int, tag string) *run {
	t.Helper()
	rn := &run{a: a, budget: budget, steps: steps, bin: npmBin(t, a.bin), nodeDir: filepath.Dir(npmBin(t, ".bin/node")),
		work: t.TempDir(), home: t.TempDir()}
	if err := WriteTaggedStepFiles(rn.work, steps, tag); err != nil {
		t.Fatal(err)
	}
	rn.up = StartUpstream(rn.work, steps)
	rn.up.ProseUpTo = a.proseUpTo
	rn.up.Task = prompt
	t.Cleanup(rn.up.Close)
	if d := os.Getenv("SWC_AGENTS_DUMP"); d != "" { // every upstream request, to read
		rn.up.Dump = filepath.Join(d, fmt.Sprintf("%s-%d", a.name, budget))
		if err := os.MkdirAll(rn.up.Dump, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return rn
}

// start configures the agent for base (swc's or the upstream's URL
// without /v1) and key, and returns the function that runs it, safe to
// call from any goroutine, with what it measured of the program itself.
func (rn *run) start(t *testing.T, base, key string) func() result {
	t.Helper()
	env, args := rn.a.setup(t, rn.home, base, key)
	timeout := runTimeout
	if d, ok := t.Deadline(); ok { // leave go test's own deadline room to report
		timeout = min(timeout, time.Until(d)/2)
	}
	ctx := t.Context()
	return func() result {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, rn.bin, args...)
		cmd.Dir = rn.work
		cmd.Env = append([]string{
			"HOME=" + rn.home, "PATH=" + rn.nodeDir + ":/usr/local/bin:/usr/bin:/bin", "TMPDIR=" + os.TempDir(),
			"LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1", "CI=true", "SWC_AGENTS_UPSTREAM=" + rn.up.URL,
		}, env...)
		cmd.WaitDelay = 5 * time.Second
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err := cmd.Run()
		r := result{Agent: rn.a.name, Budget: rn.budget, Wall: time.Since(start), ExitErr: err, Output: out.String()}
		if ctx.Err() != nil {
			r.ExitErr = fmt.Errorf("timed out after %v: %w", timeout, err)
		}
		return r
	}
}

// measure fills r with what the run's upstream saw and, through px (nil:
// straight to the upstream), what swc answered to the agent's requests:
// those mine says are the agent's (nil: all of them).
func (rn *run) measure(r *result, px *proxy, mine func(s sent) bool) {
	st := rn.up.Stats()
	r.Steps, r.Finished, r.Loop, r.Breaches, r.FwdBytes = st.Step, st.Finished, st.Loop, st.Breaches, st.Bytes
	r.Recall, r.WantRecall, r.Clipped, r.NoClip = st.Recall, rn.budget > 0 && rn.a.noRecall == "", st.Clipped, rn.a.noClip
	r.ClippedCalls, r.LongArgs = st.ClippedCalls, st.LongArgs
	r.Unreasoned, r.ClipAt = st.Unreasoned, cmp.Or(rn.a.clipAt, clipBudget)
	r.Searches, r.WantSearch = st.Searches, rn.a.search
	r.Media, r.Uploads, r.UploadAround = rn.a.media, rn.up.Uploaded(), rn.a.uploadAround
	if px == nil {
		return
	}
	reqs := px.requests()
	for i, s := range reqs {
		if mine != nil && !mine(s) {
			continue
		}
		if r.FirstTokens == 0 {
			r.FirstTokens = s.before
		}
		r.RecallRounds += s.recalls
		if bytes.Contains(s.body, []byte(RecallToolName)) {
			r.Leaks = append(r.Leaks, i+1)
		}
		if s.status >= 400 {
			if rn.up.Dump != "" { // what swc refused, to read
				os.WriteFile(filepath.Join(rn.up.Dump, fmt.Sprintf("refused-%03d.json", r.Rejected+1)), s.body, 0o644)
			}
			r.Rejected++
			if len(r.FirstRejects) < 3 {
				r.FirstRejects = append(r.FirstRejects, fmt.Sprintf("%s → %d %s", s.path, s.status, s.errBody))
			}
		}
	}
	// The agent's side of the last request the upstream answered in the
	// loop.
	if n, err := strconv.Atoi(st.Seq); err == nil && n >= 1 && n <= len(reqs) {
		s := reqs[n-1]
		r.SentTokens, r.FwdTokens, r.SentBytes, r.Mode = s.before, s.after, len(s.body), s.mode
		if s.over != "" {
			r.Mode += ", over budget by " + s.over
		}
	}
}

// check fails t for what r shows wrong.
func check(t *testing.T, r result, steps int) {
	t.Helper()
	t.Log(r)
	for i, b := range r.Breaches {
		if i == 20 {
			t.Errorf("… and %d more breaches", len(r.Breaches)-i)
			break
		}
		t.Errorf("breach: %v", b)
	}
	for _, rej := range r.FirstRejects {
		t.Logf("swc answered an error: %s", rej)
	}
	if r.Rejected > 0 {
		t.Errorf("swc answered %d of the agent's requests with an error (the first ones above)", r.Rejected)
	}
	if !r.Finished || r.Steps < steps {
		t.Errorf("the agent did not finish its loop: %d of %d steps", r.Steps, steps)
	}
	if r.ExitErr != nil {
		t.Errorf("the agent failed: %v", r.ExitErr)
	}
	if r.ExitErr != nil || !r.Finished {
		t.Logf("its output (end):\n%s", tail(r.Output, 1500))
	} else if !strings.Contains(r.Output, Done) {
		t.Errorf("the agent's output does not hold the final answer (%s):\n%s", Done, tail(r.Output, 2000))
	}
	if r.Media > 0 {
		t.Logf("files uploaded: %v; the first request counted %d tokens (the task's audio by URI: %d)", r.Uploads, r.FirstTokens, r.Media)
		switch {
		case len(r.Uploads) == 0:
			t.Errorf("the upstream received no upload whole")
		case r.Budget > 0 && r.Uploads[0].ViaSWC == r.UploadAround:
			t.Errorf("the upload of %s came through swc: %v; want %v", r.Uploads[0].URI, r.Uploads[0].ViaSWC, !r.UploadAround)
		case r.Budget > 0 && r.FirstTokens < r.Media:
			t.Errorf("swc counted the first request %d tokens; its task names %d tokens of audio by URI", r.FirstTokens, r.Media)
		}
	}
	if r.WantSearch && r.Searches == 0 {
		t.Errorf("the upstream never ran its tool search: the agent's requests declare no deferred tool behind one")
	}
	if len(r.Leaks) > 0 {
		t.Errorf("the agent's requests %v hold %s: swc let its call, result or tool reach the client", r.Leaks, RecallToolName)
	}
	switch {
	case r.WantRecall && r.Recall.Handle == "":
		t.Errorf("recall did not happen: the upstream never called %s (offered on %d requests)", RecallToolName, r.Recall.Offered)
	case r.WantRecall && (!r.Recall.Answered || r.RecallRounds < 1):
		t.Errorf("recall of %s was not answered with the original (swc answered %d swc_recall calls)", r.Recall.Handle, r.RecallRounds)
	case !r.WantRecall && (r.Recall.Offered > 0 || r.RecallRounds > 0):
		t.Errorf("%s offered on %d requests, %d answered, where swc offers none", RecallToolName, r.Recall.Offered, r.RecallRounds)
	}
	switch {
	case r.Budget == 0 && r.Clipped > 0:
		t.Errorf("%d clipped turns on a run straight to the upstream", r.Clipped)
	case r.Budget == r.ClipAt && r.NoClip == "" && r.Clipped == 0:
		t.Errorf("no turn of the agent's came clipped at budget %d: its old turns' prose went out whole", r.ClipAt)
	case r.Budget == r.ClipAt && r.NoClip != "":
		t.Logf("no clipped turn asked of this agent: %s", r.NoClip)
	}
	switch {
	case r.Budget == 0 && r.ClippedCalls > 0:
		t.Errorf("%d turns with clipped call arguments on a run straight to the upstream", r.ClippedCalls)
	case r.Budget == r.ClipAt && r.NoClip == "" && r.LongArgs && r.ClippedCalls == 0:
		t.Errorf("no call of the agent's came with its long description clipped at budget %d", r.ClipAt)
	}
	if r.Budget > 0 && r.Loop > 0 {
		switch {
		case r.SentBytes == 0:
			t.Errorf("the upstream's last loop request is not one swc forwarded")
		case r.FwdBytes >= r.SentBytes || r.SentTokens > 0 && r.FwdTokens >= r.SentTokens:
			t.Errorf("no compression (X-SWC-Mode %q): the last loop request went out with %d of the agent's %d bytes (%d of %d tokens)",
				r.Mode, r.FwdBytes, r.SentBytes, r.FwdTokens, r.SentTokens)
		}
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// runAll runs a straight to the upstream (the control: the agent's own
// requests keep the rules) and through swc at each budget.
func runAll(t *testing.T, a agent) {
	if testing.Short() {
		t.Skip("runs real agent programs (minutes); not with -short")
	}
	npmBin(t, a.bin) // skips (or fails, in CI) once, before the runs
	t.Parallel()     // two agents at a time (GOMAXPROCS): a run mostly waits on I/O
	t.Run("direct", func(t *testing.T) { check(t, runAgent(t, a, 0, DirectStep), DirectStep) })
	for _, b := range budgets {
		t.Run(fmt.Sprint(b), func(t *testing.T) {
			if a.needs != "" {
				t.Skip(a.needs)
			}
			check(t, runAgent(t, a, b, Steps), Steps)
		})
	}
}

func TestClaudeCode(t *testing.T) { runAll(t, claudeCode) }

// Claude Code asks for thinking: each of its turns holds a thinking
// block beside its text; an old turn swc clips goes without it (the
// provider wants thinking only in the turn being answered), which the
// upstream checks (sameTurns, checkThinkingKept). At 8,000 tokens its
// system prompt and newest exchange alone are over the budget, so every
// older exchange is dropped and none is left to clip: its runs at 16,000
// must show clipped turns.
var claudeCode = agent{name: "claude-code", bin: ".bin/claude", clipAt: 16000, setup: func(t *testing.T, home, base, key string) ([]string, []string) {
	return []string{
			"ANTHROPIC_BASE_URL=" + base, "ANTHROPIC_API_KEY=" + key,
			"IS_SANDBOX=1", // --dangerously-skip-permissions as root (CI runs as root)
			"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		}, []string{"-p", prompt, "--model", "claude-sonnet-4-6", "--dangerously-skip-permissions",
			"--output-format", "text", "--max-turns", "200"}
}}

// TestClaudeCodeHoldBudget, TestCodexHoldBudget, TestGeminiCLIHoldBudget:
// the real agent through swc serve --hold-budget, whose budget then
// covers the request's tool definitions too (Claude Code's are a third
// of a 32,000-token budget): every request swc compresses goes upstream
// with its messages and its tools within the budget, and the run keeps
// the provider's rules and finishes.
func TestClaudeCodeHoldBudget(t *testing.T) { holdsBudget(t, claudeCode) }

func TestCodexHoldBudget(t *testing.T) { holdsBudget(t, codex) }

func TestGeminiCLIHoldBudget(t *testing.T) { holdsBudget(t, geminiCLI()) }

func holdsBudget(t *testing.T, a agent) {
	oneRun(t, a)
	const budget = 32000
	rn := prepare(t, a, budget, Steps, "")
	px := startProxy(t, every(rn.up), budget, func(c *swchttp.ProxyConfig) { c.HoldBudget = true })
	r := rn.start(t, px.URL, px.Key)()
	rn.measure(&r, px, nil)
	check(t, r, Steps)
	held, tools := 0, 0
	for i, s := range px.requests() {
		if s.tools == 0 || s.after == 0 || s.over != "" {
			continue // not a compressed request of the loop, or over by what no cut removes
		}
		tools = s.tools
		if s.after+s.tools > budget {
			t.Errorf("request %d (%s): %d tokens of messages and %d of tools sent, budget %d", i+1, s.path, s.after, s.tools, budget)
		}
		if s.before+s.tools > budget {
			held++
		}
	}
	t.Logf("%s: tool definitions %d tokens; %d requests over the budget with them held within it", a.name, tools, held)
	if held == 0 {
		t.Errorf("no request had messages and tools over the budget of %d: the run did not test holding it", budget)
	}
}

// TestClaudeCodeReadsImages, TestOpencodeReadsImages,
// TestCodexReadsImages, TestGeminiCLIReadsImages: the real agent reads a
// 1024×768 PNG with its file reader every fourth step and sends it back
// in its tool result (Claude Code and opencode: an image block in the
// tool_result; Codex: an input_image in the function_call_output; Gemini
// CLI: an inlineData part beside the functionResponse), which swc counts
// (1,049 tokens by Anthropic's rule, 765 by OpenAI's, 516 by Gemini
// 2.5's tiles, Gemini CLI's default model, 1,120 by Gemini 3's)
// and stubs once old, as any observation. Through swc at 16,000 tokens
// the run keeps the provider's rules (check) and the upstream gets the
// newest picture and fewer pictures than the agent sent.
func TestClaudeCodeReadsImages(t *testing.T) {
	readsFiles(t, claudeCode, ".png", `"type":"image"`)
}

func TestOpencodeReadsImages(t *testing.T) { readsFiles(t, opencode, ".png", `"type":"image"`) }

// Codex's view_image answers with a function_call_output whose output is
// a list holding an input_image.
func TestCodexReadsImages(t *testing.T) { readsFiles(t, codex, ".png", `"type":"input_image"`) }

// TestGeminiCLIReadsAudio: Gemini CLI's read_file sends a WAV back as an
// inlineData part (audio/wav); swc counts each by its length, 32 tokens a
// second (audioSeconds of it: 320 tokens; a reader that fell back to the
// file's size would count four times that), which it counted as nothing
// before, and stubs it once old. The proxy's count of the agent's
// requests holds every file it sent at that rate.
func TestGeminiCLIReadsAudio(t *testing.T) {
	a := geminiCLI()
	a.noClip = "this run is about audio; TestGeminiCLI checks clipping"
	readsFiles(t, a, ".wav", `"mimeType":"audio/wav"`)
}

// audioSeconds is the length of the WAV files TestGeminiCLIReadsAudio reads.
const audioSeconds = 10

func TestGeminiCLIReadsImages(t *testing.T) {
	a := geminiCLI()
	a.noClip = "this run is about pictures; TestGeminiCLI checks clipping"
	readsFiles(t, a, ".png", `"mimeType":"image/png"`)
}

// TestClaudeCodeReadsPDFs: Claude Code's Read of a PDF (3 pages, 9,000
// tokens by swc's count) answers with a tool_result naming the file and,
// beside it in the same user message, a document block. An old one is
// stubbed: the document block and any other non-result block become one
// text block after the tool_result, which stays (the API wants every call
// answered; TestSpliceRewritten).
func TestClaudeCodeReadsPDFs(t *testing.T) {
	readsFiles(t, claudeCode, ".pdf", `"type":"document"`)
}

// oneRun skips a test of one run of a real agent under -short or when a
// needs what is missing (or fails, in CI, without the program), and runs
// it in parallel with the others.
func oneRun(t *testing.T, a agent) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a real agent program (seconds); not with -short")
	}
	npmBin(t, a.bin)
	if a.needs != "" {
		t.Skip(a.needs)
	}
	t.Parallel()
}

// readsFiles runs a with a picture (ext ".png") or a 3-page PDF (".pdf")
// every fourth step through swc at 16,000 tokens; marker is how one shows
// in a's requests.
func readsFiles(t *testing.T, a agent, ext, marker string) {
	oneRun(t, a)
	const budget, each = 16000, 4
	rn := prepare(t, a, budget, Steps, "")
	rn.up.Images, rn.up.Ext = each, ext
	write := WriteImageFiles
	switch ext {
	case ".pdf":
		write = func(dir string, n, every int) error { return WritePDFFiles(dir, n, every, 3) }
	case ".wav":
		write = func(dir string, n, every int) error { return WriteAudioFiles(dir, n, every, audioSeconds) }
	}
	if err := write(rn.work, Steps, each); err != nil {
		t.Fatal(err)
	}
	px := startProxy(t, every(rn.up), budget)
	r := rn.start(t, px.URL, px.Key)()
	rn.measure(&r, px, nil)
	check(t, r, Steps)
	image := []byte(marker)
	sent := 0
	for _, s := range px.requests() {
		sent = max(sent, bytes.Count(s.body, image))
	}
	got := rn.up.Received()
	last := -1
	for i, g := range got {
		if strings.HasSuffix(g.Path, "/messages") || strings.HasSuffix(g.Path, "/responses") || strings.HasSuffix(g.Path, "/chat/completions") || strings.Contains(g.Path, "enerateContent") {
			last = i
		}
	}
	if last < 0 {
		t.Fatal("the upstream got no request of the loop")
	}
	fwd := bytes.Count(got[last].Body, image)
	t.Logf("%s sent up to %d %s files in a request; the upstream's last request held %d", a.name, sent, ext, fwd)
	if sent < Steps/each-1 {
		t.Errorf("%s sent at most %d %s files in a request, not its %d reads of them: the test does not test them", a.name, sent, ext, Steps/each)
	}
	if fwd < 1 || fwd >= sent {
		t.Errorf("the upstream's last request held %d of the %d %s files: want the newest and fewer than all", fwd, sent, ext)
	}
	if ext == ".wav" {
		checkAudioCounted(t, px.requests(), image, sent)
	}
}

// checkAudioCounted reads the agent's request holding the most (sent) WAV
// files as swc does, with the model its path names: the user's and the
// tools' messages count every file at 32 tokens a second.
func checkAudioCounted(t *testing.T, reqs []sent, marker []byte, files int) {
	t.Helper()
	for _, s := range reqs {
		if bytes.Count(s.body, marker) != files {
			continue
		}
		in, err := chat.ParseOwnedModel(bytes.Clone(s.body), chat.Gemini, chat.URLModel(s.path))
		if err != nil {
			t.Fatalf("the agent's request does not parse: %v", err)
		}
		media := 0
		for _, m := range in.Messages {
			if m.Role != swc.RoleAssistant {
				media += m.MediaTokens
			}
		}
		if want := files * audioSeconds * 32; media != want {
			t.Errorf("the agent's %d audio files count %d tokens, want %d (%d seconds each, 32 a second)", files, media, want, audioSeconds)
		}
		return
	}
	t.Errorf("no request of the agent held its %d audio files", files)
}

func TestCodex(t *testing.T) { runAll(t, codex) }

var codex = agent{name: "codex", bin: ".bin/codex", setup: func(t *testing.T, home, base, key string) ([]string, []string) {
	dir := filepath.Join(home, ".codex")
	config := `model = "gpt-5"
model_provider = "swc"

[model_providers.swc]
name = "swc"
base_url = "` + base + `/v1"
env_key = "SWC_API_KEY"
wire_api = "responses"
`
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"CODEX_HOME=" + dir, "SWC_API_KEY=" + key},
		[]string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", prompt}
}}

// script is an agent of a Node script of npmDir run by the pinned node.
func script(name, file string, args ...string) agent {
	return agent{name: name, bin: ".bin/node", setup: func(t *testing.T, home, base, key string) ([]string, []string) {
		path, err := filepath.Abs(filepath.Join(npmDir, file))
		if err != nil {
			t.Fatal(err)
		}
		return []string{"OPENAI_BASE_URL=" + base + "/v1", "OPENAI_API_KEY=" + key,
				"ANTHROPIC_BASE_URL=" + base, "ANTHROPIC_API_KEY=" + key},
			append(append([]string{path}, args...), prompt)
	}}
}

// TestInteractionsSDK runs a stateless tool loop on the Gemini
// Interactions API with Google's SDK (@google/genai 3.1.0,
// interactions.mjs): the whole history goes in each request's input, as
// steps (a thought and a function_call from the model, a function_result
// from the script); swc compresses it as it does generateContent.
func TestInteractionsSDK(t *testing.T) {
	a := agent{name: "genai-interactions", bin: ".bin/node", setup: func(t *testing.T, home, base, key string) ([]string, []string) {
		path, err := filepath.Abs(filepath.Join(npmDir, "interactions.mjs"))
		if err != nil {
			t.Fatal(err)
		}
		return []string{"GOOGLE_GEMINI_BASE_URL=" + base, "GEMINI_API_KEY=" + key}, []string{path, prompt}
	}}
	a.noClip = "the upstream counts clipped turns of the message formats; TestSpliceInteractions holds an interaction's"
	a.noRecall = "swc adds no swc_recall to an interaction"
	runAll(t, a)
}

// TestGenAIFiles runs a tool loop on generateContent with Google's SDK
// (@google/genai 3.1.0, files.mjs) whose task names a 120-second WAV by
// URI, uploaded first through the Files API's resumable protocol and
// read back with a get: swc relays the upload, learns the file's length
// from the answers and counts the task's audio as Gemini does (32 tokens
// a second).
func TestGenAIFiles(t *testing.T) { runAll(t, genaiFiles("genai-files", false)) }

// TestGenAIFilesAround is TestGenAIFiles with the upload sent straight to
// the upstream, around swc (another program's, another replica's): swc
// asks the Files API for the file the first request names.
func TestGenAIFilesAround(t *testing.T) { runAll(t, genaiFiles("genai-files-around", true)) }

// genaiFiles is files.mjs over a 120-second WAV, uploaded through swc or
// around it.
func genaiFiles(name string, around bool) agent {
	const seconds = 120
	return agent{name: name, bin: ".bin/node", media: seconds * 32, uploadAround: around, setup: func(t *testing.T, home, base, key string) ([]string, []string) {
		path, err := filepath.Abs(filepath.Join(npmDir, "files.mjs"))
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteAudioFiles(home, 1, 1, seconds); err != nil {
			t.Fatal(err)
		}
		audio := strings.TrimSuffix(ImageFile(home, 1), ".png") + ".wav"
		env := []string{"GOOGLE_GEMINI_BASE_URL=" + base, "GEMINI_API_KEY=" + key}
		if around {
			env = append(env, "UPLOAD_AROUND=1")
		}
		return env, []string{path, audio, prompt}
	}}
}

func TestAgentsSDKResponses(t *testing.T) {
	runAll(t, script("openai-agents-responses", "agents-sdk.mjs", "responses"))
}

func TestAgentsSDKChat(t *testing.T) {
	runAll(t, script("openai-agents-chat", "agents-sdk.mjs", "chat"))
}

func TestAISDKAnthropic(t *testing.T) {
	runAll(t, script("ai-sdk-anthropic", "ai-sdk.mjs", "anthropic"))
}

// The AI SDK with read_file deferred behind Anthropic's own tool search
// (toolSearchBm25_20251119): the script searches before its first call,
// and the SDK sends the search back in the assistant's turn
// (server_tool_use, tool_search_tool_result). swc must never drop that
// turn, however old: a request calling read_file without the search that
// loaded it is a breach (deferred-tool-not-loaded).
func TestAISDKAnthropicToolSearch(t *testing.T) {
	a := script("ai-sdk-anthropic-tool-search", "ai-sdk.mjs", "anthropic-tool-search")
	a.search = true
	runAll(t, a)
}

func TestAISDKChat(t *testing.T) { runAll(t, script("ai-sdk-chat", "ai-sdk.mjs", "chat")) }

func TestAISDKResponses(t *testing.T) {
	runAll(t, script("ai-sdk-responses", "ai-sdk.mjs", "responses"))
}

// The AI SDK over Responses with a model without reasoning (gpt-4.1) and
// store on, the API's default: it sends each earlier answer back as
// item_reference items naming the answer's message and call. swc reads
// them as the items it relayed, so the loop is compressed like any other
// (before, every request went out whole: "provider history").
// The AI SDK over Responses with read_file deferred behind the API's own
// tool search (openai.tools.toolSearch(), store off): the script searches
// before its first call; the SDK sends the search back as a
// tool_search_call and a tool_search_output without call ids, which swc
// must never drop (deferred-tool-not-loaded).
func TestAISDKResponsesToolSearch(t *testing.T) {
	a := script("ai-sdk-responses-tool-search", "ai-sdk.mjs", "responses-tool-search")
	a.search = true
	runAll(t, a)
}

// The same with store on: the SDK sends the search, the reasoning and
// the calls back as item_reference items, which swc resolves to the
// items it relayed before it can see the search it must keep.
func TestAISDKResponsesToolSearchStored(t *testing.T) {
	a := script("ai-sdk-responses-tool-search-stored", "ai-sdk.mjs", "responses-tool-search-stored")
	a.search = true
	runAll(t, a)
}

func TestAISDKResponsesItemReferences(t *testing.T) {
	runAll(t, script("ai-sdk-responses-stored", "ai-sdk.mjs", "responses-stored"))
}

func TestOpencode(t *testing.T) { runAll(t, opencode) }

var opencode = agent{name: "opencode", bin: "opencode-linux-x64/bin/opencode", setup: func(t *testing.T, home, base, key string) ([]string, []string) {
	config := `{
  "$schema": "https://opencode.ai/config.json",
  "model": "anthropic/claude-sonnet-4-6",
  "autoupdate": false,
  "share": "disabled",
  "snapshot": false,
  "provider": {
    "anthropic": {
      "options": {"baseURL": "` + base + `/v1", "apiKey": "{env:SWC_API_KEY}"}
    }
  },
  "permission": {"bash": "allow", "edit": "allow", "webfetch": "deny"}
}
`
	path := filepath.Join(home, "opencode.json")
	if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"OPENCODE_CONFIG=" + path, "SWC_API_KEY=" + key, "OPENCODE_DISABLE_MODELS_FETCH=1",
			"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1"},
		[]string{"run", prompt}
}}

// TestQwenCode runs Qwen Code (a fork of the Gemini CLI) over Chat
// Completions, its "openai" auth: a coding agent of the command line that
// speaks OpenAI's chat protocol, as one run against any OpenAI-compatible
// endpoint does. Its system prompt and first user message (the skills it
// offers, then the task) are over 9,000 tokens: at 8,000 only the newest
// exchange goes with them and none is left to clip, so its runs at 16,000
// must show clipped turns.
func TestQwenCode(t *testing.T) { runAll(t, qwenCode) }

func TestQwenCodeReadsImages(t *testing.T) { readsFiles(t, qwenCode, ".png", `"type":"image_url"`) }

var qwenCode = agent{name: "qwen-code", bin: ".bin/qwen", clipAt: 16000, setup: func(t *testing.T, home, base, key string) ([]string, []string) {
	writeSettings(t, filepath.Join(home, ".qwen"), "openai")
	return []string{"OPENAI_BASE_URL=" + base + "/v1", "OPENAI_API_KEY=" + key, "OPENAI_MODEL=qwen3.6-plus"},
		[]string{"--auth-type", "openai", "--yolo", "--model", "qwen3.6-plus", prompt}
}}

// TestCopilotCLI runs GitHub's Copilot CLI with a custom provider (its
// "bring your own key" mode, which needs no GitHub sign-in) over
// Anthropic Messages; TestCopilotCLIResponses over OpenAI Responses.
func TestCopilotCLI(t *testing.T) { runAll(t, copilotCLI("anthropic", "", "claude-sonnet-4-6")) }

// Over Responses its instructions for gpt-5.4 are about 6,500 tokens: at
// 8,000 only the newest exchange goes with them and none is left to clip,
// so its runs at 16,000 must show clipped turns.
func TestCopilotCLIResponses(t *testing.T) {
	a := copilotCLI("openai", "responses", "gpt-5.4")
	a.clipAt = 16000
	runAll(t, a)
}

// copilotCLI is how to run the Copilot CLI against a provider of type typ
// (COPILOT_PROVIDER_TYPE) with wire API wire ("" for the type's own).
func copilotCLI(typ, wire, model string) agent {
	name := "copilot-cli"
	if wire != "" {
		name += "-" + wire
	}
	return agent{name: name, bin: "@github/copilot-linux-x64/copilot", setup: func(t *testing.T, home, base, key string) ([]string, []string) {
		url := base
		if typ == "openai" {
			url += "/v1"
		}
		env := []string{"COPILOT_PROVIDER_BASE_URL=" + url, "COPILOT_PROVIDER_TYPE=" + typ, "COPILOT_PROVIDER_API_KEY=" + key,
			"COPILOT_MODEL=" + model, "COPILOT_ALLOW_ALL=true"}
		if wire != "" {
			env = append(env, "COPILOT_PROVIDER_WIRE_API="+wire)
		}
		return env, []string{"-p", prompt, "--allow-all", "--no-ask-user", "--no-auto-update", "--disable-client-telemetry", "-s"}
	}}
}

// TestGeminiCLI needs swc's Gemini route (generateContent and
// streamGenerateContent, Proxy.Gemini): in a build without one the runs
// through swc skip (swc would answer 404), the direct control runs.
func TestGeminiCLI(t *testing.T) { runAll(t, geminiCLI()) }

// TestGeminiCLI3: the same with a Gemini 3 model, the CLI's default
// family, to which it sends a longer system prompt, and the media a tool
// read in the functionResponse's own parts. At 8,000 tokens its system
// prompt and newest exchange alone are over the budget (by about 650),
// so every older exchange is dropped and none is left to clip: its runs
// at 16,000 must show clipped turns.
func TestGeminiCLI3(t *testing.T) {
	a := geminiCLIWith("gemini-3-flash-preview")
	a.clipAt = 16000
	runAll(t, a)
}

// geminiCLI is how to run Gemini CLI (with Gemini 2.5 Pro).
func geminiCLI() agent { return geminiCLIWith("gemini-2.5-pro") }

// geminiCLIWith is how to run Gemini CLI with model.
func geminiCLIWith(model string) agent {
	// The CLI's loop check (after 30 turns, over the last 20 contents)
	// takes a model content with text beside its call for no call: it
	// keeps the trailing unanswered call and puts the first content, a
	// call, first, a request the API refuses. Reasoning beside the first
	// ten steps' calls alone stays out of its window and is clipped at
	// budget 8,000 all the same.
	a := agent{name: "gemini-cli", bin: ".bin/gemini", proseUpTo: map[string]int{"gemini": 10}, setup: func(t *testing.T, home, base, key string) ([]string, []string) {
		writeSettings(t, filepath.Join(home, ".gemini"), "gemini-api-key")
		return []string{"GOOGLE_GEMINI_BASE_URL=" + base, "GEMINI_API_KEY=" + key},
			[]string{"-p", prompt, "--yolo", "--model", model}
	}}
	if _, ok := geminiUpstream(&swchttp.ProxyConfig{}); !ok {
		a.needs = "this build of swc has no Gemini route (http.ProxyConfig.Gemini): swc would answer 404"
	}
	return a
}

// writeSettings writes the settings.json of the Gemini CLI or of Qwen
// Code, its fork, into dir: auth by auth, the folder trusted, no
// telemetry, no update checks.
func writeSettings(t *testing.T, dir, auth string) {
	t.Helper()
	settings := `{"security": {"auth": {"selectedType": "` + auth + `"}, "folderTrust": {"enabled": false}},
 "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false},
 "general": {"disableAutoUpdate": true, "disableUpdateNag": true}}
`
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPi runs pi (@mariozechner/pi-coding-agent), a small coding agent
// whose own provider library (pi-ai) speaks each API itself, with a
// provider of models.json pointed at swc: over Anthropic Messages here;
// TestPiGemini over the Gemini API, TestPiResponses over OpenAI
// Responses, TestPiChat over Chat Completions.
func TestPi(t *testing.T) { runAll(t, pi("pi", "anthropic-messages", "claude-sonnet-4-6")) }

// TestPiGemini: pi's Gemini calls and responses carry no id (the API
// needs none); swc names them by place (chat.Gemini) and the upstream
// knows its calls by their thought signatures.
func TestPiGemini(t *testing.T) {
	a := pi("pi-gemini", "google-generative-ai", "gemini-2.5-pro")
	if _, ok := geminiUpstream(&swchttp.ProxyConfig{}); !ok {
		a.needs = "this build of swc has no Gemini route (http.ProxyConfig.Gemini): swc would answer 404"
	}
	runAll(t, a)
}

// TestPiReadsImages, TestPiGeminiReadsImages, TestPiChatReadsImages:
// pi's read tool answers a picture with an image beside its text
// (Anthropic: an image block in the tool_result; Gemini: a user content
// of its own after the functionResponse, "Tool result image:" and the
// inlineData; Chat Completions: likewise a user message after the tool
// message).
func TestPiReadsImages(t *testing.T) {
	readsFiles(t, pi("pi", "anthropic-messages", "claude-sonnet-4-6"), ".png", `"type":"image"`)
}

func TestPiGeminiReadsImages(t *testing.T) {
	readsFiles(t, pi("pi-gemini", "google-generative-ai", "gemini-2.5-pro"), ".png", `"inlineData"`)
}

func TestPiChatReadsImages(t *testing.T) {
	readsFiles(t, pi("pi-chat", "openai-completions", "gpt-5.4"), ".png", `"type":"image_url"`)
}

func TestPiResponses(t *testing.T) { runAll(t, pi("pi-responses", "openai-responses", "gpt-5.4")) }

func TestPiChat(t *testing.T) { runAll(t, pi("pi-chat", "openai-completions", "gpt-5.4")) }

// pi returns the agent name: pi with a provider of API api (its
// models.json name) and model. PI_CODING_AGENT_DIR holds the models.json;
// PI_OFFLINE keeps it from checking for updates.
func pi(name, api, model string) agent {
	return agent{name: name, bin: ".bin/pi", setup: func(t *testing.T, home, base, key string) ([]string, []string) {
		url := base
		switch api {
		case "google-generative-ai":
			url += "/v1beta"
		case "openai-responses", "openai-completions":
			url += "/v1"
		}
		dir := filepath.Join(home, ".pi", "agent")
		models := fmt.Sprintf(`{"providers": {"swc": {"baseUrl": %q, "api": %q, "apiKey": %q,
  "models": [{"id": %q, "reasoning": true, "input": ["text", "image"], "contextWindow": 200000, "maxTokens": 16000}]}}}
`, url, api, key, model)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "models.json"), []byte(models), 0o644); err != nil {
			t.Fatal(err)
		}
		return []string{"PI_CODING_AGENT_DIR=" + dir, "PI_OFFLINE=1", "PI_TELEMETRY=0"},
			[]string{"-p", "--offline", "--no-session", "--provider", "swc", "--model", model, prompt}
	}}
}

// TestContinueCLI runs Continue's command-line agent, cn, headless with
// every tool allowed, a model of its config.yaml pointed at swc, over
// Anthropic Messages; TestContinueCLIOpenAI with its openai provider
// (over Responses), TestContinueCLIChat (over Chat Completions).
func TestContinueCLI(t *testing.T) {
	runAll(t, continueCLI("continue-cli", "anthropic", "claude-sonnet-4-6"))
}

func TestContinueCLIOpenAI(t *testing.T) {
	runAll(t, continueCLI("continue-cli-openai", "openai", "gpt-5.4"))
}

// TestContinueCLIChat: cn's openai provider with a model it speaks to over
// Chat Completions (it takes the Responses API for gpt-5 and o-series
// models only).
func TestContinueCLIChat(t *testing.T) {
	runAll(t, continueCLI("continue-cli-chat", "openai", "gpt-4.1"))
}

// continueCLI returns the agent name: cn with a model of provider and
// model in its config.yaml.
func continueCLI(name, provider, model string) agent {
	return agent{name: name, bin: ".bin/cn", setup: func(t *testing.T, home, base, key string) ([]string, []string) {
		config := `name: swc
version: 0.0.1
schema: v1
models:
  - name: agent
    provider: ` + provider + `
    model: ` + model + `
    apiKey: ` + key + `
    apiBase: ` + base + `/v1/
    roles: [chat, edit, apply]
`
		path := filepath.Join(home, "config.yaml")
		if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
		return []string{"CONTINUE_CLI_ENABLE_TELEMETRY=0", "CONTINUE_METRICS_ENABLED=0"}, []string{"-p", "--auto", "--config", path, prompt}
	}}
}

// TestClineCLI runs the Cline CLI, its provider set by `cline auth` to
// OpenAI-compatible Chat Completions at swc's URL (its auth takes a base
// URL for OpenAI-compatible providers only). Its shell tool, run_commands,
// takes a list of command lines.
func TestClineCLI(t *testing.T) { runAll(t, clineCLI) }

var clineCLI = agent{name: "cline-cli", bin: "@cline/cli-linux-x64/bin/cline", setup: func(t *testing.T, home, base, key string) ([]string, []string) {
	dir := filepath.Join(home, ".cline")
	auth := exec.Command(npmBin(t, "@cline/cli-linux-x64/bin/cline"), "auth", "-p", "openai", "-k", key, "-m", "gpt-5.4", "-b", base+"/v1", "--config", dir)
	auth.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "TERM=dumb", "NO_COLOR=1", "CI=true"}
	if out, err := auth.CombinedOutput(); err != nil {
		t.Fatalf("cline auth: %v: %s", err, out)
	}
	return clineEnv, []string{"--config", dir, prompt}
}}

// clineEnv keeps the Cline CLI's sessions in its own process
// ("CLINE_SESSION_BACKEND_MODE=local"): by default it starts a hub daemon
// of its own session (--cline-hub-daemon) that outlives the run and goes
// on writing into the test's home, whose removal then fails.
var clineEnv = []string{"CLINE_SESSION_BACKEND_MODE=local"}

// TestClineCLIAnthropic runs the Cline CLI over Anthropic Messages. Its
// auth takes no base URL for the anthropic provider ("base URL is only
// supported for OpenAI and OpenAI-compatible providers"), but the CLI
// reads one from the provider settings auth writes
// (data/settings/providers.json), and posts to baseUrl + "/messages".
func TestClineCLIAnthropic(t *testing.T) { runAll(t, clineCLIAnthropic) }

var clineCLIAnthropic = agent{name: "cline-cli-anthropic", bin: "@cline/cli-linux-x64/bin/cline", setup: func(t *testing.T, home, base, key string) ([]string, []string) {
	dir := filepath.Join(home, ".cline")
	settings := filepath.Join(dir, "data", "settings")
	if err := os.MkdirAll(settings, 0o755); err != nil {
		t.Fatal(err)
	}
	providers := fmt.Sprintf(`{"version": 1, "lastUsedProvider": "anthropic", "modes": {}, "providers": {"anthropic": {
  "settings": {"provider": "anthropic", "apiKey": %q, "model": "claude-sonnet-4-6", "baseUrl": %q},
  "updatedAt": "2026-12-04T00:00:00.000Z", "tokenSource": "manual"}}}
`, key, base+"/v1")
	if err := os.WriteFile(filepath.Join(settings, "providers.json"), []byte(providers), 0o644); err != nil {
		t.Fatal(err)
	}
	return clineEnv, []string{"--config", dir, prompt}
}}
