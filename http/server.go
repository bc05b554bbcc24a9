// Package http serves swc over HTTP: the /v1 conversation API
// authenticated by tenant keys, /healthz (liveness), /readyz (readiness),
// /metrics and the /ui page.
// Import it under another name (swchttp) next to net/http.
package http

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"regexp"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/sleep"
)

// Defaults of Server's limits.
const (
	DefaultMaxBody = 4 << 20 // bytes of one request body to swc's own routes
	// DefaultProxyMaxBody is the largest proxied body swc reads and
	// compresses: Anthropic's Messages API's own limit (32 MB).
	DefaultProxyMaxBody = 32 << 20
	DefaultMaxMessage   = 64 << 10 // bytes of one message's content
	DefaultMaxBatch     = 1000     // messages in one append
	// DefaultMaxMessages bounds the messages of one request: a proxied
	// request's history (an append's batch is bounded by MaxBatch too).
	DefaultMaxMessages = 10000
	DefaultRate        = 50 // requests per second per key
	DefaultBurst       = 100
	// DefaultKeyCacheTTL bounds how long a key revoked elsewhere keeps
	// working on a replica that had it cached.
	DefaultKeyCacheTTL = 2 * time.Second
	// FutureSlack is how far past the server's clock a timestamp may be.
	FutureSlack = 5 * time.Minute
)

// ConversationID is the accepted form of a conversation id: 1–128
// characters of letters, digits, '.', '_', ':' and '-'.
var ConversationID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// Server is the HTTP service. Build it with New; the exported fields are
// optional settings to set before Handler is first called.
type Server struct {
	store  swc.Store
	memory *sleep.Service
	queue  swc.Queue

	// Schedule is the consolidation schedule appends enqueue jobs by
	// (default idle:10m).
	Schedule consolidate.Schedule
	// Rule groups messages into sessions (swc.DefaultSessionRule).
	Rule swc.SessionRule
	// MaxBody, MaxMessage, MaxBatch and MaxMessages bound requests (the
	// Default… values): MaxBody the body of a request to swc's own routes
	// (ProxyConfig.MaxBody a proxied one's), MaxMessage the content of a message appended or
	// stored by the proxy, MaxBatch an append's messages, MaxMessages any
	// request's (a proxied request's history included).
	MaxBody     int64
	MaxMessage  int
	MaxBatch    int
	MaxMessages int
	// Rate and Burst limit each key's requests (DefaultRate, DefaultBurst);
	// a negative Rate disables the limit. With RateBytes > 0 a request
	// with a body counts one per RateBytes bytes of it (at least one, at
	// most Burst), so that a key sending large bodies is limited by what
	// they cost.
	Rate      float64
	Burst     int
	RateBytes int64
	// Now is the clock (time.Now); the stateless compression's deadline
	// (ProxyConfig.CompressTimeout) counts from it too. Logger gets one line per request
	// (never a key or a tenant id).
	Now    func() time.Time
	Logger *slog.Logger
	// Registry receives the server's metrics; /metrics serves it. Add
	// other collectors (LLM tokens) to it.
	Registry *prometheus.Registry
	// Secure marks the /ui cookie Secure on every response. Without it the
	// cookie is Secure when the request came over TLS, to this server or
	// to a proxy of TrustedProxies that says so (X-Forwarded-Proto).
	Secure bool
	// TrustedProxies are the addresses whose X-Forwarded-Proto is
	// believed (ParseTrustedProxies).
	TrustedProxies []netip.Prefix
	// SessionSecret signs /ui session tokens; replicas behind one load
	// balancer need the same one. Empty: a random secret of this Server
	// (its sessions are valid on it only, until it restarts).
	SessionSecret []byte
	// SessionTTL is how long a /ui session lasts (DefaultSessionTTL).
	SessionTTL time.Duration
	// KeyCacheTTL is how long a valid key is remembered without asking
	// the store (DefaultKeyCacheTTL): a key revoked elsewhere (another
	// replica, swc keys revoke) stops working here within it; one revoked
	// through this server (DELETE /v1/keys/{id}) at once. Zero asks the
	// store on every request.
	KeyCacheTTL time.Duration
	// Proxy configures the compressing proxy routes (proxy.go).
	Proxy ProxyConfig
	// Ready are the checks of GET /readyz (the database, the queue); none:
	// always ready. GET /healthz is liveness and checks nothing.
	Ready []ReadyCheck

	once     sync.Once
	handler  http.Handler
	metrics  *metrics
	limitsMu sync.Mutex
	limits   map[string]*rate.Limiter
	keysMu   sync.Mutex
	keys     map[string]cachedKey // by key hash
	revoked  map[string]time.Time // key ids revoked here, refused until then
	proxy    *proxyState
	ready    readiness
	patterns []string // of the routes served (Routes)

	sessionOnce sync.Once
	secret      []byte
}

// New returns a server over store, memory (the read path and
// consolidation) and queue (consolidation jobs).
func New(store swc.Store, mem *sleep.Service, queue swc.Queue) *Server {
	return &Server{store: store, memory: mem, queue: queue,
		Schedule: consolidate.Schedule{Kind: consolidate.Idle, Window: 10 * time.Minute},
		Rule:     swc.DefaultSessionRule(),
		MaxBody:  DefaultMaxBody, MaxMessage: DefaultMaxMessage, MaxBatch: DefaultMaxBatch, MaxMessages: DefaultMaxMessages,
		Rate: DefaultRate, Burst: DefaultBurst, KeyCacheTTL: DefaultKeyCacheTTL,
		Registry: prometheus.NewRegistry(),
	}
}

func (s *Server) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

func (s *Server) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.Default()
	}
	return s.Logger
}

// Handler returns the server's routes. Issue 14's proxy routes are added
// the same way, in routes.
func (s *Server) Handler() http.Handler {
	s.once.Do(func() {
		s.metrics = newMetrics(s.Registry)
		s.handler = s.routes()
	})
	return s.handler
}

// HTTPServer returns an http.Server on addr with the service's timeouts.
func (s *Server) HTTPServer(addr string) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           s.Handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.logger().Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.Background() },
	}
}

func (s *Server) routes() http.Handler {
	mux := newRouteMux()
	api := func(pattern string, h func(w http.ResponseWriter, r *http.Request, tenant string)) {
		mux.Handle(pattern, s.observe(s.authed(h)))
	}
	api("POST /v1/conversations/{id}/messages", s.appendMessages)
	api("GET /v1/conversations/{id}/context", s.context)
	api("GET /v1/conversations", s.listConversations)
	api("GET /v1/conversations/{id}", s.getConversation)
	api("DELETE /v1/conversations/{id}", s.deleteConversation)
	api("POST /v1/conversations/{id}/consolidate", s.consolidate)
	api("GET /v1/keys", s.listKeys)
	api("DELETE /v1/keys/{id}", s.revokeKey)
	mux.Handle("GET /healthz", s.observe(http.HandlerFunc(s.healthz)))
	mux.Handle("GET /readyz", s.observe(http.HandlerFunc(s.readyz)))
	mux.Handle("GET /metrics", s.observe(s.metrics.handler(s.Registry)))
	s.uiRoutes(mux)
	s.proxyRoutes(mux)
	s.mcpRoutes(mux)
	mux.Handle("GET /openapi.json", s.observe(http.HandlerFunc(serveOpenAPI)))
	mux.Handle("/", s.observe(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if connectivityProbe(r) {
			writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
			return
		}
		writeError(w, http.StatusNotFound, "not_found", "no route "+r.Method+" "+r.URL.Path)
	})))
	s.patterns = mux.patterns
	return mux
}

// writeJSON writes v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// writeError writes {"error":{"code","message"}}.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	var b errorBody
	b.Error.Code, b.Error.Message = code, msg
	writeJSON(w, status, b)
}

// writeErr maps a swc error to its status: EINVALID 400, ENOTFOUND 404,
// EUNAVAILABLE 503 with Retry-After, anything else 500 (its message is logged, not shown).
func (s *Server) writeErr(w http.ResponseWriter, r *http.Request, err error) {
	switch code := swc.ErrorCode(err); code {
	case swc.EINVALID:
		writeError(w, http.StatusBadRequest, code, swc.ErrorMessage(err))
	case swc.ENOTFOUND:
		writeError(w, http.StatusNotFound, code, swc.ErrorMessage(err))
	case swc.EUNAVAILABLE:
		// The database or a provider is down for now: ask to retry soon.
		// The message says what (never where: no host, port or user);
		// the log has the driver's words.
		s.logger().Warn("request failed: unavailable", "route", r.Pattern, "err", err)
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, code, swc.ErrorMessage(err))
	default:
		if r.Context().Err() != nil {
			return // the client went away
		}
		s.logger().Error("request failed", "route", r.Pattern, "err", err)
		writeError(w, http.StatusInternalServerError, swc.EINTERNAL, "internal error")
	}
}
