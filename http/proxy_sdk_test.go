package http_test

import (
	"bytes"
	"encoding/json"
	"github.com/swcmem/swc/internal/wiretest"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	oaoption "github.com/openai/openai-go/v3/option"

	"github.com/swcmem/swc/chat"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/loadtest"
	"github.com/swcmem/swc/memory"
)

// recordBody is an SDK middleware recording the request body the SDK sent.
func recordBody(dst *[]byte) func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	return func(r *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		b, _ := io.ReadAll(r.Body)
		*dst = b
		r.Body = io.NopCloser(bytes.NewReader(b))
		return next(r)
	}
}

// sameFields fails unless every field of sent but messages (and system,
// for Anthropic) reached the upstream with the same JSON value.
func sameFields(t *testing.T, sent, got []byte, replaced ...string) {
	t.Helper()
	a, b := fields(t, sent), fields(t, got)
	skip := map[string]bool{}
	for _, k := range replaced {
		skip[k] = true
	}
	for k, v := range a {
		if skip[k] {
			continue
		}
		var x, y bytes.Buffer
		json.Compact(&x, v)
		json.Compact(&y, b[k])
		if x.String() != y.String() && !(k == "thinking" && wiretest.DropBlockAdded(y.Bytes(), x.Bytes())) {
			t.Errorf("field %q changed on the way: sent %.120s, upstream got %.120s", k, x.String(), y.String())
		}
	}
	if len(b) != len(a) {
		t.Errorf("upstream got %d fields, the client sent %d", len(b), len(a))
	}
}

// withinBudget parses what the upstream got and fails unless its messages
// fit budget (the rule of memory.MessageOverhead) with every tool call
// answered.
func withinBudget(t *testing.T, body []byte, f chat.Format, budget int) int {
	t.Helper()
	in, err := chat.Parse(body, f)
	if err != nil {
		t.Fatalf("the upstream got a request that does not parse: %v", err)
	}
	c, err := memory.New(memory.Options{Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	n := c.CountMessages(in.Messages)
	if n > budget {
		t.Errorf("upstream got %d tokens of messages; budget %d", n, budget)
	}
	return n
}

func TestProxyOpenAISDK(t *testing.T) {
	e := newProxyEnv(t, noRecall)
	hist := loadtest.AgentHistory(400, 0)
	var msgs []openai.ChatCompletionMessageParamUnion
	b, _ := json.Marshal(chat.OpenAIMessages(hist))
	if err := json.Unmarshal(b, &msgs); err != nil {
		t.Fatal(err)
	}
	var tools []openai.ChatCompletionToolUnionParam
	if err := json.Unmarshal([]byte(`[{"type":"function","function":{"name":"lookup_weather","description":"Weather of a city on a day.","parameters":{"type":"object","properties":{"city":{"type":"string"},"day":{"type":"integer"}},"required":["city"]}}}]`), &tools); err != nil {
		t.Fatal(err)
	}
	var sent []byte
	var resp *http.Response
	client := openai.NewClient(
		oaoption.WithBaseURL(e.ts.URL+"/v1"), oaoption.WithAPIKey(e.key), oaoption.WithMaxRetries(0),
		oaoption.WithHeader(swchttp.HeaderBudget, "3000"),
		oaoption.WithMiddleware(recordBody(&sent)),
	)
	reply, err := client.Chat.Completions.New(t.Context(), openai.ChatCompletionNewParams{
		Model: "gpt-4o-2024-08-06", Messages: msgs, Tools: tools,
		Temperature: openai.Float(0.2), MaxTokens: openai.Int(300),
		Metadata: map[string]string{"run": "r1"},
	}, oaoption.WithJSONSet("x_vendor_field", map[string]any{"keep": true}), oaoption.WithResponseInto(&resp))
	if err != nil {
		t.Fatal(err)
	}
	if reply.Choices[0].Message.Content != "Casa do Rio." {
		t.Errorf("answer %q", reply.Choices[0].Message.Content)
	}
	got, head := e.up.last(t)
	if a := head.Get("Authorization"); a != "Bearer sk-upstream-openai" {
		t.Errorf("upstream Authorization %q; want the server's key", a)
	}
	sameFields(t, sent, got, "messages")
	n := withinBudget(t, got, chat.OpenAI, 3000)
	before, _ := strconv.Atoi(resp.Header.Get(swchttp.HeaderTokensBefore))
	after, _ := strconv.Atoi(resp.Header.Get(swchttp.HeaderTokensAfter))
	t.Logf("%d tokens before, %d after; upstream got %d", before, after, n)
	if before <= 3000 || after > 3000 || after != n {
		t.Errorf("token headers before=%d after=%d; upstream got %d", before, after, n)
	}
	if resp.Header.Get("X-Request-Id") != "req_123" {
		t.Errorf("upstream request id not passed through: %v", resp.Header)
	}
	// The system prompt first and verbatim, the memory after it in the
	// same message (a second system message is what strict chat
	// templates refuse), then the latest messages as the client sent
	// them.
	var out struct{ Messages []json.RawMessage }
	json.Unmarshal(got, &out)
	var in struct{ Messages []json.RawMessage }
	json.Unmarshal(sent, &in)
	var sys, clientSys struct{ Role, Content string }
	json.Unmarshal(out.Messages[0], &sys)
	json.Unmarshal(in.Messages[0], &clientSys)
	if sys.Role != "system" || !strings.HasPrefix(sys.Content, clientSys.Content+"\n\n") || !strings.Contains(sys.Content, "Earlier conversation, consolidated") {
		t.Errorf("first message is not the system prompt then the memory: %.300s", out.Messages[0])
	}
	for _, m := range out.Messages[1:] {
		if bytes.Contains(m, []byte(`"role":"system"`)) {
			t.Errorf("a second system message: %.100s", m)
		}
	}
	for k := 1; k <= 8; k++ {
		if !bytes.Equal(out.Messages[len(out.Messages)-k], in.Messages[len(in.Messages)-k]) {
			t.Errorf("recent message -%d changed", k)
		}
	}
}

func TestProxyAnthropicSDK(t *testing.T) {
	for _, auth := range []string{"x-api-key", "bearer"} {
		t.Run(auth, func(t *testing.T) {
			e := newProxyEnv(t, noRecall)
			hist := loadtest.AgentHistory(400, 0)
			req := chat.ToAnthropic(hist)
			b, _ := json.Marshal(req.Messages)
			var params anthropic.MessageNewParams
			if err := json.Unmarshal(b, &params.Messages); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(`[{"name":"lookup_weather","description":"Weather of a city on a day.","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}]`), &params.Tools); err != nil {
				t.Fatal(err)
			}
			params.Model, params.MaxTokens = "claude-haiku-4-5", 256
			params.System = []anthropic.TextBlockParam{{Text: req.System}}
			params.Metadata = anthropic.MetadataParam{UserID: anthropic.String("u-1")}
			key := anthropicoption.WithAPIKey(e.key)
			if auth == "bearer" {
				key = anthropicoption.WithAuthToken(e.key)
			}
			var sent []byte
			var resp *http.Response
			client := anthropic.NewClient(anthropicoption.WithoutEnvironmentDefaults(),
				anthropicoption.WithBaseURL(e.ts.URL), key, anthropicoption.WithMaxRetries(0),
				anthropicoption.WithHeader(swchttp.HeaderBudget, "2500"),
				anthropicoption.WithMiddleware(recordBody(&sent)))
			reply, err := client.Messages.New(t.Context(), params, anthropicoption.WithResponseInto(&resp),
				anthropicoption.WithJSONSet("temperature", 0.3), anthropicoption.WithJSONSet("x_vendor_field", []int{1, 2}))
			if err != nil {
				t.Fatal(err)
			}
			if reply.Content[0].Text != "Casa do Rio." {
				t.Errorf("answer %q", reply.Content[0].Text)
			}
			got, head := e.up.last(t)
			if head.Get("X-Api-Key") != "sk-upstream-anthropic" || head.Get("Authorization") != "" {
				t.Errorf("upstream credentials x-api-key=%q authorization=%q; want only the server's key", head.Get("X-Api-Key"), head.Get("Authorization"))
			}
			if head.Get("Anthropic-Version") == "" {
				t.Error("anthropic-version header not passed through")
			}
			sameFields(t, sent, got, "messages", "system")
			n := withinBudget(t, got, chat.Anthropic, 2500)
			t.Logf("%s tokens before, %s after; upstream got %d", resp.Header.Get(swchttp.HeaderTokensBefore), resp.Header.Get(swchttp.HeaderTokensAfter), n)
			var out struct {
				System []struct {
					Text string `json:"text"`
				} `json:"system"`
				Messages []struct {
					Role string `json:"role"`
				} `json:"messages"`
			}
			json.Unmarshal(got, &out)
			if len(out.System) != 2 || out.System[0].Text != req.System || out.Messages[0].Role != "user" {
				t.Errorf("want the system block kept, the memory appended and a user message first; got %d blocks, first role %q", len(out.System), out.Messages[0].Role)
			}
			if resp.Header.Get("Request-Id") != "req_ant_1" || resp.Header.Get(swchttp.HeaderTokensAfter) == "" {
				t.Errorf("headers %v", resp.Header)
			}
		})
	}
}
