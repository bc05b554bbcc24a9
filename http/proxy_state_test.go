package http_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/loadtest"
	"github.com/swcmem/swc/mock"
	"github.com/swcmem/swc/sleep"
)

// markGister makes gists a test can recognise.
func markGister() *mock.Gister {
	return &mock.Gister{ID: "mark", GistFn: func(_ context.Context, req swc.GistRequest) (string, error) {
		words := strings.Fields(req.Text)
		return "GIST-MADE-WHILE-IDLE " + strings.Join(words[:min(12, len(words))], " "), nil
	}}
}

func (e *proxyEnv) tenant(t *testing.T) string {
	t.Helper()
	tn, err := e.db.TenantByName(t.Context(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	return tn.ID
}

func TestProxyConversationStoresNewMessagesOnly(t *testing.T) {
	e := newProxyEnv(t)
	hist := loadtest.AgentHistory(200, 0)
	for i, msgs := range [][]swc.Message{hist, hist, append(hist[:len(hist):len(hist)], swc.Message{Role: swc.RoleUser, Content: "And one more thing about Rex."})} {
		resp := e.post(t, "/v1/chat/completions", openAIBody(t, msgs, ""), "X-SWC-Conversation: agent-1", "X-SWC-Budget: 3000")
		if got := readAll(t, resp); resp.StatusCode != 200 {
			t.Fatalf("request %d: %d %s", i, resp.StatusCode, got)
		}
	}
	info, err := e.db.Conversation(t.Context(), e.tenant(t), "agent-1")
	if err != nil {
		t.Fatal(err)
	}
	// The system prompt is the client's instruction, not history.
	if info.Messages != 201 {
		t.Errorf("stored %d messages; want 201 (200 of history + 1 new, resent ones skipped)", info.Messages)
	}
}

// TestProxyPrefixStable: once consolidated, consecutive requests of one
// conversation (each with one more message, within one epoch) send the
// same memory, rendered from the consolidation's gists, and the same
// messages before the new one, byte for byte.
func TestProxyPrefixStable(t *testing.T) {
	for _, proto := range []string{"openai", "anthropic"} {
		t.Run(proto, func(t *testing.T) {
			e := newProxyEnv(t, func(s *swchttp.Server, m *sleep.Service) {
				m.Gister = markGister()
				s.Proxy.Strategy = "swc-anchored" // the service's: the memory is rendered from its gists
			})
			path, body := "/v1/chat/completions", func(m []swc.Message) string { return openAIBody(t, m, `"temperature":0,`) }
			if proto == "anthropic" {
				path, body = "/v1/messages", func(m []swc.Message) string { return anthropicBody(t, m, "") }
			}
			hist := loadtest.AgentHistory(400, 0)
			send := func(msgs []swc.Message) ([]byte, string) {
				t.Helper()
				resp := e.post(t, path, body(msgs), "X-SWC-Conversation: agent-7", "X-SWC-Budget: 8000")
				if got := readAll(t, resp); resp.StatusCode != 200 {
					t.Fatalf("%d %s", resp.StatusCode, got)
				}
				b, _ := e.up.last(t)
				return b, resp.Header.Get(swchttp.HeaderMode)
			}
			if _, mode := send(hist); mode != "stored" {
				t.Errorf("before any consolidation: mode %q; want stored", mode)
			}
			if _, err := e.mem.Consolidate(t.Context(), e.tenant(t), "agent-7"); err != nil {
				t.Fatal(err)
			}
			more := func(k int) []swc.Message {
				out := append([]swc.Message(nil), hist...)
				for i := range k {
					role := swc.RoleUser
					if i%2 == 1 {
						role = swc.RoleAssistant
					}
					out = append(out, swc.Message{Role: role, Content: "Follow-up " + string(rune('A'+i)) + " about the Atlas budget."})
				}
				return out
			}
			a, modeA := send(more(1))
			b, modeB := send(more(2))
			c, modeC := send(more(3))
			if modeA != "prefix" || modeB != "prefix" || modeC != "prefix" {
				t.Fatalf("modes %q %q %q; want prefix", modeA, modeB, modeC)
			}
			for _, pair := range [][2][]byte{{a, b}, {b, c}} {
				x, y := fields(t, pair[0]), fields(t, pair[1])
				if !bytes.Equal(x["system"], y["system"]) {
					t.Errorf("system differs between consecutive requests")
				}
				var mx, my []json.RawMessage
				json.Unmarshal(x["messages"], &mx)
				json.Unmarshal(y["messages"], &my)
				if len(my) != len(mx)+1 {
					t.Fatalf("%d then %d messages; want one more", len(mx), len(my))
				}
				for i := range mx {
					if !bytes.Equal(mx[i], my[i]) {
						t.Fatalf("message %d differs between consecutive requests:\n%.200s\n%.200s", i, mx[i], my[i])
					}
				}
				// The request body itself: identical up to the new message.
				n := bytes.Index(pair[1], my[len(my)-1])
				if n < 0 || !bytes.Equal(pair[0][:n-1], pair[1][:n-1]) {
					t.Errorf("the bodies differ before the new message")
				}
			}
			if !bytes.Contains(a, []byte("GIST-MADE-WHILE-IDLE")) {
				t.Error("the memory does not use the gists consolidation made")
			}
			withinBudget(t, c, chat.Format(proto), 8000)
			// A new consolidation moves the memory forward.
			if _, err := e.mem.Consolidate(t.Context(), e.tenant(t), "agent-7"); err != nil {
				t.Fatal(err)
			}
			if _, mode := send(more(4)); mode != "prefix" {
				t.Errorf("after the second consolidation: mode %q", mode)
			}
		})
	}
}

func TestProxyFallback(t *testing.T) {
	for _, tc := range []struct {
		name   string
		emb    swc.Embedder
		reason string
	}{
		{"deadline", &mock.Embedder{EmbedFn: func(ctx context.Context, _ []string) ([][]float32, error) {
			<-ctx.Done() // waits for its deadline
			return nil, ctx.Err()
		}}, "deadline"},
		{"engine fails", &mock.Embedder{EmbedFn: func(context.Context, []string) ([][]float32, error) {
			return nil, errors.New("embeddings: 503 overloaded")
		}}, "engine"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newProxyEnv(t, func(s *swchttp.Server, _ *sleep.Service) {
				s.Proxy.Embedder, s.Proxy.CompressTimeout = tc.emb, 300*time.Millisecond
				s.Proxy.Strategy = "swc-anchored" // (swc-select embeds nothing)
			})
			start := time.Now()
			resp := e.post(t, "/v1/chat/completions", openAIBody(t, loadtest.AgentHistory(400, 0), ""), "X-SWC-Budget: 3000")
			if got := readAll(t, resp); resp.StatusCode != 200 {
				t.Fatalf("%d %s", resp.StatusCode, got)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v with a 300ms compress timeout", d)
			}
			if got := resp.Header.Get(swchttp.HeaderFallback); got != tc.reason {
				t.Errorf("%s = %q; want %q", swchttp.HeaderFallback, got, tc.reason)
			}
			body, _ := e.up.last(t)
			withinBudget(t, body, "openai", 3000)
			if !bytes.Contains(body, []byte("Earlier conversation, consolidated")) || bytes.Contains(body, []byte("overloaded")) {
				t.Error("the history is not the offline memory")
			}
			m, err := e.ts.Client().Get(e.ts.URL + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			if got := readAll(t, m); !strings.Contains(got, `swc_proxy_fallbacks_total{reason="`+tc.reason+`"} 1`) {
				t.Errorf("fallback not counted in /metrics")
			}
		})
	}
}
