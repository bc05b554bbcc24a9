package http_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/client"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/gist"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/jobs"
	"github.com/swcmem/swc/mock"
	"github.com/swcmem/swc/sleep"
	"github.com/swcmem/swc/sqlite"
)

type env struct {
	t      *testing.T
	db     *sqlite.DB
	srv    *swchttp.Server
	ts     *httptest.Server
	gister *mock.Gister // the extractive gister, counted
	fail   atomic.Int32 // gister calls to fail first
	mem    *sleep.Service
	queue  *jobs.Queue
	logs   *secretLog
}

// secretLog is the servers' debug log in a test, and what must never
// appear in it: keys, tenant ids and conversation ids.
type secretLog struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	secrets map[string]string // value → what it is
}

func (l *secretLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// secret notes a value the log must not show (ids shorter than 5
// characters are too likely to appear by chance, and are not noted).
func (l *secretLog) secret(what, v string) {
	if len(v) < 5 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.secrets[v] = what
}

// check fails t when the log shows a secret.
func (l *secretLog) check(t *testing.T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for v, what := range l.secrets {
		for _, line := range strings.Split(l.buf.String(), "\n") {
			if strings.Contains(line, v) {
				t.Errorf("the log shows a %s (%s): %s", what, v, line)
				break
			}
		}
	}
}

// conversationOf returns the conversation id a request names (in its path
// or X-SWC-Conversation), or "".
func conversationOf(r *http.Request) string {
	if c := r.Header.Get(swchttp.HeaderConversation); c != "" {
		return c
	}
	for _, p := range []string{"/v1/conversations/", "/ui/conversations/"} {
		if rest, ok := strings.CutPrefix(r.URL.Path, p); ok {
			id, _, _ := strings.Cut(rest, "/")
			return id
		}
	}
	return ""
}

type option func(*swchttp.Server, *sleep.Service)

func newEnv(t *testing.T, opts ...option) *env {
	t.Helper()
	ctx := context.Background()
	// Every test's server logs at debug level; no key, tenant id or
	// conversation id may appear there (checked last, when all is stopped).
	logs := &secretLog{secrets: map[string]string{}}
	t.Cleanup(func() { logs.check(t) })
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "swc.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := &env{t: t, db: db, logs: logs}
	extractive := gist.NewExtractive()
	g := &mock.Gister{ID: "counting", GistFn: func(ctx context.Context, req swc.GistRequest) (string, error) {
		if e.fail.Add(-1) >= 0 {
			return "", swc.Errorf(swc.EUNAVAILABLE, "provider overloaded")
		}
		return extractive.Gist(ctx, req)
	}}
	mem := &sleep.Service{Store: db, Gister: g, Fallback: gist.NewExtractive(),
		Strategy: "swc-anchored", Budget: 4000,
		Schedule: consolidate.Schedule{Kind: consolidate.Idle, Window: time.Hour}}
	pool, err := db.Pool(1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	q, err := jobs.Open(ctx, pool, adapter{mem}, jobs.Config{Workers: 2, PollInterval: 50 * time.Millisecond, MaxAttempts: 5, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		q.Stop(sctx)
	})
	srv := swchttp.New(db, mem, q)
	srv.Schedule, srv.Logger = mem.Schedule, logger
	for _, o := range opts {
		o(srv, mem)
	}
	h := srv.Handler()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		logs.secret("conversation id", conversationOf(r))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	e.srv, e.ts, e.gister, e.mem, e.queue = srv, ts, g, mem, q
	return e
}

type adapter struct{ m *sleep.Service }

func (a adapter) Due(ctx context.Context, tenant, conv string) (time.Duration, bool, error) {
	return a.m.Due(ctx, tenant, conv)
}

func (a adapter) Consolidate(ctx context.Context, tenant, conv string) (int, error) {
	out, err := a.m.Consolidate(ctx, tenant, conv)
	return out.Gists, err
}

// newKey makes a key for tenant, noted (with the tenant's id) as a secret
// of the log.
func (e *env) newKey(tenant string) string {
	e.t.Helper()
	key, k, err := swchttp.CreateKey(context.Background(), e.db, tenant)
	if err != nil {
		e.t.Fatal(err)
	}
	e.logs.secret("key", key)
	e.logs.secret("tenant id", k.TenantID)
	return key
}

// client makes a key for tenant and returns a client using it.
func (e *env) client(tenant string) *client.Client {
	e.t.Helper()
	key := e.newKey(tenant)
	c := client.New(e.ts.URL, key)
	c.HTTPClient = e.ts.Client()
	return c
}

var t0 = time.Date(2025, 5, 1, 9, 0, 0, 0, time.UTC)

// sessions returns n sessions of LoCoMo-like messages, each a day apart.
func sessions(n, per int) []swc.Message {
	var out []swc.Message
	topics := []string{
		"I adopted a dog named Rex from the shelter on Saturday.",
		"My sister Ana moved to Lisbon in 2022 and works as a nurse.",
		"We planned a hiking trip to Yosemite for next month.",
		"I finished reading Dune last week and loved the desert scenes.",
		"The marathon in Boston is on 21 April; I trained for 16 weeks.",
		"My manager approved the budget of 40,000 dollars for the project.",
	}
	for s := range n {
		for i := range per {
			who, role := "Maya", swc.RoleUser
			if i%2 == 1 {
				who, role = "Leo", swc.RoleAssistant
			}
			out = append(out, swc.Message{
				ID: idOf(s, i), Role: role, Name: who,
				Content: topics[(s+i)%len(topics)] + " That matters to me.",
				Time:    t0.Add(time.Duration(s)*24*time.Hour + time.Duration(i)*time.Minute),
			})
		}
	}
	return out
}

func idOf(s, i int) string { return "s" + itoa(s) + "-" + itoa(i) }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

// waitFor polls cond until it holds or 20s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}
