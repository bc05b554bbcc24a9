package http_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/swcmem/swc/internal/wiretest"
	"io"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/swcmem/swc/chat"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/sleep"
)

// geminiLoop is the generateContent body of a function-call loop under
// way: a task, then turns of a model content (a thought, a call with its
// signature; every third call without an id) and the user's function
// response, ending with a response.
func geminiLoop(turns int) string {
	cs := []string{`{"role":"user","parts":[{"text":"Fix the failing test in pkg/store (ticket 4411)."}]}`}
	for i := range turns {
		id := fmt.Sprintf(`,"id":"call_%d"`, i)
		if i%3 == 2 {
			id = ""
		}
		out := strings.Repeat(fmt.Sprintf("line %d of step %d: store_%d.go ok\\n", i, i, i), 12)
		cs = append(cs,
			fmt.Sprintf(`{"role":"model","parts":[{"text":"step %d","thought":true},{"functionCall":{"name":"run_shell_command","args":{"command":"go test -run T%d"}%s},"thoughtSignature":"c2ln%04d"}]}`, i, i, id, i),
			fmt.Sprintf(`{"role":"user","parts":[{"functionResponse":{"name":"run_shell_command","response":{"output":"%s"}%s}}]}`, out, id))
	}
	return `{"contents":[` + strings.Join(cs, ",") + `],"systemInstruction":{"parts":[{"text":"You are a coding agent."}]},"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}],"generationConfig":{"temperature":0}}`
}

const geminiAnswer = `{"candidates":[{"content":{"role":"model","parts":[{"text":"Casa do Rio."}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":3}}`

// geminiUpstream records what reached it (path, query, headers, body) and
// answers as the Gemini API does.
type geminiUpstream struct {
	mu    sync.Mutex
	reqs  []*http.Request
	body  [][]byte
	reply func(w http.ResponseWriter, r *http.Request, body []byte)
}

func (g *geminiUpstream) handle(w http.ResponseWriter, r *http.Request, body []byte) {
	g.mu.Lock()
	g.reqs = append(g.reqs, r.Clone(r.Context()))
	g.body = append(g.body, body)
	reply := g.reply
	g.mu.Unlock()
	if reply != nil {
		reply(w, r, body)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	switch {
	case strings.HasSuffix(r.URL.Path, ":countTokens"):
		io.WriteString(w, `{"totalTokens":`+strconv.Itoa(len(body))+`}`)
	case strings.HasSuffix(r.URL.Path, "/models"):
		io.WriteString(w, `{"models":[{"name":"models/gemini-2.5-flash"}]}`)
	default:
		io.WriteString(w, geminiAnswer)
	}
}

func (g *geminiUpstream) last(t *testing.T) (*http.Request, []byte) {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.reqs) == 0 {
		t.Fatal("the upstream got no request")
	}
	return g.reqs[len(g.reqs)-1], g.body[len(g.body)-1]
}

func (g *geminiUpstream) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.reqs)
}

func newGeminiEnv(t *testing.T) (*proxyEnv, *geminiUpstream) {
	e := newProxyEnv(t)
	g := &geminiUpstream{}
	e.up.handle = g.handle
	return e, g
}

// geminiDo sends a request to the proxy with auth (a header "Name: value",
// or "" when the key is in the path's query) and extra headers.
func geminiDo(t *testing.T, e *proxyEnv, method, path, body, auth string, headers ...string) *http.Response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, e.ts.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for _, h := range append([]string{auth}, headers...) {
		if k, v, ok := strings.Cut(h, ":"); ok {
			req.Header.Set(k, strings.TrimSpace(v))
		}
	}
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestGeminiProxyAuth: the swc key is accepted as x-goog-api-key, ?key=
// and Bearer, and never forwarded; the upstream gets the server's key as
// x-goog-api-key, the path as it came and the query without key; a bad
// key is 401 in Google's error shape and reaches nothing.
func TestGeminiProxyAuth(t *testing.T) {
	e, g := newGeminiEnv(t)
	body := `{"contents":[{"role":"user","parts":[{"text":"Where do we stay in Lisbon?"}]}]}`
	for _, tc := range []struct{ name, path, auth string }{
		{"header", "/v1beta/models/gemini-2.5-flash:generateContent", "x-goog-api-key: " + e.key},
		{"query", "/v1beta/models/gemini-2.5-flash:generateContent?key=" + e.key + "&$alt=json", ""},
		{"bearer", "/v1beta/models/gemini-2.5-flash:generateContent", "Authorization: Bearer " + e.key},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := geminiDo(t, e, "POST", tc.path, body, tc.auth)
			got := readAll(t, resp)
			if resp.StatusCode != 200 || got != geminiAnswer || resp.Header.Get(swchttp.HeaderMode) != "fits" {
				t.Fatalf("%d %s %q", resp.StatusCode, got, resp.Header.Get(swchttp.HeaderMode))
			}
			r, sent := g.last(t)
			if string(sent) != body {
				t.Errorf("a body that fits was changed: %s", sent)
			}
			if r.URL.Path != "/v1beta/models/gemini-2.5-flash:generateContent" || strings.Contains(r.URL.RawQuery, "key") {
				t.Errorf("upstream request %s?%s", r.URL.Path, r.URL.RawQuery)
			}
			if tc.name == "query" && r.URL.RawQuery != "$alt=json" {
				t.Errorf("other query parameters lost: %q", r.URL.RawQuery)
			}
			if r.Header.Get("X-Goog-Api-Key") != "gemini-upstream-key" || r.Header.Get("Authorization") != "" {
				t.Errorf("upstream auth: x-goog-api-key %q, authorization %q", r.Header.Get("X-Goog-Api-Key"), r.Header.Get("Authorization"))
			}
		})
	}
	n := g.count()
	for _, auth := range []string{"", "x-goog-api-key: swc_made_up", "x-goog-api-key: sk-not-swc"} {
		resp := geminiDo(t, e, "POST", "/v1beta/models/gemini-2.5-flash:generateContent", body, auth)
		var ge struct {
			Error struct {
				Code    int
				Message string
				Status  string
			}
		}
		if err := json.Unmarshal([]byte(readAll(t, resp)), &ge); err != nil || resp.StatusCode != 401 || ge.Error.Code != 401 || ge.Error.Status != "UNAUTHENTICATED" || !strings.Contains(ge.Error.Message, "x-goog-api-key") {
			t.Errorf("%q: %d %+v %v", auth, resp.StatusCode, ge, err)
		}
	}
	if g.count() != n {
		t.Error("a request without a valid key reached the upstream")
	}
}

// TestGeminiProxyCompresses: a long function-call loop over the budget
// reaches the upstream under it, valid for Gemini (a user content first,
// turns alternating, every call answered by the next content, the kept
// contents byte for byte), counted under protocol "gemini"; with
// X-SWC-Conversation too.
func TestGeminiProxyCompresses(t *testing.T) {
	e, g := newGeminiEnv(t)
	body := geminiLoop(60)
	orig, err := chat.Parse([]byte(body), chat.Gemini)
	if err != nil {
		t.Fatal(err)
	}
	raws := map[string]bool{}
	for _, r := range orig.Raw {
		raws[string(r)] = true
	}
	for _, conv := range []string{"", "gemini-agent-1"} {
		hs := []string{swchttp.HeaderBudget + ": 3000"}
		if conv != "" {
			hs = append(hs, swchttp.HeaderConversation+": "+conv)
		}
		resp := geminiDo(t, e, "POST", "/v1beta/models/gemini-2.5-pro:generateContent", body, "x-goog-api-key: "+e.key, hs...)
		if got := readAll(t, resp); resp.StatusCode != 200 || got != geminiAnswer {
			t.Fatalf("conv %q: %d %s", conv, resp.StatusCode, got)
		}
		before, _ := strconv.Atoi(resp.Header.Get(swchttp.HeaderTokensBefore))
		after, _ := strconv.Atoi(resp.Header.Get(swchttp.HeaderTokensAfter))
		if before <= 3000 || after > 3000 || after == 0 {
			t.Errorf("conv %q: %d → %d tokens (budget 3000), mode %s", conv, before, after, resp.Header.Get(swchttp.HeaderMode))
		}
		_, sent := g.last(t)
		checkGeminiTurns(t, sent, raws)
		t.Logf("conv %q: %d → %d tokens, %d → %d bytes, mode %s", conv, before, after, len(body), len(sent), resp.Header.Get(swchttp.HeaderMode))
	}
	mr, err := e.ts.Client().Get(e.ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	if m := readAll(t, mr); !strings.Contains(m, `swc_proxy_requests_total{mode="stateless",protocol="gemini"} 1`) ||
		!strings.Contains(m, `swc_proxy_upstream_responses_total{code="200",protocol="gemini"} 2`) {
		t.Errorf("gemini requests not counted: %s", grepLines(m, "protocol=\"gemini\""))
	}
}

// checkGeminiTurns fails unless body's contents are valid Gemini turns:
// the first a user content, roles alternating, every model content's
// calls answered by the next content, each content the client's bytes
// (the memory's first content aside).
func checkGeminiTurns(t *testing.T, body []byte, raws map[string]bool) {
	t.Helper()
	if _, err := chat.Parse(body, chat.Gemini); err != nil {
		t.Fatalf("the body sent does not parse: %v", err)
	}
	var req struct{ Contents []json.RawMessage }
	if err := json.Unmarshal(body, &req); err != nil || len(req.Contents) == 0 {
		t.Fatalf("no contents sent: %v", err)
	}
	calls := 0
	for i, c := range req.Contents {
		var v struct {
			Role  string
			Parts []map[string]json.RawMessage
		}
		json.Unmarshal(c, &v)
		if want := []string{"user", "model"}[i%2]; v.Role != want {
			t.Fatalf("contents[%d] is %s, want %s", i, v.Role, want)
		}
		memFirst := i == 0 && (strings.Contains(string(c), "Earlier conversation") || strings.Contains(string(c), "Earlier steps of this tool loop"))
		if !raws[string(c)] && !memFirst && !geminiStub(raws, c) && !wiretest.Unthought(raws, c) {
			t.Errorf("contents[%d] is not as the client sent it: %.200s", i, c)
		}
		responses, next := 0, 0
		for _, p := range v.Parts {
			if p["functionResponse"] != nil {
				responses++
			}
			if p["functionCall"] != nil {
				next++
			}
		}
		if responses != calls {
			t.Errorf("contents[%d] answers %d of %d calls", i, responses, calls)
		}
		calls = next
	}
}

// geminiStub reports whether content c is one of raws with the response
// of its function responses replaced by {"output": stub} (a tool loop's
// old observation, memory.Result.Rewritten), a stub shorter than the
// output it stands for and naming its handle, every other part and field
// as it came.
func geminiStub(raws map[string]bool, c json.RawMessage) bool {
	// blank returns content v with its function responses' responses
	// taken out, and those responses.
	blank := func(v any) (any, []any) {
		var out []any
		m, _ := v.(map[string]any)
		parts, _ := m["parts"].([]any)
		for _, p := range parts {
			if fr, ok := p.(map[string]any)["functionResponse"].(map[string]any); ok {
				out = append(out, fr["response"])
				delete(fr, "response")
			}
		}
		return v, out
	}
	var got any
	if json.Unmarshal(c, &got) != nil {
		return false
	}
	got, stubs := blank(got)
	if len(stubs) == 0 {
		return false
	}
	for r := range raws {
		var v any
		if json.Unmarshal([]byte(r), &v) != nil {
			continue
		}
		v, outs := blank(v)
		if len(outs) != len(stubs) || !reflect.DeepEqual(got, v) {
			continue
		}
		ok := true
		for k, s := range stubs {
			if reflect.DeepEqual(s, outs[k]) {
				continue
			}
			m, _ := s.(map[string]any)
			text, _ := m["output"].(string)
			orig, _ := json.Marshal(outs[k])
			if len(m) != 1 || !strings.HasPrefix(text, "[swc:h") || len(text) >= len(orig) {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// TestGeminiProxyStream: streamGenerateContent reaches the client event
// by event, as SSE with ?alt=sse and as the streamed JSON array without.
func TestGeminiProxyStream(t *testing.T) {
	e, g := newGeminiEnv(t)
	body := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
	chunk := func(text string) string {
		return `{"candidates":[{"content":{"role":"model","parts":[{"text":"` + text + `"}]}}]}`
	}
	for _, tc := range []struct {
		name, query, ctype string
		pieces             []string
	}{
		{"sse", "?alt=sse", "text/event-stream", []string{"data: " + chunk("Casa") + "\r\n\r\n", "data: " + chunk(" do Rio.") + "\r\n\r\n"}},
		{"json array", "", "application/json; charset=UTF-8", []string{"[" + chunk("Casa"), ",\r\n" + chunk(" do Rio.") + "]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			release := make(chan struct{})
			var done atomic.Bool
			g.mu.Lock()
			g.reply = func(w http.ResponseWriter, r *http.Request, _ []byte) {
				defer done.Store(true)
				w.Header().Set("Content-Type", tc.ctype)
				w.WriteHeader(200)
				for i, p := range tc.pieces {
					io.WriteString(w, p)
					w.(http.Flusher).Flush()
					if i == 0 {
						select {
						case <-release:
						case <-time.After(10 * time.Second):
						}
					}
				}
			}
			g.mu.Unlock()
			resp := geminiDo(t, e, "POST", "/v1beta/models/gemini-2.5-flash:streamGenerateContent"+tc.query, body, "x-goog-api-key: "+e.key)
			defer resp.Body.Close()
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != tc.ctype {
				t.Fatalf("%d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			first := make([]byte, len(tc.pieces[0]))
			if _, err := io.ReadFull(bufio.NewReader(resp.Body), first); err != nil || string(first) != tc.pieces[0] {
				t.Fatalf("first piece %q %v", first, err)
			}
			if done.Load() {
				t.Fatal("the upstream finished before the client read the first piece")
			}
			close(release)
			rest, _ := io.ReadAll(resp.Body)
			if string(rest) != tc.pieces[1] {
				t.Errorf("rest %q", rest)
			}
			r, _ := g.last(t)
			if r.URL.RawQuery != strings.TrimPrefix(tc.query, "?") {
				t.Errorf("query %q", r.URL.RawQuery)
			}
		})
	}
	g.mu.Lock()
	g.reply = nil
	g.mu.Unlock()
}

// TestGeminiProxyCountTokens: countTokens is counted as swc would send the
// request: a body of contents goes as a generateContentRequest naming the
// model, compressed (the memory in its systemInstruction) when over the
// budget; one with a generateContentRequest is compressed inside it.
func TestGeminiProxyCountTokens(t *testing.T) {
	e, g := newGeminiEnv(t)
	path := "/v1beta/models/gemini-2.5-flash:countTokens"
	small := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
	resp := geminiDo(t, e, "POST", path, small, "x-goog-api-key: "+e.key, swchttp.HeaderConversation+": ignored-1")
	if got := readAll(t, resp); resp.StatusCode != 200 || !strings.HasPrefix(got, `{"totalTokens":`) {
		t.Fatalf("%d %s", resp.StatusCode, got)
	}
	_, sent := g.last(t)
	if want := `{"generateContentRequest":{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"model":"models/gemini-2.5-flash"}}`; string(sent) != want {
		t.Errorf("sent %s\nwant %s", sent, want)
	}
	var loop map[string]json.RawMessage
	json.Unmarshal([]byte(geminiLoop(60)), &loop)
	for _, body := range []string{
		`{"contents":` + string(loop["contents"]) + `}`,
		`{"generateContentRequest":{"model":"models/gemini-2.5-flash","contents":` + string(loop["contents"]) + `}}`,
	} {
		resp := geminiDo(t, e, "POST", path, body, "x-goog-api-key: "+e.key, swchttp.HeaderBudget+": 1200")
		if got := readAll(t, resp); resp.StatusCode != 200 || resp.Header.Get(swchttp.HeaderMode) != "stateless" {
			t.Fatalf("%d %s %s", resp.StatusCode, got, resp.Header.Get(swchttp.HeaderMode))
		}
		_, sent := g.last(t)
		var v struct {
			GenerateContentRequest struct {
				Model             string
				Contents          []json.RawMessage
				SystemInstruction json.RawMessage
			}
		}
		if err := json.Unmarshal(sent, &v); err != nil || v.GenerateContentRequest.Model != "models/gemini-2.5-flash" || len(v.GenerateContentRequest.Contents) == 0 || len(sent) > len(body)/2 {
			t.Errorf("sent %.300s (%d of %d bytes): %v", sent, len(sent), len(body), err)
		}
	}
}

// TestGeminiProxyRelayAndErrors: model listings are relayed (key query
// removed); another method of a model is relayed; a path without a method
// is 404, a malformed body 400 and no upstream 501 naming the flag, all in
// Google's error shape; a body swc cannot read is passed through.
func TestGeminiProxyRelayAndErrors(t *testing.T) {
	e, g := newGeminiEnv(t)
	for _, path := range []string{"/v1beta/models?key=" + e.key + "&pageSize=5", "/v1beta/models/gemini-2.5-flash?key=" + e.key} {
		resp := geminiDo(t, e, "GET", path, "", "")
		got := readAll(t, resp)
		r, _ := g.last(t)
		if resp.StatusCode != 200 || resp.Header.Get(swchttp.HeaderMode) != "passthrough" || strings.Contains(r.URL.RawQuery, "key=") || r.Header.Get("X-Goog-Api-Key") != "gemini-upstream-key" {
			t.Errorf("%s: %d %s, upstream %s?%s", path, resp.StatusCode, got, r.URL.Path, r.URL.RawQuery)
		}
	}
	resp := geminiDo(t, e, "POST", "/v1beta/models/text-embedding-004:embedContent", `{"content":{"parts":[{"text":"x"}]}}`, "x-goog-api-key: "+e.key)
	readAll(t, resp)
	if r, b := g.last(t); resp.StatusCode != 200 || r.URL.Path != "/v1beta/models/text-embedding-004:embedContent" || string(b) != `{"content":{"parts":[{"text":"x"}]}}` {
		t.Errorf("embedContent: %d %s %s", resp.StatusCode, r.URL.Path, b)
	}

	bare := newProxyEnv(t, func(s *swchttp.Server, _ *sleep.Service) { s.Proxy = swchttp.ProxyConfig{} })
	for _, tc := range []struct {
		env          *proxyEnv
		path, body   string
		code         int
		status, word string
	}{
		{e, "/v1beta/models/gemini-2.5-flash", "{}", 404, "NOT_FOUND", ":generateContent"},
		{e, "/v1beta/models/gemini-2.5-flash:generateContent", `{"contents":`, 400, "INVALID_ARGUMENT", "malformed JSON"},
		{bare, "/v1beta/models/gemini-2.5-flash:generateContent", `{"contents":[]}`, 501, "UNIMPLEMENTED", "--upstream-gemini"},
	} {
		resp := geminiDo(t, tc.env, "POST", tc.path, tc.body, "x-goog-api-key: "+tc.env.key)
		var ge struct {
			Error struct {
				Code    int
				Message string
				Status  string
			}
		}
		json.Unmarshal([]byte(readAll(t, resp)), &ge)
		if resp.StatusCode != tc.code || ge.Error.Code != tc.code || ge.Error.Status != tc.status || !strings.Contains(ge.Error.Message, tc.word) {
			t.Errorf("%s %s: %d %+v", tc.path, tc.body, resp.StatusCode, ge)
		}
	}

	// A body swc cannot read goes upstream as it came: the provider answers it.
	odd := `{"contents":[{"role":"system","parts":[]}]}`
	resp = geminiDo(t, e, "POST", "/v1beta/models/gemini-2.5-flash:generateContent", odd, "x-goog-api-key: "+e.key)
	got := readAll(t, resp)
	if _, sent := g.last(t); resp.StatusCode != 200 || got != geminiAnswer || string(sent) != odd ||
		resp.Header.Get(swchttp.HeaderMode) != "passthrough" || !strings.Contains(resp.Header.Get(swchttp.HeaderPassthrough), "contents[0].role") {
		t.Errorf("%s: %d %s, mode %q, reason %q, upstream got %s", odd, resp.StatusCode, got, resp.Header.Get(swchttp.HeaderMode), resp.Header.Get(swchttp.HeaderPassthrough), sent)
	}
}

// TestGeminiProxySDKRequests replays what google.golang.org/genai sent
// (chat/testdata/genai-go: its bodies, paths, ?alt=sse and x-goog-api-key):
// under the budget each reaches the upstream as it came (countTokens'
// contents as a generateContentRequest); over a small one, compressed,
// the memory in systemInstruction and the last turns as they came.
func TestGeminiProxySDKRequests(t *testing.T) {
	e, g := newGeminiEnv(t)
	gen := readFile(t, "../chat/testdata/genai-go/generateContent.json")
	count := readFile(t, "../chat/testdata/genai-go/countTokens.json")
	for _, tc := range []struct{ path, body string }{
		{"/v1beta/models/gemini-2.5-flash:generateContent", gen},
		{"/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", gen},
	} {
		resp := geminiDo(t, e, "POST", tc.path, tc.body, "x-goog-api-key: "+e.key)
		readAll(t, resp)
		r, sent := g.last(t)
		path, query, _ := strings.Cut(tc.path, "?")
		if resp.StatusCode != 200 || string(sent) != tc.body || r.URL.Path != path || r.URL.RawQuery != query {
			t.Errorf("%s: %d, upstream %s?%s, body changed: %v", tc.path, resp.StatusCode, r.URL.Path, r.URL.RawQuery, string(sent) != tc.body)
		}
	}
	resp := geminiDo(t, e, "POST", "/v1beta/models/gemini-2.5-flash:countTokens", count, "x-goog-api-key: "+e.key)
	readAll(t, resp)
	var c map[string]json.RawMessage
	json.Unmarshal([]byte(count), &c)
	if _, sent := g.last(t); resp.StatusCode != 200 || string(sent) != `{"generateContentRequest":{"contents":`+string(c["contents"])+`,"model":"models/gemini-2.5-flash"}}` {
		t.Errorf("countTokens: %d %s", resp.StatusCode, sent)
	}

	// Over a budget of 1,100 tokens (the last question holds an image whose
	// size swc cannot read: four tiles, 1,032 tokens, for gemini-2.5-flash):
	// the memory holds the first turns.
	resp = geminiDo(t, e, "POST", "/v1beta/models/gemini-2.5-flash:generateContent", gen, "x-goog-api-key: "+e.key, swchttp.HeaderBudget+": 1100")
	body := readAll(t, resp)
	_, sent := g.last(t)
	if resp.StatusCode != 200 || resp.Header.Get(swchttp.HeaderMode) != "stateless" {
		t.Fatalf("%d %s %s", resp.StatusCode, resp.Header.Get(swchttp.HeaderMode), body)
	}
	orig, _ := chat.Parse([]byte(gen), chat.Gemini)
	raws := map[string]bool{}
	for _, r := range orig.Raw {
		raws[string(r)] = true
	}
	checkGeminiTurns(t, sent, raws)
	var req struct {
		Contents          []json.RawMessage
		SystemInstruction struct{ Parts []struct{ Text string } }
		Tools             json.RawMessage
	}
	json.Unmarshal(sent, &req)
	if len(req.Contents) >= len(orig.Raw) || len(req.SystemInstruction.Parts) != 2 || !strings.Contains(req.SystemInstruction.Parts[1].Text, "Earlier conversation") || len(req.Tools) == 0 {
		t.Errorf("not compressed as expected: %s", sent)
	}
	t.Logf("%s → %s tokens, %d of %d contents sent", resp.Header.Get(swchttp.HeaderTokensBefore), resp.Header.Get(swchttp.HeaderTokensAfter), len(req.Contents), len(orig.Raw))
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGeminiProxyEpochs: a function-call loop growing by one turn per
// request, over the budget, is sent in epochs: between compactions
// (X-SWC-Compacted unchanged) the memory is byte for byte the same and the
// request sent extends the one before, so the provider's prompt cache
// holds; the boundary never moves back.
func TestGeminiProxyEpochs(t *testing.T) {
	e, g := newGeminiEnv(t)
	var prevSent []byte
	var prevMem string
	prev, extended, jumps := -1, 0, 0
	for n := 30; n <= 70; n++ {
		resp := geminiDo(t, e, "POST", "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", geminiLoop(n), "x-goog-api-key: "+e.key, swchttp.HeaderBudget+": 3000")
		if got := readAll(t, resp); resp.StatusCode != 200 {
			t.Fatalf("%d turns: %d %s", n, resp.StatusCode, got)
		}
		_, sent := g.last(t)
		var req struct {
			Contents          []json.RawMessage
			SystemInstruction json.RawMessage
		}
		if err := json.Unmarshal(sent, &req); err != nil {
			t.Fatal(err)
		}
		mem := string(req.SystemInstruction)
		if c0 := string(req.Contents[0]); strings.Contains(c0, "Earlier conversation") || strings.Contains(c0, "Earlier steps of this tool loop") {
			mem += c0
		}
		compacted, _ := strconv.Atoi(resp.Header.Get(swchttp.HeaderCompacted))
		switch {
		case compacted < prev:
			t.Fatalf("%d turns: compacted %d after %d", n, compacted, prev)
		case compacted == prev:
			if mem != prevMem {
				t.Errorf("%d turns: the memory changed without a compaction", n)
			}
			// The contents sent before, without the closing of the array, start the contents sent now.
			c := func(b []byte) []byte {
				i := bytes.Index(b, []byte(`"contents":[`))
				j := bytes.Index(b, []byte(`],"generationConfig"`))
				return b[i:j]
			}
			if !bytes.HasPrefix(c(sent), c(prevSent)) {
				t.Errorf("%d turns: the request does not extend the one before", n)
			} else {
				extended++
			}
		default:
			jumps++
		}
		prev, prevMem, prevSent = compacted, mem, sent
	}
	t.Logf("41 requests: %d extend the one before, %d compactions", extended, jumps)
	// A tool loop: after a compaction the request leaves RestartShare of
	// the budget free (about 300 tokens here); a turn adds about 190 and
	// its output (twelve like lines) is barely larger than a stub, so at
	// least every other request extends the one before.
	if extended < 20 {
		t.Errorf("only %d of 41 requests extend the one before", extended)
	}
}

// TestGeminiProxyCachedContent: a request naming a cachedContent must not
// set systemInstruction (the API answers 400 INVALID_ARGUMENT: it belongs
// to the cache), so a chat's memory opens its first content instead (at
// 1,500 tokens the kept turns of this chat start with a user's, where the
// memory went to systemInstruction), every other field as it came.
func TestGeminiProxyCachedContent(t *testing.T) {
	e, g := newGeminiEnv(t)
	var cs []string
	for i := range 40 {
		cs = append(cs,
			fmt.Sprintf(`{"role":"user","parts":[{"text":"Day %d: fern %d repotted, a long note: %s"}]}`, i, i, strings.Repeat("word ", 40)),
			fmt.Sprintf(`{"role":"model","parts":[{"text":"Noted, day %d: %s"}]}`, i, strings.Repeat("ok ", 60)))
	}
	cs = append(cs, `{"role":"user","parts":[{"text":"Which fern did I repot on day 3?"}]}`)
	for _, cache := range []string{`"cachedContent":"cachedContents/notes-1"`, `"cached_content":"cachedContents/notes-1"`} {
		body := `{"contents":[` + strings.Join(cs, ",") + `],` + cache + `,"generationConfig":{"temperature":0}}`
		resp := geminiDo(t, e, "POST", "/v1beta/models/gemini-2.5-flash:generateContent", body, "x-goog-api-key: "+e.key, swchttp.HeaderBudget+": 1500")
		if got := readAll(t, resp); resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", cache, resp.StatusCode, got)
		}
		_, sent := g.last(t)
		var req map[string]json.RawMessage
		if err := json.Unmarshal(sent, &req); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"systemInstruction", "system_instruction"} {
			if _, ok := req[k]; ok {
				t.Errorf("%s: %s set beside the cached content: %.300s", cache, k, req[k])
			}
		}
		if k, _, _ := strings.Cut(cache, ":"); string(req[strings.Trim(k, `"`)]) != `"cachedContents/notes-1"` || string(req["generationConfig"]) != `{"temperature":0}` {
			t.Errorf("%s: fields changed: %.300s", cache, sent)
		}
		var contents []struct {
			Role  string
			Parts []struct{ Text string }
		}
		json.Unmarshal(req["contents"], &contents)
		if len(contents) == 0 || contents[0].Role != "user" || len(contents[0].Parts) == 0 || !strings.HasPrefix(contents[0].Parts[0].Text, "Earlier conversation") {
			t.Fatalf("%s: the first content does not open with the memory: %.400s", cache, req["contents"])
		}
		if last := contents[len(contents)-1]; last.Parts[len(last.Parts)-1].Text != "Which fern did I repot on day 3?" {
			t.Errorf("%s: the question is not the last part: %+v", cache, last)
		}
		var roles []string
		for _, c := range contents {
			roles = append(roles, c.Role)
		}
		t.Logf("%s: %d → %d bytes, roles %v", cache, len(body), len(sent), roles)
	}
}

// TestGeminiAPIVersions: the Gemini API's methods under its v1alpha and
// v1 versions (an SDK's api_version) are served as under v1beta, and
// forwarded under the version they came with; GET /v1/models goes to the
// Gemini upstream when the key comes as Gemini's, to OpenAI's otherwise.
func TestGeminiAPIVersions(t *testing.T) {
	e, g := newGeminiEnv(t)
	body := geminiLoop(60)
	for _, v := range []string{"/v1alpha", "/v1"} {
		path := v + "/models/gemini-3-flash-preview:generateContent"
		resp := geminiDo(t, e, "POST", path, body, "x-goog-api-key: "+e.key, swchttp.HeaderBudget+": 3000")
		got := readAll(t, resp)
		r, sent := g.last(t)
		after, _ := strconv.Atoi(resp.Header.Get(swchttp.HeaderTokensAfter))
		if resp.StatusCode != 200 || got != geminiAnswer || r.URL.Path != path || resp.Header.Get(swchttp.HeaderMode) != "stateless" ||
			after == 0 || after > 3000 || len(sent) >= len(body) || r.Header.Get("X-Goog-Api-Key") != "gemini-upstream-key" {
			t.Errorf("%s: %d %s, upstream %s, mode %q, %d tokens after, %d → %d bytes", path, resp.StatusCode, got, r.URL.Path,
				resp.Header.Get(swchttp.HeaderMode), after, len(body), len(sent))
		}
		path = v + "/models/gemini-3-flash-preview:countTokens"
		resp = geminiDo(t, e, "POST", path, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, "x-goog-api-key: "+e.key)
		readAll(t, resp)
		if r, _ := g.last(t); resp.StatusCode != 200 || r.URL.Path != path {
			t.Errorf("%s: %d, upstream %s", path, resp.StatusCode, r.URL.Path)
		}
	}
	for _, tc := range []struct {
		auth   string
		gemini bool
	}{
		{"x-goog-api-key: " + e.key, true},
		{"", true}, // ?key=
		{"Authorization: Bearer " + e.key, false},
		{"Authorization: Bearer " + e.key + "|?key=not-an-swc-key", false}, // an OpenAI client's query
	} {
		path := "/v1/models"
		auth, query, _ := strings.Cut(tc.auth, "|")
		switch {
		case tc.auth == "":
			path += "?key=" + e.key
		case query != "":
			path += query
		}
		tc.auth = auth
		resp := geminiDo(t, e, "GET", path, "", tc.auth)
		readAll(t, resp)
		r, _ := g.last(t)
		if gem := r.Header.Get("X-Goog-Api-Key") == "gemini-upstream-key"; resp.StatusCode != 200 || gem != tc.gemini || r.URL.Path != "/v1/models" || gem && strings.Contains(r.URL.RawQuery, "key=") {
			t.Errorf("GET %s with %q: %d, upstream %s?%s, to Gemini's %v (want %v)", path, tc.auth, resp.StatusCode, r.URL.Path, r.URL.RawQuery, gem, tc.gemini)
		}
	}
}

// TestGeminiResources: the Files API and cached contents are relayed on
// the same base URL, the method, path, query (without the swc key),
// headers and body as they came, the server's key instead of the
// client's.
func TestGeminiResources(t *testing.T) {
	e, g := newGeminiEnv(t)
	for _, tc := range []struct{ method, path, body string }{
		{"POST", "/upload/v1beta/files", `{"file":{"display_name":"shot.png"}}`},
		{"GET", "/v1beta/files?pageSize=10", ""},
		{"GET", "/v1beta/files/abc-123", ""},
		{"DELETE", "/v1beta/files/abc-123", ""},
		{"POST", "/v1beta/cachedContents", `{"model":"models/gemini-2.5-flash","contents":[{"role":"user","parts":[{"text":"a long document"}]}],"ttl":"600s"}`},
		{"GET", "/v1beta/cachedContents", ""},
		{"GET", "/v1beta/cachedContents/c-1", ""},
		{"PATCH", "/v1beta/cachedContents/c-1?updateMask=ttl", `{"ttl":"1200s"}`},
		{"DELETE", "/v1beta/cachedContents/c-1", ""},
	} {
		resp := geminiDo(t, e, tc.method, tc.path, tc.body, "x-goog-api-key: "+e.key, "X-Goog-Upload-Protocol: resumable")
		readAll(t, resp)
		r, sent := g.last(t)
		path, query, _ := strings.Cut(tc.path, "?")
		if resp.StatusCode != 200 || resp.Header.Get(swchttp.HeaderMode) != "passthrough" || r.Method != tc.method || r.URL.Path != path ||
			r.URL.RawQuery != query || string(sent) != tc.body || r.Header.Get("X-Goog-Api-Key") != "gemini-upstream-key" ||
			r.Header.Get("X-Goog-Upload-Protocol") != "resumable" {
			t.Errorf("%s %s: %d, mode %q; upstream %s %s?%s, key %q, body %q", tc.method, tc.path, resp.StatusCode,
				resp.Header.Get(swchttp.HeaderMode), r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("X-Goog-Api-Key"), sent)
		}
	}
}

// TestGeminiUpload: a resumable upload of the Files API through swc. Its
// start is relayed and the upload URL Google answers with points back at
// swc, so the bytes come through swc (streamed: a file over the proxy's
// body limit passes; with the server's key, not the client's swc key) to
// the upload URL's path and query.
func TestGeminiUpload(t *testing.T) {
	e := newProxyEnv(t, func(s *swchttp.Server, _ *sleep.Service) { s.Proxy.MaxBody = 1 << 20 })
	g := &geminiUpstream{}
	e.up.handle = g.handle
	g.reply = func(w http.ResponseWriter, r *http.Request, body []byte) {
		if r.Header.Get("X-Goog-Upload-Command") == "start" {
			w.Header().Set("X-Goog-Upload-URL", e.up.ts.URL+"/upload/v1beta/files?upload_id=U1&upload_protocol=resumable")
			w.Header().Set("X-Goog-Upload-Status", "active")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"file":{"name":"files/abc-123","sizeBytes":"`+strconv.Itoa(len(body))+`"}}`)
	}
	resp := geminiDo(t, e, "POST", "/upload/v1beta/files", `{"file":{"display_name":"shot.png"}}`, "x-goog-api-key: "+e.key,
		"X-Goog-Upload-Protocol: resumable", "X-Goog-Upload-Command: start", "X-Goog-Upload-Header-Content-Type: image/png")
	readAll(t, resp)
	upload := resp.Header.Get("X-Goog-Upload-URL")
	if resp.StatusCode != 200 || upload != e.ts.URL+"/upload/v1beta/files?upload_id=U1&upload_protocol=resumable" || resp.Header.Get("X-Goog-Upload-Status") != "active" {
		t.Fatalf("start: %d, upload URL %q (want swc's: %s…)", resp.StatusCode, upload, e.ts.URL)
	}
	data := strings.Repeat("P", 3<<20)
	resp = geminiDo(t, e, "POST", strings.TrimPrefix(upload, e.ts.URL), data, "x-goog-api-key: "+e.key,
		"X-Goog-Upload-Command: upload, finalize", "X-Goog-Upload-Offset: 0", "Content-Type: application/octet-stream")
	got := readAll(t, resp)
	r, sent := g.last(t)
	if resp.StatusCode != 200 || !strings.Contains(got, `"sizeBytes":"3145728"`) || r.URL.Path != "/upload/v1beta/files" ||
		r.URL.RawQuery != "upload_id=U1&upload_protocol=resumable" || len(sent) != len(data) ||
		r.Header.Get("X-Goog-Api-Key") != "gemini-upstream-key" || r.Header.Get("Content-Type") != "application/octet-stream" {
		t.Errorf("upload: %d %s; upstream %s?%s, %d bytes, key %q, type %q", resp.StatusCode, got, r.URL.Path, r.URL.RawQuery, len(sent),
			r.Header.Get("X-Goog-Api-Key"), r.Header.Get("Content-Type"))
	}
}

// TestGeminiInteractions: the Interactions API is relayed as it came
// (passthrough, not compressed): a streamed interaction's events reach
// the client as the upstream sends them; get (with its query), delete
// and cancel reach the upstream with the server's key.
func TestGeminiInteractions(t *testing.T) {
	e, g := newGeminiEnv(t)
	const events = "event: interaction.start\ndata: {\"interaction\":{\"id\":\"v1_1\"}}\n\nevent: content.delta\ndata: {\"delta\":{\"text\":\"Hi\"}}\n\ndata: [DONE]\n\n"
	g.reply = func(w http.ResponseWriter, r *http.Request, body []byte) {
		if bytes.Contains(body, []byte(`"stream":true`)) || r.URL.Query().Get("stream") == "true" {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, events)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"v1_1","status":"completed"}`)
	}
	body := `{"model":"gemini-3-flash-preview","input":[{"type":"user_input","content":[{"type":"text","text":"hi"}]}],"stream":true,"store":false}`
	for _, tc := range []struct{ method, path, body, want, mode string }{
		{"POST", "/v1beta/interactions", body, events, "fits"}, // compressed when over the budget: TestInteractionsToolLoop
		{"GET", "/v1beta/interactions/v1_1?stream=true&last_event_id=e1", "", events, "passthrough"},
		{"GET", "/v1beta/interactions/v1_1?include_input=true", "", `{"id":"v1_1","status":"completed"}`, "passthrough"},
		{"DELETE", "/v1beta/interactions/v1_1", "", `{"id":"v1_1","status":"completed"}`, "passthrough"},
		{"POST", "/v1beta/interactions/v1_1/cancel", "", `{"id":"v1_1","status":"completed"}`, "passthrough"},
	} {
		resp := geminiDo(t, e, tc.method, tc.path, tc.body, "x-goog-api-key: "+e.key, "Api-Revision: 2026-05-20")
		got := readAll(t, resp)
		r, sent := g.last(t)
		path, query, _ := strings.Cut(tc.path, "?")
		if resp.StatusCode != 200 || got != tc.want || resp.Header.Get(swchttp.HeaderMode) != tc.mode || r.Method != tc.method ||
			r.URL.Path != path || r.URL.RawQuery != query || string(sent) != tc.body || r.Header.Get("X-Goog-Api-Key") != "gemini-upstream-key" ||
			r.Header.Get("Api-Revision") != "2026-05-20" {
			t.Errorf("%s %s: %d %q, mode %q; upstream %s %s?%s, body %q", tc.method, tc.path, resp.StatusCode, got,
				resp.Header.Get(swchttp.HeaderMode), r.Method, r.URL.Path, r.URL.RawQuery, sent)
		}
	}
}
