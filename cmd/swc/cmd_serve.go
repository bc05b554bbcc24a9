package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/gist"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/jobs"
	"github.com/swcmem/swc/mention"
	"github.com/swcmem/swc/postgres"
	"github.com/swcmem/swc/sleep"
	"github.com/swcmem/swc/sqlite"
	"github.com/swcmem/swc/strategy"
	"github.com/swcmem/swc/usage"
)

func init() {
	register("serve", "run the service: conversations over HTTP, consolidated while idle", runServe)
}

const serveUsage = `[flags]

Serves the swc API (JSON; errors are {"error":{"code","message"}}):
  POST   /v1/conversations/{id}/messages     append {"messages":[…]} → 201 {"appended","skipped","sessions"}
  GET    /v1/conversations/{id}/context      ?budget=&strategy=&format=text|openai|anthropic → 200
  GET    /v1/conversations                   the tenant's conversations → 200
  GET    /v1/conversations/{id}              sessions, messages, gists, state, pending jobs → 200
  DELETE /v1/conversations/{id}              messages, gists and cached contexts gone → 204
  POST   /v1/conversations/{id}/consolidate  enqueue a consolidation now → 202
  GET    /v1/keys  the tenant's keys → 200   DELETE /v1/keys/{id}  revoke one → 204 (at once here;
         other replicas within --key-cache-ttl)
  GET    /healthz liveness, /readyz readiness: the database answers at this build's schema
         and the job queue runs (503 while not; no key)  GET /metrics  GET /ui (log in with a key)
  POST   /v1/chat/completions  /v1/responses  /v1/messages  the compressing proxy: point an
         OpenAI or Anthropic SDK's base URL here with an swc key; the history is compressed to
         X-SWC-Budget (default --budget) and forwarded to --upstream-openai/--upstream-anthropic
         with OPENAI_API_KEY/ANTHROPIC_API_KEY. X-SWC-Conversation: ID stores the messages and
         uses the gists made while idle. Response headers X-SWC-Tokens-Before/-After, X-SWC-Mode
         (a Responses request with previous_response_id or conversation: passthrough).
  POST   /v1/messages/count_tokens  /v1/responses/input_tokens  counted as swc would send them
  POST   /v1beta/models/MODEL:generateContent  :streamGenerateContent  :countTokens  the Gemini
         API, compressed the same way and forwarded to --upstream-gemini with GEMINI_API_KEY (the
         swc key as x-goog-api-key, ?key= or Bearer; also under /v1alpha and /v1); GET
         /v1beta|v1alpha/models, the Files API (uploads streamed) and cachedContents relayed
  POST   /v1beta/interactions  the Interactions API, its input compressed the same way (with
         previous_interaction_id relayed as it came); GET|DELETE /v1beta/interactions/{id} relayed
  GET    /v1/models  POST /v1/embeddings  /v1/responses/compact  GET|DELETE /v1/responses/{id} …
         relayed to the upstream as they came. GET /openapi.json: every route (OpenAPI 3.1).
Every /v1 route needs "Authorization: Bearer KEY" (swc keys create). Status codes:
  400 bad input (the message names the field; a message over --max-message included) ·
  401 no or bad key · 404 unknown route or conversation (another tenant's included) ·
  413 body over --max-body (a proxied one over --max-proxy-body goes upstream as it came,
  X-SWC-Mode: passthrough) · 429 over the key's --rate (Retry-After) · 500 internal ·
  503 the database is unavailable (Retry-After).
Conversation ids: 1–128 of A-Z a-z 0-9 . _ : -. Unknown top-level body fields are rejected;
unknown fields inside a message are ignored. A message without "timestamp" (or "time",
"created_at") takes the previous message's, or the server's clock when its batch has none; a
timestamp more than 5m ahead of the server, or before the conversation's last message, is
rejected (400) and nothing of the batch is stored. A retried message (same "id") is skipped.`

type serveFlags struct {
	addr, db, strategy, logLevel string
	sqliteSync                   string
	workers                      int
	rate                         float64
	burst                        int
	maxBody, maxMessage          int64
	maxMessages                  int
	rateBytes                    int64
	sessionGap                   time.Duration
	sessionTurns                 int
	jobTimeout, rescueAfter      time.Duration
	poll                         time.Duration
	dbConns                      int
	sweep                        time.Duration
	shutdown                     time.Duration
	keyCacheTTL                  time.Duration
	sessionTTL                   time.Duration
	trustedProxy                 string
	memoryLimit                  byteSize
	proxy                        proxyFlags
}

func runServe(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "serve", serveUsage)
	fp, ef := addServeFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	f := *fp
	if fs.NArg() > 0 {
		return usagef("serve: unexpected argument %q", fs.Arg(0))
	}
	sched, err := consolidate.ParseSchedule(ef.schedule)
	if err != nil || sched.Kind == consolidate.End || sched.Kind == consolidate.Through {
		return usagef("--schedule: want idle:DURATION, every-K or reactive[:TOKENS] (got %q)", ef.schedule)
	}
	if _, err := strategy.Find(f.strategy, strategy.ForService); err != nil {
		return usagef("--strategy: %s", swc.ErrorMessage(err))
	}
	if f.sqliteSync != sqlite.SyncFull && f.sqliteSync != sqlite.SyncNormal {
		return usagef("--sqlite-synchronous: want full or normal (got %q)", f.sqliteSync)
	}
	if f.maxMessages < 1 || f.rateBytes < 0 {
		return usagef("--max-messages must be positive and --rate-bytes not negative (got %d and %d)", f.maxMessages, f.rateBytes)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return usagef("--log-level: %v", err)
	}
	logger := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: level}))
	planMemory(int64(f.memoryLimit)).apply()

	svc, err := openService(ctx, env, &f, ef, sched, logger)
	if err != nil {
		return err
	}
	defer svc.close()
	srv, queue := svc.srv, svc.queue
	hs := srv.HTTPServer(f.addr)
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	logger.Info("listening", "addr", "http://"+ln.Addr().String(), "db", redactDB(f.db), "strategy", f.strategy, "schedule", sched.String(), "workers", f.workers)
	fmt.Fprintf(env.Stdout, "swc serve: listening on http://%s\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		queue.Stop(context.Background())
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down: finishing in-flight requests and jobs", "timeout", f.shutdown)
	sctx, cancel := context.WithTimeout(context.Background(), f.shutdown)
	defer cancel()
	err = hs.Shutdown(sctx)
	if qerr := queue.Stop(sctx); qerr != nil {
		err = errors.Join(err, qerr)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	logger.Info("stopped")
	return nil
}

// addServeFlags defines serve's flags on fs.
func addServeFlags(fs *flag.FlagSet) (*serveFlags, *engineFlags) {
	f := &serveFlags{}
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "listen address (port 0 picks a free one)")
	fs.StringVar(&f.db, "db", "swc.db", "SQLite file holding conversations, gists, keys, jobs and the REM cache, or a postgres:// URL (replicas share it, the REM cache included)")
	fs.StringVar(&f.sqliteSync, "sqlite-synchronous", sqlite.SyncFull, "SQLite: full syncs every commit (an acknowledged append survives a power loss); normal syncs at checkpoints only (cheaper commits; the last appends before a power loss may be lost)")
	fs.IntVar(&f.dbConns, "db-conns", 10, "Postgres: connections of this replica's pool (HTTP handlers and River's workers share it; one more, apart, listens for other replicas' changes)")
	fs.DurationVar(&f.sweep, "sweep", 5*time.Minute, "how often conversations owed a consolidation are given a job if they have none (0: only at start)")
	fs.StringVar(&f.strategy, "strategy", strategy.Default, "strategy of consolidation and the default of /context: "+strings.Join(strategy.Names(strategy.ForService), ", "))
	fs.IntVar(&f.workers, "workers", 4, "consolidation jobs run at once")
	fs.Float64Var(&f.rate, "rate", swchttp.DefaultRate, "requests per second per key (negative: no limit)")
	fs.IntVar(&f.burst, "burst", swchttp.DefaultBurst, "requests a key may burst above --rate")
	fs.Int64Var(&f.maxBody, "max-body", swchttp.DefaultMaxBody, "largest request body to swc's own routes, bytes (413 above; proxied requests: --max-proxy-body)")
	fs.Int64Var(&f.maxMessage, "max-message", swchttp.DefaultMaxMessage, "largest message content, bytes, appended or stored by the proxy (X-SWC-Conversation; 400 above)")
	fs.IntVar(&f.maxMessages, "max-messages", swchttp.DefaultMaxMessages, "most messages of one request: a proxied request's history (one over it goes upstream uncompressed, X-SWC-Mode: passthrough); an append's batch (400 above; it takes at most 1000 in any case)")
	fs.Int64Var(&f.rateBytes, "rate-bytes", 0, "when positive, a request counts one against --rate per this many bytes of its body (at least one, at most --burst): large bodies cost what they weigh")
	fs.DurationVar(&f.sessionGap, "session-gap", 30*time.Minute, "silence that starts a new session")
	fs.IntVar(&f.sessionTurns, "session-turns", 20, "messages after which a new session starts (without explicit session ids)")
	fs.DurationVar(&f.jobTimeout, "job-timeout", 5*time.Minute, "limit of one consolidation attempt")
	fs.DurationVar(&f.rescueAfter, "rescue-after", 0, "a job running longer is taken for dead and run again (default job-timeout + 1m)")
	fs.DurationVar(&f.poll, "poll", time.Second, "how often due jobs are looked for")
	fs.DurationVar(&f.keyCacheTTL, "key-cache-ttl", swchttp.DefaultKeyCacheTTL, "how long a valid key is remembered: a key revoked by another replica or swc keys revoke stops working here within it (one revoked through this replica's DELETE /v1/keys/ID at once); 0 asks the database on every request")
	fs.DurationVar(&f.sessionTTL, "session-ttl", swchttp.DefaultSessionTTL, "how long a /ui login lasts (a signed session token in the cookie, never the key; SWC_SESSION_SECRET signs it)")
	fs.StringVar(&f.trustedProxy, "trusted-proxy", "", "comma-separated IPs or CIDRs of TLS-terminating proxies whose X-Forwarded-Proto: https marks the /ui cookie Secure (it is Secure anyway when swc serves TLS itself)")
	fs.DurationVar(&f.shutdown, "shutdown-timeout", 30*time.Second, "on SIGTERM, how long in-flight requests and jobs may finish")
	f.memoryLimit = defaultMemoryLimit
	fs.Var(&f.memoryLimit, "memory-limit", "the process's memory budget (1GiB, 512MiB, bytes): sets GOMEMLIMIT and sizes every cache and memo from it (a quarter of it goes to them; one tenant holds at most an eighth of the contexts and rendered memories cached)")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug (one line per request), info, warn or error")
	addProxyFlags(fs, &f.proxy)
	ef := addEngineFlags(fs)
	if sf := fs.Lookup("schedule"); sf != nil {
		sf.DefValue = "idle:10m"
		sf.Usage = "when a conversation is consolidated: idle:DURATION (after that long without a message), every-K (K new sessions), reactive[:TOKENS] (pending sessions over TOKENS, default the budget)"
		ef.schedule = "idle:10m"
	}
	return f, ef
}

// service is the wired server: store, memory, queue, HTTP handler.
type service struct {
	store   swc.Store
	mem     *sleep.Service
	queue   *jobs.Queue
	srv     *swchttp.Server
	closers []func() error
}

func (s *service) close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

// openService wires the service the flags describe; the caller calls
// close.
// serveGCPercent is the garbage collector's target swc serve sets when
// GOGC is unset.
const serveGCPercent = 400

// serveGC sets the garbage collector's target to serveGCPercent unless
// the environment sets GOGC, and reports whether it did. The service's
// memos (token counts, terms, gists, plans) are a large heap that changes
// slowly; collecting at 5× it rather than 2× cut the proxy's CPU per
// request by about a fifth (docs/performance.md).
func serveGC(env *Env) bool {
	if env.Vars["GOGC"] != "" {
		return false
	}
	debug.SetGCPercent(serveGCPercent)
	return true
}

func openService(ctx context.Context, env *Env, f *serveFlags, ef *engineFlags, sched consolidate.Schedule, logger *slog.Logger) (*service, error) {
	svc := &service{}
	serveGC(env)
	mp := planMemory(int64(f.memoryLimit))
	ef.memoBytes = mp.engineMemoBytes()
	// The REM cache lives in the service's file unless --cache says otherwise.
	if ef.cache.path == "" && !postgres.IsURL(f.db) {
		ef.cache.path = f.db
	}
	be, err := openBackend(ctx, backendConfig{db: f.db, pgConns: f.dbConns, sqliteSync: f.sqliteSync, pgStates: int(mp.states)})
	if err != nil {
		return nil, err
	}
	svc.closers = append(svc.closers, be.Close)
	ef.cache.pg = be.pg // on Postgres, the replicas share the REM cache there
	eng, err := openEngines(ctx, env, ef)
	if err != nil {
		svc.close()
		return nil, err
	}
	svc.closers = append(svc.closers, eng.Close)
	svc.store = be.store
	reg := prometheus.NewRegistry()
	jm := swchttp.NewJobMetrics(reg)
	registerTokenMetrics(reg, eng.meter)
	fallback := gist.NewExtractive()
	fallback.Temporal = mention.HasTemporal
	svc.mem = &sleep.Service{
		Store: be.store, Gister: eng.gister, Fallback: fallback,
		Strategy: f.strategy,
		Budget:   ef.budget, Schedule: sched,
		Embedder: eng.embedder, Config: eng.cfg, Rule: swc.SessionRule{Gap: f.sessionGap, Turns: f.sessionTurns},
	}
	mp.service(svc.mem)
	if be.pg != nil {
		// Cached contexts follow the changes any replica makes, told by
		// the database: reads need no query.
		wctx, stop := context.WithCancel(context.WithoutCancel(ctx))
		done := make(chan struct{})
		be.pg.OnWatchError = func(err error) {
			logger.Warn("watching for changes failed; reads ask the database until it is back", "err", err)
		}
		go func() { defer close(done); be.pg.Watch(wctx, svc.mem) }()
		svc.closers = append(svc.closers, func() error { stop(); <-done; return nil })
	}
	queue, err := be.openQueue(ctx, consolidator{svc.mem}, jobs.Config{
		Workers: f.workers, JobTimeout: f.jobTimeout, RescueAfter: f.rescueAfter,
		PollInterval: f.poll, Logger: logger, OnResult: jm.Record,
	})
	if err != nil {
		svc.close()
		return nil, err
	}
	svc.queue = queue
	svc.closers = append(svc.closers, func() error {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return queue.Stop(sctx)
	})
	// A conversation whose append was stored but whose job was not
	// (killed in between) gets one now; existing jobs absorb the rest.
	// The sweep repeats while serving (a database restart between an
	// append and its enqueue).
	if err := jobs.Sweep(ctx, be.store, queue, f.sweep, logger); err != nil {
		svc.close()
		return nil, err
	}
	srv := swchttp.New(be.store, svc.mem, queue)
	srv.Schedule, srv.Registry, srv.Logger = sched, reg, logger
	srv.Ready = []swchttp.ReadyCheck{{Name: "database", Check: be.ready}, {Name: "queue", Check: queue.Ready}}
	srv.Rule = swc.SessionRule{Gap: f.sessionGap, Turns: f.sessionTurns}
	srv.KeyCacheTTL, srv.SessionTTL = f.keyCacheTTL, f.sessionTTL
	srv.SessionSecret = []byte(env.Vars["SWC_SESSION_SECRET"])
	if srv.TrustedProxies, err = swchttp.ParseTrustedProxies(f.trustedProxy); err != nil {
		svc.close()
		return nil, usagef("--trusted-proxy: %v", err)
	}
	srv.Rate, srv.Burst, srv.MaxBody, srv.MaxMessage = f.rate, f.burst, f.maxBody, int(f.maxMessage)
	srv.MaxMessages, srv.RateBytes = f.maxMessages, f.rateBytes
	if srv.Proxy, err = proxyConfig(env, f.proxy, ef, eng); err != nil {
		svc.close()
		return nil, err
	}
	mp.proxy(&srv.Proxy)
	svc.srv = srv
	return svc, nil
}

// consolidator adapts sleep.Service to the queue.
type consolidator struct{ m *sleep.Service }

func (c consolidator) Due(ctx context.Context, tenant, conv string) (time.Duration, bool, error) {
	return c.m.Due(ctx, tenant, conv)
}

func (c consolidator) Consolidate(ctx context.Context, tenant, conv string) (int, error) {
	out, err := c.m.Consolidate(ctx, tenant, conv)
	return out.Gists, err
}

// registerTokenMetrics exports the LLM tokens the engines used.
func registerTokenMetrics(reg *prometheus.Registry, m *usage.Meter) {
	for _, dir := range []string{"input", "output"} {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "swc_llm_tokens_total", Help: "LLM tokens used by consolidation (gisters, embedders).",
			ConstLabels: prometheus.Labels{"direction": dir},
		}, func() float64 {
			t := m.Summary().Total
			if dir == "input" {
				return float64(t.InputTokens)
			}
			return float64(t.OutputTokens)
		}))
	}
}
