package http_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/swcmem/swc"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/sleep"
)

// openAPIDoc is the part of the OpenAPI document the test reads.
type openAPIDoc struct {
	OpenAPI string                                 `json:"openapi"`
	Paths   map[string]map[string]openAPIOperation `json:"paths"`
}

type openAPIOperation struct {
	Parameters []struct {
		Name     string `json:"name"`
		In       string `json:"in"`
		Required bool   `json:"required"`
	} `json:"parameters"`
	Responses map[string]struct {
		Content map[string]json.RawMessage `json:"content"`
	} `json:"responses"`
}

// apiCheck validates answers against the document and records what was
// seen, so that a documented status nothing produced fails too.
type apiCheck struct {
	t       *testing.T
	doc     openAPIDoc
	schemas *jsonschema.Compiler
	seen    map[string]bool // "GET /path status"
	sent    int             // requests
	params  map[string]bool // "GET /path in:name"
}

func newAPICheck(t *testing.T) *apiCheck {
	var doc openAPIDoc
	if err := json.Unmarshal(swchttp.OpenAPI(), &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1.") {
		t.Fatalf("openapi %q; want 3.1", doc.OpenAPI)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(swchttp.OpenAPI()))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("openapi.json", raw); err != nil {
		t.Fatal(err)
	}
	return &apiCheck{t: t, doc: doc, schemas: c, seen: map[string]bool{}, params: map[string]bool{}}
}

// op returns the documented operation of route ("GET /v1/…").
func (a *apiCheck) op(route string) openAPIOperation {
	a.t.Helper()
	method, path, _ := strings.Cut(route, " ")
	op, ok := a.doc.Paths[path][strings.ToLower(method)]
	if !ok {
		a.t.Fatalf("%s is not in the document", route)
	}
	return op
}

// check fails unless resp's status is documented for route and its body
// fits the documented schema; it records the status and the parameters
// the request carried.
func (a *apiCheck) check(route string, req *http.Request, resp *http.Response, body []byte) {
	a.t.Helper()
	op := a.op(route)
	status := fmt.Sprint(resp.StatusCode)
	r, ok := op.Responses[status]
	if !ok {
		a.t.Errorf("%s answered %s, which the document does not list (%s)", route, status, bytes.TrimSpace(body[:min(len(body), 200)]))
		return
	}
	a.seen[route+" "+status] = true
	for _, p := range op.Parameters {
		switch {
		case p.In == "query" && req.URL.Query().Has(p.Name), p.In == "header" && req.Header.Get(p.Name) != "", p.In == "path":
			a.params[route+" "+p.In+":"+p.Name] = true
		}
	}
	if len(r.Content) == 0 {
		return
	}
	ct, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
	if _, ok := r.Content[ct]; !ok {
		var want []string
		for k := range r.Content {
			want = append(want, k)
		}
		a.t.Errorf("%s %s: Content-Type %q; the document says %v", route, status, ct, want)
		return
	}
	if ct != "application/json" {
		return
	}
	method, path, _ := strings.Cut(route, " ")
	ptr := "openapi.json#/paths/" + strings.ReplaceAll(path, "/", "~1") + "/" + strings.ToLower(method) +
		"/responses/" + status + "/content/application~1json/schema"
	sch, err := a.schemas.Compile(ptr)
	if err != nil {
		a.t.Fatalf("%s: %v", ptr, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		a.t.Errorf("%s %s: body is not JSON: %v: %.200s", route, status, err, body)
		return
	}
	if err := sch.Validate(inst); err != nil {
		a.t.Errorf("%s %s: body %.300s does not fit the document: %v", route, status, body, err)
	}
}

// apiCase is one request of the conformance test.
type apiCase struct {
	route   string // the documented operation
	path    string // the request's path and query ("" for the route's path with sample values)
	body    string
	headers []string // "Name: value"
	key     string   // "" none, "key" the tenant's key, else as written
	want    int
}

// samplePath fills a route's path parameters.
func samplePath(path string) string {
	r := strings.NewReplacer("{model}", "gpt-5", "{model_method}", "gemini-2.5-flash:generateContent", "{name}", "abc-123")
	if strings.HasPrefix(path, "/v1/responses/") {
		return strings.ReplaceAll(r.Replace(path), "{id}", "resp_1")
	}
	return strings.ReplaceAll(r.Replace(path), "{id}", "conv-1")
}

func (a *apiCheck) do(ts string, client *http.Client, key string, c apiCase) {
	a.t.Helper()
	method, path, _ := strings.Cut(c.route, " ")
	if c.path == "" {
		c.path = samplePath(path)
	}
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(strings.ReplaceAll(c.body, "KEY", key))
	}
	req, err := http.NewRequestWithContext(a.t.Context(), method, ts+c.path, body)
	if err != nil {
		a.t.Fatal(err)
	}
	switch c.key {
	case "":
	case "key":
		req.Header.Set("Authorization", "Bearer "+key)
	default:
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	if c.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, h := range c.headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(k, strings.TrimSpace(strings.ReplaceAll(v, "KEY", key)))
	}
	a.sent++
	noFollow := *client
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := noFollow.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if c.want != 0 && resp.StatusCode != c.want {
		a.t.Errorf("%s %s: status %d, want %d: %.200s", method, c.path, resp.StatusCode, c.want, b)
	}
	a.check(c.route, req, resp, b)
}

// TestOpenAPI fails when the server and its OpenAPI document disagree: a
// route served but not documented or documented but not served, a path
// parameter, a query parameter a handler reads but the document does not
// list, a status a route answers that the document does not list (or one
// it lists that nothing produces, but 500 and 503), a body that does not
// fit the documented schema (the error shapes included).
func TestOpenAPI(t *testing.T) {
	a := newAPICheck(t)
	e := newProxyEnv(t, func(s *swchttp.Server, _ *sleep.Service) { s.MaxBody = 64 << 10 })
	e.up.handle = echoUpstream

	// Routes: the server's and the document's are the same set.
	var served, documented []string
	wildcard := regexp.MustCompile(`\{([a-z_]+)\}`)
	for _, p := range e.srv.Routes() {
		served = append(served, p)
	}
	for path, ops := range a.doc.Paths {
		for method, op := range ops {
			route := strings.ToUpper(method) + " " + path
			documented = append(documented, route)
			var names []string
			for _, p := range op.Parameters {
				if p.In == "path" {
					if !p.Required {
						t.Errorf("%s: path parameter %s not required", route, p.Name)
					}
					names = append(names, p.Name)
				}
			}
			var want []string
			for _, m := range wildcard.FindAllStringSubmatch(path, -1) {
				want = append(want, m[1])
			}
			if fmt.Sprint(names) != fmt.Sprint(want) {
				t.Errorf("%s: path parameters %v documented; the path has %v", route, names, want)
			}
		}
	}
	sort.Strings(served)
	sort.Strings(documented)
	if fmt.Sprint(served) != fmt.Sprint(documented) {
		for _, r := range served {
			if !slices.Contains(documented, r) {
				t.Errorf("%s is served but not documented", r)
			}
		}
		for _, r := range documented {
			if !slices.Contains(served, r) {
				t.Errorf("%s is documented but not served", r)
			}
		}
	}

	// The document is served as it is in the repository.
	resp, err := e.ts.Client().Get(e.ts.URL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if b := readAll(t, resp); b != string(swchttp.OpenAPI()) {
		t.Error("GET /openapi.json is not openapi.json")
	}

	ts, client, key := e.ts.URL, e.ts.Client(), e.key
	spare, err := e.db.KeyByHash(t.Context(), swchttp.HashKey(e.newKey("acme")))
	if err != nil {
		t.Fatal(err)
	}
	session := "Cookie: swc_session=" + uiLogin(t, e.env, key, "127.0.0.1:5000", "").Value
	msgs := `{"messages":[{"id":"1","role":"user","content":"We fly to Lisbon on 7 May.","timestamp":"2026-05-01T09:00:00Z"},{"id":"2","role":"assistant","content":"Noted."}]}`
	chatBody := `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}`
	firstChain := swc.Chain("", swc.Message{Role: swc.RoleUser, Content: "We fly to Lisbon on 7 May."}) // msgs' first, once stored
	msgBody := `{"model":"claude-haiku-4-5","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`
	respBody := `{"model":"gpt-5","input":"hi"}`
	mcpCall := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"Lisbon"}}}`
	mcpAccept := "Accept: application/json, text/event-stream"
	cases := []apiCase{
		{route: "POST /v1/conversations/{id}/messages", body: msgs, key: "key", want: 201},
		{route: "POST /v1/conversations/{id}/messages", path: "/v1/conversations/conv-2/messages", body: msgs, key: "key", want: 201},
		{route: "POST /v1/conversations/{id}/messages", body: `{"messages":"x"}`, key: "key", want: 400},
		{route: "GET /v1/conversations/{id}/context", key: "key", want: 200},
		{route: "GET /v1/conversations/{id}/context", path: "/v1/conversations/conv-1/context?budget=500&strategy=truncation&format=openai", key: "key", want: 200},
		{route: "GET /v1/conversations/{id}/context", path: "/v1/conversations/conv-1/context?budget=abc", key: "key", want: 400},
		{route: "GET /v1/conversations/{id}/context", path: "/v1/conversations/conv-1/context?strategy=bogus", key: "key", want: 400},
		{route: "GET /v1/conversations/{id}/context", path: "/v1/conversations/conv-1/context?format=bogus", key: "key", want: 400},
		{route: "GET /v1/conversations/{id}/context", path: "/v1/conversations/none/context", key: "key", want: 404},
		{route: "GET /v1/conversations", key: "key", want: 200},
		{route: "GET /v1/conversations/{id}", key: "key", want: 200},
		{route: "GET /v1/conversations/{id}", path: "/v1/conversations/bad%21id", key: "key", want: 400},
		{route: "GET /v1/conversations/{id}", path: "/v1/conversations/none", key: "key", want: 404},
		{route: "POST /v1/conversations/{id}/consolidate", key: "key", want: 202},
		{route: "POST /v1/conversations/{id}/consolidate", path: "/v1/conversations/bad%21id/consolidate", key: "key", want: 400},
		{route: "POST /v1/conversations/{id}/consolidate", path: "/v1/conversations/none/consolidate", key: "key", want: 404},
		{route: "DELETE /v1/conversations/{id}", path: "/v1/conversations/conv-2", key: "key", want: 204},
		{route: "DELETE /v1/conversations/{id}", path: "/v1/conversations/bad%21id", key: "key", want: 400},
		{route: "DELETE /v1/conversations/{id}", path: "/v1/conversations/none", key: "key", want: 404},
		{route: "GET /healthz", want: 200},
		{route: "GET /readyz", want: 200},
		{route: "GET /metrics", want: 200},
		{route: "GET /openapi.json", want: 200},
		{route: "GET /ui", want: 200},
		{route: "POST /ui/login", body: "key=swc_bad", headers: []string{"Content-Type: application/x-www-form-urlencoded", "Origin: " + ts}, want: 401},
		{route: "POST /ui/login", body: "key=KEY", headers: []string{"Content-Type: application/x-www-form-urlencoded", "Origin: " + ts}, want: 303},
		{route: "POST /ui/login", body: "key=KEY", headers: []string{"Content-Type: application/x-www-form-urlencoded", "Origin: https://evil.example"}, want: 403},
		{route: "POST /ui/logout", headers: []string{"Origin: " + ts}, want: 303},
		{route: "POST /ui/logout", headers: []string{"Origin: https://evil.example"}, want: 403},
		{route: "GET /ui/conversations/{id}", want: 303},
		{route: "GET /ui/conversations/{id}", path: "/ui/conversations/conv-1?budget=500&strategy=truncation", headers: []string{session}, want: 200},
		{route: "GET /ui/conversations/{id}", path: "/ui/conversations/conv-1?budget=x", headers: []string{session}, want: 400},
		{route: "GET /ui/conversations/{id}", path: "/ui/conversations/none", headers: []string{session}, want: 404},
		{route: "GET /ui/conversations/{id}/requests", want: 303},
		{route: "GET /ui/conversations/{id}/requests", headers: []string{session}, want: 200},
		{route: "GET /ui/conversations/{id}/requests", path: "/ui/conversations/bad%21id/requests", headers: []string{session}, want: 400},
		{route: "GET /ui/conversations/{id}/requests", path: "/ui/conversations/none/requests", headers: []string{session}, want: 404},
		{route: "GET /ui/conversations/{id}/originals/{ref}", want: 303},
		{route: "GET /ui/conversations/{id}/originals/{ref}", path: "/ui/conversations/conv-1/originals/" + firstChain, headers: []string{session}, want: 200},
		{route: "GET /ui/conversations/{id}/originals/{ref}", path: "/ui/conversations/conv-1/originals/turn-1", headers: []string{session}, want: 400},
		{route: "GET /ui/conversations/{id}/originals/{ref}", path: "/ui/conversations/conv-1/originals/h0000000000", headers: []string{session}, want: 404},
		{route: "GET /v1/keys", key: "key", want: 200},
		{route: "DELETE /v1/keys/{id}", path: "/v1/keys/" + spare.ID, key: "key", want: 204},
		{route: "DELETE /v1/keys/{id}", path: "/v1/keys/k_none", key: "key", want: 404},
		{route: "POST /mcp", body: mcpCall, key: "key", headers: []string{mcpAccept}, want: 200},
		{route: "POST /mcp", body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, key: "key", headers: []string{mcpAccept}, want: 202},
		{route: "POST /mcp", body: mcpCall, key: "key", want: 400},
		{route: "POST /mcp", key: "key", want: 415},
		{route: "GET /mcp", key: "key", want: 405},
		{route: "DELETE /mcp", key: "key", want: 405},
	}
	for _, r := range []struct{ route, body string }{
		{"POST /v1/chat/completions", chatBody}, {"POST /v1/messages", msgBody}, {"POST /v1/responses", respBody},
		{"POST /v1/responses/input_tokens", respBody}, {"POST /v1/messages/count_tokens", msgBody},
	} {
		cases = append(cases,
			apiCase{route: r.route, body: r.body, key: "key", headers: []string{swchttp.HeaderBudget + ": 3000"}, want: 200},
			apiCase{route: r.route, body: `{"model":`, key: "key", want: 400},
			apiCase{route: r.route, body: r.body, key: "key", headers: []string{swchttp.HeaderBudget + ": lots"}, want: 400})
		if !strings.Contains(r.route, "token") {
			cases = append(cases,
				apiCase{route: r.route, body: r.body, key: "key", headers: []string{swchttp.HeaderConversation + ": agent-1"}, want: 200},
				apiCase{route: r.route, body: r.body, key: "key", headers: []string{swchttp.HeaderConversation + ": bad id!"}, want: 400})
		}
	}
	for _, r := range []struct{ route, body string }{
		{"POST /v1/embeddings", `{"model":"m","input":"x"}`}, {"POST /v1/responses/compact", respBody},
		{"GET /v1/responses/{id}", ""}, {"DELETE /v1/responses/{id}", ""}, {"POST /v1/responses/{id}/cancel", ""},
		{"GET /v1/responses/{id}/input_items", ""}, {"GET /v1/models", ""}, {"GET /v1/models/{model}", ""},
	} {
		cases = append(cases, apiCase{route: r.route, body: r.body, key: "key", want: 200})
	}
	for _, route := range []string{"GET /v1/models", "GET /v1/models/{model}"} { // a Gemini client's key
		_, path, _ := strings.Cut(route, " ")
		cases = append(cases,
			apiCase{route: route, path: samplePath(path) + "?key=" + key, want: 200},
			apiCase{route: route, headers: []string{"x-goog-api-key: KEY"}, want: 200},
			apiCase{route: route, headers: []string{"x-goog-api-key: swc_made-up"}, want: 401})
	}
	gemBody := bodyFor("POST /v1beta/models/{model_method}")
	for _, v := range []string{"/v1beta", "/v1alpha", "/v1"} {
		gem := "POST " + v + "/models/{model_method}"
		cases = append(cases,
			apiCase{route: gem, body: gemBody, key: "key", headers: []string{swchttp.HeaderBudget + ": 3000"}, want: 200},
			apiCase{route: gem, path: v + "/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=" + key, body: gemBody, headers: []string{swchttp.HeaderConversation + ": agent-g"}, want: 200},
			apiCase{route: gem, path: v + "/models/gemini-2.5-flash:countTokens", body: gemBody, headers: []string{"x-goog-api-key: KEY"}, want: 200},
			apiCase{route: gem, body: `{"contents":`, key: "key", want: 400},
			apiCase{route: gem, body: gemBody, key: "key", headers: []string{swchttp.HeaderBudget + ": lots"}, want: 400},
			apiCase{route: gem, path: v + "/models/gemini-2.5-flash", body: gemBody, key: "key", want: 404},
		)
		if v != "/v1" {
			cases = append(cases,
				apiCase{route: "GET " + v + "/models", path: v + "/models?key=" + key, want: 200},
				apiCase{route: "GET " + v + "/models/{model}", path: v + "/models/gemini-2.5-flash?key=" + key, want: 200})
		}
	}
	for _, v := range []string{"/v1beta", "/v1alpha", "/v1"} {
		inter := "POST " + v + "/interactions"
		cases = append(cases,
			apiCase{route: inter, body: bodyFor(inter), key: "key", headers: []string{swchttp.HeaderBudget + ": 3000"}, want: 200},
			apiCase{route: inter, body: bodyFor(inter), key: "key", headers: []string{swchttp.HeaderConversation + ": agent-i"}, want: 200},
			apiCase{route: inter, body: `{"input":`, key: "key", want: 400},
			apiCase{route: inter, body: bodyFor(inter), key: "key", headers: []string{swchttp.HeaderBudget + ": lots"}, want: 400})
		for _, r := range []struct{ route, body string }{
			{"POST /upload" + v + "/files", `{"file":{"display_name":"a.png"}}`}, {"GET " + v + "/files", ""}, {"GET " + v + "/files/{name}", ""},
			{"DELETE " + v + "/files/{name}", ""}, {"POST " + v + "/cachedContents", `{"model":"models/gemini-2.5-flash","contents":[]}`},
			{"GET " + v + "/cachedContents", ""}, {"GET " + v + "/cachedContents/{name}", ""},
			{"PATCH " + v + "/cachedContents/{name}", `{"ttl":"600s"}`}, {"DELETE " + v + "/cachedContents/{name}", ""},
			{"POST " + v + "/interactions", `{"model":"gemini-3-flash-preview","input":"hi"}`}, {"GET " + v + "/interactions/{id}", ""},
			{"DELETE " + v + "/interactions/{id}", ""}, {"POST " + v + "/interactions/{id}/cancel", ""},
		} {
			_, path, _ := strings.Cut(r.route, " ")
			cases = append(cases, apiCase{route: r.route, path: samplePath(path) + "?key=" + key, body: r.body, want: 200})
		}
	}
	for _, c := range cases {
		a.do(ts, client, key, c)
	}

	// What every authenticated route answers: 401 without a key, 429 over
	// the rate, 413 over the body limit, 501 without an upstream, 502 with
	// one that cannot be reached.
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://" + closed.Addr().String()
	closed.Close()
	limited := newProxyEnv(t, func(s *swchttp.Server, _ *sleep.Service) { s.Rate, s.Burst = 0.001, 1 })
	bare := newProxyEnv(t, func(s *swchttp.Server, _ *sleep.Service) { s.Proxy = swchttp.ProxyConfig{} })
	dead := newProxyEnv(t, func(s *swchttp.Server, _ *sleep.Service) {
		s.Proxy.OpenAI.URL, s.Proxy.Anthropic.URL, s.Proxy.Gemini.URL = deadURL+"/v1", deadURL, deadURL
	})
	big := `{"messages":[{"role":"user","content":"` + strings.Repeat("x", 70<<10) + `"}]}`
	for _, route := range documented {
		op := a.op(route)
		_, path, _ := strings.Cut(route, " ")
		has := func(st string) bool { _, ok := op.Responses[st]; return ok }
		if has("401") && route != "POST /ui/login" {
			a.do(ts, client, key, apiCase{route: route, want: 401})
			a.do(ts, client, key, apiCase{route: route, key: "swc_revoked-or-made-up", want: 401})
		}
		if has("429") {
			k, _, err := swchttp.CreateKey(t.Context(), limited.db, "acme")
			if err != nil {
				t.Fatal(err)
			}
			a.do(limited.ts.URL, limited.ts.Client(), k, apiCase{route: route, key: "key"})
			a.do(limited.ts.URL, limited.ts.Client(), k, apiCase{route: route, key: "key", want: 429})
		}
		if has("413") {
			a.do(ts, client, key, apiCase{route: route, path: samplePath(path), body: big, key: "key", want: 413})
		}
		if has("501") {
			a.do(bare.ts.URL, bare.ts.Client(), bare.key, apiCase{route: route, body: bodyFor(route), key: "key", want: 501})
		}
		if has("502") {
			a.do(dead.ts.URL, dead.ts.Client(), dead.key, apiCase{route: route, body: bodyFor(route), key: "key", want: 502})
		}
	}

	t.Logf("%d requests", a.sent)

	// Every documented status and parameter was seen.
	for _, route := range documented {
		op := a.op(route)
		for st := range op.Responses {
			if st != "default" && st != "500" && st != "503" && !a.seen[route+" "+st] {
				t.Errorf("%s: the document lists %s, which no request produced", route, st)
			}
		}
		for _, p := range op.Parameters {
			if !a.params[route+" "+p.In+":"+p.Name] {
				t.Errorf("%s: parameter %s (%s) documented but no request sent it", route, p.Name, p.In)
			}
		}
	}

	// Every query parameter a handler reads is documented.
	documentedQuery := map[string]bool{}
	for _, ops := range a.doc.Paths {
		for _, op := range ops {
			for _, p := range op.Parameters {
				if p.In == "query" {
					documentedQuery[p.Name] = true
				}
			}
		}
	}
	files, _ := os.ReadDir(".")
	read := regexp.MustCompile(`(?:Query\(\)|\bq)\.Get\("([^"]+)"\)`)
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".go") || strings.HasSuffix(f.Name(), "_test.go") {
			continue
		}
		src, _ := os.ReadFile(f.Name())
		for _, m := range read.FindAllStringSubmatch(string(src), -1) {
			if !documentedQuery[m[1]] {
				t.Errorf("%s reads query parameter %q, which the document does not list", f.Name(), m[1])
			}
		}
	}
}

// bodyFor is a request body a route accepts.
func bodyFor(route string) string {
	switch {
	case strings.Contains(route, "chat/completions"):
		return `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}`
	case strings.Contains(route, "messages"):
		return `{"model":"claude-haiku-4-5","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`
	case strings.HasPrefix(route, "POST /v1/responses"):
		return `{"model":"gpt-5","input":"hi"}`
	case strings.Contains(route, "embeddings"):
		return `{"model":"m","input":"x"}`
	case strings.HasPrefix(route, "POST /") && strings.HasSuffix(route, "/models/{model_method}"):
		return `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
	case strings.HasPrefix(route, "POST /") && strings.HasSuffix(route, "/interactions"):
		return `{"model":"gemini-3-flash-preview","input":"hi"}`
	}
	return ""
}

// TestRoutesDocumented: docs/service.md's route table names every route
// the server serves, and the README's every route of an agent's base URL
// (the proxied and relayed ones; not the tenant's conversations and keys),
// as "`METHOD /path`".
func TestRoutesDocumented(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	service, err := os.ReadFile("../docs/service.md")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	for _, r := range e.srv.Routes() {
		cell := "`" + r + "`"
		if !bytes.Contains(service, []byte(cell)) {
			t.Errorf("docs/service.md does not name %s", cell)
		}
		_, path, _ := strings.Cut(r, " ")
		if strings.HasPrefix(path, "/v1/") && !strings.HasPrefix(path, "/v1/conversations") && !strings.HasPrefix(path, "/v1/keys") && !bytes.Contains(readme, []byte(cell)) {
			t.Errorf("the README's table of the proxy's routes does not name %s", cell)
		}
	}
}
