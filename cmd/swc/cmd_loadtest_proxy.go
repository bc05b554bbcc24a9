package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/swcmem/swc/loadtest"
)

func init() {
	register("loadtest-proxy", "measure the compressing proxy's overhead against a zero-latency fake upstream", runLoadtestProxy)
}

const loadtestProxyUsage = `[flags]

Starts the service in-process (as swc serve wires it, offline engines, a
temporary SQLite file) with --upstream-openai pointed at a zero-latency fake
OpenAI upstream on loopback, then measures, each phase against the same
upstream called directly as the baseline:
  1. overhead: --requests sequential requests of a short history that fits
     the budget (no compression), direct vs through the proxy;
  2. compression: --requests requests from agents with a --history-message
     history each (tool calls included, every agent's its own), compressed
     to --budget by the offline engines, first from one client, then from
     --clients concurrent ones. Like an agent's, each request is the
     agent's previous one plus a new message, so no two bodies are the same;
     a client moves to a new agent every --agent-requests requests. Every
     agent's first request (a whole history the proxy has not seen, as
     after a restart) is sent before the timed requests and reported apart;
     the timed ones are those of agents the proxy has seen, as it sees
     agents whose histories grow through it. --bodies loop makes the agents
     coding agents in a tool loop instead (about 100,000 tokens at the
     default --history, the tool declared): each request is the previous
     one plus an assistant turn calling execute_bash and its outputs;
     --bodies loop-responses sends those loops as Responses bodies to
     /v1/responses, as Codex CLI does;
  3. streaming: --requests sequential stream:true requests; time to the first
     SSE event, direct vs through the proxy (the upstream sends its first
     event at once and the rest 20 ms later);
  4. stored conversations: --clients clients, each on its own conversation
     (X-SWC-Conversation) stored and consolidated once, then --requests
     requests of the history plus a new message (the memory of the
     consolidation reused, the new messages stored).
Latencies are client-side: p50, p99 and max, in milliseconds.`

func runLoadtestProxy(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "loadtest-proxy", loadtestProxyUsage)
	var cfg loadtest.ProxyConfig
	fs.IntVar(&cfg.Requests, "requests", 500, "requests per phase and path")
	fs.IntVar(&cfg.Clients, "clients", 8, "concurrent clients of the compression phase")
	fs.IntVar(&cfg.History, "history", 400, "messages of the compressed history")
	fs.IntVar(&cfg.Budget, "budget", 3000, "X-SWC-Budget of the compression phase")
	fs.IntVar(&cfg.AgentRequests, "agent-requests", 50, "requests of one agent in the compression phase, its history growing by one message each")
	fs.StringVar(&cfg.Bodies, "bodies", loadtest.BodiesChat, "what the compression phase's agents send: chat (a chat with tool calls, growing by a user message), loop (a coding agent's tool loop, growing by a call and its output) or loop-responses (the same loops as Responses bodies to /v1/responses, as Codex CLI sends them)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	fs.StringVar(&cfg.CPUProfile, "cpuprofile", "", "write a CPU profile of the compression phase at --clients clients to this file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if cfg.Bodies != loadtest.BodiesChat && cfg.Bodies != loadtest.BodiesLoop && cfg.Bodies != loadtest.BodiesLoopResponses {
		return usagef("loadtest-proxy: --bodies %q: want chat, loop or loop-responses", cfg.Bodies)
	}
	if cfg.Requests < 1 || cfg.Clients < 1 || cfg.History < 2 || cfg.Budget < 1 || cfg.AgentRequests < 1 {
		return usagef("loadtest-proxy: --requests, --clients, --history, --budget and --agent-requests must be positive")
	}
	target, upURL, stop, err := startProxyTarget(ctx, env, "loadtest-proxy")
	if err != nil {
		return err
	}
	defer stop()
	res, err := loadtest.RunProxy(ctx, target, upURL, cfg)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(env.Stdout, res)
	}
	printLoadtestProxy(env.Stdout, res)
	return nil
}

// startProxyTarget starts a zero-latency fake OpenAI upstream and the
// service in-process over a temporary SQLite file (no rate limit, no
// scheduled consolidation, errors logged only) with serveArgs added, its
// proxy pointed at the upstream. It returns the service, the upstream's
// URL and a stop function removing all of it; on error nothing is left.
func startProxyTarget(ctx context.Context, env *Env, name string, serveArgs ...string) (loadtest.Target, string, func(), error) {
	up, err := loadtest.StartFakeUpstream()
	if err != nil {
		return loadtest.Target{}, "", nil, err
	}
	dir, err := os.MkdirTemp("", "swc-"+name+"-")
	if err != nil {
		up.Close()
		return loadtest.Target{}, "", nil, err
	}
	target, stop, err := startLoadtestService(ctx, env, append([]string{"--db", filepath.Join(dir, "swc.db"), "--rate", "-1", "--schedule", "idle:24h",
		"--log-level", "error", "--upstream-openai", up.URL + "/v1"}, serveArgs...))
	if err != nil {
		up.Close()
		os.RemoveAll(dir)
		return loadtest.Target{}, "", nil, err
	}
	return target, up.URL, func() { stop(); up.Close(); os.RemoveAll(dir) }, nil
}

func printLoadtestProxy(w io.Writer, r loadtest.ProxyResult) {
	row := func(name string, l loadtest.Latency) {
		fmt.Fprintf(w, "  %-44s n=%-5d p50 %7.3f ms  p99 %7.3f ms  max %7.3f ms\n", name, l.N, l.P50MS, l.P99MS, l.Max)
	}
	fmt.Fprintln(w, "1. overhead (10 messages, fits, 1 client)")
	row("direct to the fake upstream", r.DirectSmall)
	row("through the proxy", r.ProxySmall)
	fmt.Fprintf(w, "  added: p50 %.3f ms, p99 %.3f ms\n", r.OverheadP50MS, r.OverheadP99MS)
	fmt.Fprintf(w, "2. compression (%s bodies, %d messages, %s → %s tokens, budget %d)\n", r.Bodies, r.History, r.TokensBefore, r.TokensAfter, r.Budget)
	row("direct, 1 client", r.DirectLarge1)
	row("through the proxy, 1 client", r.ProxyLarge1)
	fmt.Fprintf(w, "  CPU per proxied request (whole process): %.2f ms\n", r.CPUPerRequestMS)
	row(fmt.Sprintf("direct, %d clients", r.Clients), r.DirectLarge)
	row(fmt.Sprintf("through the proxy, %d clients", r.Clients), r.ProxyLarge)
	row("  each agent's first request (not seen before)", r.ColdLarge)
	fmt.Fprintln(w, "3. streaming: time to the first event (1 client)")
	row("direct", r.DirectTTFE)
	row("through the proxy", r.ProxyTTFE)
	fmt.Fprintf(w, "  added: p50 %.3f ms, p99 %.3f ms\n", r.TTFEAddedP50MS, r.TTFEAddedP99MS)
	fmt.Fprintf(w, "4. stored conversations after a consolidation (%d messages + 1, %s tokens; modes %v)\n", r.History, r.StoredTokens, r.StoredModes)
	row(fmt.Sprintf("through the proxy, %d clients", r.Clients), r.Stored)
}
