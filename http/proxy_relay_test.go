package http_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	oaoption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/swcmem/swc/chat"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/loadtest"
)

// echoUpstream answers every request with its method, path and query, and
// a body in the shape its route's SDK reads.
func echoUpstream(w http.ResponseWriter, r *http.Request, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Request-Id", "req_relay")
	w.Header().Set("X-Echo-Query", r.URL.RawQuery)
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/models"):
		io.WriteString(w, `{"object":"list","data":[{"id":"gpt-5","object":"model","created":1,"owned_by":"openai"}],"has_more":false,"first_id":"gpt-5","last_id":"gpt-5"}`)
	case strings.Contains(p, "/models/"):
		io.WriteString(w, `{"id":"gpt-5","object":"model","created":1,"owned_by":"openai"}`)
	case strings.HasSuffix(p, "/embeddings"):
		io.WriteString(w, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.5,0.25]}],"model":"text-embedding-3-small","usage":{"prompt_tokens":2,"total_tokens":2}}`)
	case strings.HasSuffix(p, "/count_tokens"), strings.HasSuffix(p, "/input_tokens"):
		// The provider's count: here the request's bytes, so that a
		// compressed request counts less.
		io.WriteString(w, `{"object":"response.input_tokens","input_tokens":`+itoa(len(body))+`}`)
	case strings.HasSuffix(p, "/compact"):
		io.WriteString(w, `{"id":"cmp_resp","object":"response.compaction","created_at":1,"output":[{"type":"compaction","id":"cmp_1","encrypted_content":"gAAA"}],"usage":{"input_tokens":9,"input_tokens_details":{"cached_tokens":0},"output_tokens":1,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":10}}`)
	default:
		io.WriteString(w, responseJSON)
	}
}

// TestProxyRelayRoutes: each relayed route checks the swc key (401 in the
// protocol's shape, nothing sent upstream) and with a good one reaches the
// upstream as it came: method, path, query and body, with the server's
// key instead of the client's.
func TestProxyRelayRoutes(t *testing.T) {
	e := newProxyEnv(t)
	e.up.handle = echoUpstream
	for _, tt := range []struct {
		method, path, body string
		headers            []string
		upstreamPath       string
		anthropic          bool
	}{
		{method: "GET", path: "/v1/models", upstreamPath: "/v1/models"},
		{method: "GET", path: "/v1/models/gpt-5", upstreamPath: "/v1/models/gpt-5"},
		{method: "GET", path: "/v1/models?limit=5", headers: []string{"anthropic-version: 2023-06-01"}, upstreamPath: "/v1/models", anthropic: true},
		{method: "POST", path: "/v1/embeddings", body: `{"model":"text-embedding-3-small","input":"hello", "dimensions":2}`, upstreamPath: "/v1/embeddings"},
		{method: "POST", path: "/v1/responses/compact", body: `{"model":"gpt-5","input":[{"role":"user","content":"` + strings.Repeat("long ", 2000) + `"}]}`, upstreamPath: "/v1/responses/compact"},
		{method: "GET", path: "/v1/responses/resp_1?include[]=reasoning.encrypted_content", upstreamPath: "/v1/responses/resp_1"},
		{method: "DELETE", path: "/v1/responses/resp_1", upstreamPath: "/v1/responses/resp_1"},
		{method: "POST", path: "/v1/responses/resp_1/cancel", upstreamPath: "/v1/responses/resp_1/cancel"},
		{method: "GET", path: "/v1/responses/resp_1/input_items?order=asc", upstreamPath: "/v1/responses/resp_1/input_items"},
	} {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			do := func(key string) (*http.Response, string) {
				req, _ := http.NewRequestWithContext(t.Context(), tt.method, e.ts.URL+tt.path, strings.NewReader(tt.body))
				if key != "" {
					if tt.anthropic {
						req.Header.Set("X-Api-Key", key)
					} else {
						req.Header.Set("Authorization", "Bearer "+key)
					}
				}
				for _, h := range tt.headers {
					k, v, _ := strings.Cut(h, ":")
					req.Header.Set(k, strings.TrimSpace(v))
				}
				resp, err := e.ts.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				return resp, readAll(t, resp)
			}
			before := e.up.count()
			for _, bad := range []string{"", "swc_not-a-key", "sk-proj-provider-key"} {
				resp, body := do(bad)
				if resp.StatusCode != 401 {
					t.Fatalf("key %q: status %d %s; want 401", bad, resp.StatusCode, body)
				}
				var shape map[string]json.RawMessage
				json.Unmarshal([]byte(body), &shape)
				if tt.anthropic && string(shape["type"]) != `"error"` || !tt.anthropic && !strings.Contains(string(shape["error"]), `"type":"authentication_error"`) {
					t.Errorf("401 body %s not in the protocol's shape", body)
				}
			}
			if e.up.count() != before {
				t.Fatal("a request with a bad key reached the upstream")
			}
			resp, body := do(e.key)
			if resp.StatusCode != 200 || resp.Header.Get(swchttp.HeaderMode) != "passthrough" || resp.Header.Get("X-Request-Id") != "req_relay" {
				t.Fatalf("status %d mode %q headers %v: %s", resp.StatusCode, resp.Header.Get(swchttp.HeaderMode), resp.Header, body)
			}
			got, head := e.up.last(t)
			e.up.mu.Lock()
			path := e.up.paths[len(e.up.paths)-1]
			e.up.mu.Unlock()
			_, query, _ := strings.Cut(tt.path, "?")
			if q := resp.Header.Get("X-Echo-Query"); q != query {
				t.Errorf("upstream query %q; want %q", q, query)
			}
			if path != tt.upstreamPath || string(got) != tt.body {
				t.Errorf("upstream got %s %q body %.80q; want %q body %.80q", tt.method, path, got, tt.upstreamPath, tt.body)
			}
			wantKey := head.Get("Authorization") == "Bearer sk-upstream-openai" && head.Get("X-Api-Key") == ""
			if tt.anthropic {
				wantKey = head.Get("X-Api-Key") == "sk-upstream-anthropic" && head.Get("Authorization") == ""
			}
			if !wantKey || strings.Contains(strings.Join(head.Values("Authorization"), ""), e.key) {
				t.Errorf("upstream credentials %v", head)
			}
		})
	}
}

// TestProxyRelaySDKs: the official clients' calls of these routes work
// through the proxy.
func TestProxyRelaySDKs(t *testing.T) {
	e := newProxyEnv(t)
	e.up.handle = echoUpstream
	client := openai.NewClient(oaoption.WithBaseURL(e.ts.URL+"/v1"), oaoption.WithAPIKey(e.key), oaoption.WithMaxRetries(0))
	models, err := client.Models.List(t.Context())
	if err != nil || len(models.Data) != 1 || models.Data[0].ID != "gpt-5" {
		t.Fatalf("models %+v %v", models, err)
	}
	emb, err := client.Embeddings.New(t.Context(), openai.EmbeddingNewParams{Model: "text-embedding-3-small",
		Input: openai.EmbeddingNewParamsInputUnion{OfString: openai.String("hello")}})
	if err != nil || len(emb.Data) != 1 || emb.Data[0].Embedding[1] != 0.25 {
		t.Fatalf("embeddings %+v %v", emb, err)
	}
	cmp, err := client.Responses.Compact(t.Context(), responses.ResponseCompactParams{Model: "gpt-5",
		Input: responses.ResponseCompactParamsInputUnion{OfString: openai.String("compact this")}})
	if err != nil || cmp.ID != "cmp_resp" || len(cmp.Output) != 1 {
		t.Fatalf("compact %+v %v", cmp, err)
	}
	got, err := client.Responses.Get(t.Context(), "resp_1", responses.ResponseGetParams{})
	if err != nil || got.OutputText() != "Casa do Rio." {
		t.Fatalf("get %+v %v", got, err)
	}
	if err := client.Responses.Delete(t.Context(), "resp_1"); err != nil {
		t.Fatal(err)
	}
	ac := anthropic.NewClient(anthropicoption.WithoutEnvironmentDefaults(), anthropicoption.WithBaseURL(e.ts.URL),
		anthropicoption.WithAPIKey(e.key), anthropicoption.WithMaxRetries(0))
	am, err := ac.Models.List(t.Context(), anthropic.ModelListParams{})
	if err != nil || len(am.Data) != 1 {
		t.Fatalf("anthropic models %+v %v", am, err)
	}
	_, head := e.up.last(t)
	if head.Get("X-Api-Key") != "sk-upstream-anthropic" {
		t.Errorf("anthropic models not sent to the anthropic upstream: %v", head)
	}
}

// TestProxyCountTokens: count_tokens and input_tokens count the request
// as swc would send it — compressed — not as it came.
func TestProxyCountTokens(t *testing.T) {
	e := newProxyEnv(t)
	e.up.handle = echoUpstream
	hist := loadtest.AgentHistory(400, 0)

	// Anthropic: the official client's CountTokens.
	req := chat.ToAnthropic(hist)
	b, _ := json.Marshal(req.Messages)
	var params anthropic.MessageCountTokensParams
	if err := json.Unmarshal(b, &params.Messages); err != nil {
		t.Fatal(err)
	}
	params.Model = "claude-haiku-4-5"
	params.System = anthropic.MessageCountTokensParamsSystemUnion{OfTextBlockArray: []anthropic.TextBlockParam{{Text: req.System}}}
	var sent []byte
	var resp *http.Response
	ac := anthropic.NewClient(anthropicoption.WithoutEnvironmentDefaults(), anthropicoption.WithBaseURL(e.ts.URL),
		anthropicoption.WithAPIKey(e.key), anthropicoption.WithMaxRetries(0), anthropicoption.WithMiddleware(recordBody(&sent)),
		anthropicoption.WithHeader(swchttp.HeaderBudget, "2500"), anthropicoption.WithHeader(swchttp.HeaderConversation, "counted"))
	n, err := ac.Messages.CountTokens(t.Context(), params, anthropicoption.WithResponseInto(&resp))
	if err != nil {
		t.Fatal(err)
	}
	got, head := e.up.last(t)
	if p := e.up.paths[len(e.up.paths)-1]; p != "/v1/messages/count_tokens" || head.Get("X-Api-Key") != "sk-upstream-anthropic" {
		t.Errorf("upstream path %q key %q", p, head.Get("X-Api-Key"))
	}
	if int(n.InputTokens) != len(got) || len(got) >= len(sent) {
		t.Errorf("counted %d: the upstream got %d bytes of the %d sent; want the compressed request counted", n.InputTokens, len(got), len(sent))
	}
	withinBudget(t, got, chat.Anthropic, 2500)
	if resp.Header.Get(swchttp.HeaderMode) != "stateless" {
		t.Errorf("mode %q; a count is compressed statelessly", resp.Header.Get(swchttp.HeaderMode))
	}
	if list, err := e.db.Conversations(t.Context(), tenantOf(t, e)); err != nil || len(list) != 0 {
		t.Errorf("a count stored its messages: %v %v", list, err)
	}

	// Responses: the official client's InputTokens.Count.
	instr, items := agentResponsesInput(t, hist)
	client := openai.NewClient(oaoption.WithBaseURL(e.ts.URL+"/v1"), oaoption.WithAPIKey(e.key), oaoption.WithMaxRetries(0),
		oaoption.WithHeader(swchttp.HeaderBudget, "3000"), oaoption.WithMiddleware(recordBody(&sent)))
	cnt, err := client.Responses.InputTokens.Count(t.Context(), responses.InputTokenCountParams{Model: openai.String("gpt-5"),
		Instructions: openai.String(instr), Input: responses.InputTokenCountParamsInputUnion{OfResponseInputItemArray: items}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = e.up.last(t)
	if p := e.up.paths[len(e.up.paths)-1]; p != "/v1/responses/input_tokens" {
		t.Errorf("upstream path %q", p)
	}
	if int(cnt.InputTokens) != len(got) || len(got) >= len(sent) {
		t.Errorf("counted %d: the upstream got %d bytes of the %d sent", cnt.InputTokens, len(got), len(sent))
	}
	withinBudget(t, got, chat.Responses, 3000)
}
