package http_test

import (
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	swchttp "github.com/swcmem/swc/http"
)

// uiGet GETs path with the session cookie c and returns the status and
// the page.
func uiGet(t *testing.T, e *env, c *http.Cookie, path string) (int, string) {
	t.Helper()
	req := httptest.NewRequest("GET", "http://swc.example"+path, nil)
	req.AddCookie(c)
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

var (
	itemRow  = regexp.MustCompile(`<tr class="item (kept|masked|gisted|partial|dropped)">`)
	preText  = regexp.MustCompile(`(?s)<pre id="original">(.*?)</pre>`)
	maskedTo = regexp.MustCompile(`<tr class="item masked">.*?<a href="(/ui/conversations/conv-ui/originals/(h[0-9a-f]{10}))">`)
)

// compressionCounts reads kept=, masked=, dropped= of X-SWC-Compression.
func compressionCounts(t *testing.T, h string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, kv := range strings.Split(h, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		if n, err := strconv.Atoi(v); err == nil && !strings.Contains(k, "tokens") {
			out[k] = n
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: %q", swchttp.HeaderCompression, h)
	}
	return out
}

// TestUIRequests: a tool loop proxied in stored mode is recorded; its
// conversation's requests page lists every conversation message as the
// proxy's X-SWC-Compression counts it, each masked observation with its
// handle linked to a page showing the original bytes; a kept message
// links to its stored message; another tenant gets 404 for all of it,
// and its own conversation does not resolve the first tenant's handle.
func TestUIRequests(t *testing.T) {
	e := newProxyEnv(t)
	c := recallCase{"openai", false}
	script(e, c, []recallReply{{}}, nil)
	msgs, originals := recallLoop("ui", 14)
	resp := e.post(t, c.path(), c.body(t, msgs), "X-SWC-Conversation: conv-ui", "X-SWC-Budget: 4000")
	readAll(t, resp)
	if resp.StatusCode != 200 || resp.Header.Get(swchttp.HeaderMode) != "stored" {
		t.Fatalf("proxy: %d, mode %q", resp.StatusCode, resp.Header.Get(swchttp.HeaderMode))
	}
	want := compressionCounts(t, resp.Header.Get(swchttp.HeaderCompression))
	sent, _ := e.up.last(t)
	newRecord(t, e.env, mustTenant(t, e.env, "acme"), "conv-ui", 0)

	cookie := uiLogin(t, e.env, e.key, "127.0.0.1:5000", "")
	code, page := uiGet(t, e.env, cookie, "/ui/conversations/conv-ui/requests")
	if code != 200 {
		t.Fatalf("requests page: %d %.500s", code, page)
	}
	got := map[string]int{}
	for _, m := range itemRow.FindAllStringSubmatch(page, -1) {
		got[m[1]]++
	}
	if got["kept"] != want["kept"] || got["masked"] != want["masked"] || got["dropped"] != want["dropped"] || got["masked"] == 0 {
		t.Errorf("items on the page %v; the header says %v", got, want)
	}
	if got["kept"]+got["masked"]+got["dropped"] != len(msgs)-1 { // the system message is an instruction
		t.Errorf("%v items for %d conversation messages", got, len(msgs)-1)
	}
	m := maskedTo.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no masked item linked by its handle: %.3000s", page)
	}
	href, h := html.UnescapeString(m[1]), m[2]
	if !strings.Contains(string(sent), "[swc:"+h) {
		t.Errorf("handle %s is not shown in the request sent", h)
	}
	code, page = uiGet(t, e.env, cookie, href)
	if code != 200 {
		t.Fatalf("original page: %d %.500s", code, page)
	}
	pre := preText.FindStringSubmatch(page)
	if pre == nil || html.UnescapeString(pre[1]) != originals[h] || originals[h] == "" {
		t.Errorf("original page of %s does not show the original:\n%.600s", h, page)
	}
	if !strings.Contains(page, `id="stored">m`) {
		t.Errorf("original page does not name the stored message: %.600s", page)
	}
	// The task, kept: linked by its stored message's handle.
	task := regexp.MustCompile(`<tr class="item kept"><td>1</td><td>user</td><td class="kind">kept</td><td class="handle"><a href="([^"]+)">(m\d+@conv-ui)</a>`).FindStringSubmatch(page0(t, e, cookie))
	if task == nil {
		t.Fatal("the task is not listed with its stored message's handle")
	}
	if code, page = uiGet(t, e.env, cookie, html.UnescapeString(task[1])); code != 200 ||
		!strings.Contains(page, "<pre id=\"original\">Fix the failing test in pkg/ui.</pre>") || !strings.Contains(page, task[2]) {
		t.Errorf("the task's original: %d %.800s", code, page)
	}
	if code, _ = uiGet(t, e.env, cookie, "/ui/conversations/conv-ui/originals/h0000000000"); code != 404 {
		t.Errorf("an unknown handle: %d", code)
	}
	if code, _ = uiGet(t, e.env, cookie, "/ui/conversations/conv-ui/originals/turn-3"); code != 400 {
		t.Errorf("a bad handle: %d", code)
	}

	// A handle the conversation's store does not hold (an output of another
	// conversation of the tenant) comes from the tenant's cache of
	// originals.
	again, _ := recallLoop("again", 14)
	readAll(t, e.post(t, c.path(), c.body(t, again), "X-SWC-Conversation: conv-ui2", "X-SWC-Budget: 1500"))
	code, page = uiGet(t, e.env, cookie, "/ui/conversations/conv-ui2/originals/"+h)
	if pre := preText.FindStringSubmatch(page); code != 200 || pre == nil || html.UnescapeString(pre[1]) != originals[h] ||
		!strings.Contains(page, "cache of originals") || strings.Contains(page, `id="stored"`) {
		t.Errorf("a handle from the cache: %d %.600s", code, page)
	}

	// Another tenant: the conversation is not found, and a conversation of
	// its own (compressed too) does not resolve acme's handle.
	e2 := &proxyEnv{env: e.env, up: e.up, key: e.newKey("globex")}
	other, _ := recallLoop("other", 14)
	readAll(t, e2.post(t, c.path(), c.body(t, other), "X-SWC-Conversation: conv-b", "X-SWC-Budget: 1500"))
	newRecord(t, e.env, mustTenant(t, e.env, "globex"), "conv-b", 0)
	oc := uiLogin(t, e.env, e2.key, "127.0.0.1:5001", "")
	for _, path := range []string{"/ui/conversations/conv-ui/requests", href, "/ui/conversations/conv-b/originals/" + h} {
		if code, page := uiGet(t, e.env, oc, path); code != 404 || strings.Contains(page, "line 0 of") {
			t.Errorf("globex GET %s: %d %.200s", path, code, page)
		}
	}
	if code, page := uiGet(t, e.env, oc, "/ui/conversations/conv-b/requests"); code != 200 || !strings.Contains(page, "masked") {
		t.Errorf("globex's own requests: %d", code)
	}
}

// newRecord waits for a compression record of tenant's conv newer than
// seq (the proxy records after answering) and returns its seq.
func newRecord(t *testing.T, e *env, tenant, conv string, seq int64) int64 {
	t.Helper()
	var got int64
	waitFor(t, "a compression record of "+conv, func() bool {
		recs, err := e.db.Compressions(t.Context(), tenant, conv)
		if err == nil && len(recs) > 0 && recs[0].Seq > seq {
			got = recs[0].Seq
			return true
		}
		return false
	})
	return got
}

// page0 is conv-ui's requests page.
func page0(t *testing.T, e *proxyEnv, c *http.Cookie) string {
	t.Helper()
	_, page := uiGet(t, e.env, c, "/ui/conversations/conv-ui/requests")
	return page
}

// TestUIRequestsHistory: a chat history (no tool loop) proxied in stored
// mode records every message, those left out by what the memory did with
// their session (these short sessions are partly kept, not gisted:
// TestCompressionRecordKinds has gists), and the store keeps the latest
// swc.CompressionsKept requests.
func TestUIRequestsHistory(t *testing.T) {
	e := newProxyEnv(t)
	script(e, recallCase{"openai", false}, []recallReply{{}}, nil)
	msgs := sessions(20, 6)
	body := openAIBody(t, msgs, "")
	tenant := mustTenant(t, e.env, "acme")
	var seq int64
	for range swc.CompressionsKept + 2 {
		resp := e.post(t, "/v1/chat/completions", body, "X-SWC-Conversation: conv-g", "X-SWC-Budget: 1500")
		readAll(t, resp)
		if resp.StatusCode != 200 {
			t.Fatalf("proxy: %d", resp.StatusCode)
		}
		seq = newRecord(t, e.env, tenant, "conv-g", seq)
	}
	recs, err := e.db.Compressions(t.Context(), tenant, "conv-g")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != swc.CompressionsKept {
		t.Fatalf("%d records; want the latest %d", len(recs), swc.CompressionsKept)
	}
	kinds := map[swc.ItemKind]int{}
	for _, it := range recs[0].Items {
		kinds[it.Kind]++
		if it.Chain == "" || it.Tokens <= 0 {
			t.Errorf("item %+v", it)
		}
	}
	if kinds[swc.ItemKept] == 0 || kinds[swc.ItemPartial] == 0 || kinds[swc.ItemDropped] == 0 || len(recs[0].Items) != len(msgs) {
		t.Errorf("items by kind %v of %d messages", kinds, len(msgs))
	}
	t.Logf("items by kind: %v", kinds)
}
