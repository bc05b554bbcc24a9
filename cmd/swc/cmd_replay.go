package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/swcmem/swc"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/internal/transcript"
	"github.com/swcmem/swc/loadtest"
	"github.com/swcmem/swc/memory"
)

func init() {
	register("replay", "replay an agent's transcript through the proxy: tokens, prefix stability and cache-adjusted cost against the raw history", runReplay)
}

const replayUsage = `--input TRACE [flags]

Replays a transcript through the compressing proxy as an agent sends it: a
request at each user message, each the previous one plus the new messages,
no timestamps. The service runs in-process (as swc serve wires it, offline
engines, a temporary SQLite file, its default schedule), a fresh one for
each run, with its upstreams pointed at a zero-latency fake provider on
loopback that records what it receives; every request also goes straight
to the fake provider, as the baseline.

TRACE is chat messages (openai, anthropic or jsonl) or a LoCoMo file, whose
conversations become agent transcripts: a system prompt, speaker A the
user, speaker B the assistant, tool calls for the session's date and for
photos (--conversation picks some).

A run is a transcript at one --budget, --protocol, --mode and
--compaction. Reported per run:
  sent      tokens the provider got over those the agent sent, summed
  stable    share of consecutive requests whose prefix shared with the one
            before covers at least 90% of the later request (tokens)
  cost      the input bill with prompt caching over the raw history's with
            caching: a request's cached part is its longest prefix shared
            with the request before; Anthropic's rule (read 0.1x, write
            1.25x, the client marking its last message) and OpenAI's
            (cached 0.1x or 0.5x, no write premium)
  compact   requests whose X-SWC-Compacted moved, per 100
  +p50 +p99 latency added by the proxy, ms (client-side, against direct)
  recall    answer-token recall and support@5 of the last request's
            context on the conversation's questions (LoCoMo only;
            category 5 left out)
  offered   (after the row) requests the proxy sent with swc_recall

--tools declares the tools the transcript calls on every request (as an
agent declares its tools; the proxy offers swc_recall only to requests
that declare tools) and counts the tool definitions as the head of each
prompt: a request whose tools differ from the one before shares no
prefix with it. --recall on,off runs the proxy with and without
swc_recall (serve's --recall). --every-turn makes a request before every
assistant turn after a user message or tool results, as a tool-calling
agent does, not only after each user message.`

func runReplay(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "replay", replayUsage)
	input := fs.String("input", "", "transcript: chat messages (openai, anthropic, jsonl) or a LoCoMo file")
	convList := fs.String("conversation", "", "LoCoMo: conversation ids to replay, comma-separated (default: all)")
	protocols := fs.String("protocol", "openai", "openai, anthropic, or both comma-separated")
	budgets := fs.String("budget", "4000", "X-SWC-Budget, comma-separated for several")
	modes := fs.String("mode", "stateless", "stateless, stored (X-SWC-Conversation), or both comma-separated")
	compactions := fs.String("compaction", memory.Epoch, "the proxy's --compaction: epoch, replan, or both comma-separated")
	memShare := fs.Float64("memory-share", memory.DefaultMemoryShare, "the proxy's --memory-share")
	restartShare := fs.Float64("restart-share", memory.DefaultRestartShare, "the proxy's --restart-share")
	keep := fs.Int("keep-recent", memory.DefaultKeepRecent, "the proxy's --keep-recent")
	proxyStrategy := fs.String("proxy-strategy", "", "the proxy's --proxy-strategy")
	asJSON := fs.Bool("json", false, "print the results as JSON, one object per run")
	recalls := fs.String("recall", "on", "the proxy's --recall: on, off, or both comma-separated")
	declare := fs.Bool("tools", false, "declare the tools the transcript calls on every request, and count them in each prompt")
	everyTurn := fs.Bool("every-turn", false, "a request before every assistant turn after a user message or tool results, not only after user messages")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *input == "" {
		return usagef("replay: --input is required")
	}
	protos, err := pickList("--protocol", *protocols, "openai", "anthropic")
	if err != nil {
		return err
	}
	modeList, err := pickList("--mode", *modes, "stateless", "stored")
	if err != nil {
		return err
	}
	compList, err := pickList("--compaction", *compactions, memory.Epoch, memory.Replan)
	if err != nil {
		return err
	}
	recallList, err := pickList("--recall", *recalls, "on", "off")
	if err != nil {
		return err
	}
	var budgetList []int
	for _, b := range strings.Split(*budgets, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(b))
		if err != nil || n < 1 {
			return usagef("--budget: want positive numbers, comma-separated (got %q)", *budgets)
		}
		budgetList = append(budgetList, n)
	}
	trs, err := replayTranscripts(env, *input, *convList)
	if err != nil {
		return err
	}
	up, err := loadtest.StartFakeUpstream()
	if err != nil {
		return err
	}
	defer up.Close()
	if !*asJSON {
		printReplayHeader(env.Stdout)
	}
	for _, tr := range trs {
		for _, proto := range protos {
			for _, budget := range budgetList {
				for _, mode := range modeList {
					for _, comp := range compList {
						for _, rec := range recallList {
							serve := []string{"--compaction", comp, "--memory-share", fmt.Sprint(*memShare), "--restart-share", fmt.Sprint(*restartShare), "--keep-recent", strconv.Itoa(*keep),
								"--recall=" + strconv.FormatBool(rec == "on")}
							if *proxyStrategy != "" {
								serve = append(serve, "--proxy-strategy", *proxyStrategy)
							}
							opts := replayOptions{proto: proto, budget: budget, mode: mode, comp: comp, everyTurn: *everyTurn}
							if *declare {
								opts.tools = loadtest.ToolNames(tr.Messages)
							}
							res, err := replayRun(ctx, env, up, tr, opts, serve)
							if err != nil {
								return fmt.Errorf("replay %s (%s, %d, %s, %s, recall %s): %w", tr.Name, proto, budget, mode, comp, rec, err)
							}
							res.Recall = rec
							if *asJSON {
								if err := writeJSON(env.Stdout, res); err != nil {
									return err
								}
								continue
							}
							printReplayRow(env.Stdout, res)
						}
					}
				}
			}
		}
	}
	return nil
}

// pickList splits a comma-separated flag value and checks each item is
// one of allowed.
func pickList(flag, v string, allowed ...string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		ok := false
		for _, a := range allowed {
			ok = ok || s == a
		}
		if !ok {
			return nil, usagef("%s: want %s, comma-separated (got %q)", flag, strings.Join(allowed, " or "), v)
		}
		out = append(out, s)
	}
	return out, nil
}

// replayTranscripts reads --input: LoCoMo conversations as agent
// transcripts (those of ids, when given), or one chat transcript.
func replayTranscripts(env *Env, path, ids string) ([]loadtest.Transcript, error) {
	in, err := (&inputFlags{path: path, format: "auto"}).read(env)
	if err != nil {
		return nil, err
	}
	if in.msgs != nil {
		if ids != "" {
			return nil, usagef("--conversation picks LoCoMo conversations; %s holds chat messages", path)
		}
		name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		return []loadtest.Transcript{{Name: name, Messages: in.msgs.Messages}}, nil
	}
	want := map[string]bool{}
	for _, id := range strings.Split(ids, ",") {
		if id = strings.TrimSpace(id); id != "" {
			want[id] = true
		}
	}
	var out []loadtest.Transcript
	found := map[string]bool{}
	for _, c := range in.convs {
		if len(want) > 0 && !want[c.ID] {
			continue
		}
		found[c.ID] = true
		tr, err := transcript.Agent(c, transcript.Options{})
		if err != nil {
			return nil, err
		}
		out = append(out, loadtest.Transcript{Name: c.ID, Messages: tr.Messages, Questions: c.Questions})
	}
	for id := range want {
		if !found[id] {
			return nil, swc.Errorf(swc.ENOTFOUND, "--conversation %s: no such conversation in %s", id, path)
		}
	}
	return out, nil
}

// replayOptions are one run's settings.
type replayOptions struct {
	proto, mode, comp string
	budget            int
	tools             []string // declared on every request (nil: none)
	everyTurn         bool
}

// replayRun replays tr in one run, on a service of its own.
func replayRun(ctx context.Context, env *Env, up *loadtest.FakeUpstream, tr loadtest.Transcript, o replayOptions, serve []string) (loadtest.ReplayResult, error) {
	dir, err := os.MkdirTemp("", "swc-replay-")
	if err != nil {
		return loadtest.ReplayResult{}, err
	}
	defer os.RemoveAll(dir)
	args := append([]string{"--db", filepath.Join(dir, "swc.db"), "--rate", "-1", "--log-level", "error",
		"--upstream-openai", up.URL + "/v1", "--upstream-anthropic", up.URL}, serve...)
	target, stop, err := startLoadtestService(ctx, env, args)
	if err != nil {
		return loadtest.ReplayResult{}, err
	}
	defer stop()
	key, _, err := swchttp.CreateKey(ctx, target.Store, "replay")
	if err != nil {
		return loadtest.ReplayResult{}, err
	}
	cfg := loadtest.ReplayConfig{Protocol: o.proto, Budget: o.budget, Key: key, Label: o.comp, Tools: o.tools, EveryTurn: o.everyTurn}
	if o.mode == "stored" {
		cfg.Conversation = "replay-" + tr.Name
	}
	return loadtest.Replay(ctx, target, up, tr, cfg)
}

func printReplayHeader(w io.Writer) {
	fmt.Fprintf(w, "%-12s %7s %-9s %6s %-9s %-7s %5s %6s %6s %6s %6s %6s %7s %7s %7s %6s %6s\n",
		"transcript", "tokens", "protocol", "budget", "mode", "compact", "reqs", "sent", "stable",
		"c-anth", "c-oa.1", "c-oa.5", "cmp/100", "+p50ms", "+p99ms", "recall", "sup@5")
}

func printReplayRow(w io.Writer, r loadtest.ReplayResult) {
	recall, support := "-", "-"
	if r.Questions > 0 {
		recall, support = fmt.Sprintf("%.3f", r.AnswerRecall), fmt.Sprintf("%.3f", r.SupportAt5)
	}
	over := ""
	if r.Over > 0 {
		over = fmt.Sprintf("  (%d over the budget)", r.Over)
	}
	if r.Recall == "off" {
		over += "  recall off"
	} else if r.RecallOffered > 0 {
		over += fmt.Sprintf("  swc_recall offered on %d", r.RecallOffered)
	}
	fmt.Fprintf(w, "%-12s %7d %-9s %6d %-9s %-7s %5d %6.3f %6.3f %6.3f %6.3f %6.3f %7.1f %7.2f %7.2f %6s %6s%s\n",
		r.Transcript, r.RawTokens, r.Protocol, r.Budget, r.Mode, r.Label, r.Requests, r.SentShare, r.PrefixStable,
		r.CostRatio[loadtest.RuleAnthropic.Name], r.CostRatio[loadtest.RuleOpenAI10.Name], r.CostRatio[loadtest.RuleOpenAI50.Name],
		r.CompactionsPer100, r.AddedP50MS, r.AddedP99MS, recall, support, over)
}
