package agents

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/gist"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/jobs"
	"github.com/swcmem/swc/sleep"
	"github.com/swcmem/swc/sqlite"
)

// proxy is swc serve's proxy, in-process, in front of an Upstream: it
// records every request an agent sends and what swc answered.
type proxy struct {
	URL, Key string
	mu       sync.Mutex
	reqs     []*sent
}

// sent is one request of the agent and swc's answer.
type sent struct {
	path          string
	body          []byte
	status        int
	before, after int    // X-SWC-Tokens-Before/After
	mode          string // X-SWC-Mode
	over          string // X-SWC-Over-Budget
	tools         int    // X-SWC-Tool-Tokens
	recalls       int    // X-SWC-Recall: swc_recall calls swc answered for it
	errBody       string // the start of a 4xx/5xx answer
}

// upstreams says where swc's proxy sends each provider's requests; a nil
// one leaves that route unset.
type upstreams struct{ Anthropic, OpenAI, Gemini *Upstream }

// every points every provider's route at up.
func every(up *Upstream) upstreams { return upstreams{up, up, up} }

// startProxy starts swc's service with its proxy pointed at ups and
// budget as the default budget, each of opts then setting the proxy's
// configuration, and returns it with a key.
func startProxy(t *testing.T, ups upstreams, budget int, opts ...func(*swchttp.ProxyConfig)) *proxy {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "swc.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	sched := consolidate.Schedule{Kind: consolidate.Idle, Window: time.Hour}
	mem := &sleep.Service{Store: db, Gister: gist.NewExtractive(), Fallback: gist.NewExtractive(),
		Strategy: "swc-anchored", Budget: budget, Schedule: sched}
	pool, err := db.Pool(1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	q, err := jobs.Open(ctx, pool, consolidator{mem}, jobs.Config{Workers: 1, PollInterval: 50 * time.Millisecond, MaxAttempts: 3, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		q.Stop(sctx)
	})
	srv := swchttp.New(db, mem, q)
	srv.Schedule, srv.Logger, srv.Rate = sched, logger, -1
	if ups.OpenAI != nil {
		srv.Proxy.OpenAI = swchttp.Upstream{URL: ups.OpenAI.URL + "/v1", Key: "sk-upstream-openai"}
	}
	if ups.Anthropic != nil {
		srv.Proxy.Anthropic = swchttp.Upstream{URL: ups.Anthropic.URL, Key: "sk-upstream-anthropic"}
	}
	srv.Proxy.Budget = budget
	for _, o := range opts {
		o(&srv.Proxy)
	}
	// The Gemini route, in a build of swc that has it (Proxy.Gemini):
	// without it the Gemini CLI's requests meet swc's 404.
	if f, ok := geminiUpstream(&srv.Proxy); ok && ups.Gemini != nil {
		f.Set(reflect.ValueOf(swchttp.Upstream{URL: ups.Gemini.URL, Key: GeminiKey}))
	}
	key, _, err := swchttp.CreateKey(ctx, db, "agents")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{Key: key}
	h := srv.Handler()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s := &sent{path: r.Method + " " + r.URL.Path, body: body}
		p.mu.Lock()
		p.reqs = append(p.reqs, s)
		seq := len(p.reqs)
		p.mu.Unlock()
		r.Header.Set(HeaderSeq, strconv.Itoa(seq))
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		rw := &recorder{ResponseWriter: w, s: s, p: p}
		h.ServeHTTP(rw, r)
	}))
	t.Cleanup(ts.Close)
	p.URL = ts.URL
	for _, up := range []*Upstream{ups.Anthropic, ups.OpenAI, ups.Gemini} {
		if up == nil {
			continue
		}
		up.Original = p.original
		up.RecallTools = map[string]string{}
		for _, f := range []string{"anthropic", "openai", "responses", "gemini"} {
			up.RecallTools[f] = swchttp.RecallTool(f)
		}
	}
	return p
}

// geminiUpstream returns the Gemini upstream setting of a proxy
// configuration, and whether this build of swc has one.
func geminiUpstream(c *swchttp.ProxyConfig) (reflect.Value, bool) {
	f := reflect.ValueOf(c).Elem().FieldByName("Gemini")
	return f, f.IsValid() && f.Type() == reflect.TypeFor[swchttp.Upstream]()
}

// original returns the body of the agent's request number seq.
func (p *proxy) original(seq string) []byte {
	n, err := strconv.Atoi(seq)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil || n < 1 || n > len(p.reqs) {
		return nil
	}
	return p.reqs[n-1].body
}

func (p *proxy) requests() []sent {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]sent, len(p.reqs))
	for i, s := range p.reqs {
		out[i] = *s
	}
	return out
}

// recorder notes swc's status, headers and the start of an error body.
type recorder struct {
	http.ResponseWriter
	s     *sent
	p     *proxy
	wrote bool
}

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.wrote = true
		h := r.Header()
		r.p.mu.Lock()
		r.s.status = code
		r.s.before, _ = strconv.Atoi(h.Get(swchttp.HeaderTokensBefore))
		r.s.after, _ = strconv.Atoi(h.Get(swchttp.HeaderTokensAfter))
		r.s.mode = h.Get(swchttp.HeaderMode)
		if why := h.Get("X-SWC-Passthrough"); why != "" {
			r.s.mode += ": " + why
		}
		r.s.over = h.Get("X-SWC-Over-Budget")
		r.s.tools, _ = strconv.Atoi(h.Get(swchttp.HeaderToolTokens))
		r.s.recalls, _ = strconv.Atoi(h.Get(swchttp.HeaderRecall))
		r.p.mu.Unlock()
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.wrote {
		r.WriteHeader(http.StatusOK)
	}
	r.p.mu.Lock()
	if r.s.status >= 400 && len(r.s.errBody) < 600 {
		r.s.errBody += string(b[:min(len(b), 600-len(r.s.errBody))])
	}
	r.p.mu.Unlock()
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

type consolidator struct{ m *sleep.Service }

func (a consolidator) Due(ctx context.Context, tenant, conv string) (time.Duration, bool, error) {
	return a.m.Due(ctx, tenant, conv)
}

func (a consolidator) Consolidate(ctx context.Context, tenant, conv string) (int, error) {
	out, err := a.m.Consolidate(ctx, tenant, conv)
	return out.Gists, err
}
