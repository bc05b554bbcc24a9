package http_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/observe"
	"github.com/swcmem/swc/sleep"
)

// noRecall turns swc_recall off, for tests that check a request goes out
// as it came.
func noRecall(s *swchttp.Server, _ *sleep.Service) { s.Proxy.NoRecall = true }

const (
	recallClientToolsOpenAI    = `[{"type":"function","function":{"name":"bash","description":"Run a command.","parameters":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}}]`
	recallClientToolsAnthropic = `[{"name":"bash","description":"Run a command.","input_schema":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}]`
	recallClientToolsResponses = `[{"type":"function","name":"bash","description":"Run a command.","parameters":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}]`
)

// recallLoop returns a coding agent's tool loop of n exchanges whose
// outputs are long enough to be stubbed under a small budget, and the
// originals by handle.
func recallLoop(tag string, n int) ([]swc.Message, map[string]string) {
	msgs := []swc.Message{
		{Role: swc.RoleSystem, Content: "You are a coding agent."},
		{Role: swc.RoleUser, Content: "Fix the failing test in pkg/" + tag + "."},
	}
	originals := map[string]string{}
	for i := range n {
		id := fmt.Sprintf("call_%s_%d", tag, i)
		msgs = append(msgs, swc.Message{Role: swc.RoleAssistant, Content: fmt.Sprintf("Step %d.", i),
			ToolCalls: []swc.ToolCall{{ID: id, Name: "bash", Arguments: fmt.Sprintf(`{"command":"cat pkg/%s/file%d.go"}`, tag, i)}}})
		var b strings.Builder
		for l := range 40 {
			fmt.Fprintf(&b, "line %d of file%d.go in %s: value_%s_%d_%d := compute(%d)\n", l, i, tag, tag, i, l, l*i)
		}
		if i == 1 {
			b.WriteString("the zanzibar constant is 4242 here\n")
		}
		out := b.String()
		msgs = append(msgs, swc.Message{Role: swc.RoleTool, ToolCallID: id, Content: out})
		originals[observe.Handle(id, out)] = out
	}
	msgs = append(msgs, swc.Message{Role: swc.RoleAssistant, Content: "Looking further."},
		swc.Message{Role: swc.RoleUser, Content: "Go on."})
	return msgs, originals
}

var stubHandle = regexp.MustCompile(`\[swc:(h[0-9a-f]{10})`)

// recallReply is what the fake upstream answers: a call of swc_recall
// with args (or of the client's bash too), or a final text.
type recallReply struct {
	args   string // swc_recall's arguments; "" for the final answer
	client bool   // call the client's bash tool too
}

// writeReply writes r in protocol proto, streamed or not; round numbers
// the usage (input 100*round, output 5).
func writeReply(w http.ResponseWriter, proto string, stream bool, r recallReply, round int) {
	in := strconv.Itoa(100 * round)
	if !stream {
		w.Header().Set("Content-Type", "application/json")
	} else {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	args, _ := json.Marshal(r.args)
	if proto == "responses" {
		writeResponsesReply(w, stream, r, round)
		return
	}
	switch {
	case proto == "openai" && !stream:
		var calls []string
		if r.args != "" {
			calls = append(calls, `{"id":"call_r`+strconv.Itoa(round)+`","type":"function","function":{"name":"swc_recall","arguments":`+string(args)+`}}`)
		}
		if r.client {
			calls = append(calls, `{"id":"call_c","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}`)
		}
		msg, finish := `{"role":"assistant","content":"done"}`, "stop"
		if len(calls) > 0 {
			msg, finish = `{"role":"assistant","content":null,"tool_calls":[`+strings.Join(calls, ",")+`]}`, "tool_calls"
		}
		fmt.Fprintf(w, `{"id":"cc-%d","object":"chat.completion","model":"gpt-4o","choices":[{"index":0,"finish_reason":%q,"message":%s}],"usage":{"prompt_tokens":%s,"completion_tokens":5,"total_tokens":%d}}`, round, finish, msg, in, 100*round+5)
	case proto == "openai":
		chunk := func(delta, finish string) {
			fmt.Fprintf(w, "data: {\"id\":\"c%d\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", round, delta, finish)
		}
		chunk(`{"role":"assistant","content":""}`, "null")
		finish := `"stop"`
		if r.args != "" {
			half := len(r.args) / 2
			a1, _ := json.Marshal(r.args[:half])
			a2, _ := json.Marshal(r.args[half:])
			chunk(`{"tool_calls":[{"index":0,"id":"call_r`+strconv.Itoa(round)+`","type":"function","function":{"name":"swc_recall","arguments":""}}]}`, "null")
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":`+string(a1)+`}}]}`, "null")
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":`+string(a2)+`}}]}`, "null")
			finish = `"tool_calls"`
		}
		if r.client {
			chunk(`{"tool_calls":[{"index":1,"id":"call_c","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]}`, "null")
			finish = `"tool_calls"`
		}
		if r.args == "" && !r.client {
			chunk(`{"content":"done"}`, "null")
		}
		chunk(`{}`, finish)
		fmt.Fprintf(w, "data: {\"id\":\"c%d\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":%s,\"completion_tokens\":5,\"total_tokens\":%d}}\n\ndata: [DONE]\n\n", round, in, 100*round+5)
	case !stream:
		blocks := []string{`{"type":"thinking","thinking":"I need the old output.","signature":"sig` + strconv.Itoa(round) + `"}`}
		stop := "end_turn"
		if r.args != "" {
			blocks = append(blocks, `{"type":"tool_use","id":"toolu_r`+strconv.Itoa(round)+`","name":"swc_recall","input":`+r.args+`}`)
			stop = "tool_use"
		}
		if r.client {
			blocks = append(blocks, `{"type":"tool_use","id":"toolu_c","name":"bash","input":{"command":"ls"}}`)
			stop = "tool_use"
		}
		if stop == "end_turn" {
			blocks = append(blocks, `{"type":"text","text":"done"}`)
		}
		fmt.Fprintf(w, `{"id":"msg_%d","type":"message","role":"assistant","model":"claude-x","content":[%s],"stop_reason":%q,"stop_sequence":null,"usage":{"input_tokens":%s,"output_tokens":5}}`, round, strings.Join(blocks, ","), stop, in)
	default:
		ev := func(name, data string) { fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data) }
		ev("message_start", `{"type":"message_start","message":{"id":"msg_`+strconv.Itoa(round)+`","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"usage":{"input_tokens":`+in+`,"output_tokens":1}}}`)
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`)
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"I need the old output."}}`)
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig`+strconv.Itoa(round)+`"}}`)
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`)
		idx, stop := 1, "end_turn"
		if r.args != "" {
			half := len(r.args) / 2
			a1, _ := json.Marshal(r.args[:half])
			a2, _ := json.Marshal(r.args[half:])
			i := strconv.Itoa(idx)
			ev("content_block_start", `{"type":"content_block_start","index":`+i+`,"content_block":{"type":"tool_use","id":"toolu_r`+strconv.Itoa(round)+`","name":"swc_recall","input":{}}}`)
			ev("content_block_delta", `{"type":"content_block_delta","index":`+i+`,"delta":{"type":"input_json_delta","partial_json":`+string(a1)+`}}`)
			ev("content_block_delta", `{"type":"content_block_delta","index":`+i+`,"delta":{"type":"input_json_delta","partial_json":`+string(a2)+`}}`)
			ev("content_block_stop", `{"type":"content_block_stop","index":`+i+`}`)
			idx, stop = idx+1, "tool_use"
		}
		if r.client {
			i := strconv.Itoa(idx)
			ev("content_block_start", `{"type":"content_block_start","index":`+i+`,"content_block":{"type":"tool_use","id":"toolu_c","name":"bash","input":{}}}`)
			ev("content_block_delta", `{"type":"content_block_delta","index":`+i+`,"delta":{"type":"input_json_delta","partial_json":"{\"command\":\"ls\"}"}}`)
			ev("content_block_stop", `{"type":"content_block_stop","index":`+i+`}`)
			idx, stop = idx+1, "tool_use"
		}
		if stop == "end_turn" {
			i := strconv.Itoa(idx)
			ev("content_block_start", `{"type":"content_block_start","index":`+i+`,"content_block":{"type":"text","text":""}}`)
			ev("content_block_delta", `{"type":"content_block_delta","index":`+i+`,"delta":{"type":"text_delta","text":"done"}}`)
			ev("content_block_stop", `{"type":"content_block_stop","index":`+i+`}`)
		}
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"`+stop+`","stop_sequence":null},"usage":{"output_tokens":5}}`)
		ev("message_stop", `{"type":"message_stop"}`)
	}
}

// recallCase is one protocol, streamed or not.
type recallCase struct {
	proto  string
	stream bool
}

func (c recallCase) String() string { return c.proto + "/stream=" + strconv.FormatBool(c.stream) }

func (c recallCase) path() string {
	switch c.proto {
	case "openai":
		return "/v1/chat/completions"
	case "responses":
		return "/v1/responses"
	}
	return "/v1/messages"
}

// body returns the request of msgs in c's protocol with the client's tools.
func (c recallCase) body(t *testing.T, msgs []swc.Message) string {
	extra := `"stream":` + strconv.FormatBool(c.stream) + `,`
	if c.proto == "openai" {
		return openAIBody(t, msgs, extra+`"tools":`+recallClientToolsOpenAI+`,`)
	}
	if c.proto == "responses" {
		instr, items := chat.ResponsesInput(msgs)
		in, _ := json.Marshal(items)
		ins, _ := json.Marshal(instr)
		return `{"model":"gpt-5","store":false,"include":["reasoning.encrypted_content"],` + extra + `"tools":` + recallClientToolsResponses + `,"instructions":` + string(ins) + `,"input":` + string(in) + `}`
	}
	return anthropicBody(t, msgs, extra+`"tools":`+recallClientToolsAnthropic+`,`)
}

var recallCases = []recallCase{{"openai", false}, {"openai", true}, {"anthropic", false}, {"anthropic", true}, {"responses", false}, {"responses", true}}

// script makes the upstream answer with replies in turn (the last one
// again past them), calling pick (when set) on the first request for the
// swc_recall arguments of the first reply.
func script(e *proxyEnv, c recallCase, replies []recallReply, pick func(body []byte) string) {
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
		writeReply(w, c.proto, c.stream, rep, n)
	}
}

// firstHandle returns swc_recall's arguments naming the first handle of
// a stub in body.
func firstHandle(t *testing.T, body []byte) string {
	m := stubHandle.FindSubmatch(body)
	if m == nil {
		t.Errorf("no stub in the request sent: %.300s", body)
		return `{"handle":"h0000000000"}`
	}
	return `{"handle":"` + string(m[1]) + `"}`
}

// toolResults returns the texts of the tool results of the last messages
// of an upstream request (after the last assistant message), and that
// assistant message.
func toolResults(t *testing.T, proto string, body []byte) (results []string, assistant map[string]any) {
	t.Helper()
	var req struct {
		Messages []map[string]any
		Input    []map[string]any
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	if proto == "responses" {
		for _, it := range req.Input {
			switch it["type"] {
			case "function_call_output":
				results = append(results, it["output"].(string))
			case "function_call":
				results, assistant = nil, it
			}
		}
		return results, assistant
	}
	last := -1
	for i, m := range req.Messages {
		if m["role"] == "assistant" {
			last = i
		}
	}
	if last < 0 {
		t.Fatal("no assistant message")
	}
	for _, m := range req.Messages[last+1:] {
		if proto == "openai" {
			results = append(results, m["content"].(string))
			continue
		}
		for _, b := range m["content"].([]any) {
			blk := b.(map[string]any)
			if blk["type"] == "tool_result" {
				results = append(results, blk["content"].(string))
			}
		}
	}
	return results, req.Messages[last]
}

// usageOf returns the input tokens the client was told of.
func usageOf(t *testing.T, c recallCase, got string) int {
	t.Helper()
	key := `"prompt_tokens":`
	if c.proto != "openai" {
		key = `"input_tokens":`
	}
	i := strings.LastIndex(got, key)
	if i < 0 {
		t.Fatalf("no usage in %s", got)
	}
	n, _ := strconv.Atoi(strings.TrimRight(strings.SplitN(got[i+len(key):], ",", 2)[0], "}"))
	return n
}

// TestRecallByHandle: the upstream calls swc_recall with a stub's handle,
// then answers; the client gets one clean answer (no trace of
// swc_recall, usage summed over the rounds), and the upstream's second
// request holds the original's bytes in the tool result, after the
// assistant's turn as it came (Anthropic's thinking with its signature).
func TestRecallByHandle(t *testing.T) {
	for _, c := range recallCases {
		t.Run(c.String(), func(t *testing.T) {
			e := newProxyEnv(t)
			msgs, originals := recallLoop("a", 14)
			script(e, c, []recallReply{{}, {}}, func(b []byte) string { return firstHandle(t, b) })
			resp := e.post(t, c.path(), c.body(t, msgs), "X-SWC-Budget: 1500", "anthropic-version: 2023-06-01")
			got := readAll(t, resp)
			if resp.StatusCode != 200 || e.up.count() != 2 {
				t.Fatalf("%d, %d upstream requests: %s", resp.StatusCode, e.up.count(), got)
			}
			if strings.Contains(got, "swc_recall") || strings.Contains(got, "toolu_r") || strings.Contains(got, "call_r") || !strings.Contains(got, "done") {
				t.Errorf("the client sees swc_recall or not the answer: %s", got)
			}
			if resp.Header.Get(swchttp.HeaderRecall) != "1" {
				t.Errorf("%s: %q; want 1", swchttp.HeaderRecall, resp.Header.Get(swchttp.HeaderRecall))
			}
			if !strings.Contains(resp.Header.Get(swchttp.HeaderCompression), "masked=") {
				t.Errorf("%s: %q", swchttp.HeaderCompression, resp.Header.Get(swchttp.HeaderCompression))
			}
			if n := usageOf(t, c, got); n != 300 {
				t.Errorf("input tokens %d; want 300 (100 + 200)", n)
			}
			if m := getMetrics(t, e); !strings.Contains(m, `swc_proxy_recall_calls_total{answer="original"} 1`) {
				t.Errorf("the call is not counted as an original recalled")
			}
			e.up.mu.Lock()
			first, second := e.up.bodies[0], e.up.bodies[1]
			e.up.mu.Unlock()
			h := stubHandle.FindSubmatch(first)[1]
			results, assistant := toolResults(t, c.proto, second)
			if len(results) != 1 || results[0] != originals[string(h)] {
				t.Errorf("tool results %q; want the original of %s", results, h)
			}
			if c.proto == "responses" && (!strings.Contains(string(second), `"encrypted_content":"enc1"`) || assistant["call_id"] != "call_r1") {
				t.Errorf("the reasoning item and the call are not sent back: %v", assistant)
			}
			if c.proto == "anthropic" {
				b, _ := json.Marshal(assistant)
				if !strings.Contains(string(b), `"signature":"sig1"`) || !strings.Contains(string(b), `"id":"toolu_r1"`) {
					t.Errorf("the assistant's turn is not as it came: %s", b)
				}
			}
			if !strings.HasPrefix(string(second), string(first[:len(first)-2])[:len(first)/2]) {
				t.Errorf("the second request does not extend the first")
			}
		})
	}
}

// TestRecallByQuery: a query gets the passages holding its words, with
// their handles.
func TestRecallByQuery(t *testing.T) {
	for _, c := range []recallCase{{"openai", false}, {"anthropic", true}} {
		t.Run(c.String(), func(t *testing.T) {
			e := newProxyEnv(t)
			msgs, _ := recallLoop("q", 14)
			script(e, c, []recallReply{{args: `{"query":"zanzibar constant"}`}, {}}, nil)
			resp := e.post(t, c.path(), c.body(t, msgs), "X-SWC-Budget: 1500", "anthropic-version: 2023-06-01")
			got := readAll(t, resp)
			if resp.StatusCode != 200 || e.up.count() != 2 {
				t.Fatalf("%d, %d upstream requests: %s", resp.StatusCode, e.up.count(), got)
			}
			body, _ := e.up.last(t)
			results, _ := toolResults(t, c.proto, body)
			if len(results) != 1 || !strings.Contains(results[0], "the zanzibar constant is 4242") || !strings.HasPrefix(results[0], "[swc:h") {
				t.Errorf("tool result %q", results)
			}
		})
	}
}

// TestRecallWithClientTool: an answer calling swc_recall and a client
// tool goes to the client with the client's call alone (streams: swc's
// events dropped, the indexes after them renumbered); swc answers
// nothing.
func TestRecallWithClientTool(t *testing.T) {
	for _, c := range recallCases {
		t.Run(c.String(), func(t *testing.T) {
			e := newProxyEnv(t)
			msgs, _ := recallLoop("c", 14)
			script(e, c, []recallReply{{client: true}}, func(b []byte) string { return firstHandle(t, b) })
			resp := e.post(t, c.path(), c.body(t, msgs), "X-SWC-Budget: 1500", "anthropic-version: 2023-06-01")
			got := readAll(t, resp)
			if resp.StatusCode != 200 || e.up.count() != 1 {
				t.Fatalf("%d, %d upstream requests: %s", resp.StatusCode, e.up.count(), got)
			}
			if strings.Contains(got, "swc_recall") || !strings.Contains(got, `"bash"`) {
				t.Errorf("want the client's call alone: %s", got)
			}
			if c.stream {
				want := `"index":1,` // the client's call follows the thinking block (Anthropic)
				switch c.proto {
				case "openai":
					want = `"index":0,`
				case "responses":
					want = `"output_index":1,` // after the reasoning item
				}
				for _, line := range strings.Split(got, "\n") {
					if strings.Contains(line, "bash") && !strings.Contains(line, "response.completed") && !strings.Contains(line, want) {
						t.Errorf("the client's call is not renumbered (want %s): %s", want, line)
					}
				}
			}
			if !strings.Contains(got, "tool_calls") && !strings.Contains(got, "tool_use") && !strings.Contains(got, `"function_call"`) {
				t.Errorf("the stop reason lost the client's call: %s", got)
			}
		})
	}
}

// TestRecallRoundLimit: an upstream that keeps calling swc_recall is
// answered RecallRounds times; the client then gets the last answer with
// swc's call removed and the stop reason of a finished turn.
func TestRecallRoundLimit(t *testing.T) {
	for _, c := range recallCases {
		t.Run(c.String(), func(t *testing.T) {
			e := newProxyEnv(t, func(s *swchttp.Server, _ *sleep.Service) { s.Proxy.RecallRounds = 2 })
			msgs, _ := recallLoop("l", 14)
			script(e, c, []recallReply{{args: `{"handle":"h0123456789"}`}}, nil)
			resp := e.post(t, c.path(), c.body(t, msgs), "X-SWC-Budget: 1500", "anthropic-version: 2023-06-01")
			got := readAll(t, resp)
			if resp.StatusCode != 200 || e.up.count() != 3 {
				t.Fatalf("%d, %d upstream requests (want 3): %s", resp.StatusCode, e.up.count(), got)
			}
			if strings.Contains(got, "swc_recall") || strings.Contains(got, `"tool_calls"`) || strings.Contains(got, `"tool_use"`) {
				t.Errorf("swc's call or a tool stop reached the client: %s", got)
			}
			if resp.Header.Get(swchttp.HeaderRecall) != "2" {
				t.Errorf("%s: %q; want 2", swchttp.HeaderRecall, resp.Header.Get(swchttp.HeaderRecall))
			}
			body, _ := e.up.last(t)
			results, _ := toolResults(t, c.proto, body)
			if len(results) != 1 || !strings.Contains(results[0], "no original with handle") {
				t.Errorf("an unknown handle: %q", results)
			}
			if m := getMetrics(t, e); !strings.Contains(m, `swc_proxy_recall_calls_total{answer="missing"} 2`) {
				t.Errorf("the calls are not counted as missing")
			}
			if n := usageOf(t, c, got); n != 600 {
				t.Errorf("input tokens %d; want 600", n)
			}
		})
	}
}

// TestRecallToolDefinition: swc_recall goes last, after the client's
// tools, only on a request compressed so that it shows a handle, in the
// same bytes on every such request (along a compressed loop the tools,
// and the provider's prompt cache of them, stay as they were); a request
// that fits, one with X-SWC-Recall: off and one without tools go out
// without it.
func TestRecallToolDefinition(t *testing.T) {
	for _, c := range []recallCase{{"openai", false}, {"anthropic", false}, {"responses", false}} {
		t.Run(c.proto, func(t *testing.T) {
			e := newProxyEnv(t)
			client := map[string]string{"openai": recallClientToolsOpenAI, "anthropic": recallClientToolsAnthropic, "responses": recallClientToolsResponses}[c.proto]
			def := swchttp.RecallTool(c.proto)
			if !strings.Contains(def, `"name":"swc_recall"`) {
				t.Fatalf("RecallTool(%q) = %q", c.proto, def)
			}
			want := client[:len(client)-1] + "," + def + "]"
			small, _ := recallLoop("x", 3)
			fits := c.body(t, small)
			readAll(t, e.post(t, c.path(), fits, "anthropic-version: 2023-06-01")) // the default budget
			if sent, _ := e.up.last(t); string(sent) != fits {
				t.Errorf("a request that fits was changed (nothing to recall): %.300s", sent)
			}
			for n := 12; n <= 15; n++ { // one loop, a step longer each time
				msgs, _ := recallLoop("x", n)
				readAll(t, e.post(t, c.path(), c.body(t, msgs), "anthropic-version: 2023-06-01", "X-SWC-Budget: 1500"))
				sent, _ := e.up.last(t)
				if !stubHandle.Match(sent) {
					t.Fatalf("%d exchanges at budget 1500: no stub in the request sent", n)
				}
				if got := string(fields(t, sent)["tools"]); got != want {
					t.Errorf("%d exchanges: tools sent\n%s\nwant\n%s", n, got, want)
				}
			}
			msgs, _ := recallLoop("z", 14)
			body := c.body(t, msgs)
			readAll(t, e.post(t, c.path(), body, "anthropic-version: 2023-06-01", "X-SWC-Budget: 1500", "X-SWC-Recall: off"))
			if sent, _ := e.up.last(t); string(fields(t, sent)["tools"]) != client {
				t.Errorf("X-SWC-Recall: off: the tools were changed: %s", fields(t, sent)["tools"])
			}
			if c.proto == "anthropic" { // counted as sent: with swc_recall when compressed, without when it fits
				readAll(t, e.post(t, "/v1/messages/count_tokens", body, "anthropic-version: 2023-06-01", "X-SWC-Budget: 1500"))
				if sent, _ := e.up.last(t); !strings.Contains(string(sent), def) {
					t.Errorf("count_tokens counts a compressed request without swc_recall")
				}
				readAll(t, e.post(t, "/v1/messages/count_tokens", fits, "anthropic-version: 2023-06-01"))
				if sent, _ := e.up.last(t); strings.Contains(string(sent), "swc_recall") {
					t.Errorf("count_tokens counts a request that fits with swc_recall")
				}
			}
			noTools := strings.Replace(body, `"tools":`, `"x_tools":`, 1)
			readAll(t, e.post(t, c.path(), noTools, "anthropic-version: 2023-06-01", "X-SWC-Budget: 1500"))
			if sent, _ := e.up.last(t); strings.Contains(string(sent), "swc_recall") || !stubHandle.Match(sent) {
				t.Errorf("a compressed request without tools got swc_recall (or no stub): %.300s", sent)
			}
		})
	}
}

// TestRecallNotOfferedStreams: a request that fits goes out byte for byte
// without swc_recall, and its stream reaches the client as it comes (a
// text answer is not held back to see whether it calls swc_recall).
func TestRecallNotOfferedStreams(t *testing.T) {
	for _, c := range []recallCase{{"openai", true}, {"anthropic", true}, {"responses", true}} {
		t.Run(c.proto, func(t *testing.T) {
			e := newProxyEnv(t)
			msgs, _ := recallLoop("f", 3)
			body := c.body(t, msgs)
			pw := &pauseWriter{release: make(chan struct{}), on: "done"}
			var got []byte
			e.up.handle = func(w http.ResponseWriter, r *http.Request, b []byte) {
				got = b
				pw.ResponseWriter = w
				writeReply(pw, c.proto, true, recallReply{}, 1)
			}
			resp := e.post(t, c.path(), body, "anthropic-version: 2023-06-01") // the default budget: it fits
			defer resp.Body.Close()
			var seen strings.Builder
			buf := make([]byte, 4096)
			for !strings.Contains(seen.String(), "done") {
				n, err := resp.Body.Read(buf)
				seen.Write(buf[:n])
				if err != nil {
					break
				}
			}
			close(pw.release)
			readAll(t, resp)
			if pw.timedOut {
				t.Errorf("the text answer was held back until the upstream's stream ended")
			}
			if string(got) != body {
				t.Errorf("a request that fits was changed: %.300s", got)
			}
			if h := resp.Header.Get(swchttp.HeaderRecall); h != "" {
				t.Errorf("%s: %q on a request without swc_recall", swchttp.HeaderRecall, h)
			}
		})
	}
}

// TestRecallTenants: the originals a request's compression stubbed are
// kept for its tenant: a later request of the tenant that no longer
// holds them gets them back, another tenant's does not, nor the tenant's
// once they are older than RecallTTL.
func TestRecallTenants(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	e := newProxyEnv(t, func(s *swchttp.Server, _ *sleep.Service) {
		s.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		s.Proxy.RecallTTL = time.Hour
	})
	other := e.newKey("globex")
	c := recallCase{"openai", false}
	msgs, originals := recallLoop("t", 14)
	readAll(t, e.post(t, c.path(), c.body(t, msgs), "X-SWC-Budget: 1500"))
	first, _ := e.up.last(t)
	h := string(stubHandle.FindSubmatch(first)[1])

	fresh, _ := recallLoop("u", 14) // compressed (swc_recall offered), holds none of the originals
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
	if got := ask(e.key); got != originals[h] {
		t.Errorf("the tenant's own handle: %.80q", got)
	}
	if got := ask(other); !strings.Contains(got, "no original") {
		t.Errorf("another tenant's handle resolved: %.80q", got)
	}
	mu.Lock()
	now = now.Add(2 * time.Hour)
	mu.Unlock()
	if got := ask(e.key); !strings.Contains(got, "no original") {
		t.Errorf("an original past its time to live resolved: %.80q", got)
	}
}

// TestRecallStored: with a conversation id, a handle neither the request
// nor the cache holds is found in the stored conversation (a request
// retried from earlier in the conversation, compressed: swc_recall is
// offered), for its tenant only.
func TestRecallStored(t *testing.T) {
	e := newProxyEnv(t)
	other := e.newKey("globex")
	c := recallCase{"anthropic", false}
	msgs, originals := recallLoop("s", 14)
	conv := "X-SWC-Conversation: conv-recall"
	readAll(t, e.post(t, c.path(), c.body(t, msgs), conv, "X-SWC-Budget: 1000000", "anthropic-version: 2023-06-01"))
	late := msgs[len(msgs)-3] // the last tool output, which the earlier request below does not hold
	h := observe.Handle(late.ToolCallID, late.Content)
	if originals[h] == "" {
		t.Fatalf("message %d is not a tool output", len(msgs)-3)
	}
	earlier := msgs[:len(msgs)-6]
	for _, tc := range []struct {
		key, want string
	}{{e.key, originals[h]}, {other, "no original"}} {
		script(e, c, []recallReply{{args: `{"handle":"` + h + `"}`}, {}}, nil)
		n := e.up.count()
		resp := e.post(t, c.path(), c.body(t, earlier), conv, "X-SWC-Budget: 1500", "anthropic-version: 2023-06-01", "Authorization: Bearer "+tc.key)
		got := readAll(t, resp)
		if resp.StatusCode != 200 || e.up.count() != n+2 {
			t.Fatalf("%d, %d upstream requests: %s", resp.StatusCode, e.up.count()-n, got)
		}
		body, _ := e.up.last(t)
		if results, _ := toolResults(t, c.proto, body); len(results) != 1 || !strings.Contains(results[0], tc.want) {
			t.Errorf("tool result %.80q; want %.80q", results, tc.want)
		}
	}
}

// writeResponsesReply is writeReply of the Responses API: a reasoning
// item, then swc_recall's and the client's calls or the final message.
func writeResponsesReply(w http.ResponseWriter, stream bool, r recallReply, round int) {
	rs := strconv.Itoa(round)
	items := []string{`{"type":"reasoning","id":"rs_` + rs + `","summary":[],"encrypted_content":"enc` + rs + `"}`}
	if r.args != "" {
		a, _ := json.Marshal(r.args)
		items = append(items, `{"type":"function_call","id":"fc_r`+rs+`","call_id":"call_r`+rs+`","name":"swc_recall","arguments":`+string(a)+`,"status":"completed"}`)
	}
	if r.client {
		items = append(items, `{"type":"function_call","id":"fc_c","call_id":"call_c","name":"bash","arguments":"{\"command\":\"ls\"}","status":"completed"}`)
	}
	if r.args == "" && !r.client {
		items = append(items, `{"type":"message","id":"msg_`+rs+`","role":"assistant","status":"completed","content":[{"type":"output_text","text":"done","annotations":[]}]}`)
	}
	resp := func(status, output, usage string) string {
		return `{"id":"resp_` + rs + `","object":"response","status":"` + status + `","model":"gpt-5","output":[` + output + `],"usage":` + usage + `}`
	}
	usage := fmt.Sprintf(`{"input_tokens":%d,"input_tokens_details":{"cached_tokens":0},"output_tokens":5,"total_tokens":%d}`, 100*round, 100*round+5)
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, resp("completed", strings.Join(items, ","), usage))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	seq := 0
	ev := func(typ, rest string) {
		fmt.Fprintf(w, "event: %s\ndata: {\"type\":%q,\"sequence_number\":%d,%s}\n\n", typ, typ, seq, rest)
		seq++
	}
	ev("response.created", `"response":`+resp("in_progress", "", "null"))
	for k, it := range items {
		ev("response.output_item.added", fmt.Sprintf(`"output_index":%d,"item":%s`, k, it))
		if strings.Contains(it, `"function_call"`) {
			ev("response.function_call_arguments.delta", fmt.Sprintf(`"output_index":%d,"item_id":"x","delta":"{"`, k))
		}
		ev("response.output_item.done", fmt.Sprintf(`"output_index":%d,"item":%s`, k, it))
	}
	ev("response.completed", `"response":`+resp("completed", strings.Join(items, ","), usage))
}

// pauseWriter is an upstream's stream that, once it has written the
// client's call (or on), flushes and waits for the client to have read it.
type pauseWriter struct {
	http.ResponseWriter
	on       string // what to pause after; "" for the client's call (`"bash"`)
	release  chan struct{}
	paused   bool
	timedOut bool
}

func (p *pauseWriter) Write(b []byte) (int, error) {
	n, err := p.ResponseWriter.Write(b)
	on := p.on
	if on == "" {
		on = `"bash"`
	}
	if !p.paused && strings.Contains(string(b), on) {
		p.paused = true
		http.NewResponseController(p.ResponseWriter).Flush()
		select {
		case <-p.release:
		case <-time.After(3 * time.Second):
			p.timedOut = true
		}
	}
	return n, err
}

// TestRecallStreamsClientCall: once a stream begins a client's call, the
// answer can no longer be swc's alone: the client gets what came so far
// and the rest as it comes, without waiting for the upstream's end.
func TestRecallStreamsClientCall(t *testing.T) {
	for _, c := range []recallCase{{"openai", true}, {"anthropic", true}, {"responses", true}} {
		t.Run(c.proto, func(t *testing.T) {
			e := newProxyEnv(t)
			msgs, _ := recallLoop("p", 14)
			pw := &pauseWriter{release: make(chan struct{})}
			e.up.handle = func(w http.ResponseWriter, r *http.Request, body []byte) {
				pw.ResponseWriter = w
				writeReply(pw, c.proto, true, recallReply{args: `{"handle":"h0123456789"}`, client: true}, 1)
			}
			resp := e.post(t, c.path(), c.body(t, msgs), "anthropic-version: 2023-06-01", "X-SWC-Budget: 1500")
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
		})
	}
}
