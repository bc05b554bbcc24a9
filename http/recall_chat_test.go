package http_test

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/internal/locomotest"
	"github.com/swcmem/swc/memory"
	"github.com/swcmem/swc/sleep"
)

// chatHead matches a block's header line in a chat history's memory: the
// sessions it stands for and, when it does not hold them whole, its
// handle.
var chatHead = regexp.MustCompile(`(?m)^\[(?:Session (\d+) —[^\n]*?|Summary of sessions (\d+)–(\d+)\]|Sessions? (\d+)(?:–(\d+))? omitted\])(?: \[swc:(h[0-9a-f]{10})\])?$`)

// TestRecallChatHandlesLoCoMo: LoCoMo conversations as chat messages (the
// built-in sample under -short), each sent through the proxy at several
// budgets in Chat Completions and Messages form with a client tool, to an
// upstream that calls swc_recall once per round on each handle the
// memory message shows, in turn. Every handle resolves, through the
// proxy's swc_recall, to memory.Original of exactly the messages of the
// sessions its header names — found here from the request the client
// sent and the request swc forwarded (the messages it did not send, in
// sessions as chat.Sessionize finds them) — and is their
// memory.HistoryHandle; every session of that history is under a handle
// or kept whole; X-SWC-Compression counts the messages left out.
// go test ./http -run RecallChatHandlesLoCoMo -v
func TestRecallChatHandlesLoCoMo(t *testing.T) {
	convs := locomotest.Load(t)
	budgets := []int{2000, 4000, 8000}
	if testing.Short() {
		convs, budgets = convs[:1], []int{2000, 4000}
	}
	e := newProxyEnv(t, func(s *swchttp.Server, _ *sleep.Service) { s.Proxy.RecallRounds = 1000 })
	checked := 0
	for _, conv := range convs {
		msgs := chat.FromConversation(conv)
		for _, budget := range budgets {
			for _, c := range []recallCase{{"openai", false}, {"anthropic", false}} {
				name := conv.ID + "/" + c.proto + "/" + strconv.Itoa(budget)
				checked += recallChatOnce(t, e, name, c, msgs, budget)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no request showed a handle")
	}
	t.Logf("%d handles resolved", checked)
}

// recallChatOnce sends msgs through the proxy once (see
// TestRecallChatHandlesLoCoMo) and returns how many handles it checked.
func recallChatOnce(t *testing.T, e *proxyEnv, name string, c recallCase, msgs []swc.Message, budget int) int {
	t.Helper()
	var mu sync.Mutex
	var handles []string
	var bodies [][]byte
	e.up.handle = func(w http.ResponseWriter, r *http.Request, body []byte) {
		mu.Lock()
		bodies = append(bodies, body)
		n := len(bodies)
		if n == 1 {
			for _, m := range stubHandle.FindAllSubmatch(body, -1) {
				handles = append(handles, string(m[1]))
			}
		}
		rep := recallReply{}
		if n <= len(handles) {
			rep.args = `{"handle":"` + handles[n-1] + `"}`
		}
		mu.Unlock()
		writeReply(w, c.proto, c.stream, rep, n)
	}
	body := c.body(t, msgs)
	resp := e.post(t, c.path(), body, "X-SWC-Budget: "+strconv.Itoa(budget), "anthropic-version: 2023-06-01")
	got := readAll(t, resp)
	mu.Lock()
	defer mu.Unlock()
	if resp.StatusCode != 200 || len(bodies) != len(handles)+1 {
		t.Fatalf("%s: %d, %d upstream requests for %d handles: %.300s", name, resp.StatusCode, len(bodies), len(handles), got)
	}
	if len(handles) == 0 {
		t.Logf("%s: no handle shown", name)
		return 0
	}
	if h := resp.Header.Get(swchttp.HeaderRecall); h != strconv.Itoa(len(handles)) {
		t.Errorf("%s: %s %q; want %d", name, swchttp.HeaderRecall, h, len(handles))
	}

	// What the proxy read, and what it sent: the memory and the kept
	// messages (a suffix of the conversation, or the task and one).
	in, err := chat.Parse([]byte(body), chat.Auto)
	if err != nil {
		t.Fatal(err)
	}
	sent, err := chat.Parse(bodies[0], chat.Auto)
	if err != nil {
		t.Fatalf("%s: the request sent: %v", name, err)
	}
	var conv, kept []swc.Message
	for _, m := range in.Messages {
		if !chat.IsInstruction(m) {
			conv = append(conv, m)
		}
	}
	mem := ""
	for _, m := range sent.Messages {
		if !chat.IsInstruction(m) {
			kept = append(kept, m)
		} else if i := strings.Index(m.Content, memory.Preamble); i >= 0 {
			mem = m.Content[i:]
		}
	}
	if mem == "" && len(kept) > 0 && strings.HasPrefix(kept[0].Content, memory.Preamble) {
		// No instructions: the memory is a user message of its own, the
		// first, or starts the first kept message, a user's (the task
		// pinned, or the tail's first).
		mem, kept = kept[0].Content, kept[1:]
		if k := len(kept) + 1; k <= len(conv) {
			for _, orig := range []string{conv[len(conv)-k].Content, conv[0].Content} {
				if c := mem; strings.HasSuffix(c, "\n\n"+orig) {
					mem, kept = strings.TrimSuffix(c, "\n\n"+orig), append([]swc.Message{{Role: swc.RoleUser, Content: orig}}, kept...)
					break
				}
			}
		}
	}
	if mem == "" {
		t.Fatalf("%s: handles but no memory in the request sent", name)
	}
	hist := conv[:len(conv)-len(kept)]
	if len(kept) > 0 && kept[0].Content != conv[len(conv)-len(kept)].Content { // the task pinned before the tail
		hist = conv[1 : len(conv)-len(kept)+1]
	}
	want := "kept=" + strconv.Itoa(len(kept)) + ";"
	if hc := resp.Header.Get(swchttp.HeaderCompression); !strings.HasPrefix(hc, want) || !strings.Contains(hc, "; dropped="+strconv.Itoa(len(hist))+";") {
		t.Errorf("%s: %s %q; want %s … dropped=%d", name, swchttp.HeaderCompression, hc, want, len(hist))
	}
	o := memory.DefaultOptions()
	g := chat.Sessionize(hist, chat.SessionOptions{Gap: o.SessionGap, Turns: o.SessionTurns})

	covered := map[int]bool{}
	k := 0
	for _, m := range chatHead.FindAllStringSubmatch(mem, -1) {
		first, last := m[1], m[1]
		switch {
		case m[2] != "":
			first, last = m[2], m[3]
		case m[4] != "":
			first, last = m[4], m[4]
			if m[5] != "" {
				last = m[5]
			}
		}
		a, _ := strconv.Atoi(first)
		b, _ := strconv.Atoi(last)
		if a < 1 || b > len(g.Spans) || a > b {
			t.Fatalf("%s: header %q names sessions beyond the %d of the history", name, m[0], len(g.Spans))
		}
		if m[6] == "" { // a session the memory holds whole
			covered[a-1] = true
			continue
		}
		for s := a - 1; s < b; s++ {
			covered[s] = true
		}
		if k >= len(handles) || handles[k] != m[6] {
			t.Fatalf("%s: header handle %s is not the request's handle %d of %v", name, m[6], k, handles)
		}
		stands := hist[g.Spans[a-1].First:g.Spans[b-1].End]
		if memory.HistoryHandle(stands) != m[6] {
			t.Errorf("%s: %s is not the handle of sessions %d–%d", name, m[6], a, b)
		}
		results, _ := toolResults(t, c.proto, bodies[k+1])
		if len(results) != 1 || results[0] != memory.Original(stands) {
			t.Errorf("%s: swc_recall of %s (sessions %d–%d) answered %.200q", name, m[6], a, b, results)
		}
		for _, msg := range stands {
			if len(results) == 1 && !strings.Contains(results[0], msg.Content) {
				t.Errorf("%s: %s's original lacks a message's bytes: %.80q", name, m[6], msg.Content)
				break
			}
		}
		k++
	}
	if k != len(handles) {
		t.Errorf("%s: %d handles on header lines of the memory, %d in the request", name, k, len(handles))
	}
	for s := range g.Spans {
		if !covered[s] {
			t.Errorf("%s: session %d of %d is in no block of the memory", name, s+1, len(g.Spans))
		}
	}
	return k
}

// TestRecallChatHandleTenants: a chat history's handle, shown in one
// request's memory, resolves from the tenant's cache of originals in a
// later request that does not hold its messages — for that tenant only.
func TestRecallChatHandleTenants(t *testing.T) {
	e := newProxyEnv(t)
	other := e.newKey("globex")
	c := recallCase{"openai", false}
	first := chat.FromConversation(locomotest.Load(t)[0])
	readAll(t, e.post(t, c.path(), c.body(t, first), "X-SWC-Budget: 2000"))
	sent, _ := e.up.last(t)
	m := stubHandle.FindSubmatch(sent)
	if m == nil {
		t.Fatalf("no handle in the memory sent: %.300s", sent)
	}
	h := string(m[1])
	in, err := chat.Parse([]byte(c.body(t, first)), chat.Auto)
	if err != nil {
		t.Fatal(err)
	}
	want := ""
	for _, r := range mustCompress(t, in.Messages, 2000).Recall {
		if r.Handle == h {
			var pick []swc.Message
			for _, i := range r.Messages {
				pick = append(pick, in.Messages[i])
			}
			want = memory.Original(pick)
		}
	}
	if want == "" {
		t.Fatalf("handle %s is in no Result.Recall of the same messages", h)
	}

	fresh, err := chat.Sample() // compressed at 1,500 (swc_recall offered), none of the first's messages
	if err != nil {
		t.Fatal(err)
	}
	ask := func(key string) string {
		t.Helper()
		script(e, c, []recallReply{{args: `{"handle":"` + h + `"}`}, {}}, nil)
		n := e.up.count()
		readAll(t, e.post(t, c.path(), c.body(t, fresh), "X-SWC-Budget: 1500", "Authorization: Bearer "+key))
		if e.up.count() != n+2 {
			t.Fatalf("%d upstream requests; want 2", e.up.count()-n)
		}
		body, _ := e.up.last(t)
		results, _ := toolResults(t, c.proto, body)
		return results[0]
	}
	if got := ask(e.key); got != want {
		t.Errorf("the tenant's own handle: %.120q; want %.120q", got, want)
	}
	if got := ask(other); !strings.Contains(got, "no original") {
		t.Errorf("another tenant's handle resolved: %.80q", got)
	}
}

// mustCompress compresses msgs as the proxy does by default at budget.
func mustCompress(t *testing.T, msgs []swc.Message, budget int) *memory.Result {
	t.Helper()
	o := memory.DefaultOptions()
	o.Budget, o.HistoryHandles = budget, true // as the proxy compresses a request it offers swc_recall
	comp, err := memory.New(o)
	if err != nil {
		t.Fatal(err)
	}
	res, err := comp.Compress(t.Context(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
