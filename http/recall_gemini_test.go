package http_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/swcmem/swc"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/sleep"
)

// swc_recall on the Gemini route, against an upstream speaking Gemini's
// wire format: a GenerateContentResponse, streamGenerateContent's event
// stream (?alt=sse) and its JSON array (without).

const recallClientToolsGemini = `[{"functionDeclarations":[{"name":"bash","description":"Run a command.","parameters":{"type":"OBJECT","properties":{"command":{"type":"STRING"}},"required":["command"]}}]}]`

// geminiMode is how the client asks: generateContent, or
// streamGenerateContent with ?alt=sse or without.
type geminiMode string

const (
	geminiJSON  geminiMode = "json"
	geminiSSE   geminiMode = "sse"
	geminiArray geminiMode = "array"
)

var geminiModes = []geminiMode{geminiJSON, geminiSSE, geminiArray}

func (m geminiMode) path() string {
	switch m {
	case geminiSSE:
		return "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
	case geminiArray:
		return "/v1beta/models/gemini-2.5-pro:streamGenerateContent"
	}
	return "/v1beta/models/gemini-2.5-pro:generateContent"
}

// geminiRecallBody returns the generateContent body of msgs (recallLoop's):
// each call signed as Gemini signs a step's first call, each output a
// functionResponse {"output": text} with the call's id.
func geminiRecallBody(t *testing.T, msgs []swc.Message, tools string) string {
	t.Helper()
	var cs []string
	sys := ""
	for _, m := range msgs {
		switch m.Role {
		case swc.RoleSystem:
			sys = `,"systemInstruction":{"parts":[{"text":` + mustJSON(t, m.Content) + `}]}`
		case swc.RoleUser:
			cs = append(cs, `{"role":"user","parts":[{"text":`+mustJSON(t, m.Content)+`}]}`)
		case swc.RoleAssistant:
			parts := []string{`{"text":` + mustJSON(t, m.Content) + `}`}
			for k, c := range m.ToolCalls {
				sig := ""
				if k == 0 {
					sig = `,"thoughtSignature":"sig-` + c.ID + `"`
				}
				parts = append(parts, `{"functionCall":{"id":`+mustJSON(t, c.ID)+`,"name":"bash","args":`+c.Arguments+`}`+sig+`}`)
			}
			cs = append(cs, `{"role":"model","parts":[`+strings.Join(parts, ",")+`]}`)
		case swc.RoleTool:
			cs = append(cs, `{"role":"user","parts":[{"functionResponse":{"id":`+mustJSON(t, m.ToolCallID)+`,"name":"bash","response":{"output":`+mustJSON(t, m.Content)+`}}}]}`)
		}
	}
	return `{"contents":[` + strings.Join(cs, ",") + `]` + sys + `,"tools":` + tools + `,"generationConfig":{"temperature":0}}`
}

// writeGeminiReply answers as Gemini does: a thought, then swc_recall's
// call (signed; with an id on even rounds only, as some models give one),
// the client's bash call, or the text "done". Streams send a chunk a
// part, each with the usage so far; round numbers the usage (prompt
// 100*round).
func writeGeminiReply(w http.ResponseWriter, mode geminiMode, r recallReply, round int) {
	rs := strconv.Itoa(round)
	parts := []string{`{"text":"I need the old output.","thought":true}`}
	if r.args != "" {
		id := ""
		if round%2 == 0 {
			id = `"id":"fc_r` + rs + `",`
		}
		parts = append(parts, `{"functionCall":{`+id+`"name":"swc_recall","args":`+r.args+`},"thoughtSignature":"sig`+rs+`"}`)
	}
	if r.client {
		parts = append(parts, `{"functionCall":{"name":"bash","args":{"command":"ls"}}}`)
	}
	if r.args == "" && !r.client {
		parts = append(parts, `{"text":"done"}`)
	}
	usage := func(out int) string {
		return fmt.Sprintf(`{"promptTokenCount":%d,"candidatesTokenCount":%d,"totalTokenCount":%d,"promptTokensDetails":[{"modality":"TEXT","tokenCount":%d}]}`, 100*round, out, 100*round+out, 100*round)
	}
	resp := func(parts []string, last bool, out int) string {
		finish := ""
		if last {
			finish = `,"finishReason":"STOP"`
		}
		return `{"candidates":[{"content":{"parts":[` + strings.Join(parts, ",") + `],"role":"model"}` + finish + `,"index":0}],"usageMetadata":` + usage(out) + `,"modelVersion":"gemini-2.5-pro","responseId":"resp-` + rs + `"}`
	}
	switch mode {
	case geminiJSON:
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		fmt.Fprint(w, resp(parts, true, 5))
	case geminiSSE:
		w.Header().Set("Content-Type", "text/event-stream")
		for i, p := range parts {
			fmt.Fprintf(w, "data: %s\r\n\r\n", resp([]string{p}, i == len(parts)-1, i+1))
		}
	case geminiArray:
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		var chunks []string
		for i, p := range parts {
			chunks = append(chunks, resp([]string{p}, i == len(parts)-1, i+1))
		}
		fmt.Fprint(w, "["+strings.Join(chunks, ",\r\n")+"]")
	}
}

// geminiScript makes the upstream answer with replies in turn (the last
// one again past them), calling pick (when set) on the first request for
// the swc_recall arguments of the first reply.
func geminiScript(e *proxyEnv, mode geminiMode, replies []recallReply, pick func(body []byte) string) {
	var mu sync.Mutex
	round := 0
	e.up.handle = func(w http.ResponseWriter, r *http.Request, body []byte) {
		mu.Lock()
		round++
		n := round
		rep := replies[min(n, len(replies))-1]
		if n == 1 && pick != nil {
			rep.args = pick(body)
		}
		mu.Unlock()
		writeGeminiReply(w, mode, rep, n)
	}
}

// geminiChunks returns the GenerateContentResponses the client got.
func geminiChunks(t *testing.T, mode geminiMode, got string) []map[string]any {
	t.Helper()
	var out []map[string]any
	switch mode {
	case geminiJSON:
		var m map[string]any
		if err := json.Unmarshal([]byte(got), &m); err != nil {
			t.Fatalf("not a GenerateContentResponse: %v: %s", err, got)
		}
		out = append(out, m)
	case geminiArray:
		if err := json.Unmarshal([]byte(got), &out); err != nil {
			t.Fatalf("not an array of GenerateContentResponses: %v: %s", err, got)
		}
	case geminiSSE:
		for _, ev := range strings.Split(strings.ReplaceAll(got, "\r\n", "\n"), "\n\n") {
			data, ok := strings.CutPrefix(strings.TrimSpace(ev), "data: ")
			if !ok {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(data), &m); err != nil {
				t.Fatalf("an event that is not a GenerateContentResponse: %v: %s", err, data)
			}
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no response: %q", got)
	}
	return out
}

// geminiParts returns the parts of the client's answer, in order, and
// the last chunk's usageMetadata.
func geminiParts(t *testing.T, mode geminiMode, got string) ([]map[string]any, map[string]any) {
	t.Helper()
	var parts []map[string]any
	var usage map[string]any
	for _, c := range geminiChunks(t, mode, got) {
		if u, ok := c["usageMetadata"].(map[string]any); ok {
			usage = u
		}
		cands, _ := c["candidates"].([]any)
		for _, cand := range cands {
			content, _ := cand.(map[string]any)["content"].(map[string]any)
			ps, _ := content["parts"].([]any)
			for _, p := range ps {
				parts = append(parts, p.(map[string]any))
			}
		}
	}
	return parts, usage
}

// geminiRoundOf returns the last two contents of an upstream request (the
// model's content and the one after it) and swc's function responses in
// the last.
func geminiRoundOf(t *testing.T, body []byte) (contents []json.RawMessage, responses []map[string]any) {
	t.Helper()
	var req struct{ Contents []json.RawMessage }
	if err := json.Unmarshal(body, &req); err != nil || len(req.Contents) < 2 {
		t.Fatalf("contents: %v (%d)", err, len(req.Contents))
	}
	var last struct {
		Role  string
		Parts []struct {
			FunctionResponse map[string]any `json:"functionResponse"`
		}
	}
	json.Unmarshal(req.Contents[len(req.Contents)-1], &last)
	for _, p := range last.Parts {
		if p.FunctionResponse != nil {
			responses = append(responses, p.FunctionResponse)
		}
	}
	return req.Contents, responses
}

// responseOutput is a functionResponse's {"output": text}.
func responseOutput(fr map[string]any) string {
	r, _ := fr["response"].(map[string]any)
	s, _ := r["output"].(string)
	return s
}

// TestGeminiRecallByHandle: the upstream calls swc_recall with a stub's
// handle, then answers; the client gets one clean answer (no trace of
// swc_recall, usageMetadata summed over the rounds, promptTokensDetails
// too), and the upstream's second request is the first with the model's
// content as it came (its parts byte for byte, the call's thought
// signature included) and a user content of swc's functionResponse
// holding the original's bytes.
func TestGeminiRecallByHandle(t *testing.T) {
	for _, mode := range geminiModes {
		t.Run(string(mode), func(t *testing.T) {
			e := newProxyEnv(t)
			msgs, originals := recallLoop("a", 14)
			geminiScript(e, mode, []recallReply{{}, {}}, func(b []byte) string { return firstHandle(t, b) })
			resp := e.post(t, mode.path(), geminiRecallBody(t, msgs, recallClientToolsGemini), "X-SWC-Budget: 1500")
			got := readAll(t, resp)
			if resp.StatusCode != 200 || e.up.count() != 2 {
				t.Fatalf("%d, %d upstream requests: %s", resp.StatusCode, e.up.count(), got)
			}
			parts, usage := geminiParts(t, mode, got)
			if strings.Contains(got, "swc_recall") || strings.Contains(got, "sig1") || !strings.Contains(got, `"done"`) || len(parts) != 2 {
				t.Errorf("the client sees swc_recall or not the answer: %s", got)
			}
			if resp.Header.Get(swchttp.HeaderRecall) != "1" {
				t.Errorf("%s: %q; want 1", swchttp.HeaderRecall, resp.Header.Get(swchttp.HeaderRecall))
			}
			wantTotal := map[geminiMode]string{geminiJSON: "310", geminiSSE: "304", geminiArray: "304"}[mode] // 105 + 205, or 102 + 202 (a stream's last chunk's)
			if fmt.Sprint(usage["promptTokenCount"]) != "300" || fmt.Sprint(usage["totalTokenCount"]) != wantTotal {
				t.Errorf("usageMetadata %v; want promptTokenCount 300 (100 + 200), totalTokenCount %s", usage, wantTotal)
			}
			if d, _ := usage["promptTokensDetails"].([]any); len(d) != 1 || fmt.Sprint(d[0].(map[string]any)["tokenCount"]) != "300" {
				t.Errorf("promptTokensDetails %v; want TEXT 300", usage["promptTokensDetails"])
			}
			if m := getMetrics(t, e); !strings.Contains(m, `swc_proxy_recall_calls_total{answer="original"} 1`) {
				t.Errorf("the call is not counted as an original recalled")
			}
			e.up.mu.Lock()
			first, second := e.up.bodies[0], e.up.bodies[1]
			e.up.mu.Unlock()
			h := string(stubHandle.FindSubmatch(first)[1])
			firstContents, _ := geminiRoundOf(t, first)
			contents, responses := geminiRoundOf(t, second)
			if len(contents) != len(firstContents)+2 {
				t.Fatalf("the round holds %d contents; want the %d sent and 2", len(contents), len(firstContents))
			}
			for i := range firstContents {
				if string(contents[i]) != string(firstContents[i]) {
					t.Errorf("contents[%d] is not as in the request the round answers", i)
				}
			}
			args, _ := json.Marshal(json.RawMessage(`{"handle":"` + h + `"}`))
			wantModel := `{"role":"model","parts":[{"text":"I need the old output.","thought":true},{"functionCall":{"name":"swc_recall","args":` + string(args) + `},"thoughtSignature":"sig1"}]}`
			if string(contents[len(contents)-2]) != wantModel {
				t.Errorf("the model's content sent back\n%s\nwant\n%s", contents[len(contents)-2], wantModel)
			}
			if len(responses) != 1 || responseOutput(responses[0]) != originals[h] || responses[0]["name"] != "swc_recall" || responses[0]["id"] != nil {
				t.Errorf("function responses %v; want swc_recall's, no id (the call had none), the original of %s", responses, h)
			}
		})
	}
}

// TestGeminiRecallByQuery: a query gets the passages holding its words,
// with their handles.
func TestGeminiRecallByQuery(t *testing.T) {
	e := newProxyEnv(t)
	msgs, _ := recallLoop("q", 14)
	geminiScript(e, geminiSSE, []recallReply{{args: `{"query":"zanzibar constant"}`}, {}}, nil)
	resp := e.post(t, geminiSSE.path(), geminiRecallBody(t, msgs, recallClientToolsGemini), "X-SWC-Budget: 1500")
	got := readAll(t, resp)
	if resp.StatusCode != 200 || e.up.count() != 2 {
		t.Fatalf("%d, %d upstream requests: %s", resp.StatusCode, e.up.count(), got)
	}
	body, _ := e.up.last(t)
	_, responses := geminiRoundOf(t, body)
	if len(responses) != 1 || !strings.Contains(responseOutput(responses[0]), "the zanzibar constant is 4242") || !strings.HasPrefix(responseOutput(responses[0]), "[swc:h") {
		t.Errorf("function responses %v", responses)
	}
}

// TestGeminiRecallWithClientTool: an answer calling swc_recall and a
// client function goes to the client with the client's call alone, given
// the thought signature swc's call carried (Gemini wants a step's first
// call signed); swc answers nothing.
func TestGeminiRecallWithClientTool(t *testing.T) {
	for _, mode := range geminiModes {
		t.Run(string(mode), func(t *testing.T) {
			e := newProxyEnv(t)
			msgs, _ := recallLoop("c", 14)
			geminiScript(e, mode, []recallReply{{client: true}}, func(b []byte) string { return firstHandle(t, b) })
			resp := e.post(t, mode.path(), geminiRecallBody(t, msgs, recallClientToolsGemini), "X-SWC-Budget: 1500")
			got := readAll(t, resp)
			if resp.StatusCode != 200 || e.up.count() != 1 {
				t.Fatalf("%d, %d upstream requests: %s", resp.StatusCode, e.up.count(), got)
			}
			parts, usage := geminiParts(t, mode, got)
			var calls []map[string]any
			for _, p := range parts {
				if p["functionCall"] != nil {
					calls = append(calls, p)
				}
			}
			if strings.Contains(got, "swc_recall") || len(calls) != 1 || calls[0]["functionCall"].(map[string]any)["name"] != "bash" {
				t.Fatalf("want the client's call alone: %s", got)
			}
			if calls[0]["thoughtSignature"] != "sig1" {
				t.Errorf("the client's call lacks the step's thought signature: %v", calls[0])
			}
			if fmt.Sprint(usage["promptTokenCount"]) != "100" {
				t.Errorf("usageMetadata %v", usage)
			}
			if h := resp.Header.Get(swchttp.HeaderRecall); h != "0" {
				t.Errorf("%s: %q; want 0", swchttp.HeaderRecall, h)
			}
		})
	}
}

// TestGeminiRecallRoundLimit: an upstream that keeps calling swc_recall is
// answered RecallRounds times; the client then gets the last answer with
// swc's call removed.
func TestGeminiRecallRoundLimit(t *testing.T) {
	for _, mode := range geminiModes {
		t.Run(string(mode), func(t *testing.T) {
			e := newProxyEnv(t, func(s *swchttp.Server, _ *sleep.Service) { s.Proxy.RecallRounds = 2 })
			msgs, _ := recallLoop("l", 14)
			geminiScript(e, mode, []recallReply{{args: `{"handle":"h0123456789"}`}}, nil)
			resp := e.post(t, mode.path(), geminiRecallBody(t, msgs, recallClientToolsGemini), "X-SWC-Budget: 1500")
			got := readAll(t, resp)
			if resp.StatusCode != 200 || e.up.count() != 3 {
				t.Fatalf("%d, %d upstream requests (want 3): %s", resp.StatusCode, e.up.count(), got)
			}
			if strings.Contains(got, "swc_recall") || strings.Contains(got, "functionCall") {
				t.Errorf("swc's call reached the client: %s", got)
			}
			if resp.Header.Get(swchttp.HeaderRecall) != "2" {
				t.Errorf("%s: %q; want 2", swchttp.HeaderRecall, resp.Header.Get(swchttp.HeaderRecall))
			}
			_, usage := geminiParts(t, mode, got)
			if fmt.Sprint(usage["promptTokenCount"]) != "600" {
				t.Errorf("usageMetadata %v; want promptTokenCount 600", usage)
			}
			body, _ := e.up.last(t)
			_, responses := geminiRoundOf(t, body)
			if len(responses) != 1 || !strings.Contains(responseOutput(responses[0]), "no original with handle") || responses[0]["id"] != "fc_r2" {
				t.Errorf("an unknown handle (round 2's call, id fc_r2): %v", responses)
			}
			if m := getMetrics(t, e); !strings.Contains(m, `swc_proxy_recall_calls_total{answer="missing"} 2`) {
				t.Errorf("the calls are not counted as missing")
			}
		})
	}
}

// TestGeminiRecallToolDefinition: swc_recall's declaration goes last in
// the functionDeclarations of the first tools entry that has them, only
// on a request compressed so that it shows a handle, in the same bytes
// on every such request; a countTokens body's generateContentRequest gets
// it as its request would; a request that fits, one with X-SWC-Recall:
// off, one that declares no function and one whose functionCallingConfig
// says NONE go out without it.
func TestGeminiRecallToolDefinition(t *testing.T) {
	e := newProxyEnv(t)
	def := swchttp.RecallTool("gemini")
	if !strings.HasPrefix(def, `{"name":"swc_recall",`) || !json.Valid([]byte(def)) {
		t.Fatalf("RecallTool(gemini) = %q", def)
	}
	client := recallClientToolsGemini
	want := client[:len(client)-3] + "," + def + "]}]"
	small, _ := recallLoop("x", 3)
	fits := geminiRecallBody(t, small, client)
	readAll(t, e.post(t, geminiJSON.path(), fits)) // the default budget
	if sent, _ := e.up.last(t); string(sent) != fits {
		t.Errorf("a request that fits was changed (nothing to recall): %.300s", sent)
	}
	for n := 12; n <= 15; n++ { // one loop, a step longer each time
		msgs, _ := recallLoop("x", n)
		readAll(t, e.post(t, geminiSSE.path(), geminiRecallBody(t, msgs, client), "X-SWC-Budget: 1500"))
		sent, _ := e.up.last(t)
		if !stubHandle.Match(sent) {
			t.Fatalf("%d exchanges at budget 1500: no stub in the request sent", n)
		}
		if got := string(fields(t, sent)["tools"]); got != want {
			t.Errorf("%d exchanges: tools sent\n%s\nwant\n%s", n, got, want)
		}
	}
	msgs, _ := recallLoop("z", 14)
	for _, tc := range []struct {
		name, tools, want string
		headers           []string
	}{
		{"search first", `[{"googleSearch":{}},` + client[1:], `[{"googleSearch":{}},` + want[1:], nil},
		{"snake case", strings.Replace(client, "functionDeclarations", "function_declarations", 1), strings.Replace(want, "functionDeclarations", "function_declarations", 1), nil},
		{"recall off", client, client, []string{"X-SWC-Recall: off"}},
		{"no function", `[{"googleSearch":{}}]`, `[{"googleSearch":{}}]`, nil},
	} {
		body := geminiRecallBody(t, msgs, tc.tools)
		readAll(t, e.post(t, geminiJSON.path(), body, append([]string{"X-SWC-Budget: 1500"}, tc.headers...)...))
		if sent, _ := e.up.last(t); string(fields(t, sent)["tools"]) != tc.want || !stubHandle.Match(sent) {
			t.Errorf("%s: tools sent %s; want %s", tc.name, fields(t, sent)["tools"], tc.want)
		}
	}
	none := strings.Replace(geminiRecallBody(t, msgs, client), `"generationConfig":`, `"toolConfig":{"functionCallingConfig":{"mode":"NONE"}},"generationConfig":`, 1)
	readAll(t, e.post(t, geminiJSON.path(), none, "X-SWC-Budget: 1500"))
	if sent, _ := e.up.last(t); strings.Contains(string(sent), "swc_recall") {
		t.Errorf("mode NONE: swc_recall offered")
	}
	// countTokens counts the request as it is sent.
	body := geminiRecallBody(t, msgs, client)
	count := `{"generateContentRequest":` + strings.Replace(body, `{"contents":`, `{"model":"models/gemini-2.5-pro","contents":`, 1) + `}`
	readAll(t, e.post(t, "/v1beta/models/gemini-2.5-pro:countTokens", count, "X-SWC-Budget: 1500"))
	sent, _ := e.up.last(t)
	var req struct {
		GenerateContentRequest map[string]json.RawMessage `json:"generateContentRequest"`
	}
	if err := json.Unmarshal(sent, &req); err != nil || string(req.GenerateContentRequest["tools"]) != want {
		t.Errorf("countTokens of a compressed request: tools %s (%v); want swc_recall's too", req.GenerateContentRequest["tools"], err)
	}
}

// TestGeminiRecallStreamsClientCall: once a stream's chunk holds a
// client's call, the client gets what came so far and the rest as it
// comes, without waiting for the upstream's end.
func TestGeminiRecallStreamsClientCall(t *testing.T) {
	e := newProxyEnv(t)
	msgs, _ := recallLoop("p", 14)
	pw := &pauseWriter{release: make(chan struct{})}
	e.up.handle = func(w http.ResponseWriter, r *http.Request, body []byte) {
		pw.ResponseWriter = w
		writeGeminiReply(pw, geminiSSE, recallReply{args: `{"handle":"h0123456789"}`, client: true}, 1)
		fmt.Fprint(w, "data: "+`{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}]}`+"\r\n\r\n")
	}
	resp := e.post(t, geminiSSE.path(), geminiRecallBody(t, msgs, recallClientToolsGemini), "X-SWC-Budget: 1500")
	defer resp.Body.Close()
	var seen strings.Builder
	buf := make([]byte, 4096)
	for !strings.Contains(seen.String(), `"bash"`) {
		n, err := resp.Body.Read(buf)
		seen.Write(buf[:n])
		if err != nil {
			break
		}
	}
	close(pw.release)
	rest := readAll(t, resp)
	if pw.timedOut {
		t.Fatalf("the client got nothing before the upstream's stream ended")
	}
	if got := seen.String() + rest; strings.Contains(got, "swc_recall") || !strings.Contains(got, `"bash"`) {
		t.Errorf("want the client's call alone: %s", got)
	}
}

// mustJSON returns v as JSON text.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
