package http_test

import (
	"bytes"
	"encoding/json"
	"github.com/swcmem/swc/internal/locomotest"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/swcmem/swc/chat"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/internal/transcript"
	"github.com/swcmem/swc/loadtest"
	"github.com/swcmem/swc/sleep"
)

// TestProxyStoredLikeStateless: with the default settings a stored
// conversation (X-SWC-Conversation) is sent upstream byte for byte as the
// same requests without the header are — its epochs and memory are the
// stateless ones, so storing costs the provider's cache nothing — in both
// protocols; the boundary (X-SWC-Compacted) never moves back.
func TestProxyStoredLikeStateless(t *testing.T) {
	tr := agentTranscript(t, 0, 0, transcript.Options{})
	points := loadtest.RequestPoints(tr.Messages)
	points = points[:min(len(points), 90)]
	for _, proto := range []string{"openai", "anthropic"} {
		t.Run(proto, func(t *testing.T) {
			e := newProxyEnv(t)
			path, body := "/v1/chat/completions", func(k int) string {
				b, _ := loadtest.RequestBody(tr.Messages[:points[k]], false)
				return string(b)
			}
			if proto == "anthropic" {
				path, body = "/v1/messages", func(k int) string {
					b, _ := loadtest.AnthropicBody(tr.Messages[:points[k]])
					return string(b)
				}
			}
			prev, jumps := 0, 0
			for k := range points {
				var sent [2][]byte
				var modes [2]string
				for i, h := range []string{"X-SWC-Budget: 2000", "X-SWC-Conversation: agent-s"} {
					resp := e.post(t, path, body(k), "X-SWC-Budget: 2000", h)
					if got := readAll(t, resp); resp.StatusCode != 200 {
						t.Fatalf("request %d: %d %s", k, resp.StatusCode, got)
					}
					sent[i], _ = e.up.last(t)
					modes[i] = resp.Header.Get(swchttp.HeaderMode)
					if i == 1 {
						n, _ := strconv.Atoi(resp.Header.Get(swchttp.HeaderCompacted))
						if n < prev {
							t.Fatalf("request %d: compacted %d after %d", k, n, prev)
						}
						if n > prev {
							jumps++
						}
						prev = n
					}
				}
				if !bytes.Equal(sent[0], sent[1]) {
					t.Fatalf("request %d (%s, %s): stored and stateless bodies differ", k, modes[0], modes[1])
				}
			}
			if jumps < 2 {
				t.Errorf("%d compactions in %d requests", jumps, len(points))
			}
		})
	}
}

// TestProxyEpochMemoryOncePerEpoch: with the proxy on the service's
// strategy, a consolidation replaces the stateless memory of the current
// epoch by one rendered from its gists (X-SWC-Mode: prefix); a second
// consolidation in the same epoch changes nothing (the same bytes).
func TestProxyEpochMemoryOncePerEpoch(t *testing.T) {
	e := newProxyEnv(t, func(s *swchttp.Server, m *sleep.Service) {
		m.Gister = markGister()
		s.Proxy.Strategy = "swc-anchored"
	})
	hist := loadtest.AgentHistory(400, 0)
	send := func(n int) ([]byte, string, string) {
		t.Helper()
		resp := e.post(t, "/v1/chat/completions", openAIBody(t, hist[:n], ""), "X-SWC-Conversation: agent-e", "X-SWC-Budget: 4000")
		if got := readAll(t, resp); resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, got)
		}
		b, _ := e.up.last(t)
		return b, resp.Header.Get(swchttp.HeaderMode), resp.Header.Get(swchttp.HeaderCompacted)
	}
	a, modeA, epochA := send(300)
	if modeA != "stored" || bytes.Contains(a, []byte("GIST-MADE-WHILE-IDLE")) {
		t.Fatalf("before a consolidation: mode %q", modeA)
	}
	if _, err := e.mem.Consolidate(t.Context(), e.tenant(t), "agent-e"); err != nil {
		t.Fatal(err)
	}
	b, modeB, epochB := send(302)
	if modeB != "prefix" || epochB != epochA || !bytes.Contains(b, []byte("GIST-MADE-WHILE-IDLE")) {
		t.Fatalf("after a consolidation, same epoch (%s, %s): mode %q, gists %v", epochA, epochB, modeB, bytes.Contains(b, []byte("GIST-MADE-WHILE-IDLE")))
	}
	if _, err := e.mem.Consolidate(t.Context(), e.tenant(t), "agent-e"); err != nil {
		t.Fatal(err)
	}
	c, modeC, epochC := send(304)
	if modeC != "prefix" || epochC != epochB || !bytes.HasPrefix(c, b[:bytes.LastIndex(b, []byte("]}"))]) {
		t.Errorf("a second consolidation in the epoch moved the prefix (mode %q, epoch %s)", modeC, epochC)
	}
}

// TestProxyResponsesEpoch: /v1/responses compresses in epochs as chat
// completions do. An agent's LoCoMo transcript as Responses input items,
// a request at each user message, each the one before plus the new items:
// every body upstream is within the budget with every byte outside input
// as sent, and between two compactions (X-SWC-Compacted) each request's
// input is the one before's, item for item, plus the new items, so the
// instructions and the memory item are byte for byte the same.
func TestProxyResponsesEpoch(t *testing.T) {
	tr := agentTranscript(t, 0, 0, transcript.Options{})
	points := loadtest.RequestPoints(tr.Messages)
	points = points[:min(len(points), 90)]
	e := newProxyEnv(t)
	e.up.handle = func(w http.ResponseWriter, r *http.Request, body []byte) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, responseJSON)
	}
	var prevItems []json.RawMessage
	prev, jumps, stable := 0, 0, 0
	for k, p := range points {
		instr, items := chat.ResponsesInput(tr.Messages[:p])
		body, err := json.Marshal(map[string]any{"model": "gpt-5", "instructions": instr, "input": items, "store": false,
			"prompt_cache_key": "agent-7", "prompt_cache_retention": "24h"})
		if err != nil {
			t.Fatal(err)
		}
		resp := e.post(t, "/v1/responses", string(body), "X-SWC-Budget: 2000")
		if got := readAll(t, resp); resp.StatusCode != 200 {
			t.Fatalf("request %d: %d %s", k, resp.StatusCode, got)
		}
		sent, _ := e.up.last(t)
		withinBudget(t, sent, chat.Responses, 2000)
		_, outside := inputItems(t, body)
		gotItems, gotOutside := inputItems(t, sent)
		if gotOutside != outside {
			t.Fatalf("request %d: the body outside input changed", k)
		}
		n, _ := strconv.Atoi(resp.Header.Get(swchttp.HeaderCompacted))
		switch {
		case n < prev:
			t.Fatalf("request %d: compacted %d after %d", k, n, prev)
		case n > prev:
			jumps++
		case n > 0:
			if len(gotItems) < len(prevItems) {
				t.Fatalf("request %d: %d items after %d in the same epoch", k, len(gotItems), len(prevItems))
			}
			for j := range prevItems {
				if !bytes.Equal(prevItems[j], gotItems[j]) {
					t.Fatalf("request %d: item %d changed within an epoch (compacted %d):\n%.200s\n%.200s", k, j, n, prevItems[j], gotItems[j])
				}
			}
			stable++
		}
		prev, prevItems = n, gotItems
	}
	t.Logf("%d requests, %d compactions, %d extending the one before", len(points), jumps, stable)
	if jumps < 2 || stable < len(points)/2 {
		t.Errorf("%d compactions and %d stable requests in %d", jumps, stable, len(points))
	}
}

// TestProxyOpenAICacheFields: OpenAI's prompt caching is automatic; the
// fields that steer it (prompt_cache_key, prompt_cache_retention,
// safety_identifier) and every other field outside messages reach the
// provider as the client sent them on compressed requests, and between
// compactions the compressed messages are the request before's plus the
// new ones.
func TestProxyOpenAICacheFields(t *testing.T) {
	// The built-in sample is too short for the epochs this counts: the
	// test needs LoCoMo (it skips under -short or without the data, and
	// fails in CI without it).
	locomotest.Wide(t)
	tr := agentTranscript(t, 0, 0, transcript.Options{})
	points := loadtest.RequestPoints(tr.Messages)
	points = points[:min(len(points), 60)]
	e := newProxyEnv(t)
	var prev []json.RawMessage
	prevN, extends := 0, 0
	for k, p := range points {
		msgs, err := json.Marshal(chat.OpenAIMessages(tr.Messages[:p]))
		if err != nil {
			t.Fatal(err)
		}
		body := `{"model":"gpt-5","prompt_cache_key":"agent-7","prompt_cache_retention":"24h","safety_identifier":"u-1","messages":` + string(msgs) + `}`
		resp := e.post(t, "/v1/chat/completions", body, "X-SWC-Budget: 2000")
		if got := readAll(t, resp); resp.StatusCode != 200 {
			t.Fatalf("request %d: %d %s", k, resp.StatusCode, got)
		}
		sent, _ := e.up.last(t)
		sameFields(t, []byte(body), sent, "messages")
		var got struct{ Messages []json.RawMessage }
		if err := json.Unmarshal(sent, &got); err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(resp.Header.Get(swchttp.HeaderCompacted))
		if n > 0 && n == prevN {
			if len(got.Messages) < len(prev) {
				t.Fatalf("request %d: fewer messages within an epoch", k)
			}
			for j := range prev {
				if !bytes.Equal(prev[j], got.Messages[j]) {
					t.Fatalf("request %d: message %d changed within an epoch", k, j)
				}
			}
			extends++
		}
		prev, prevN = got.Messages, n
	}
	if extends < len(points)/2 {
		t.Errorf("%d of %d requests extend the one before", extends, len(points))
	}
}
