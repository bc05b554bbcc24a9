package loadtest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/locomo"
)

func TestSummarize(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	if p := Percentile(ds, 0.5); p != 51*time.Millisecond || ds[0] != 100*time.Millisecond {
		t.Errorf("Percentile = %v (and must leave ds as it is: ds[0] = %v)", p, ds[0])
	}
	l := Summarize(ds)
	if l != (Latency{N: 100, P50MS: 51, P99MS: 100, Max: 100}) {
		t.Errorf("Summarize = %+v", l)
	}
	if Summarize(nil) != (Latency{}) || Percentile(nil, 0.99) != 0 {
		t.Error("empty latencies are not zero")
	}
	if MS(1500*time.Microsecond) != 1.5 {
		t.Errorf("MS = %v", MS(1500*time.Microsecond))
	}
}

// TestTimeReads: failed reads are counted, not timed; reads stop when ctx
// ends.
func TestTimeReads(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var calls atomic.Int64
	lats, errs := TimeReads(ctx, 3, func(r int) *rand.Rand { return rand.New(rand.NewPCG(uint64(r), 1)) },
		func(ctx context.Context, rng *rand.Rand) error {
			time.Sleep(time.Millisecond)
			if calls.Add(1)%2 == 0 {
				return errors.New("status 500")
			}
			return nil
		})
	n := calls.Load()
	if len(lats) == 0 || errs == 0 || int64(len(lats))+errs > n || int64(len(lats))+errs < n-3 {
		t.Errorf("%d timed, %d failed of %d calls", len(lats), errs, n)
	}
}

// TestAgentHistory: a valid chat history of the asked length, every
// agent's its own, tool calls answered, never ending on a call.
func TestAgentHistory(t *testing.T) {
	for _, n := range []int{2, 10, 14, 60} {
		h := AgentHistory(n, 3)
		if len(h) != n+1 && !(len(h) == n && len(h[n-1].ToolCalls) == 0) {
			t.Errorf("AgentHistory(%d) has %d messages", n, len(h))
		}
		if err := chat.Validate(h, nil); err != nil {
			t.Errorf("AgentHistory(%d): %v", n, err)
		}
		if last := h[len(h)-1]; len(last.ToolCalls) > 0 {
			t.Errorf("AgentHistory(%d) ends on a tool call", n)
		}
	}
	if a, b := AgentHistory(10, 1), AgentHistory(10, 2); a[1].Content == b[1].Content {
		t.Error("two agents have the same history")
	}
	body, err := RequestBody(AgentHistory(14, 0), true)
	var req struct {
		Stream   bool              `json:"stream"`
		Messages []json.RawMessage `json:"messages"`
	}
	if err != nil || json.Unmarshal(body, &req) != nil || !req.Stream || len(req.Messages) != 15 {
		t.Errorf("RequestBody: %s, %v", body, err)
	}
}

func TestConversationMessages(t *testing.T) {
	convs, err := locomo.Sample()
	if err != nil {
		t.Fatal(err)
	}
	c := convs[0]
	msgs := ConversationMessages(c)
	if len(msgs) != c.TurnCount() {
		t.Fatalf("%d messages of %d turns", len(msgs), c.TurnCount())
	}
	seen := map[string]bool{}
	for i, m := range msgs {
		if i > 0 && m.Time.Before(msgs[i-1].Time) {
			t.Fatalf("message %d goes back in time", i)
		}
		if seen[m.ID] || m.ID == "" {
			t.Fatalf("message %d id %q: empty or twice", i, m.ID)
		}
		seen[m.ID] = true
	}
	if msgs[0].Session != "s1" || msgs[len(msgs)-1].Session != "s"+strconv.Itoa(len(c.Sessions)) {
		t.Errorf("sessions %q … %q", msgs[0].Session, msgs[len(msgs)-1].Session)
	}
}

func TestFakeUpstream(t *testing.T) {
	up, err := StartFakeUpstream()
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	resp, err := http.Post(up.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":false}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"content":"ok"`) {
		t.Errorf("answer %s", b)
	}
	resp, err = http.Post(up.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	line, _ := br.ReadString('\n')
	rest, _ := io.ReadAll(br)
	if !strings.HasPrefix(line, "data: {") || !strings.HasSuffix(string(rest), "data: [DONE]\n\n") || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("stream %q %q", line, rest)
	}
}

// appendServer is a service's append route: it stores messages by id
// (a retried one is skipped) and answers every fourth request 503 with
// Retry-After.
type appendServer struct {
	mu     sync.Mutex
	n      int
	stored map[string][]string
}

func (s *appendServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	conv := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/v1/conversations/"), "/messages")
	var body struct{ Messages []swc.Message }
	json.NewDecoder(r.Body).Decode(&body)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	if s.n%4 == 0 {
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"error":{"code":"unavailable","message":"database down"}}`)
		return
	}
	var res swc.AppendResult
	for _, m := range body.Messages {
		dup := false
		for _, id := range s.stored[conv] {
			dup = dup || id == m.ID
		}
		if dup {
			res.Skipped++
			continue
		}
		s.stored[conv] = append(s.stored[conv], m.ID)
		res.Appended++
	}
	json.NewEncoder(w).Encode(res)
}

// TestFeed: every message is acknowledged and stored once, in order,
// through 503s and resent batches.
func TestFeed(t *testing.T) {
	convs, err := locomo.Sample()
	if err != nil {
		t.Fatal(err)
	}
	msgs := ConversationMessages(convs[0])[:60]
	feedConvs := []FeedConv{{ID: "a", Msgs: msgs}, {ID: "b", Msgs: msgs}}
	srv := &appendServer{stored: map[string][]string{}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := Feed(ctx, []string{hs.URL, hs.URL}, "k", feedConvs, 2, 5, 0.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	if st.Unavailable == 0 || st.Retries == 0 || st.Skipped == 0 {
		t.Errorf("no 503, resent batch or skipped message: %+v", st)
	}
	for _, c := range feedConvs {
		got := srv.stored[c.ID]
		if len(got) != len(msgs) || len(st.Acked[c.ID]) != len(msgs) {
			t.Fatalf("%s: %d stored, %d acknowledged, want %d", c.ID, len(got), len(st.Acked[c.ID]), len(msgs))
		}
		for i, id := range got {
			if id != msgs[i].ID {
				t.Fatalf("%s: message %d is %s, want %s", c.ID, i, id, msgs[i].ID)
			}
		}
	}
	if st.Appended != int64(2*len(msgs)) || len(st.Latencies) == 0 {
		t.Errorf("appended %d, %d latencies", st.Appended, len(st.Latencies))
	}
}
