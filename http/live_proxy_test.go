package http_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	oaoption "github.com/openai/openai-go/v3/option"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/internal/transcript"
	"github.com/swcmem/swc/sleep"
)

// The proxy's stored mode as live agents use it: official SDK clients,
// no timestamps, histories that grow, get edited and race.

// withUpstream points the proxy of a live env at a fake upstream and
// fixes the server's clock at now.
func withUpstream(t *testing.T, now time.Time) option {
	up := newUpstream(t)
	return func(s *swchttp.Server, m *sleep.Service) {
		s.Proxy.OpenAI = swchttp.Upstream{URL: up.ts.URL + "/v1", Key: "sk-up"}
		s.Proxy.Anthropic = swchttp.Upstream{URL: up.ts.URL, Key: "sk-up"}
		s.Now = func() time.Time { return now }
	}
}

var liveNow = time.Date(2026, 12, 1, 19, 52, 0, 0, time.UTC)

// conversation returns the stored live messages of conv.
func (e *liveEnv) conversation(conv string) []swc.StoredMessage {
	e.t.Helper()
	ms, err := e.store.Messages(context.Background(), e.tenant, conv)
	if err != nil {
		e.t.Fatal(err)
	}
	return ms
}

// history returns what chat reads of wire messages in format f, without
// the instructions (the proxy stores the conversation, not them).
func history(t *testing.T, wire []json.RawMessage, f chat.Format) []swc.Message {
	t.Helper()
	arr, _ := json.Marshal(wire)
	in, err := chat.ParseBatch(arr, f) // a prefix may end on a call
	if err != nil {
		t.Fatal(err)
	}
	var out []swc.Message
	for _, m := range in.Messages {
		if !chat.IsInstruction(m) {
			out = append(out, m)
		}
	}
	return out
}

// askPoints returns the lengths of the histories an agent sends: every
// prefix ending on a user message or on the last result of a call.
func askPoints(msgs []swc.Message) []int {
	var out []int
	for k := 1; k <= len(msgs); k++ {
		m := msgs[k-1]
		next := swc.RoleUser
		if k < len(msgs) {
			next = msgs[k].Role
		}
		if (m.Role == swc.RoleUser || m.Role == swc.RoleTool) && next != swc.RoleTool {
			out = append(out, k)
		}
	}
	return out
}

// TestLiveProxySDKReplay replays a LoCoMo agent transcript through the
// proxy with the official openai-go and anthropic-sdk-go clients, as an
// agent sends it: no timestamps, call ids "call_0" every turn, the whole
// history each request, one more turn each time. After every request the
// stored conversation is exactly the history sent, and every read format
// serves it.
func TestLiveProxySDKReplay(t *testing.T) {
	for _, anth := range []bool{false, true} {
		t.Run(map[bool]string{false: "openai", true: "anthropic"}[anth], func(t *testing.T) {
			e := newLiveEnv(t, "sqlite", 1, withUpstream(t, liveNow))
			tr := agentTranscript(t, 0, 3, transcript.Options{Anthropic: anth, ReuseCallIDs: true})
			f := chat.OpenAI
			if anth {
				f = chat.Anthropic
			}
			oa := openai.NewClient(oaoption.WithBaseURL(e.urls[0]+"/v1"), oaoption.WithAPIKey(e.key), oaoption.WithMaxRetries(0),
				oaoption.WithHeader(swchttp.HeaderConversation, "replay"), oaoption.WithHeader(swchttp.HeaderBudget, "1500"))
			an := anthropic.NewClient(anthropicoption.WithBaseURL(e.urls[0]), anthropicoption.WithAPIKey(e.key), anthropicoption.WithMaxRetries(0),
				anthropicoption.WithHeader(swchttp.HeaderConversation, "replay"), anthropicoption.WithHeader(swchttp.HeaderBudget, "1500"))
			// Wire message i ends at parsed conversation message ends[i].
			var ends []int
			for i := range tr.Wire {
				ends = append(ends, len(history(t, tr.Wire[:i+1], f)))
			}
			all := history(t, tr.Wire, f)
			requests := 0
			for _, k := range askPoints(all) {
				w := 0 // wire messages holding the first k
				for w < len(ends) && ends[w] < k {
					w++
				}
				if w == len(ends) || ends[w] != k {
					continue // k falls inside a merged Anthropic message
				}
				wire := tr.Wire[:w+1]
				var err error
				if anth {
					var params anthropic.MessageNewParams
					b, _ := json.Marshal(wire)
					if err = json.Unmarshal(b, &params.Messages); err != nil {
						t.Fatal(err)
					}
					params.Model, params.MaxTokens = "claude-haiku-4-5", 256
					_, err = an.Messages.New(t.Context(), params)
				} else {
					var msgs []openai.ChatCompletionMessageParamUnion
					b, _ := json.Marshal(wire)
					if err = json.Unmarshal(b, &msgs); err != nil {
						t.Fatal(err)
					}
					_, err = oa.Chat.Completions.New(t.Context(), openai.ChatCompletionNewParams{Model: "gpt-4o", Messages: msgs})
				}
				if err != nil {
					t.Fatalf("request with %d messages: %v", k, err)
				}
				requests++
				if err := sameMessages(e.conversation("replay"), all[:k]); err != nil {
					t.Fatalf("after the request with %d messages: %v", k, err)
				}
				if err := e.checkReads("replay", 1500); err != nil {
					t.Fatalf("after the request with %d messages: %v", k, err)
				}
			}
			stored := e.conversation("replay")
			t.Logf("%d requests; %d messages stored, %d in the transcript's conversation", requests, len(stored), len(all))
			// The first request's history came in bulk: undated; every
			// later one is the live tail.
			if !stored[0].Time.IsZero() || !stored[len(stored)-1].Stamped {
				t.Errorf("first message at %v, last %+v", stored[0].Time, stored[len(stored)-1])
			}
		})
	}
}

// proxied sends one OpenAI request of msgs for conversation conv and
// returns its status.
func (e *liveEnv) proxied(replica int, conv string, msgs []swc.Message) (int, string) {
	e.t.Helper()
	b, _ := json.Marshal(chat.OpenAIMessages(msgs))
	req, _ := http.NewRequest(http.MethodPost, e.urls[replica%len(e.urls)]+"/v1/chat/completions",
		strings.NewReader(`{"model":"gpt-4o","messages":`+string(b)+`}`))
	req.Header.Set("Authorization", "Bearer "+e.key)
	req.Header.Set(swchttp.HeaderConversation, conv)
	resp, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var sb strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, sb.String()
}

// TestLiveProxyFirstSight: the first proxied request of a conversation
// that began elsewhere (its whole 2023 history, no timestamps) is stored
// undated: the memory reads "date unknown", never today's date.
func TestLiveProxyFirstSight(t *testing.T) {
	backends(t, func(t *testing.T, backend string) {
		e := newLiveEnv(t, backend, 1, withUpstream(t, liveNow))
		in := agentTranscript(t, 0, 0, transcript.Options{ReuseCallIDs: true})
		if code, body := e.proxied(0, "old", in.Messages); code != http.StatusOK {
			t.Fatalf("%d %s", code, body)
		}
		_, body := e.do(0, http.MethodGet, "/v1/conversations/old/context?budget=1500", nil)
		var res struct{ Text string }
		json.Unmarshal(body, &res)
		today := liveNow.Format("2 January, 2006")
		if strings.Contains(res.Text, today) || strings.Contains(res.Text, "2026") || !strings.Contains(res.Text, "date unknown") {
			t.Fatalf("the memory of an untimed 2023 history dates it (today is %s):\n%.600s", today, res.Text)
		}
	})
}

// TestLiveProxyEdit: an agent clears an old tool result and sends one
// more message (Anthropic context editing does this): the stored
// conversation follows the request — the tail from the edit superseded,
// nothing stored twice — and every read format serves it.
func TestLiveProxyEdit(t *testing.T) {
	backends(t, func(t *testing.T, backend string) {
		e := newLiveEnv(t, backend, 1, withUpstream(t, liveNow))
		in := agentTranscript(t, 0, 0, transcript.Options{ReuseCallIDs: true})
		msgs := in.Messages
		if code, body := e.proxied(0, "edit", msgs); code != http.StatusOK {
			t.Fatalf("%d %s", code, body)
		}
		before := len(e.conversation("edit"))
		edited := append([]swc.Message(nil), msgs...)
		cleared := 0
		for i, m := range edited {
			if m.Role == swc.RoleTool && cleared < 3 {
				edited[i].Content = "[tool result cleared]"
				cleared++
			}
		}
		edited = append(edited, swc.Message{Role: swc.RoleUser, Content: "What did we talk about first?"})
		if code, body := e.proxied(0, "edit", edited); code != http.StatusOK {
			t.Fatalf("%d %s", code, body)
		}
		after := e.conversation("edit")
		t.Logf("%d messages stored before the edit, %d after (the request holds %d)", before, len(after), len(edited)-1)
		if err := sameMessages(after, edited[1:]); err != nil { // the system prompt is the client's
			t.Fatal(err)
		}
		if err := e.checkReads("edit", 1500); err != nil {
			t.Fatal(err)
		}
		info, _ := e.store.Conversation(context.Background(), e.tenant, "edit")
		if info.Superseded == 0 || info.Edits != 1 {
			t.Errorf("conversation %+v: want a superseded tail", info)
		}
	})
}

// TestLiveProxyRegenerate: clients of one conversation send requests that
// differ in their last turns at once (regenerate, parallel samples), on
// two replicas with Postgres: every request is answered, the conversation
// is readable after each, and it ends as one of the requests.
func TestLiveProxyRegenerate(t *testing.T) {
	backends(t, func(t *testing.T, backend string) {
		replicas := 1
		if backend == "postgres" {
			replicas = 2
		}
		e := newLiveEnv(t, backend, replicas, withUpstream(t, liveNow))
		in := agentTranscript(t, 0, 2, transcript.Options{ReuseCallIDs: true})
		base := in.Messages
		if code, body := e.proxied(0, "regen", base); code != http.StatusOK {
			t.Fatalf("%d %s", code, body)
		}
		const clients, each = 6, 8
		var wg sync.WaitGroup
		var mu sync.Mutex
		var failures []string
		for c := range clients {
			wg.Go(func() {
				for i := range each {
					msgs := append(append([]swc.Message(nil), base...),
						swc.Message{Role: swc.RoleAssistant, Content: fmt.Sprintf("sample %d of client %d", i, c)},
						swc.Message{Role: swc.RoleUser, Content: "and then?"})
					code, body := e.proxied(c, "regen", msgs)
					err := e.checkReads("regen", 1500)
					if code != http.StatusOK || err != nil {
						mu.Lock()
						failures = append(failures, fmt.Sprintf("client %d: %d %.200s; reads: %v", c, code, body, err))
						mu.Unlock()
					}
				}
			})
		}
		wg.Wait()
		if len(failures) > 0 {
			t.Fatalf("%d of %d requests failed; first: %s", len(failures), clients*each, failures[0])
		}
		got := e.conversation("regen")
		if len(got) != len(base)-1+2 || !strings.HasPrefix(got[len(got)-2].Content, "sample ") {
			t.Fatalf("%d messages stored, want %d ending with one sample", len(got), len(base)+1)
		}
		info, _ := e.store.Conversation(context.Background(), e.tenant, "regen")
		t.Logf("%d edits, %d messages superseded", info.Edits, info.Superseded)
	})
}

// countingStore counts the reads of whole conversations.
type countingStore struct {
	swc.Store
	mu    sync.Mutex
	reads int
}

func (c *countingStore) Messages(ctx context.Context, tenant, conv string) ([]swc.StoredMessage, error) {
	c.mu.Lock()
	c.reads++
	c.mu.Unlock()
	return c.Store.Messages(ctx, tenant, conv)
}

// TestLiveProxyReadsOnlyWhatChanged: a proxied request that goes on from
// the stored conversation reads none of its stored messages (the head of
// the content chain says where it parts); an edit reads their hashes in
// the append's transaction, not the conversation.
func TestLiveProxyReadsOnlyWhatChanged(t *testing.T) {
	backends(t, func(t *testing.T, backend string) {
		e := newLiveEnv(t, backend, 1, withUpstream(t, liveNow))
		cs := &countingStore{Store: e.store}
		srv := swchttp.New(cs, &sleep.Service{Store: cs}, noQueue{})
		srv.Rate, srv.Proxy = -1, e.servers[0].Proxy
		ts := httptest.NewServer(srv.Handler())
		t.Cleanup(ts.Close)
		e.urls = []string{ts.URL}
		in := agentTranscript(t, 0, 0, transcript.Options{ReuseCallIDs: true})
		msgs := in.Messages
		points := askPoints(msgs)
		for _, k := range points[len(points)-40:] {
			if code, body := e.proxied(0, "reads", msgs[:k]); code != http.StatusOK {
				t.Fatalf("%d %s", code, body)
			}
		}
		edited := append([]swc.Message(nil), msgs...)
		edited[5].Content = "[cleared]"
		if code, body := e.proxied(0, "reads", edited); code != http.StatusOK {
			t.Fatalf("%d %s", code, body)
		}
		t.Logf("40 requests and an edit read %d whole conversations", cs.reads)
		if cs.reads != 0 {
			t.Fatalf("the proxy read the stored conversation %d times", cs.reads)
		}
		if got := e.conversation("reads"); len(got) != len(msgs)-1 {
			t.Fatalf("%d stored, want %d", len(got), len(msgs)-1)
		}
	})
}
