package http_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/openai/openai-go/v3"
	oaoption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/loadtest"
	"github.com/swcmem/swc/sleep"
)

// responseJSON is a Responses API answer, as the API writes one.
const responseJSON = `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-5",
"output":[{"type":"message","id":"msg_out","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Casa do Rio.","annotations":[]}]}],
"parallel_tool_calls":true,"tool_choice":"auto","tools":[],"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":0},"output_tokens":3,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":13}}`

// agentResponsesInput is an agent history as Responses input items, with
// a reasoning item before every assistant turn that calls tools.
func agentResponsesInput(t *testing.T, msgs []swc.Message) (string, []responses.ResponseInputItemUnionParam) {
	t.Helper()
	instr, raw := chat.ResponsesInput(msgs)
	var items []json.RawMessage
	for k, it := range raw {
		if bytes.Contains(it, []byte(`"type":"function_call"`)) && (k == 0 || !bytes.Contains(raw[k-1], []byte(`"type":"function_call"`))) {
			items = append(items, json.RawMessage(fmt.Sprintf(`{"type":"reasoning","id":"rs_%d","summary":[],"encrypted_content":"enc%d"}`, k, k)))
		}
		items = append(items, it)
	}
	b, _ := json.Marshal(items)
	var params []responses.ResponseInputItemUnionParam
	if err := json.Unmarshal(b, &params); err != nil {
		t.Fatal(err)
	}
	return instr, params
}

// inputItems returns a Responses body's input items and the bytes of the
// body outside "input".
func inputItems(t *testing.T, body []byte) (items []json.RawMessage, outside string) {
	t.Helper()
	in, err := chat.Parse(body, chat.Responses)
	if err != nil {
		t.Fatalf("upstream got a responses body that does not parse: %v", err)
	}
	if err := json.Unmarshal(in.Body["input"], &items); err != nil {
		t.Fatal(err)
	}
	return items, string(body[:in.Span[0]]) + "…" + string(body[in.Span[1]:])
}

func itemType(t *testing.T, item json.RawMessage) (typ, role, callID string) {
	t.Helper()
	var v struct{ Type, Role, CallID string }
	var raw struct {
		Type   string `json:"type"`
		Role   string `json:"role"`
		CallID string `json:"call_id"`
	}
	json.Unmarshal(item, &raw)
	v.Type, v.Role, v.CallID = raw.Type, raw.Role, raw.CallID
	return v.Type, v.Role, v.CallID
}

func TestProxyResponsesSDK(t *testing.T) {
	e := newProxyEnv(t, noRecall)
	e.up.handle = func(w http.ResponseWriter, r *http.Request, body []byte) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req_resp")
		io.WriteString(w, responseJSON)
	}
	instr, items := agentResponsesInput(t, loadtest.AgentHistory(400, 0))
	if len(items) < 400 {
		t.Fatalf("%d items", len(items))
	}
	var sent []byte
	var resp *http.Response
	client := openai.NewClient(
		oaoption.WithBaseURL(e.ts.URL+"/v1"), oaoption.WithAPIKey(e.key), oaoption.WithMaxRetries(0),
		oaoption.WithHeader(swchttp.HeaderBudget, "3000"), oaoption.WithMiddleware(recordBody(&sent)))
	var tools []responses.ToolUnionParam
	json.Unmarshal([]byte(`[{"type":"function","name":"lookup_weather","description":"Weather of a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}}},"strict":false}]`), &tools)
	reply, err := client.Responses.New(t.Context(), responses.ResponseNewParams{
		Model: "gpt-5", Instructions: openai.String(instr),
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: items},
		Tools: tools, Store: openai.Bool(false), Metadata: map[string]string{"run": "r1"},
		Reasoning: responses.ReasoningParam{Effort: "low"}, MaxOutputTokens: openai.Int(300),
	}, oaoption.WithJSONSet("context_management", []map[string]any{{"type": "compaction", "compact_threshold": 200000}}),
		oaoption.WithJSONSet("x_vendor_field", map[string]any{"keep": true}), oaoption.WithResponseInto(&resp))
	if err != nil {
		t.Fatal(err)
	}
	if reply.OutputText() != "Casa do Rio." {
		t.Errorf("answer %q", reply.OutputText())
	}
	got, head := e.up.last(t)
	if p := e.up.paths[len(e.up.paths)-1]; p != "/v1/responses" {
		t.Errorf("upstream path %q", p)
	}
	if a := head.Get("Authorization"); a != "Bearer sk-upstream-openai" {
		t.Errorf("upstream Authorization %q; want the server's key", a)
	}
	// Every byte outside input as the client sent it.
	sentItems, sentOutside := inputItems(t, sent)
	gotItems, gotOutside := inputItems(t, got)
	if sentOutside != gotOutside {
		t.Errorf("the body outside input changed:\nsent %.300s\n got %.300s", sentOutside, gotOutside)
	}
	sameFields(t, sent, got, "input")
	n := withinBudget(t, got, chat.Responses, 3000)
	before, _ := strconv.Atoi(resp.Header.Get(swchttp.HeaderTokensBefore))
	after, _ := strconv.Atoi(resp.Header.Get(swchttp.HeaderTokensAfter))
	t.Logf("%d items, %d tokens before; %d items, %d tokens after (upstream got %d)", len(sentItems), before, len(gotItems), after, n)
	if before <= 3000 || after > 3000 || after != n || resp.Header.Get(swchttp.HeaderMode) != "stateless" {
		t.Errorf("headers before=%d after=%d mode=%q; upstream got %d", before, after, resp.Header.Get(swchttp.HeaderMode), n)
	}
	if resp.Header.Get("X-Request-Id") != "req_resp" {
		t.Error("upstream request id not passed through")
	}
	// The memory first (a user's message item: swc adds no developer
	// item), then the latest items as the client sent them; every call
	// with its output, every reasoning item before its call.
	if typ, role, _ := itemType(t, gotItems[0]); typ != "message" || role != "user" ||
		!bytes.Contains(gotItems[0], []byte("Earlier conversation, consolidated")) {
		t.Errorf("first item is not the memory: %.120s", gotItems[0])
	}
	for k := 1; k <= 8; k++ {
		if !bytes.Equal(gotItems[len(gotItems)-k], sentItems[len(sentItems)-k]) {
			t.Errorf("recent item -%d changed", k)
		}
	}
	calls, outputs := map[string]bool{}, map[string]bool{}
	for k, it := range gotItems {
		typ, _, id := itemType(t, it)
		switch typ {
		case "function_call":
			calls[id] = true
		case "function_call_output":
			outputs[id] = true
		case "reasoning":
			if next, _, _ := itemType(t, gotItems[k+1]); next != "function_call" {
				t.Errorf("reasoning item %d not followed by its call but by %s", k, next)
			}
		}
		if prev := ""; typ == "function_call" {
			if k > 0 {
				prev, _, _ = itemType(t, gotItems[k-1])
			}
			if prev != "reasoning" && prev != "function_call" {
				t.Errorf("function_call %d kept without its reasoning item (after %q)", k, prev)
			}
		}
		if k > 0 && !bytes.Contains(sent, it) {
			t.Errorf("item %d is not one the client sent: %.100s", k, it)
		}
	}
	if len(calls) == 0 || fmt.Sprint(calls) != fmt.Sprint(outputs) {
		t.Errorf("calls %v and outputs %v kept apart", calls, outputs)
	}
}

func TestProxyResponsesStream(t *testing.T) {
	e := newProxyEnv(t)
	release := make(chan struct{})
	var done atomic.Bool
	ev := func(typ, data string) string {
		return "event: " + typ + "\ndata: " + strings.Replace(data, "{", `{"type":"`+typ+`",`, 1) + "\n\n"
	}
	resp := strings.ReplaceAll(responseJSON, "\n", "")
	e.up.handle = chunked([]string{
		ev("response.created", `{"sequence_number":0,"response":`+strings.Replace(resp, `"completed"`, `"in_progress"`, 1)+`}`),
		ev("response.output_item.added", `{"sequence_number":1,"output_index":0,"item":{"type":"message","id":"msg_out","status":"in_progress","role":"assistant","content":[]}}`),
		ev("response.content_part.added", `{"sequence_number":2,"output_index":0,"item_id":"msg_out","content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}`),
		ev("response.output_text.delta", `{"sequence_number":3,"output_index":0,"item_id":"msg_out","content_index":0,"delta":"Casa","logprobs":[]}`),
		ev("response.output_text.delta", `{"sequence_number":4,"output_index":0,"item_id":"msg_out","content_index":0,"delta":" do Rio.","logprobs":[]}`),
		ev("response.output_text.done", `{"sequence_number":5,"output_index":0,"item_id":"msg_out","content_index":0,"text":"Casa do Rio.","logprobs":[]}`),
		ev("response.completed", `{"sequence_number":6,"response":`+resp+`}`),
	}, release, &done)
	instr, items := agentResponsesInput(t, loadtest.AgentHistory(400, 0))
	client := openai.NewClient(oaoption.WithBaseURL(e.ts.URL+"/v1"), oaoption.WithAPIKey(e.key), oaoption.WithMaxRetries(0),
		oaoption.WithHeader(swchttp.HeaderBudget, "3000"))
	stream := client.Responses.NewStreaming(t.Context(), responses.ResponseNewParams{
		Model: "gpt-5", Instructions: openai.String(instr), Input: responses.ResponseNewParamsInputUnion{OfInputItemList: items}})
	if !stream.Next() {
		t.Fatalf("no first event: %v", stream.Err())
	}
	if done.Load() {
		t.Fatal("the first event reached the client only after the upstream finished")
	}
	if typ := stream.Current().Type; typ != "response.created" {
		t.Errorf("first event %q", typ)
	}
	close(release)
	var text string
	var types []string
	for stream.Next() {
		ev := stream.Current()
		types = append(types, ev.Type)
		if ev.Type == "response.output_text.delta" {
			text += ev.Delta
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if text != "Casa do Rio." || types[len(types)-1] != "response.completed" {
		t.Errorf("streamed %q, events %v", text, types)
	}
	got, _ := e.up.last(t)
	if string(fields(t, got)["stream"]) != "true" {
		t.Error("stream:true did not reach the upstream")
	}
	withinBudget(t, got, chat.Responses, 3000)
}

// TestProxyResponsesProviderHistory: a request whose history the provider
// stores reaches it byte for byte, counted as passthrough.
func TestProxyResponsesProviderHistory(t *testing.T) {
	e := newProxyEnv(t)
	e.up.handle = func(w http.ResponseWriter, r *http.Request, body []byte) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, responseJSON)
	}
	// Over the budget, and with an output whose call is at the provider:
	// compressing would be wrong, passing it on is right.
	long := strings.Repeat("word ", 400)
	for name, body := range map[string]string{
		"previous_response_id": `{"model":"gpt-5", "previous_response_id":"resp_0",` + "\n" + `"input":[{"type":"function_call_output","call_id":"call_at_provider","output":"` + long + `"},{"role":"user","content":"` + long + `"}],"store":true}`,
		"conversation":         `{"conversation":{"id":"conv_1"},"input":"` + long + `" , "model":"gpt-5"}`,
		"item_reference":       `{"model":"gpt-5","input":[{"type":"item_reference","id":"msg_9"},{"role":"user","content":"` + long + `"}]}`,
		// Whatever the order of the fields: the stored response, not the reference, says why.
		"previous_response_id after a reference": `{"model":"gpt-5","input":[{"type":"item_reference","id":"msg_9"},{"role":"user","content":"` + long + `"}],"previous_response_id":"resp_0"}`,
		"no input":                               `{"model":"gpt-5","prompt":{"id":"pmpt_1","variables":{"x":"` + long + `"}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			resp := e.post(t, "/v1/responses", body, swchttp.HeaderBudget+": 100", swchttp.HeaderConversation+": c-"+strings.ReplaceAll(name, " ", "-"))
			readAll(t, resp)
			if resp.StatusCode != 200 || resp.Header.Get(swchttp.HeaderMode) != "passthrough" || resp.Header.Get(swchttp.HeaderTokensBefore) != "" {
				t.Errorf("status %d mode %q before %q", resp.StatusCode, resp.Header.Get(swchttp.HeaderMode), resp.Header.Get(swchttp.HeaderTokensBefore))
			}
			want, _, _ := strings.Cut(name, " after")
			if name == "item_reference" { // an item swc never relayed
				want = "item_reference (1 of 1 items not seen by swc)"
			}
			if why := resp.Header.Get(swchttp.HeaderPassthrough); why != "provider history: "+want {
				t.Errorf("X-SWC-Passthrough %q", why)
			}
			got, _ := e.up.last(t)
			if string(got) != body {
				t.Errorf("upstream got\n%.200s\nwant it byte for byte\n%.200s", got, body)
			}
		})
	}
	if list, err := e.db.Conversations(t.Context(), tenantOf(t, e)); err != nil || len(list) != 0 {
		t.Errorf("passthrough requests were stored: %v %v", list, err)
	}
	mr, err := e.ts.Client().Get(e.ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics := readAll(t, mr)
	if !strings.Contains(metrics, `swc_proxy_requests_total{mode="passthrough",protocol="responses"} 5`) {
		t.Errorf("passthrough not counted: %s", grepLines(metrics, "swc_proxy_requests_total"))
	}
}

// TestProxyResponsesPinned: compaction items are kept verbatim whatever is
// consolidated around them; images count by chat.ImageTokens.
func TestProxyResponsesPinned(t *testing.T) {
	e := newProxyEnv(t)
	e.up.handle = func(w http.ResponseWriter, r *http.Request, body []byte) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, responseJSON)
	}
	_, raw := chat.ResponsesInput(loadtest.AgentHistory(120, 3))
	compaction := `{"type":"compaction","id":"cmp_1","encrypted_content":"gAAAAB-opaque=="}`
	image := `{"role":"user","content":[{"type":"input_text","text":"Look:"},{"type":"input_image","image_url":"https://example.com/a.png","detail":"high"}]}`
	items := []string{compaction}
	for _, r := range raw {
		items = append(items, string(r))
	}
	items = append(items, image)
	body := `{"model":"gpt-5","input":[` + strings.Join(items, ",") + `]}`
	resp := e.post(t, "/v1/responses", body, swchttp.HeaderBudget+": 1500")
	if b := readAll(t, resp); resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	got, _ := e.up.last(t)
	gotItems, _ := inputItems(t, got)
	if string(gotItems[0]) != compaction {
		t.Errorf("first item %s; want the compaction item verbatim", gotItems[0])
	}
	if string(gotItems[len(gotItems)-1]) != image {
		t.Errorf("last item %s; want the image message verbatim", gotItems[len(gotItems)-1])
	}
	in, _ := chat.Parse([]byte(body), chat.Responses)
	if m := in.Messages[len(in.Messages)-1]; m.MediaTokens != 765 {
		t.Errorf("image counted %d tokens; want 765 (1024² at high detail)", m.MediaTokens)
	}
	after, _ := strconv.Atoi(resp.Header.Get(swchttp.HeaderTokensAfter))
	if n := withinBudget(t, got, chat.Responses, 1500); n != after || n < 765 {
		t.Errorf("after %d, upstream got %d tokens (image included)", after, n)
	}
}

// TestProxyResponsesErrors: malformed JSON is answered in OpenAI's error
// shape; input swc cannot read goes upstream as it came, the reason
// naming the item.
func TestProxyResponsesErrors(t *testing.T) {
	e := newProxyEnv(t)
	for _, tt := range []struct {
		body, want string
		status     int
	}{
		{`{"model":"gpt-5","input":`, "malformed JSON", 400},
		{`{"model":"gpt-5","input":[{"role":"robot","content":"x"}]}`, `input[0].role: unknown role`, 200},
		{`{"model":"gpt-5","input":[{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"role":"user","content":"x"},{"type":"function_call_output","call_id":"c","output":"y"}]}`, `function_call "c" is answered only after input[1]`, 200},
	} {
		n := e.up.count()
		resp := e.post(t, "/v1/responses", tt.body)
		b := readAll(t, resp)
		if tt.status == 400 {
			var v struct {
				Error struct{ Message, Type, Code string }
			}
			json.Unmarshal([]byte(b), &v)
			if resp.StatusCode != 400 || !strings.Contains(v.Error.Message, tt.want) || v.Error.Type != "invalid_request_error" || e.up.count() != n {
				t.Errorf("%s: status %d %s; want 400 containing %q", tt.body, resp.StatusCode, b, tt.want)
			}
			continue
		}
		if why := resp.Header.Get(swchttp.HeaderPassthrough); resp.StatusCode != tt.status || !strings.Contains(why, tt.want) {
			t.Errorf("%s: status %d, X-SWC-Passthrough %q; want %d and %q", tt.body, resp.StatusCode, why, tt.status, tt.want)
		}
		if sent, _ := e.up.last(t); string(sent) != tt.body {
			t.Errorf("%s: the upstream got %s", tt.body, sent)
		}
	}
}

// tenantOf returns the id of the proxy key's tenant.
func tenantOf(t *testing.T, e *proxyEnv) string {
	t.Helper()
	k, err := e.db.KeyByHash(t.Context(), swchttp.HashKey(e.key))
	if err != nil {
		t.Fatal(err)
	}
	return k.TenantID
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestProxyResponsesStored: with X-SWC-Conversation, Responses requests
// are stored and, once consolidated, sent as the memory of the
// consolidated sessions and the items since, the same bytes from one
// request to the next.
func TestProxyResponsesStored(t *testing.T) {
	e := newProxyEnv(t, func(s *swchttp.Server, m *sleep.Service) {
		m.Gister = markGister()
		s.Proxy.Strategy = "swc-anchored" // the service's: the memory is rendered from its gists
	})
	e.up.handle = func(w http.ResponseWriter, r *http.Request, body []byte) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, responseJSON)
	}
	hist := loadtest.AgentHistory(400, 0)
	send := func(msgs []swc.Message) ([]byte, string) {
		t.Helper()
		instr, items := chat.ResponsesInput(msgs)
		b, _ := json.Marshal(map[string]any{"model": "gpt-5", "instructions": instr, "input": items, "store": false})
		resp := e.post(t, "/v1/responses", string(b), "X-SWC-Conversation: agent-r", "X-SWC-Budget: 8000")
		if got := readAll(t, resp); resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, got)
		}
		got, _ := e.up.last(t)
		return got, resp.Header.Get(swchttp.HeaderMode)
	}
	if _, mode := send(hist); mode != "stored" {
		t.Errorf("before any consolidation: mode %q; want stored", mode)
	}
	if _, err := e.mem.Consolidate(t.Context(), e.tenant(t), "agent-r"); err != nil {
		t.Fatal(err)
	}
	a, modeA := send(append(hist[:len(hist):len(hist)], swc.Message{Role: swc.RoleUser, Content: "Follow-up A about the Atlas budget."}))
	b, modeB := send(append(hist[:len(hist):len(hist)], swc.Message{Role: swc.RoleUser, Content: "Follow-up A about the Atlas budget."},
		swc.Message{Role: swc.RoleAssistant, Content: "Noted: Atlas."}))
	if modeA != "prefix" || modeB != "prefix" {
		t.Fatalf("modes %q %q; want prefix", modeA, modeB)
	}
	ia, _ := inputItems(t, a)
	ib, _ := inputItems(t, b)
	if len(ib) != len(ia)+1 {
		t.Fatalf("%d then %d items; want one more", len(ia), len(ib))
	}
	for i := range ia {
		if !bytes.Equal(ia[i], ib[i]) {
			t.Fatalf("item %d differs between consecutive requests:\n%.200s\n%.200s", i, ia[i], ib[i])
		}
	}
	if !bytes.Contains(ia[0], []byte("GIST-MADE-WHILE-IDLE")) {
		t.Errorf("the memory item does not use the gists consolidation made: %.200s", ia[0])
	}
	withinBudget(t, b, chat.Responses, 8000)
}
