package http

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/singleflight"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/internal/memo"
	"github.com/swcmem/swc/memory"
)

// This file is the compressing proxy: POST /v1/chat/completions
// (OpenAI) and POST /v1/messages (Anthropic) compress the request's history
// to a budget and forward it to the configured upstream with the server's
// own key; the upstream's answer (streamed or not) comes back unchanged.

// Proxy headers.
const (
	HeaderBudget       = "X-SWC-Budget"
	HeaderConversation = "X-SWC-Conversation"
	HeaderTokensBefore = "X-SWC-Tokens-Before"
	HeaderTokensAfter  = "X-SWC-Tokens-After"
	// HeaderFallback is set (to the reason) when the offline engines
	// compressed the request because the configured ones failed or ran
	// past CompressTimeout.
	HeaderFallback = "X-SWC-Fallback"
	// HeaderMode says how the request was compressed: fits (sent as it
	// came), stateless, stored (stored, compressed statelessly: nothing
	// consolidated yet or no room), prefix (the consolidated memory, then
	// the messages since), passthrough (not compressed: a route swc only
	// relays, a Responses request whose history the provider stores, or a
	// request swc cannot parse or compress, HeaderPassthrough saying why).
	HeaderMode = "X-SWC-Mode"
	// HeaderCompacted is how many conversation messages the memory holds
	// (0 when the request went out as it came): under epoch compaction it
	// changes only when the boundary jumps, and with it the prefix the
	// provider caches.
	HeaderCompacted = "X-SWC-Compacted"
	// HeaderOverBudget is set (to the tokens over) when the instructions
	// and the messages no compression may remove exceed the budget: the
	// request went out over it (memory.Result.OverBudget).
	HeaderOverBudget = "X-SWC-Over-Budget"
)

// DefaultCompressTimeout bounds compression before the offline fallback.
const DefaultCompressTimeout = 2 * time.Second

// Upstream is a provider API the proxy forwards to.
type Upstream struct {
	// URL is the base URL: OpenAI's with /v1 ("https://api.openai.com/v1",
	// requests go to URL/chat/completions), Anthropic's with or without it
	// ("https://api.anthropic.com", requests go to URL/v1/messages).
	URL string
	// Key is the server's own key, sent as "Authorization: Bearer" (OpenAI)
	// or "x-api-key" (Anthropic). The client's swc key is never forwarded.
	Key string
}

// ProxyConfig configures the proxy routes. An upstream without a URL
// answers 501 naming the flag that sets it.
type ProxyConfig struct {
	OpenAI, Anthropic Upstream
	// Gemini is the Gemini API ("https://generativelanguage.googleapis.com",
	// requests go to URL/v1beta/…); its Key is sent as x-goog-api-key.
	Gemini Upstream
	// Client sends upstream requests (default: a client without an overall
	// timeout; the caller's request context bounds each request).
	Client *http.Client
	// Budget is the default budget when a request has no X-SWC-Budget
	// (default memory.DefaultBudget); MaxBudget bounds the header (1000000).
	Budget, MaxBudget int
	// Strategy compresses stateless requests (memory.DefaultStrategy).
	Strategy string
	// KeepRecent is how many of the latest messages go out unchanged
	// (memory.DefaultKeepRecent; negative keeps none).
	KeepRecent int
	// Tokenizer counts tokens ("cl100k_base").
	Tokenizer string
	// Embedder, when set, is the configured (possibly remote) embedder;
	// nil uses the offline lexical one. Its failures and slowness fall back
	// to the offline engines.
	Embedder swc.Embedder
	// MaxBody is the largest proxied request body swc reads and compresses
	// (default DefaultProxyMaxBody); a larger one goes upstream as it
	// came, streamed (Server.MaxBody bounds swc's own routes).
	MaxBody int64
	// CompressTimeout bounds compression (DefaultCompressTimeout): past it,
	// the offline engines compress the request instead, and past it again
	// the truncation plan (memory.CheapPlan).
	CompressTimeout time.Duration
	// PrefixShare is the share of the budget (after the instructions) the
	// consolidated memory of a stored conversation may use (default 0.5);
	// the rest is left to the messages since.
	PrefixShare float64
	// Compaction is memory.Epoch (default) or memory.Replan; MemoryShare
	// and RestartShare tune epochs (memory.Options' defaults).
	Compaction                string
	MemoryShare, RestartShare float64
	// LoopKeep and LoopEvery shape a tool loop's observation window
	// (memory.Options' fields of the same names; 0: their defaults,
	// LoopKeep -1: no window).
	LoopKeep, LoopEvery int
	// StubTokens is the least size of a tool output's stub, in tokens
	// (memory.Options.StubTokens; 0: its default).
	StubTokens int
	// TurnTokens is how many tokens of prose an old assistant turn of a
	// tool loop keeps, and bounds its calls' string arguments
	// (memory.Options.TurnTokens; 0: its default, -1: turns never
	// clipped).
	TurnTokens int
	// HoldBudget makes the budget the model's whole input: a request's
	// tool definitions (and swc_recall's, when it may get it) are taken
	// off it, a tool loop's newest outputs are cut when they alone
	// overflow it (memory.Options.HoldBudget), and swc_recall's answers
	// fit what the request leaves.
	HoldBudget bool
	// CacheBreakpoints is memory.BreakpointsAuto (default: a cache_control
	// mark on the memory block of Anthropic requests whose own marks leave
	// room) or memory.BreakpointsOff.
	CacheBreakpoints string
	// MemoBytes bounds the compressors' memos, all budgets together
	// (memory.Options.MemoBytes; default memory.DefaultMemoBytes).
	MemoBytes int
	// PrefixBytes bounds the rendered memories of stored conversations
	// kept between requests (default DefaultPrefixBytes; those of epochs
	// under Epoch, those of consolidations under Replan); one tenant holds
	// at most TenantShare of them (memo.DefaultTenantShare).
	PrefixBytes int64
	TenantShare float64
	// NoRecall sends requests as they came without swc_recall; otherwise
	// (the default) a Chat Completions, Messages or Responses request that declares
	// tools and was compressed so that it shows a handle (a stub's, or a
	// dropped observation's in the memory) goes out with swc_recall too,
	// which swc answers itself, up to
	// RecallRounds (DefaultRecallRounds) rounds a request (recall.go).
	// RecallBytes bounds the originals of stubbed and dropped observations
	// kept for it (DefaultRecallBytes; one tenant holds at most
	// TenantShare of them), each for RecallTTL (DefaultRecallTTL).
	NoRecall     bool
	RecallRounds int
	RecallBytes  int64
	RecallTTL    time.Duration
	// ItemBytes bounds the output items of the Responses answers the
	// proxy relays, kept so that a request naming them by item_reference
	// can be read and compressed (items.go; DefaultItemBytes; one tenant
	// holds at most TenantShare of them).
	ItemBytes int64
}

// DefaultPrefixBytes is the default of ProxyConfig.PrefixBytes.
const DefaultPrefixBytes = 64 << 20

type proxyState struct {
	mu          sync.Mutex
	base        *memory.Compressor         // the settings; its memos are shared
	compressors map[int]*memory.Compressor // by budget
	prefixes    *memo.Cache[prefixKey, prefix]
	epochs      *memo.Cache[epochKey, string]        // stored conversations' epoch memories
	tools       *memo.Memo[toolKey, int]             // tool definitions' tokens
	originals   *memo.Cache[recallKey, original]     // the originals of stubbed and dropped observations (recall.go)
	handles     *memo.Memo[obsKey, string]           // observations' handles, by content (recall_keep.go)
	items       *memo.Cache[itemKey, storedItem]     // Responses output items, by id (items.go)
	files       *memo.Cache[fileKey, chat.MediaFile] // Gemini audio and video files' lengths, by URI (files.go)
	fileMisses  *memo.Cache[fileKey, time.Time]      // when a lookup of a file found nothing (files.go)
	fileLookup  singleflight.Group                   // lookups of files under way, by tenant and URI
	metrics     *proxyMetrics
	client      *http.Client
}

type proxyMetrics struct {
	requests    *prometheus.CounterVec // protocol, mode
	fallbacks   *prometheus.CounterVec // reason
	tokens      *prometheus.CounterVec // stage: before, after
	compress    prometheus.Histogram
	upstream    *prometheus.CounterVec // protocol, code
	over        prometheus.Counter
	recalls     *prometheus.CounterVec // answer: original, missing, query, invalid (recall.go)
	fileLookups *prometheus.CounterVec // result: found, unknown, failed (files.go)
}

func newProxyMetrics(reg *prometheus.Registry) *proxyMetrics {
	m := &proxyMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "swc_proxy_requests_total", Help: "Proxied requests by protocol (openai, anthropic, responses, gemini) and mode (fits, stateless, stored, prefix, passthrough, rejected).",
		}, []string{"protocol", "mode"}),
		fallbacks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "swc_proxy_fallbacks_total", Help: "Requests compressed by the offline engines because the configured ones failed or ran past --compress-timeout, by reason (deadline, engine, store, memory; truncation: the offline engines ran past it too, and the truncation plan compressed the history).",
		}, []string{"reason"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "swc_proxy_tokens_total", Help: "Tokens of proxied requests: their instructions and messages before and after compression, and their tool definitions (tools), which the budget does not cover.",
		}, []string{"stage"}),
		compress: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "swc_proxy_compress_seconds", Help: "Time spent compressing a proxied request.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}),
		upstream: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "swc_proxy_upstream_responses_total", Help: "Upstream responses by protocol and status code (passed through, never retried).",
		}, []string{"protocol", "code"}),
		over: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "swc_proxy_over_budget_total", Help: "Requests sent over their budget because the messages no compression may remove exceed it (X-SWC-Over-Budget).",
		}),
	}
	m.recalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "swc_proxy_recall_calls_total", Help: "swc_recall calls swc answered inside the proxy, by answer: original (a handle resolved), missing (a handle not held), query (passages for a query), invalid (arguments swc could not read).",
	}, []string{"answer"})
	m.fileLookups = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "swc_proxy_file_lookups_total", Help: "Gemini Files API files a request named by URI that the proxy had not seen uploaded and asked the upstream for, by result: found (its length is known now), unknown (the upstream answered, but not with an audio or video file's length), failed (no answer in time).",
	}, []string{"result"})
	reg.MustRegister(m.requests, m.fallbacks, m.tokens, m.compress, m.upstream, m.over, m.recalls, m.fileLookups)
	return m
}

// protocol is one provider's transport: its name (in metrics, logs and
// errors) and the format of its request bodies, whose chat.Codec reads
// and writes the messages. Routes, upstream paths, auth headers and error
// shapes go by protocol; message bytes only through the codec.
type protocol struct {
	name   string // "openai", "anthropic", "responses", "gemini" or "interactions"
	format chat.Format
}

// alignUser reports whether p's codec wants a request's kept messages to
// start at a user message (chat.Codec's AlignUser).
func (p protocol) alignUser() bool {
	c, ok := chat.CodecOf(p.format)
	return ok && c.AlignUser()
}

var (
	protoOpenAI    = protocol{"openai", chat.OpenAI}
	protoAnthropic = protocol{"anthropic", chat.Anthropic}
	protoResponses = protocol{"responses", chat.Responses} // OpenAI's Responses API
)

func (s *Server) proxyRoutes(mux *routeMux) {
	pb := s.Proxy.PrefixBytes
	if pb <= 0 {
		pb = DefaultPrefixBytes
	}
	s.proxy = &proxyState{compressors: map[int]*memory.Compressor{}, prefixes: memo.NewCache[prefixKey, prefix](pb, s.Proxy.TenantShare),
		epochs:  memo.NewCache[epochKey, string](pb, s.Proxy.TenantShare),
		metrics: newProxyMetrics(s.Registry), client: s.Proxy.Client, tools: newToolMemo()}
	if s.proxy.client == nil {
		s.proxy.client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	rb := s.Proxy.RecallBytes
	if rb <= 0 {
		rb = DefaultRecallBytes
	}
	s.proxy.originals = memo.NewCache[recallKey, original](rb, s.Proxy.TenantShare)
	ib := s.Proxy.ItemBytes
	if ib <= 0 {
		ib = DefaultItemBytes
	}
	s.proxy.items = memo.NewCache[itemKey, storedItem](ib, s.Proxy.TenantShare)
	s.proxy.files = memo.NewCache[fileKey, chat.MediaFile](fileBytes, s.Proxy.TenantShare)
	s.proxy.fileMisses = memo.NewCache[fileKey, time.Time](fileMissBytes, s.Proxy.TenantShare)
	s.proxy.handles = newHandleMemo()
	mux.Handle("POST /v1/chat/completions", s.observe(s.proxyAuthed(protoOpenAI)))
	mux.Handle("POST /v1/messages", s.observe(s.proxyAuthed(protoAnthropic)))
	s.responsesRoutes(mux)
	s.geminiRoutes(mux)
}

// proxyAuthed authenticates a proxied request: "Authorization: Bearer KEY",
// or for Anthropic clients "x-api-key: KEY" (SDKs send either). Errors are
// written in the protocol's own error shape so that SDKs show them.
func (s *Server) proxyAuthed(p protocol) http.Handler {
	return s.proxyAuth(p, s.proxyHandle)
}

// proxyAuth is proxyAuthed for any handler h of protocol p.
func (s *Server) proxyAuth(p protocol, h func(w http.ResponseWriter, r *http.Request, p protocol, tenant string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ar := r
		if p == protoAnthropic && r.Header.Get("Authorization") == "" && r.Header.Get("X-Api-Key") != "" {
			ar = r.Clone(r.Context())
			ar.Header.Set("Authorization", "Bearer "+r.Header.Get("X-Api-Key"))
		}
		k, ok := s.authenticate(ar, false)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="swc"`)
			want := "Authorization: Bearer KEY"
			if p == protoAnthropic {
				want = "x-api-key: KEY or Authorization: Bearer KEY"
			}
			if p.google() {
				want = "x-goog-api-key: KEY, ?key=KEY or Authorization: Bearer KEY"
			}
			proxyError(w, p, http.StatusUnauthorized, "authentication_error", "missing or invalid swc key ("+want+"; make one with swc keys create)")
			return
		}
		if !s.allowOr(w, k.ID, func(status int, code, msg string) { proxyError(w, p, status, code, msg) }) {
			return
		}
		h(w, r.WithContext(context.WithValue(r.Context(), authKey{}, k)), p, k.TenantID)
	})
}

// proxyError writes an error in the protocol's shape: OpenAI's
// {"error":{"message","type","code"}}, Anthropic's
// {"type":"error","error":{"type","message"}} or Gemini's
// {"error":{"code","message","status"}}.
func proxyError(w http.ResponseWriter, p protocol, status int, typ, msg string) {
	if p.google() {
		geminiError(w, status, msg)
		return
	}
	var body any
	if p == protoAnthropic {
		body = map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": "swc: " + msg}}
	} else {
		body = map[string]any{"error": map[string]any{"message": "swc: " + msg, "type": typ, "code": typ}}
	}
	writeJSON(w, status, body)
}

func (s *Server) proxyHandle(w http.ResponseWriter, r *http.Request, p protocol, tenant string) {
	up, ok := s.upstream(w, p)
	if !ok {
		return
	}
	reject := s.rejecter(w, p)
	budget := s.proxyBudget()
	if h := r.Header.Get(HeaderBudget); h != "" {
		n, err := strconv.Atoi(strings.TrimSpace(h))
		maxB := s.Proxy.MaxBudget
		if maxB <= 0 {
			maxB = 1_000_000
		}
		if err != nil || n < 1 || n > maxB {
			reject(http.StatusBadRequest, "invalid_request_error", HeaderBudget+": want a whole number of tokens between 1 and "+strconv.Itoa(maxB)+", got "+strconv.Quote(h))
			return
		}
		budget = n
	}
	conv := r.Header.Get(HeaderConversation)
	if conv != "" && !ConversationID.MatchString(conv) {
		reject(http.StatusBadRequest, "invalid_request_error", HeaderConversation+": 1–128 characters of letters, digits, '.', '_', ':' and '-'")
		return
	}
	body, err := readLimited(r, s.proxyMaxBody())
	if err != nil {
		if err == errTooLarge {
			s.streamThrough(w, r, p, up, body)
			return
		}
		reject(http.StatusBadRequest, "invalid_request_error", "reading body: "+err.Error())
		return
	}
	if !s.allowBody(w, r, len(body), func(status int, code, msg string) { reject(status, code, msg) }) {
		return
	}
	malformed := func() {
		reject(http.StatusBadRequest, "invalid_request_error", "body: malformed JSON (want a "+p.name+" request object)")
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		malformed()
		return
	}
	original := body
	// The model a Gemini request's URL names: its media count by it.
	model := chat.URLModel(r.URL.Path)
	// Files API files the proxy does not know go to missed, to ask for.
	var missed []string
	in, err := chat.ParseOwnedFiles(trimmed, p.format, model, s.missingFiles(tenant, &missed)) // body is this request's, never written
	if p == protoResponses && err != nil {
		// The parse refuses a body whose history the provider stores
		// (chat.ProviderHistory), so only a refused one is read again
		// for why: relayed as it came, or read with the item references
		// swc relayed resolved.
		resolved, done := s.responsesHistory(w, r, up, trimmed, tenant)
		if done {
			return
		}
		if !bytes.Equal(resolved, trimmed) {
			trimmed, missed = resolved, nil
			in, err = chat.ParseOwnedFiles(trimmed, p.format, model, s.missingFiles(tenant, &missed))
		}
	}
	if p == protoInteractions {
		if why := interactionsRelayed(in, err, trimmed); why != "" {
			s.proxy.metrics.requests.WithLabelValues(p.name, modePassthrough).Inc()
			s.forward(w, r, p, up, original, &proxyOut{mode: modePassthrough, passthrough: why})
			return
		}
	}
	if err == nil && len(missed) > 0 && s.lookupFiles(r, up, tenant, missed) {
		in, err = chat.ParseOwnedFiles(trimmed, p.format, model, s.fileLengths(tenant)) // counted again with what was learned
	}
	if err != nil {
		if !json.Valid(trimmed) { // checked on the error path only: parsing is the hot path
			malformed()
			return
		}
		// The provider may accept what swc cannot read: it answers.
		s.passthrough(w, r, p, up, original, "parse: "+swc.ErrorMessage(err), -1)
		return
	}
	if p == protoResponses && string(bytes.TrimSpace(in.Body["store"])) == "false" {
		r = r.WithContext(context.WithValue(r.Context(), unstoredKey{}, true)) // nothing to keep of its answer
	}
	// History handles in a chat memory serve swc_recall alone: asked for
	// when the request may get it (a cheap look; recallOn decides below).
	handles := s.mayRecall(r, p, in)
	c, err := s.compressor(budget, p, handles)
	if err != nil {
		s.logger().Error("proxy: compressor", "err", err)
		reject(http.StatusInternalServerError, "api_error", "internal error while compressing")
		return
	}
	tools := s.toolTokens(c, in.Body["tools"])
	if held := tools; s.Proxy.HoldBudget && tools > 0 {
		// Held, the budget is the model's whole input: the tool
		// definitions take their part of it, swc_recall's too when the
		// request may get it.
		if handles {
			held += s.toolTokens(c, json.RawMessage("["+RecallTool(p.name)+"]"))
		}
		budget = c.Held(held).Options().Budget
		if c, err = s.compressor(budget, p, handles); err != nil {
			s.logger().Error("proxy: compressor", "err", err)
			reject(http.StatusInternalServerError, "api_error", "internal error while compressing")
			return
		}
	}
	if n := s.maxMessages(); len(in.Messages) > n {
		s.passthrough(w, r, p, up, original, "max-messages: "+strconv.Itoa(len(in.Messages))+" messages; swc compresses at most "+strconv.Itoa(n)+" (swc serve --max-messages)", tools)
		return
	}
	start := time.Now()
	out, err := s.compressRequest(r.Context(), p, in, budget, tenant, conv, handles)
	s.proxy.metrics.compress.Observe(time.Since(start).Seconds())
	if err != nil {
		if swc.ErrorCode(err) == swc.EINVALID {
			s.passthrough(w, r, p, up, original, "compress: "+swc.ErrorMessage(err), tools)
			return
		}
		if r.Context().Err() != nil {
			return
		}
		s.logger().Error("proxy: compress", "err", err)
		reject(http.StatusInternalServerError, "api_error", "internal error while compressing")
		return
	}
	out.tools, out.toolsKnown = tools, true
	if out.body != nil {
		// The messages as they go upstream: the compressor counts its
		// memory as a message of its own, where a codec may write it
		// into another (the system's, the task's).
		if n, err := c.CountBodyFiles(out.body, p.format, model, s.fileLengths(tenant)); err == nil {
			out.after = n
		}
	}
	s.proxy.metrics.requests.WithLabelValues(p.name, out.mode).Inc()
	s.proxy.metrics.tokens.WithLabelValues("before").Add(float64(out.before))
	s.proxy.metrics.tokens.WithLabelValues("after").Add(float64(out.after))
	s.proxy.metrics.tokens.WithLabelValues("tools").Add(float64(tools))
	if out.fallback != "" {
		s.proxy.metrics.fallbacks.WithLabelValues(out.fallbackReason).Inc()
		s.logger().Warn("proxy: offline fallback", "reason", out.fallback)
	}
	if out.overBudget > 0 {
		s.proxy.metrics.over.Inc()
		s.logger().Warn("proxy: over budget", "budget", budget, "tokens", out.after, "over", out.overBudget)
	}
	// Recorded once the answer is written: the client does not wait for
	// it (a streamed answer's last event is flushed before).
	defer s.recordCompression(context.WithoutCancel(r.Context()), c, p, in, out, budget, tenant, conv)
	send := original // a request that fits goes as it came, its item references too
	if out.body != nil {
		send = out.body
	}
	// swc_recall only when there is something to recall: a request that
	// fits goes out byte for byte, streamed as it comes.
	if held := s.keepOriginals(tenant, in, out.res, send); showsHandle(send, held) && s.recallOn(r, p, in) {
		rc := &recaller{s: s, in: in, res: out.res, tenant: tenant, conv: conv, room: -1}
		if s.Proxy.HoldBudget {
			// Held, the rounds' answers fit what the request leaves of
			// the budget (its tools already taken off it).
			rc.room, rc.count = max(budget-out.after, 0), func(s string) int { return c.Cost(swc.Message{Content: s}) }
		}
		s.forwardRecall(w, r, p, up, send, out, rc)
		return
	}
	s.forward(w, r, p, up, send, out)
}

// upstream returns the upstream of protocol p, or writes 501 naming the
// flag that sets it.
func (s *Server) upstream(w http.ResponseWriter, p protocol) (Upstream, bool) {
	up, name, flag := s.Proxy.OpenAI, "openai", "--upstream-openai"
	if p == protoAnthropic {
		up, name, flag = s.Proxy.Anthropic, "anthropic", "--upstream-anthropic"
	}
	if p.google() {
		up, name, flag = s.Proxy.Gemini, "gemini", "--upstream-gemini"
	}
	if up.URL == "" {
		proxyError(w, p, http.StatusNotImplemented, "not_configured", "no "+name+" upstream configured (start swc serve with "+flag+" URL)")
		return up, false
	}
	return up, true
}

// proxyMaxBody is the largest proxied body swc reads (ProxyConfig.MaxBody).
func (s *Server) proxyMaxBody() int64 {
	if s.Proxy.MaxBody > 0 {
		return s.Proxy.MaxBody
	}
	return DefaultProxyMaxBody
}

func (s *Server) proxyBudget() int {
	if s.Proxy.Budget > 0 {
		return s.Proxy.Budget
	}
	return memory.DefaultBudget
}
