package http_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/gist"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/internal/locomotest"
	"github.com/swcmem/swc/internal/transcript"
	"github.com/swcmem/swc/postgres"
	"github.com/swcmem/swc/postgres/pgtest"
	"github.com/swcmem/swc/sleep"
	"github.com/swcmem/swc/sqlite"
)

// The live-agent tests: what agents really send, turn by turn, checked
// on the wire against both stores.

// noQueue is a swc.Queue that enqueues nothing: these tests read what
// appends stored, not what consolidation made of it.
type noQueue struct{}

func (noQueue) Enqueue(context.Context, string, string, time.Time) error      { return nil }
func (noQueue) ConsolidateNow(context.Context, string, string) (int64, error) { return 0, nil }
func (noQueue) Pending(context.Context, string, string) ([]swc.Job, error)    { return nil, nil }

// liveEnv is a server over one store (sqlite, or postgres when
// $SWC_TEST_POSTGRES is set; replicas > 1 makes that many servers over one
// database) with a key of tenant "agent".
type liveEnv struct {
	t       *testing.T
	store   swc.Store
	urls    []string
	servers []*swchttp.Server
	key     string
	tenant  string
	client  *http.Client
}

func newLiveEnv(t *testing.T, backend string, replicas int, opts ...option) *liveEnv {
	t.Helper()
	ctx := context.Background()
	e := &liveEnv{t: t}
	var open func() swc.Store
	switch backend {
	case "sqlite":
		path := filepath.Join(t.TempDir(), "swc.db")
		open = func() swc.Store {
			db, err := sqlite.Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		}
	case "postgres":
		dsn := pgtest.Schema(t)
		open = func() swc.Store {
			db, err := postgres.Open(ctx, dsn, postgres.Config{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		}
	default:
		t.Fatalf("unknown backend %q", backend)
	}
	for r := range max(replicas, 1) {
		st := open()
		if r == 0 {
			e.store = st
		}
		mem := &sleep.Service{Store: st, Gister: gist.NewExtractive(), Fallback: gist.NewExtractive(), Budget: 1000}
		srv := swchttp.New(st, mem, noQueue{})
		srv.Rate = -1
		for _, o := range opts {
			o(srv, mem)
		}
		ts := httptest.NewServer(srv.Handler())
		t.Cleanup(ts.Close)
		e.urls = append(e.urls, ts.URL)
		e.servers = append(e.servers, srv)
		e.client = ts.Client()
	}
	key, k, err := swchttp.CreateKey(ctx, e.store, "agent")
	if err != nil {
		t.Fatal(err)
	}
	e.key, e.tenant = key, k.TenantID
	return e
}

// backends runs f over sqlite and, when a test server is configured,
// postgres.
func backends(t *testing.T, f func(t *testing.T, backend string)) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) {
			if b == "postgres" {
				pgtest.DSN(t)
			}
			f(t, b)
		})
	}
}

func (e *liveEnv) do(replica int, method, path string, body []byte) (int, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.urls[replica%len(e.urls)]+path, bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// appendWire posts wire messages to conv's append route.
func (e *liveEnv) appendWire(replica int, conv string, wire []json.RawMessage) (int, []byte) {
	body, err := json.Marshal(map[string]any{"messages": wire})
	if err != nil {
		e.t.Fatal(err)
	}
	return e.do(replica, http.MethodPost, "/v1/conversations/"+conv+"/messages", body)
}

// checkReads reads conv's context in every format at budget and returns
// an error naming the first read that fails or serves a list a provider
// would reject.
func (e *liveEnv) checkReads(conv string, budget int) error {
	for _, f := range []string{"text", "openai", "anthropic"} {
		code, body := e.do(0, http.MethodGet, fmt.Sprintf("/v1/conversations/%s/context?format=%s&budget=%d", conv, f, budget), nil)
		if code != http.StatusOK {
			return fmt.Errorf("format=%s: %d %s", f, code, body)
		}
		var res struct {
			Text     string          `json:"text"`
			System   string          `json:"system"`
			Messages json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(body, &res); err != nil {
			return fmt.Errorf("format=%s: %v", f, err)
		}
		switch f {
		case "openai":
			var msgs []chat.OpenAIMessage
			if err := json.Unmarshal(res.Messages, &msgs); err != nil {
				return fmt.Errorf("format=openai: %v", err)
			}
			if err := chat.CheckOpenAI(msgs); err != nil {
				return fmt.Errorf("format=openai serves a list the API rejects: %v", err)
			}
		case "anthropic":
			var msgs []chat.AnthropicMessage
			if err := json.Unmarshal(res.Messages, &msgs); err != nil {
				return fmt.Errorf("format=anthropic: %v", err)
			}
			if len(msgs) > 0 {
				if err := chat.CheckAnthropic(chat.AnthropicRequest{System: res.System, Messages: msgs}); err != nil {
					return fmt.Errorf("format=anthropic serves a list the API rejects: %v", err)
				}
			}
		}
	}
	return nil
}

// sameMessages returns an error naming the first difference between
// what is stored and want (role, content, tool calls and the call each
// result answers, in order).
func sameMessages(got []swc.StoredMessage, want []swc.Message) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d messages stored, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i].Message
		if g.Role != w.Role || g.Content != w.Content || g.ToolCallID != w.ToolCallID || len(g.ToolCalls) != len(w.ToolCalls) {
			return fmt.Errorf("message %d: stored %s %q (answers %q, %d calls), want %s %q (answers %q, %d calls)",
				i, g.Role, trim(g.Content), g.ToolCallID, len(g.ToolCalls), w.Role, trim(w.Content), w.ToolCallID, len(w.ToolCalls))
		}
		for k := range w.ToolCalls {
			if g.ToolCalls[k] != w.ToolCalls[k] {
				return fmt.Errorf("message %d: call %d stored %+v, want %+v", i, k, g.ToolCalls[k], w.ToolCalls[k])
			}
		}
	}
	return nil
}

func trim(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// splits returns the transcript's wire messages cut into batches of 1 to
// maxBatch, at random.
func splits(rng *rand.Rand, n, maxBatch int) [][2]int {
	var out [][2]int
	for i := 0; i < n; {
		k := min(1+rng.IntN(maxBatch), n-i)
		out = append(out, [2]int{i, i + k})
		i += k
	}
	return out
}

// agentTranscript returns conversation conv of LoCoMo (the first sessions
// only, when sessions > 0) as an agent transcript.
func agentTranscript(t *testing.T, conv, sessions int, o transcript.Options) *transcript.Transcript {
	t.Helper()
	convs := locomotest.Load(t)
	c := convs[conv%len(convs)]
	if sessions > 0 {
		c = c.Upto(sessions)
	}
	tr, err := transcript.Agent(c, o)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestLiveAppendSplits is the append invariant, property-tested: random
// splits of LoCoMo agent transcripts (both shapes, batches of 1–50, with
// and without ids and timestamps, call ids unique or "call_0" every
// turn) store exactly the transcript — same count, order and pairs — and
// every read format serves the conversation after every append.
func TestLiveAppendSplits(t *testing.T) {
	backends(t, func(t *testing.T, backend string) {
		e := newLiveEnv(t, backend, 1)
		rng := rand.New(rand.NewPCG(22, 1))
		n := 0
		for _, anth := range []bool{false, true} {
			for _, ids := range []bool{false, true} {
				for _, stamps := range []bool{false, true} {
					for _, reuse := range []bool{false, true} {
						o := transcript.Options{Anthropic: anth, IDs: ids, Timestamps: stamps, ReuseCallIDs: reuse}
						tr := agentTranscript(t, n, 0, o)
						conv := fmt.Sprintf("split-%d", n)
						n++
						name := fmt.Sprintf("anthropic=%v ids=%v timestamps=%v call_0=%v", anth, ids, stamps, reuse)
						rejected, appends := 0, 0
						var firstErr string
						for _, b := range splits(rng, len(tr.Wire), 50) {
							appends++
							code, body := e.appendWire(0, conv, tr.Wire[b[0]:b[1]])
							if code != http.StatusCreated {
								rejected++
								if firstErr == "" {
									firstErr = fmt.Sprintf("batch [%d,%d): %d %s", b[0], b[1], code, strings.TrimSpace(string(body)))
								}
								continue
							}
							if err := e.checkReads(conv, 1500); err != nil {
								t.Errorf("%s: after batch [%d,%d): %v", name, b[0], b[1], err)
								break
							}
						}
						got, _ := e.store.Messages(context.Background(), e.tenant, conv)
						if rejected > 0 {
							t.Errorf("%s: %d of %d appends rejected, %d of %d messages stored; first: %s", name, rejected, appends, len(got), len(tr.Messages), firstErr)
							continue
						}
						if err := sameMessages(got, tr.Messages); err != nil {
							t.Errorf("%s: %v", name, err)
						}
					}
				}
			}
		}
	})
}

// TestLiveAppendOneByOne appends LoCoMo agent transcripts one wire
// message per request, as a live agent does (both shapes; with and without
// timestamps; "call_0" every turn): the whole transcript, then its first
// three sessions with every read format checked after every append.
func TestLiveAppendOneByOne(t *testing.T) {
	backends(t, func(t *testing.T, backend string) {
		e := newLiveEnv(t, backend, 1)
		for k, tc := range []struct {
			anth, stamps bool
			sessions     int
		}{{false, false, 0}, {true, false, 0}, {false, true, 3}, {true, true, 3}, {false, false, 3}, {true, false, 3}} {
			o := transcript.Options{Anthropic: tc.anth, Timestamps: tc.stamps, ReuseCallIDs: true}
			tr := agentTranscript(t, 0, tc.sessions, o)
			conv := fmt.Sprintf("one-%d", k)
			name := fmt.Sprintf("anthropic=%v timestamps=%v sessions=%d", tc.anth, tc.stamps, tc.sessions)
			rejected := 0
			var firstErr string
			for i := range tr.Wire {
				code, body := e.appendWire(0, conv, tr.Wire[i:i+1])
				if code != http.StatusCreated {
					rejected++
					if firstErr == "" {
						firstErr = fmt.Sprintf("message %d: %d %s", i, code, strings.TrimSpace(string(body)))
					}
					continue
				}
				if tc.sessions > 0 {
					if err := e.checkReads(conv, 1500); err != nil {
						t.Fatalf("%s: after message %d: %v", name, i, err)
					}
				}
			}
			got, _ := e.store.Messages(context.Background(), e.tenant, conv)
			t.Logf("%s: %d of %d wire messages rejected; %d of %d messages stored", name, rejected, len(tr.Wire), len(got), len(tr.Messages))
			if rejected > 0 {
				t.Errorf("%s: %d of %d rejected (first: %s)", name, rejected, len(tr.Wire), firstErr)
			}
			if err := sameMessages(got, tr.Messages); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			if err := e.checkReads(conv, 1500); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	})
}

// TestLiveAppendRace has 8 clients append 25 untimed messages each to one
// conversation at once (with two Postgres replicas over one database):
// none may be rejected.
func TestLiveAppendRace(t *testing.T) {
	backends(t, func(t *testing.T, backend string) {
		replicas := 1
		if backend == "postgres" {
			replicas = 2
		}
		e := newLiveEnv(t, backend, replicas)
		const clients, each = 8, 25
		var mu sync.Mutex
		rejected := 0
		var first string
		var wg sync.WaitGroup
		for c := range clients {
			wg.Go(func() {
				for i := range each {
					m, _ := json.Marshal(map[string]string{"role": "user", "content": fmt.Sprintf("client %d message %d", c, i)})
					code, body := e.appendWire(c, "race", []json.RawMessage{m})
					if code != http.StatusCreated {
						mu.Lock()
						rejected++
						if first == "" {
							first = fmt.Sprintf("%d %s", code, strings.TrimSpace(string(body)))
						}
						mu.Unlock()
					}
				}
			})
		}
		wg.Wait()
		got, _ := e.store.Messages(context.Background(), e.tenant, "race")
		t.Logf("%d of %d appends rejected; %d stored", rejected, clients*each, len(got))
		if rejected > 0 || len(got) != clients*each {
			t.Fatalf("%d of %d appends rejected (first: %s); %d of %d stored", rejected, clients*each, first, len(got), clients*each)
		}
	})
}

// TestLiveAppendErrorsNameTheMessage: an error names the caller's own
// message and block, in Anthropic's shape too, where one message becomes
// several (its tool_result blocks).
func TestLiveAppendErrorsNameTheMessage(t *testing.T) {
	e := newLiveEnv(t, "sqlite", 1)
	tr := agentTranscript(t, 0, 0, transcript.Options{Anthropic: true, Timestamps: true})
	wire := append([]json.RawMessage(nil), tr.Wire[:50]...)
	// Wire message 40 goes back a day.
	var obj map[string]any
	json.Unmarshal(wire[40], &obj)
	ts, _ := time.Parse(time.RFC3339, obj["timestamp"].(string))
	obj["timestamp"] = ts.Add(-24 * time.Hour).Format(time.RFC3339)
	wire[40], _ = json.Marshal(obj)
	code, body := e.appendWire(0, "errs", wire)
	if code != http.StatusBadRequest || !strings.Contains(string(body), `messages[40].timestamp`) {
		t.Errorf("a time going backwards at wire message 40: %d %s", code, body)
	}
	// A tool_result answering no call, in a message of its own.
	res, _ := json.Marshal(map[string]any{"role": "user", "content": []map[string]any{{"type": "text", "text": "hi"}}})
	orphan, _ := json.Marshal(map[string]any{"role": "user", "content": []map[string]any{{"type": "tool_result", "tool_use_id": "toolu_x", "content": "r"}}})
	code, body = e.appendWire(0, "errs2", []json.RawMessage{res, res, orphan})
	if code != http.StatusBadRequest || !strings.Contains(string(body), `messages[2].content[0].tool_use_id: \"toolu_x\"`) {
		t.Errorf("an orphan tool_result at messages[2].content[0]: %d %s", code, body)
	}
}
