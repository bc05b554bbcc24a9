package main

import (
	"flag"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/swcmem/swc"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/memory"
	"github.com/swcmem/swc/observe"
	"github.com/swcmem/swc/strategy"
)

// proxyFlags are swc serve's flags of the compressing proxy.
type proxyFlags struct {
	openai, anthropic string
	gemini            string
	compressTimeout   time.Duration
	maxBody           int64
	keepRecent        int
	compaction        string
	memoryShare       float64
	restartShare      float64
	loopKeep          int
	loopEvery         int
	stubTokens        int
	cacheBreakpoints  string
	strategy          string
	turnTokens        int
	holdBudget        bool
	recall            bool
	recallRounds      int
}

func addProxyFlags(fs *flag.FlagSet, f *proxyFlags) {
	fs.StringVar(&f.openai, "upstream-openai", "", "OpenAI-compatible base URL the proxy forwards /v1/chat/completions, /v1/responses, /v1/embeddings and /v1/models to, with /v1 (e.g. https://api.openai.com/v1); key: OPENAI_API_KEY")
	fs.StringVar(&f.anthropic, "upstream-anthropic", "", "Anthropic base URL the proxy forwards /v1/messages and /v1/messages/count_tokens to (e.g. https://api.anthropic.com); key: ANTHROPIC_API_KEY")
	fs.StringVar(&f.gemini, "upstream-gemini", "", "Gemini API base URL the proxy forwards /v1beta/models/MODEL:generateContent, :streamGenerateContent, :countTokens (also under /v1alpha and /v1), GET /v1beta/models, the Files API, cachedContents and the Interactions API to (e.g. https://generativelanguage.googleapis.com); key: GEMINI_API_KEY, sent as x-goog-api-key")
	fs.DurationVar(&f.compressTimeout, "compress-timeout", swchttp.DefaultCompressTimeout, "longest a proxied request's compression may take: past it the offline engines compress it instead, and when they run past it too, the truncation plan (the first session, then the most recent messages; swc_proxy_fallbacks_total{reason=\"truncation\"})")
	fs.Int64Var(&f.maxBody, "max-proxy-body", swchttp.DefaultProxyMaxBody, "largest proxied request body swc reads and compresses, bytes; a larger one goes upstream as it came, streamed (X-SWC-Mode: passthrough), for the provider to answer (0: the default)")
	fs.IntVar(&f.keepRecent, "keep-recent", 8, "latest messages of a proxied request sent unchanged (0: none); with epochs, the messages a new epoch starts with (at least 1)")
	fs.StringVar(&f.compaction, "compaction", memory.Epoch, "how a proxied history over the budget is compressed: epoch (a memory that stays byte for byte until the verbatim tail outgrows its room, so provider prompt caches hit) or replan (the whole history re-planned on every request)")
	fs.Float64Var(&f.memoryShare, "memory-share", memory.DefaultMemoryShare, "epoch: share of the budget (after the instructions) the memory may use; the verbatim tail grows into the rest")
	fs.Float64Var(&f.restartShare, "restart-share", memory.DefaultRestartShare, "epoch: most of the budget (after the instructions) the tail of a new epoch starts with")
	addLoopFlags(fs, &f.loopKeep, &f.loopEvery)
	fs.IntVar(&f.stubTokens, "stub-tokens", observe.DefaultStubTokens, fmt.Sprintf("tool loops: the least size of an old tool output's stub, in tokens (a stub holds up to a third of its output, at most 3 times this; at least %d; 0: the default): smaller stubs send fewer tokens and keep fewer of the identifiers the agent uses next", minStubTokens))
	fs.BoolVar(&f.holdBudget, "hold-budget", false, holdBudgetHelp)
	fs.IntVar(&f.turnTokens, "turn-tokens", memory.DefaultTurnTokens, fmt.Sprintf("tool loops: the most tokens of prose an assistant turn keeps once its tool outputs are stubbed (its first sentences, then a handle swc_recall resolves to the whole turn; its fenced code blocks whole, its tool calls' ids, names and arguments too but a string argument over this + 16 tokens, cut to its leading lines and the handle; at least %d; -1: never clipped)", minTurnTokens))
	fs.StringVar(&f.strategy, "proxy-strategy", memory.DefaultStrategy, "strategy of the proxy's memory: "+strings.Join(strategy.Names(strategy.ForCompressor), ", "))
	fs.BoolVar(&f.recall, "recall", true, "add the swc_recall tool to Chat Completions, Messages and Responses requests that declare tools, and answer its calls inside the proxy with the originals of the tool outputs compression shortened or left out (a request's X-SWC-Recall: off turns it off)")
	fs.IntVar(&f.recallRounds, "recall-rounds", swchttp.DefaultRecallRounds, "most swc_recall rounds swc answers for one request; past them the client gets the upstream's last answer without swc's call")
	fs.StringVar(&f.cacheBreakpoints, "cache-breakpoints", memory.BreakpointsAuto, "Anthropic: auto (a cache_control mark on the memory block when the client's marks leave room; at most 4 per request) or off")
}

// proxyConfig returns the proxy's settings: the upstreams with the
// server's own keys (read once, with the rest of the environment, in Env),
// the default budget and strategy, and the configured embedder when it is
// not the offline one (its failures fall back to the offline engines).
func proxyConfig(env *Env, f proxyFlags, ef *engineFlags, eng *engines) (swchttp.ProxyConfig, error) {
	for _, u := range []struct{ flag, v string }{{"--upstream-openai", f.openai}, {"--upstream-anthropic", f.anthropic}, {"--upstream-gemini", f.gemini}} {
		if u.v == "" {
			continue
		}
		p, err := url.Parse(u.v)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return swchttp.ProxyConfig{}, usagef("%s: want an http(s) URL (got %q)", u.flag, u.v)
		}
	}
	if f.compressTimeout <= 0 {
		return swchttp.ProxyConfig{}, usagef("--compress-timeout must be positive (got %v)", f.compressTimeout)
	}
	if f.maxBody < 0 {
		return swchttp.ProxyConfig{}, usagef("--max-proxy-body must not be negative (got %d)", f.maxBody)
	}
	if f.keepRecent < 0 {
		return swchttp.ProxyConfig{}, usagef("--keep-recent must not be negative (got %d)", f.keepRecent)
	}
	if f.compaction != "" && f.compaction != memory.Epoch && f.compaction != memory.Replan {
		return swchttp.ProxyConfig{}, usagef("--compaction: want epoch or replan (got %q)", f.compaction)
	}
	if f.cacheBreakpoints != "" && f.cacheBreakpoints != memory.BreakpointsAuto && f.cacheBreakpoints != memory.BreakpointsOff {
		return swchttp.ProxyConfig{}, usagef("--cache-breakpoints: want auto or off (got %q)", f.cacheBreakpoints)
	}
	if f.recallRounds < 1 {
		return swchttp.ProxyConfig{}, usagef("--recall-rounds must be at least 1 (got %d)", f.recallRounds)
	}
	if f.memoryShare < 0 || f.memoryShare >= 1 || f.restartShare < 0 || f.restartShare >= 1 {
		return swchttp.ProxyConfig{}, usagef("--memory-share and --restart-share: want a share between 0 and 1 (got %g and %g)", f.memoryShare, f.restartShare)
	}
	keep, every, err := loopWindow(f.loopKeep, f.loopEvery)
	if err != nil {
		return swchttp.ProxyConfig{}, err
	}
	if f.stubTokens != 0 && f.stubTokens < minStubTokens {
		return swchttp.ProxyConfig{}, usagef("--stub-tokens must be at least %d (got %d): a stub holds a handle, the outcome and a line or two of the output", minStubTokens, f.stubTokens)
	}
	if f.turnTokens != -1 && f.turnTokens != 0 && f.turnTokens < minTurnTokens {
		return swchttp.ProxyConfig{}, usagef("--turn-tokens must be at least %d, or -1 to keep turns whole (got %d)", minTurnTokens, f.turnTokens)
	}
	cfg := swchttp.ProxyConfig{
		LoopKeep: keep, LoopEvery: every, StubTokens: f.stubTokens, TurnTokens: f.turnTokens, HoldBudget: f.holdBudget,
		OpenAI:          swchttp.Upstream{URL: f.openai, Key: env.Vars["OPENAI_API_KEY"]},
		Anthropic:       swchttp.Upstream{URL: f.anthropic, Key: env.Vars["ANTHROPIC_API_KEY"]},
		Gemini:          swchttp.Upstream{URL: f.gemini, Key: env.Vars["GEMINI_API_KEY"]},
		Budget:          ef.budget,
		CompressTimeout: f.compressTimeout,
		MaxBody:         f.maxBody,
		KeepRecent:      f.keepRecent,
		Compaction:      f.compaction, MemoryShare: f.memoryShare, RestartShare: f.restartShare,
		CacheBreakpoints: f.cacheBreakpoints,
		NoRecall:         !f.recall, RecallRounds: f.recallRounds,
	}
	if f.keepRecent == 0 {
		cfg.KeepRecent = -1
	}
	if f.strategy != "" {
		if _, err := strategy.Find(f.strategy, strategy.ForCompressor); err != nil {
			return swchttp.ProxyConfig{}, usagef("--proxy-strategy: %s", swc.ErrorMessage(err))
		}
		cfg.Strategy = f.strategy
	}
	if ef.embedder != "lexical" {
		cfg.Embedder = eng.embedder
	}
	return cfg, nil
}

// addLoopFlags adds --loop-keep and --loop-every, a tool loop's
// observation window.
func addLoopFlags(fs *flag.FlagSet, keep, every *int) {
	fs.IntVar(keep, "loop-keep", memory.DefaultLoopKeep, "tool loops: the last exchanges whose tool outputs stay verbatim whatever the budget; older outputs become stubs with a handle (0: no window, outputs are stubbed only to fit the budget)")
	fs.IntVar(every, "loop-every", memory.DefaultLoopEvery, "tool loops: the window moves in jumps of this many exchanges, so the requests between two jumps extend each other byte for byte (prompt caching; 0: the default)")
}

// holdBudgetHelp is --hold-budget's help, in compress and serve.
const holdBudgetHelp = "tool loops: hold the budget when the newest tool outputs alone overflow it (a huge file read, large parallel reads), cutting them to their most useful lines and a handle swc_recall resolves, instead of sending them whole over the budget; for a budget that is the model's own limit (a local model's context window), since the next step uses the newest output most"

// minTurnTokens is the least --turn-tokens: a sentence.
const minTurnTokens = 16

// minStubTokens is the least --stub-tokens: a stub's handle and outcome,
// with a line or two of its output.
const minStubTokens = 48

// loopWindow checks --loop-keep and --loop-every and returns them as
// memory.Options takes them (LoopKeep -1: no window; LoopEvery 0: its
// default).
func loopWindow(keep, every int) (int, int, error) {
	if keep < 0 {
		return 0, 0, usagef("--loop-keep must not be negative (got %d)", keep)
	}
	if every < 0 {
		return 0, 0, usagef("--loop-every must not be negative (got %d)", every)
	}
	if keep == 0 {
		keep = -1
	}
	return keep, every, nil
}
