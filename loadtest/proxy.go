package loadtest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	swchttp "github.com/swcmem/swc/http"
)

// ProxyConfig are the settings of RunProxy.
type ProxyConfig struct {
	// Requests per phase and path.
	Requests int
	// Clients of the concurrent compression phase and of the stored
	// conversations.
	Clients int
	// History is the messages of the compressed history, Budget the
	// X-SWC-Budget it is compressed to.
	History, Budget int
	// AgentRequests is the requests of one agent before a client moves to
	// a new one, its history growing by a message each.
	AgentRequests int
	// CPUProfile, when set, is a file for a CPU profile of the compression
	// phase at Clients clients.
	CPUProfile string
	// Bodies is what the compression phase's agents send: "chat" (the
	// default: AgentHistory, a chat with a tool call every fifth exchange,
	// growing by a user message a request), "loop" (AgentLoop, a coding
	// agent's tool loop, growing by an exchange a request: an assistant
	// turn calling execute_bash and the outputs) or "loop-responses" (the
	// same loops as Responses bodies to /v1/responses, as Codex CLI sends
	// them; phase 4's stored conversations stay Chat Completions bodies).
	Bodies string
}

// Bodies of ProxyConfig.
const (
	BodiesChat          = "chat"
	BodiesLoop          = "loop"
	BodiesLoopResponses = "loop-responses"
)

// ProxyResult is what RunProxy measured (swc loadtest-proxy --json prints
// it with these field names).
type ProxyResult struct {
	Requests, Clients, History, Budget int
	TokensBefore, TokensAfter          string
	DirectSmall, ProxySmall            Latency
	OverheadP50MS, OverheadP99MS       float64
	DirectLarge1, ProxyLarge1          Latency // one client
	DirectLarge, ProxyLarge            Latency // Clients clients
	// ColdLarge is the first request of each agent at Clients clients:
	// a whole history the proxy has not seen.
	ColdLarge Latency
	// Bodies is ProxyConfig.Bodies ("chat" when it was empty).
	Bodies string
	// CPUPerRequestMS is the process's CPU time (clients, proxy and fake
	// upstream together) per proxied compression request at 1 client:
	// with C cores free, C such requests run at once.
	CPUPerRequestMS                float64
	DirectTTFE, ProxyTTFE          Latency
	TTFEAddedP50MS, TTFEAddedP99MS float64
	// Stored is phase 4: Clients clients, each on its own stored
	// conversation (X-SWC-Conversation) consolidated once, each request
	// the history plus a new message; StoredModes counts X-SWC-Mode.
	Stored       Latency
	StoredModes  map[string]int
	StoredTokens string
}

// RunProxy measures the compressing proxy of t, whose OpenAI upstream is
// the FakeUpstream at upstream, each phase against the upstream called
// directly as the baseline:
//  1. overhead: sequential requests of a short history that fits the
//     budget (no compression);
//  2. compression: requests from agents with a cfg.History history each
//     (tool calls included, every agent's its own), first from one
//     client, then from cfg.Clients. Like an agent's, each request is the
//     agent's previous one plus a new message; a client moves to a new
//     agent every cfg.AgentRequests requests. Every agent's first request
//     (a whole history the proxy has not seen, as after a restart) is
//     sent before the timed requests and reported apart (ColdLarge);
//  3. streaming: time to the first SSE event;
//  4. stored conversations: cfg.Clients conversations stored
//     (X-SWC-Conversation) and consolidated once, then requests of the
//     history plus a new message.
//
// Latencies are client-side. It returns the first failed request's error.
func RunProxy(ctx context.Context, t Target, upstream string, cfg ProxyConfig) (ProxyResult, error) {
	if cfg.Bodies == "" {
		cfg.Bodies = BodiesChat
	}
	if cfg.Bodies != BodiesChat && cfg.Bodies != BodiesLoop && cfg.Bodies != BodiesLoopResponses {
		return ProxyResult{}, fmt.Errorf("loadtest-proxy: bodies %q: want %q, %q or %q", cfg.Bodies, BodiesChat, BodiesLoop, BodiesLoopResponses)
	}
	p := &proxyRun{ctx: ctx, t: t, cfg: cfg, agents: map[int][]byte{}, steps: map[int]int{},
		hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: time.Minute}}
	res := ProxyResult{Requests: cfg.Requests, Clients: cfg.Clients, History: cfg.History, Budget: cfg.Budget, Bodies: cfg.Bodies}
	err := p.run(&res, upstream)
	return res, err
}

// proxyRun is one RunProxy: its clients, key and agents.
type proxyRun struct {
	ctx context.Context
	t   Target
	cfg ProxyConfig
	hc  *http.Client
	key string
	seq atomic.Int64 // numbers every added user message
	// agents holds each agent's body so far, without its closing "]}".
	agentsMu sync.Mutex
	agents   map[int][]byte
	steps    map[int]int // a loop agent's exchanges so far
}

func (p *proxyRun) run(res *ProxyResult, up string) error {
	key, _, err := swchttp.CreateKey(p.ctx, p.t.Store, "loadtest")
	if err != nil {
		return err
	}
	p.key = key
	proxy := p.t.URL
	small, err := RequestBody(AgentHistory(10, 0), false)
	if err != nil {
		return err
	}
	large, err := p.history(0)
	if err != nil {
		return err
	}
	// Warm up connections and caches on both paths.
	for _, base := range []string{up, proxy} {
		for range 20 {
			if _, _, err := p.call(base, small, 0); err != nil {
				return err
			}
		}
	}
	if res.DirectSmall, res.ProxySmall, err = p.phase(1, p.plain(up, small, 0), p.plain(proxy, small, 0)); err != nil {
		return err
	}
	res.OverheadP50MS = res.ProxySmall.P50MS - res.DirectSmall.P50MS
	res.OverheadP99MS = res.ProxySmall.P99MS - res.DirectSmall.P99MS

	_, h, err := p.callPath(proxy, p.path(), large, p.cfg.Budget)
	if err != nil {
		return err
	}
	res.TokensBefore, res.TokensAfter = h.Get(swchttp.HeaderTokensBefore), h.Get(swchttp.HeaderTokensAfter)
	if err := p.compression(res, up); err != nil {
		return err
	}
	if res.DirectTTFE, res.ProxyTTFE, err = p.phase(1, p.ttfe(up), p.ttfe(proxy)); err != nil {
		return err
	}
	res.TTFEAddedP50MS = res.ProxyTTFE.P50MS - res.DirectTTFE.P50MS
	res.TTFEAddedP99MS = res.ProxyTTFE.P99MS - res.DirectTTFE.P99MS
	if p.cfg.Bodies == BodiesLoopResponses { // stored conversations are Chat Completions'
		if large, err = LoopBody(AgentLoop(p.cfg.History, 0)); err != nil {
			return err
		}
	}
	return p.stored(res, large)
}

// compression is phase 2. Each run has agents of its own: direct and
// proxied calls send bodies of the same sizes, and no proxied agent was
// seen before it is introduced.
func (p *proxyRun) compression(res *ProxyResult, up string) error {
	proxy, c := p.t.URL, p.cfg.Clients
	var err error
	if _, err := p.introduce(up, 1<<20, 1); err != nil {
		return err
	}
	if res.DirectLarge1, err = runLatency(p.runN(1, p.agent(up, 1<<20, 1))); err != nil {
		return err
	}
	if _, err := p.introduce(proxy, 0, 1); err != nil {
		return err
	}
	cpu0 := cpuTime()
	lat, err := p.runN(1, p.agent(proxy, 0, 1))
	if err != nil {
		return err
	}
	res.ProxyLarge1 = Summarize(lat)
	res.CPUPerRequestMS = MS(cpuTime()-cpu0) / float64(len(lat))
	if _, err := p.introduce(up, 2<<20, c); err != nil {
		return err
	}
	if res.DirectLarge, err = runLatency(p.runN(c, p.agent(up, 2<<20, c))); err != nil {
		return err
	}
	if res.ColdLarge, err = runLatency(p.introduce(proxy, 1<<10, c)); err != nil {
		return err
	}
	stopProfile, err := startCPUProfile(p.cfg.CPUProfile)
	if err != nil {
		return err
	}
	res.ProxyLarge, err = runLatency(p.runN(c, p.agent(proxy, 1<<10, c)))
	if perr := stopProfile(); err == nil {
		err = perr
	}
	return err
}

// stored is phase 4: conversations stored and consolidated once, then
// requests of the history plus a new message.
func (p *proxyRun) stored(res *ProxyResult, large []byte) error {
	skey, sk, err := swchttp.CreateKey(p.ctx, p.t.Store, "loadtest-stored")
	if err != nil {
		return err
	}
	conv := func(c int) string { return fmt.Sprintf("lt-%d", c) }
	var mu sync.Mutex
	callConv := func(c int, body []byte) (time.Duration, string, error) {
		req, err := http.NewRequestWithContext(p.ctx, http.MethodPost, p.t.URL+"/v1/chat/completions", bytes.NewReader(body))
		if err != nil {
			return 0, "", err
		}
		req.Header.Set("Authorization", "Bearer "+skey)
		req.Header.Set(swchttp.HeaderBudget, fmt.Sprint(p.cfg.Budget))
		req.Header.Set(swchttp.HeaderConversation, conv(c))
		start := time.Now()
		resp, err := p.hc.Do(req)
		if err != nil {
			return 0, "", err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return 0, "", fmt.Errorf("loadtest-proxy: stored request answered %s", resp.Status)
		}
		mu.Lock()
		res.StoredTokens = resp.Header.Get(swchttp.HeaderTokensBefore) + " → " + resp.Header.Get(swchttp.HeaderTokensAfter)
		mu.Unlock()
		return time.Since(start), resp.Header.Get(swchttp.HeaderMode), nil
	}
	for c := range p.cfg.Clients {
		if _, _, err := callConv(c, large); err != nil {
			return err
		}
		if err := p.t.Consolidate(p.ctx, sk.TenantID, conv(c)); err != nil {
			return err
		}
	}
	res.StoredModes = map[string]int{}
	var next atomic.Int64
	lat, err := p.runN(p.cfg.Clients, func(int) (time.Duration, error) {
		c := int(next.Add(1)-1) % p.cfg.Clients
		d, mode, err := callConv(c, p.unique(large))
		mu.Lock()
		res.StoredModes[mode]++
		mu.Unlock()
		return d, err
	})
	if err != nil {
		return err
	}
	res.Stored = Summarize(lat)
	return nil
}

// call posts body to base's chat completions with the run's key (and
// X-SWC-Budget when budget > 0), reads the answer whole and returns the
// time it took and its headers; an answer other than 200 is an error.
func (p *proxyRun) call(base string, body []byte, budget int) (time.Duration, http.Header, error) {
	return p.callPath(base, "/v1/chat/completions", body, budget)
}

// callPath is call to path.
func (p *proxyRun) callPath(base, path string, body []byte, budget int) (time.Duration, http.Header, error) {
	req, err := http.NewRequestWithContext(p.ctx, http.MethodPost, base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+p.key)
	req.Header.Set("Content-Type", "application/json")
	if budget > 0 {
		req.Header.Set(swchttp.HeaderBudget, fmt.Sprint(budget))
	}
	start := time.Now()
	resp, err := p.hc.Do(req)
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

// unique returns body with one more user message, numbered.
func (p *proxyRun) unique(body []byte) []byte {
	i := bytes.LastIndex(body, []byte("]}"))
	out := append([]byte(nil), body[:i]...)
	return fmt.Appendf(out, `,{"role":"user","content":"Question %d: what did I say about the Atlas budget?"}]}`, p.seq.Add(1))
}

// history returns agent a's first history as a request body: cfg.History
// messages of AgentHistory, or of AgentLoop with its tool declared.
func (p *proxyRun) history(a int) ([]byte, error) {
	switch p.cfg.Bodies {
	case BodiesLoop:
		return LoopBody(AgentLoop(p.cfg.History, a))
	case BodiesLoopResponses:
		return LoopResponsesBody(AgentLoop(p.cfg.History, a))
	}
	return RequestBody(AgentHistory(p.cfg.History, a), false)
}

// path is where the compression phase's requests go: /v1/responses for
// Responses bodies, else /v1/chat/completions.
func (p *proxyRun) path() string {
	if p.cfg.Bodies == BodiesLoopResponses {
		return "/v1/responses"
	}
	return "/v1/chat/completions"
}

// agentBody returns agent a's next request: its history, grown by one
// user message (chat) or by one exchange (loop).
func (p *proxyRun) agentBody(a int) ([]byte, error) {
	p.agentsMu.Lock()
	defer p.agentsMu.Unlock()
	b, ok := p.agents[a]
	if !ok {
		full, err := p.history(a)
		if err != nil {
			return nil, err
		}
		b = full[:bytes.LastIndex(full, []byte("]}"))]
		if p.cfg.Bodies != BodiesChat { // every turn of a loop has its text
			p.steps[a] = bytes.Count(b, []byte(`"role":"assistant"`))
		}
	}
	switch p.cfg.Bodies {
	case BodiesLoop:
		next, err := loopMessagesJSON(LoopStep(a, p.steps[a]))
		if err != nil {
			return nil, err
		}
		p.steps[a]++
		b = append(b, next...)
	case BodiesLoopResponses:
		b = append(b, loopItemsJSON(a, p.steps[a], LoopStep(a, p.steps[a]))...)
		p.steps[a]++
	default:
		b = fmt.Appendf(b, `,{"role":"user","content":"Question %d from agent %d: what did I say about the Atlas budget?"}`, p.seq.Add(1), a)
	}
	p.agents[a] = b
	return append(b[:len(b):len(b)], "]}"...), nil
}

// loop calls f per times from each of c clients at once (f gets the
// client's number and its call's) and returns the latencies; a client
// stops at its first error, which loop returns.
func (p *proxyRun) loop(c, per int, f func(client, k int) (time.Duration, error)) ([]time.Duration, error) {
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

// runN makes cfg.Requests requests from c clients (f gets the client's
// number) and returns their latencies.
func (p *proxyRun) runN(c int, f func(client int) (time.Duration, error)) ([]time.Duration, error) {
	return p.loop(c, (p.cfg.Requests+c-1)/c, func(client, _ int) (time.Duration, error) { return f(client) })
}

// agent returns the request loop of clients clients: client c is an
// agent (first+c) whose history grows by a message per request; after
// cfg.AgentRequests requests a new agent takes its place (numbered on
// past every agent of the phase), so histories stay near cfg.History.
func (p *proxyRun) agent(base string, first, clients int) func(int) (time.Duration, error) {
	sent := make([]int, clients) // each client's requests so far (one goroutine each)
	return func(c int) (time.Duration, error) {
		body, err := p.agentBody(first + c + clients*(sent[c]/p.cfg.AgentRequests))
		if err != nil {
			return 0, err
		}
		sent[c]++
		d, _, err := p.callPath(base, p.path(), body, p.cfg.Budget)
		return d, err
	}
}

// introduce sends the first request of every agent a phase of agent's
// will use, from clients clients at once, and returns their latencies:
// a whole history the proxy has not seen, as after a restart. The timed
// requests come after, from agents the proxy has seen — as it sees agents
// whose histories grow through it — so that no first request competes
// with them for the cores.
func (p *proxyRun) introduce(base string, first, clients int) ([]time.Duration, error) {
	per := (p.cfg.Requests + clients - 1) / clients
	return p.loop(clients, (per+p.cfg.AgentRequests-1)/p.cfg.AgentRequests, func(c, k int) (time.Duration, error) {
		body, err := p.agentBody(first + c + clients*k)
		if err != nil {
			return 0, err
		}
		d, _, err := p.callPath(base, p.path(), body, p.cfg.Budget)
		return d, err
	})
}

// plain returns a request loop sending body with one more message each.
func (p *proxyRun) plain(base string, body []byte, budget int) func(int) (time.Duration, error) {
	return func(int) (time.Duration, error) { d, _, err := p.call(base, p.unique(body), budget); return d, err }
}

// phase runs direct and then proxied from c clients and summarises both.
func (p *proxyRun) phase(c int, direct, proxied func(int) (time.Duration, error)) (Latency, Latency, error) {
	d, err := p.runN(c, direct)
	if err != nil {
		return Latency{}, Latency{}, err
	}
	pr, err := p.runN(c, proxied)
	return Summarize(d), Summarize(pr), err
}

// ttfe returns a request loop timing a streaming request to its first
// SSE event.
func (p *proxyRun) ttfe(base string) func(int) (time.Duration, error) {
	stream, err := RequestBody(AgentHistory(10, 0), true)
	return func(int) (time.Duration, error) {
		if err != nil {
			return 0, err
		}
		req, err := http.NewRequestWithContext(p.ctx, http.MethodPost, base+"/v1/chat/completions", bytes.NewReader(stream))
		if err != nil {
			return 0, err
		}
		req.Header.Set("Authorization", "Bearer "+p.key)
		start := time.Now()
		resp, err := p.hc.Do(req)
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
