package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	swchttp "github.com/swcmem/swc/http"
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
     agents whose histories grow through it;
  3. streaming: --requests sequential stream:true requests; time to the first
     SSE event, direct vs through the proxy (the upstream sends its first
     event at once and the rest 20 ms later);
  4. stored conversations: --clients clients, each on its own conversation
     (X-SWC-Conversation) stored and consolidated once, then --requests
     requests of the history plus a new message (the memory of the
     consolidation reused, the new messages stored).
Latencies are client-side: p50, p99 and max, in milliseconds.`

type loadtestProxyResult struct {
	Requests, Clients, History, Budget int
	TokensBefore, TokensAfter          string
	DirectSmall, ProxySmall            latency
	OverheadP50MS, OverheadP99MS       float64
	DirectLarge1, ProxyLarge1          latency // one client
	DirectLarge, ProxyLarge            latency // --clients clients
	// ColdLarge is the first request of each agent at --clients clients:
	// a whole history the proxy has not seen.
	ColdLarge latency
	// CPUPerRequestMS is the process's CPU time (clients, proxy and fake
	// upstream together) per proxied compression request at 1 client:
	// with C cores free, C such requests run at once.
	CPUPerRequestMS                float64
	DirectTTFE, ProxyTTFE          latency
	TTFEAddedP50MS, TTFEAddedP99MS float64
	// Stored is phase 4: --clients clients, each on its own stored
	// conversation (X-SWC-Conversation) consolidated once, each request
	// the history plus a new message; StoredModes counts X-SWC-Mode.
	Stored       latency
	StoredModes  map[string]int
	StoredTokens string
}

func runLoadtestProxy(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "loadtest-proxy", loadtestProxyUsage)
	requests := fs.Int("requests", 500, "requests per phase and path")
	clients := fs.Int("clients", 8, "concurrent clients of the compression phase")
	history := fs.Int("history", 400, "messages of the compressed history")
	budget := fs.Int("budget", 3000, "X-SWC-Budget of the compression phase")
	perAgent := fs.Int("agent-requests", 50, "requests of one agent in the compression phase, its history growing by one message each")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the compression phase at --clients clients to this file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *requests < 1 || *clients < 1 || *history < 2 || *budget < 1 || *perAgent < 1 {
		return usagef("loadtest-proxy: --requests, --clients, --history, --budget and --agent-requests must be positive")
	}

	up, err := startFakeUpstream()
	if err != nil {
		return err
	}
	defer up.Close()

	dir, err := os.MkdirTemp("", "swc-loadtest-proxy-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	svc, proxy, stop, err := startLoadtestService(ctx, env, []string{"--db", filepath.Join(dir, "swc.db"), "--rate", "-1", "--schedule", "idle:24h",
		"--log-level", "error", "--upstream-openai", up.URL + "/v1"})
	if err != nil {
		return err
	}
	defer stop()
	key, _, err := swchttp.CreateKey(ctx, svc.store, "loadtest")
	if err != nil {
		return err
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: time.Minute}

	small, err := proxyRequestBody(proxyHistory(10, 0), false)
	if err != nil {
		return err
	}
	large, err := proxyRequestBody(proxyHistory(*history, 0), false)
	if err != nil {
		return err
	}
	// unique returns body with one more user message, numbered.
	var seq atomic.Int64
	unique := func(body []byte) []byte {
		i := bytes.LastIndex(body, []byte("]}"))
		out := append([]byte(nil), body[:i]...)
		out = fmt.Appendf(out, `,{"role":"user","content":"Question %d: what did I say about the Atlas budget?"}]}`, seq.Add(1))
		return out
	}
	// Agents of phase 2: agent a's history, growing by one user message
	// per request.
	var agentsMu sync.Mutex
	agents := map[int][]byte{} // the body so far, without its closing "]}"
	agentBody := func(a int) ([]byte, error) {
		agentsMu.Lock()
		defer agentsMu.Unlock()
		b, ok := agents[a]
		if !ok {
			full, err := proxyRequestBody(proxyHistory(*history, a), false)
			if err != nil {
				return nil, err
			}
			b = full[:bytes.LastIndex(full, []byte("]}"))]
		}
		b = fmt.Appendf(b, `,{"role":"user","content":"Question %d from agent %d: what did I say about the Atlas budget?"}`, seq.Add(1), a)
		agents[a] = b
		return append(b[:len(b):len(b)], "]}"...), nil
	}
	stream, err := proxyRequestBody(proxyHistory(10, 0), true)
	if err != nil {
		return err
	}
	res := loadtestProxyResult{Requests: *requests, Clients: *clients, History: *history, Budget: *budget}
	call := func(base string, body []byte, budget int) (time.Duration, http.Header, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/chat/completions", bytes.NewReader(body))
		if err != nil {
			return 0, nil, err
		}
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		if budget > 0 {
			req.Header.Set(swchttp.HeaderBudget, fmt.Sprint(budget))
		}
		start := time.Now()
		resp, err := hc.Do(req)
		if err != nil {
			return 0, nil, err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		d := time.Since(start)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("loadtest-proxy: %s answered %s", base, resp.Status)
		}
		return d, resp.Header, err
	}
	// loop calls f per times from each of c clients at once (f gets the
	// client's number and its call's) and returns the latencies; a client
	// stops at its first error, which loop returns.
	loop := func(c, per int, f func(client, k int) (time.Duration, error)) ([]time.Duration, error) {
		var mu sync.Mutex
		var out []time.Duration
		var first error
		var wg sync.WaitGroup
		for client := range c {
			wg.Go(func() {
				for k := range per {
					d, err := f(client, k)
					mu.Lock()
					if err != nil && first == nil {
						first = err
					}
					out = append(out, d)
					mu.Unlock()
					if err != nil {
						return
					}
				}
			})
		}
		wg.Wait()
		return out, first
	}
	// agent returns the request loop of clients clients: client c is an
	// agent (first+c) whose history grows by a message per request; after
	// --agent-requests requests a new agent takes its place (numbered on
	// past every agent of the phase), so histories stay near --history.
	agent := func(base string, first, clients int) func(int) (time.Duration, error) {
		sent := make([]int, clients) // each client's requests so far (one goroutine each)
		return func(c int) (time.Duration, error) {
			body, err := agentBody(first + c + clients*(sent[c] / *perAgent))
			if err != nil {
				return 0, err
			}
			sent[c]++
			d, _, err := call(base, body, *budget)
			return d, err
		}
	}
	// introduce sends the first request of every agent a phase of agent's
	// will use, from clients clients at once, and returns their latencies:
	// a whole history the proxy has not seen, as after a restart. The
	// timed requests come after, from agents the proxy has seen — as it
	// sees agents whose histories grow through it — so that no first
	// request competes with them for the cores.
	introduce := func(base string, first, clients int) ([]time.Duration, error) {
		per := (*requests + clients - 1) / clients
		return loop(clients, (per+*perAgent-1) / *perAgent, func(c, k int) (time.Duration, error) {
			body, err := agentBody(first + c + clients*k)
			if err != nil {
				return 0, err
			}
			d, _, err := call(base, body, *budget)
			return d, err
		})
	}
	// run makes --requests requests from c clients (f gets the client's
	// number) and returns their latencies.
	run := func(c int, f func(client int) (time.Duration, error)) ([]time.Duration, error) {
		return loop(c, (*requests+c-1)/c, func(client, _ int) (time.Duration, error) { return f(client) })
	}
	plain := func(base string, body []byte, budget int) func(int) (time.Duration, error) {
		return func(int) (time.Duration, error) { d, _, err := call(base, unique(body), budget); return d, err }
	}
	// Warm up connections and caches on both paths.
	for _, base := range []string{up.URL, proxy} {
		for range 20 {
			if _, _, err := call(base, small, 0); err != nil {
				return err
			}
		}
	}
	phase := func(c int, direct, proxied func(int) (time.Duration, error)) (latency, latency, error) {
		d, err := run(c, direct)
		if err != nil {
			return latency{}, latency{}, err
		}
		p, err := run(c, proxied)
		return summarize(d), summarize(p), err
	}
	if res.DirectSmall, res.ProxySmall, err = phase(1, plain(up.URL, small, 0), plain(proxy, small, 0)); err != nil {
		return err
	}
	res.OverheadP50MS = res.ProxySmall.P50MS - res.DirectSmall.P50MS
	res.OverheadP99MS = res.ProxySmall.P99MS - res.DirectSmall.P99MS

	_, h, err := call(proxy, large, *budget)
	if err != nil {
		return err
	}
	res.TokensBefore, res.TokensAfter = h.Get(swchttp.HeaderTokensBefore), h.Get(swchttp.HeaderTokensAfter)
	// Each run has agents of its own: direct and proxied calls send
	// bodies of the same sizes, and no proxied agent was seen before.
	// Each run has agents of its own: direct and proxied calls send
	// bodies of the same sizes, and no proxied agent was seen before it
	// is introduced.
	if _, err := introduce(up.URL, 1<<20, 1); err != nil {
		return err
	}
	if res.DirectLarge1, err = runLatency(run(1, agent(up.URL, 1<<20, 1))); err != nil {
		return err
	}
	if _, err := introduce(proxy, 0, 1); err != nil {
		return err
	}
	cpu0 := cpuTime()
	lat, err := run(1, agent(proxy, 0, 1))
	if err != nil {
		return err
	}
	res.ProxyLarge1 = summarize(lat)
	res.CPUPerRequestMS = ms(cpuTime()-cpu0) / float64(len(lat))
	if _, err := introduce(up.URL, 2<<20, *clients); err != nil {
		return err
	}
	if res.DirectLarge, err = runLatency(run(*clients, agent(up.URL, 2<<20, *clients))); err != nil {
		return err
	}
	if res.ColdLarge, err = runLatency(introduce(proxy, 1<<10, *clients)); err != nil {
		return err
	}
	stopProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	res.ProxyLarge, err = runLatency(run(*clients, agent(proxy, 1<<10, *clients)))
	if perr := stopProfile(); err == nil {
		err = perr
	}
	if err != nil {
		return err
	}

	ttfe := func(base string) func(int) (time.Duration, error) {
		return func(int) (time.Duration, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/chat/completions", bytes.NewReader(stream))
			if err != nil {
				return 0, err
			}
			req.Header.Set("Authorization", "Bearer "+key)
			start := time.Now()
			resp, err := hc.Do(req)
			if err != nil {
				return 0, err
			}
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			for {
				line, err := br.ReadString('\n')
				if strings.HasPrefix(line, "data:") {
					d := time.Since(start)
					io.Copy(io.Discard, br)
					return d, nil
				}
				if err != nil {
					return 0, fmt.Errorf("loadtest-proxy: stream from %s ended without an event: %w", base, err)
				}
			}
		}
	}
	if res.DirectTTFE, res.ProxyTTFE, err = phase(1, ttfe(up.URL), ttfe(proxy)); err != nil {
		return err
	}
	res.TTFEAddedP50MS = res.ProxyTTFE.P50MS - res.DirectTTFE.P50MS
	res.TTFEAddedP99MS = res.ProxyTTFE.P99MS - res.DirectTTFE.P99MS

	// 4. Stored conversations.
	skey, sk, err := swchttp.CreateKey(ctx, svc.store, "loadtest-stored")
	if err != nil {
		return err
	}
	conv := func(c int) string { return fmt.Sprintf("lt-%d", c) }
	var tokMu sync.Mutex
	callConv := func(c int, body []byte) (time.Duration, string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, proxy+"/v1/chat/completions", bytes.NewReader(body))
		if err != nil {
			return 0, "", err
		}
		req.Header.Set("Authorization", "Bearer "+skey)
		req.Header.Set(swchttp.HeaderBudget, fmt.Sprint(*budget))
		req.Header.Set(swchttp.HeaderConversation, conv(c))
		start := time.Now()
		resp, err := hc.Do(req)
		if err != nil {
			return 0, "", err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return 0, "", fmt.Errorf("loadtest-proxy: stored request answered %s", resp.Status)
		}
		tokMu.Lock()
		res.StoredTokens = resp.Header.Get(swchttp.HeaderTokensBefore) + " → " + resp.Header.Get(swchttp.HeaderTokensAfter)
		tokMu.Unlock()
		return time.Since(start), resp.Header.Get(swchttp.HeaderMode), nil
	}
	for c := range *clients {
		if _, _, err := callConv(c, large); err != nil {
			return err
		}
		if _, err := svc.mem.Consolidate(ctx, sk.TenantID, conv(c)); err != nil {
			return err
		}
	}
	res.StoredModes = map[string]int{}
	var next atomic.Int64
	lat, err = run(*clients, func(int) (time.Duration, error) {
		c := int(next.Add(1)-1) % *clients
		d, mode, err := callConv(c, unique(large))
		tokMu.Lock()
		res.StoredModes[mode]++
		tokMu.Unlock()
		return d, err
	})
	if err != nil {
		return err
	}
	res.Stored = summarize(lat)
	if *asJSON {
		return writeJSON(env.Stdout, res)
	}
	printLoadtestProxy(env.Stdout, res)
	return nil
}

func printLoadtestProxy(w io.Writer, r loadtestProxyResult) {
	row := func(name string, l latency) {
		fmt.Fprintf(w, "  %-44s n=%-5d p50 %7.3f ms  p99 %7.3f ms  max %7.3f ms\n", name, l.N, l.P50MS, l.P99MS, l.Max)
	}
	fmt.Fprintln(w, "1. overhead (10 messages, fits, 1 client)")
	row("direct to the fake upstream", r.DirectSmall)
	row("through the proxy", r.ProxySmall)
	fmt.Fprintf(w, "  added: p50 %.3f ms, p99 %.3f ms\n", r.OverheadP50MS, r.OverheadP99MS)
	fmt.Fprintf(w, "2. compression (%d messages, %s → %s tokens, budget %d)\n", r.History, r.TokensBefore, r.TokensAfter, r.Budget)
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

// fakeUpstream is a zero-latency OpenAI Chat Completions server on
// loopback: a fixed answer, or for stream:true a first SSE event at once
// and the rest 20 ms later.
type fakeUpstream struct {
	URL string
	srv *http.Server
}

func (f *fakeUpstream) Close() { f.srv.Close() }

func startFakeUpstream() (*fakeUpstream, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	const answer = `{"id":"cc-1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}]}`
	chunk := `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":null}]}` + "\n\n"
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"stream":true`)) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, chunk)
			w.(http.Flusher).Flush()
			time.Sleep(20 * time.Millisecond)
			io.WriteString(w, chunk+"data: [DONE]\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, answer)
	})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	return &fakeUpstream{URL: "http://" + ln.Addr().String(), srv: srv}, nil
}

func proxyRequestBody(msgs []swc.Message, stream bool) ([]byte, error) {
	b, err := json.Marshal(chat.OpenAIMessages(msgs))
	if err != nil {
		return nil, err
	}
	return []byte(fmt.Sprintf(`{"model":"gpt-4o","temperature":0.2,"stream":%v,"messages":%s}`, stream, b)), nil
}

// proxyHistory returns a system prompt and n messages of agent a's
// conversation: users telling facts, the assistant answering, and every
// fifth exchange a tool call with its result.
func proxyHistory(n, a int) []swc.Message {
	facts := []string{
		"My sister Ana moved to Lisbon in 2022 and works as a nurse at Santa Maria hospital.",
		"We adopted a dog named Rex from the shelter on Saturday; he is three years old.",
		"The marathon in Boston is on 21 April and I have trained for 16 weeks with Coach Lee.",
		"My manager Priya approved the budget of 40,000 dollars for the Atlas project.",
		"I finished reading Dune last week and loved the desert scenes and the politics.",
		"Our flat in Porto needs a new boiler; the plumber quoted 1,200 euros.",
	}
	out := []swc.Message{{Role: swc.RoleSystem, Content: "You are a helpful assistant with tools."}}
	for i := 0; len(out) < n+1; i++ {
		f := facts[i%len(facts)]
		out = append(out, swc.Message{Role: swc.RoleUser, Content: fmt.Sprintf("Update %d for agent %d: %s What do you think?", i, a, f)})
		if i%5 == 4 {
			id := fmt.Sprintf("call_%d", i)
			out = append(out,
				swc.Message{Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: id, Name: "lookup_weather", Arguments: fmt.Sprintf(`{"city":"Lisbon","day":%d}`, i)}}},
				swc.Message{Role: swc.RoleTool, ToolCallID: id, Content: fmt.Sprintf("Lisbon day %d: 21°C, sunny.", i)})
		}
		out = append(out, swc.Message{Role: swc.RoleAssistant, Content: fmt.Sprintf("Noted (%d). That sounds important; I will remember it.", i)})
	}
	out = out[:n+1]
	if len(out[n].ToolCalls) > 0 {
		out = out[:n]
	}
	return out
}

// cpuTime returns the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
