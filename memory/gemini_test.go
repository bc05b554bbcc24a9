package memory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/swcmem/swc/internal/wiretest"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/swcmem/swc/chat"
)

// geminiLoop returns a generateContent body of an agent's function-call
// loop: a task, then turns of a model content (a thought with its
// signature, a call — every third one without an id) answered by a user
// content (the call's output), then a question.
func geminiLoop(turns int) []byte {
	var cs []string
	cs = append(cs, `{"role":"user","parts":[{"text":"Fix the failing test in pkg/store; the task is ticket 4411."}]}`)
	for i := range turns {
		id := fmt.Sprintf(`,"id":"call_%d"`, i)
		if i%3 == 2 {
			id = ""
		}
		out := strings.Repeat(fmt.Sprintf("line %d of the output of step %d: store_%d.go ok\\n", i, i, i), 12)
		cs = append(cs,
			fmt.Sprintf(`{"role":"model","parts":[{"text":"thinking about step %d","thought":true},{"functionCall":{"name":"run_shell_command","args":{"command":"go test ./pkg/store -run T%d"}%s},"thoughtSignature":"c2lnLSVk%04d"}]}`, i, i, id, i),
			fmt.Sprintf(`{"role":"user","parts":[{"functionResponse":{"name":"run_shell_command","response":{"output":"%s"}%s}}]}`, out, id))
	}
	cs = append(cs, `{"role":"model","parts":[{"text":"The test passes now."}]}`, `{"role":"user","parts":[{"text":"What did you change?"}]}`)
	return []byte(`{"contents":[` + strings.Join(cs, ",") + `],"generationConfig":{"temperature":0,"thinkingConfig":{"includeThoughts":true}},"systemInstruction":{"parts":[{"text":"You are a coding agent."}],"role":"user"},"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}]}`)
}

// TestSpliceGeminiRoundTrip: a body whose messages are all kept, without
// memory, is written back byte for byte (its keys in order, compact).
func TestSpliceGeminiRoundTrip(t *testing.T) {
	body := geminiLoop(4)
	in, err := chat.Parse(body, chat.Gemini)
	if err != nil {
		t.Fatal(err)
	}
	res := &Result{Messages: in.Messages}
	for i := range in.Messages {
		res.Source = append(res.Source, i)
	}
	out, err := SpliceRequest(in, res)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, body) {
		t.Errorf("round trip changed the body:\n got %s\nwant %s", out, body)
	}
}

// TestGeminiLoopCompressed compresses a long function-call loop under its
// budget: the body sent parses again (every call answered), its contents
// start with a user content and alternate, each model content's calls are
// answered by the next content, kept contents (thought signatures
// included) are byte for byte the client's, and the memory is the last
// part of systemInstruction.
func TestGeminiLoopCompressed(t *testing.T) {
	for _, mid := range []bool{false, true} {
		body := geminiLoop(60)
		if mid { // the request of a loop under way: it ends with a function response
			i := bytes.LastIndex(body, []byte(`,{"role":"model","parts":[{"text":"The test passes now."}]}`))
			j := bytes.Index(body, []byte(`],"generationConfig"`))
			body = append(append([]byte{}, body[:i]...), body[j:]...)
		}
		t.Run(fmt.Sprintf("mid=%v", mid), func(t *testing.T) { testGeminiLoop(t, body) })
	}
}

func testGeminiLoop(t *testing.T, body []byte) {
	for _, keep := range []int{0, 1, 2, 3, 8} {
		o := DefaultOptions()
		o.Budget, o.KeepRecent = 3000, keep
		var got *Result
		var cp capture
		mw := GeminiMiddleware(mustNew(t, o), func(r *Result, err error) {
			if err != nil {
				t.Fatal(err)
			}
			got = r
		})
		if _, err := mw(post(t, "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", body), cp.next); err != nil {
			t.Fatal(err)
		}
		if got == nil || got.Fits || got.Tokens > 3000 || got.TokensBefore <= 3000 {
			t.Fatalf("keep %d: not compressed under the budget: %+v", keep, got)
		}
		sent, err := chat.Parse(cp.body, chat.Gemini)
		if err != nil {
			t.Fatalf("keep %d: the body sent does not parse: %v\n%s", keep, err, cp.body)
		}
		var req struct {
			Contents          []json.RawMessage
			SystemInstruction struct {
				Role  string
				Parts []struct{ Text string }
			}
			GenerationConfig json.RawMessage
			Tools            json.RawMessage
		}
		if err := json.Unmarshal(cp.body, &req); err != nil {
			t.Fatal(err)
		}
		orig, _ := chat.Parse(body, chat.Gemini)
		raws := map[string]bool{}
		for _, r := range orig.Raw {
			raws[string(r)] = true
		}
		stubbed := geminiStubbed(t, orig, got.Rewritten)
		prevCalls := 0
		for i, c := range req.Contents {
			var v struct {
				Role  string
				Parts []map[string]json.RawMessage
			}
			json.Unmarshal(c, &v)
			if want := []string{"user", "model"}[i%2]; v.Role != want {
				t.Fatalf("keep %d: contents[%d] is %s, want %s", keep, i, v.Role, want)
			}
			memFirst := i == 0 && (bytes.Contains(c, []byte(Preamble[:20])) || bytes.Contains(c, []byte(LoopPreamble[:20])))
			if !raws[string(c)] && !memFirst && !stubbed(c) && !wiretest.Unthought(raws, c) {
				t.Errorf("keep %d: contents[%d] is not the client's bytes: %s", keep, i, c)
			}
			calls, responses := 0, 0
			for _, p := range v.Parts {
				if p["functionCall"] != nil {
					calls++
					if p["thoughtSignature"] == nil {
						t.Errorf("keep %d: contents[%d]: signature lost", keep, i)
					}
				}
				if p["functionResponse"] != nil {
					responses++
				}
			}
			if responses != prevCalls {
				t.Errorf("keep %d: contents[%d] answers %d of %d calls", keep, i, responses, prevCalls)
			}
			prevCalls = calls
		}
		t.Logf("keep %d: %d → %d tokens, %d of %d contents sent", keep, got.TokensBefore, got.Tokens, len(req.Contents), len(orig.Raw))
		if len(req.Contents) == 0 || len(sent.Messages) == 0 {
			t.Fatalf("keep %d: nothing sent", keep)
		}
		sp := req.SystemInstruction.Parts
		memory := func(s string) bool { return strings.HasPrefix(s, Preamble) || strings.HasPrefix(s, LoopPreamble) }
		inSystem := len(sp) == 2 && memory(sp[1].Text) && sp[1].Text == got.Memory
		inFirst := len(sp) == 1 && (bytes.Contains(req.Contents[0], []byte(Preamble[:20])) || bytes.Contains(req.Contents[0], []byte(LoopPreamble[:20])))
		if !inSystem && !inFirst || sp[0].Text != "You are a coding agent." || req.SystemInstruction.Role != "user" {
			t.Errorf("keep %d: systemInstruction %+v", keep, req.SystemInstruction)
		}
		if string(req.GenerationConfig) != `{"temperature":0,"thinkingConfig":{"includeThoughts":true}}` || len(req.Tools) == 0 {
			t.Errorf("keep %d: other fields changed: %s %s", keep, req.GenerationConfig, req.Tools)
		}
	}
}

// geminiStubbed returns whether a content sent is a content of in whose
// function responses of rewritten messages (a tool loop's stubs) read
// {"output": stub}, every other part and field as it came.
func geminiStubbed(t *testing.T, in *chat.Input, rewritten map[int]string) func(c json.RawMessage) bool {
	t.Helper()
	byOrigin := map[int][]string{}
	for i, o := range in.Origin {
		if text, ok := rewritten[i]; ok && o >= 0 {
			byOrigin[o] = append(byOrigin[o], text)
		}
	}
	var want []any
	for o, texts := range byOrigin {
		var c map[string]any
		if err := json.Unmarshal(in.Raw[o], &c); err != nil {
			t.Fatal(err)
		}
		parts, _ := c["parts"].([]any)
		for _, p := range parts {
			fr, ok := p.(map[string]any)["functionResponse"].(map[string]any)
			if !ok || len(texts) == 0 {
				continue
			}
			fr["response"] = map[string]any{"output": texts[0]}
			texts = texts[1:]
		}
		want = append(want, c)
	}
	return func(raw json.RawMessage) bool {
		var c any
		if json.Unmarshal(raw, &c) != nil {
			return false
		}
		for _, w := range want {
			if reflect.DeepEqual(c, w) {
				return true
			}
		}
		return false
	}
}

// TestGeminiMiddlewareRoutes: the middleware compresses generateContent
// and streamGenerateContent requests and leaves others (countTokens, a
// body that fits) as they came.
func TestGeminiMiddlewareRoutes(t *testing.T) {
	o := DefaultOptions()
	o.Budget = 3000
	mw := GeminiMiddleware(mustNew(t, o), nil)
	big, small := geminiLoop(60), []byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
	for _, tc := range []struct {
		path       string
		body       []byte
		compressed bool
	}{
		{"/v1beta/models/gemini-2.5-flash:generateContent", big, true},
		{"/v1beta/models/gemini-2.5-flash:streamGenerateContent", big, true},
		{"/v1beta/models/gemini-2.5-flash:countTokens", big, false},
		{"/v1beta/models/gemini-2.5-flash:generateContent", small, false},
	} {
		var cp capture
		if _, err := mw(post(t, "https://generativelanguage.googleapis.com"+tc.path, tc.body), cp.next); err != nil {
			t.Fatal(err)
		}
		if got := !bytes.Equal(cp.body, tc.body); got != tc.compressed || cp.path != tc.path {
			t.Errorf("%s (%d bytes): compressed %v, want %v (sent to %s)", tc.path, len(tc.body), got, tc.compressed, cp.path)
		}
	}
}

// TestSpliceGeminiSDKBody: what google.golang.org/genai sent (its keys in
// order, compact; its final newline aside) goes back byte for byte when
// every message is kept, and with the memory, every content byte for byte.
func TestSpliceGeminiSDKBody(t *testing.T) {
	body, err := os.ReadFile("../chat/testdata/genai-go/generateContent.json")
	if err != nil {
		t.Fatal(err)
	}
	body = bytes.TrimSpace(body)
	in, err := chat.Parse(body, chat.Gemini)
	if err != nil {
		t.Fatal(err)
	}
	res := &Result{}
	for i := range in.Messages {
		res.Source = append(res.Source, i)
	}
	out, err := SpliceRequest(in, res)
	if err != nil || !bytes.Equal(out, body) {
		t.Errorf("round trip: %v\n got %s\nwant %s", err, out, body)
	}
	res.Memory = "MEM"
	out, err = SpliceRequest(in, res)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(body, []byte(`"systemInstruction":`))
	want := string(body[:i]) + `"systemInstruction":{"parts":[{"text":"You are a coding agent."},{"text":"MEM"}],"role":"user"},` + string(body[bytes.Index(body, []byte(`"tools":`)):])
	if string(out) != want {
		t.Errorf("with memory:\n got %s\nwant %s", out, want)
	}
}

// TestInteractionsMiddleware: a new interaction over the budget is
// compressed, in the shape it came in; one that continues another, one
// that fits and other methods go as they came.
func TestInteractionsMiddleware(t *testing.T) {
	o := DefaultOptions()
	o.Budget = 3000
	var results []*Result
	mw := InteractionsMiddleware(mustNew(t, o), func(r *Result, err error) {
		if err != nil {
			t.Errorf("report: %v", err)
		}
		results = append(results, r)
	})
	var steps []string
	for i := range 60 {
		out := strings.Repeat(fmt.Sprintf("line %d: store_%d.go ok\\n", i, i), 12)
		steps = append(steps,
			fmt.Sprintf(`{"type":"function_call","id":"c%d","name":"run","arguments":{"command":"go test -run T%d"}}`, i, i),
			fmt.Sprintf(`{"type":"function_result","call_id":"c%d","name":"run","result":"%s"}`, i, out))
	}
	big := []byte(`{"model":"gemini-3-flash-preview","store":false,"input":[{"type":"user_input","content":[{"type":"text","text":"fix it"}]},` + strings.Join(steps, ",") + `]}`)
	continued := []byte(`{"model":"gemini-3-flash-preview","previous_interaction_id":"v1_1","input":[{"type":"function_result","call_id":"c9","name":"run","result":"` + strings.Repeat("x ", 9000) + `"}]}`)
	for _, tc := range []struct {
		method, path string
		body         []byte
		compressed   bool
	}{
		{"POST", "/v1beta/interactions", big, true},
		{"POST", "/v1beta/interactions", continued, false},
		{"POST", "/v1/interactions", []byte(`{"agent":"deep-research-pro-preview","continuation_token":"t1"}`), false},
		{"POST", "/v1beta/interactions", []byte(`{"model":"m","input":"hi"}`), false},
		{"POST", "/v1beta/interactions/v1_1/cancel", big, false},
	} {
		var cp capture
		req := post(t, "https://generativelanguage.googleapis.com"+tc.path, tc.body)
		req.Method = tc.method
		if _, err := mw(req, cp.next); err != nil {
			t.Fatal(err)
		}
		if got := !bytes.Equal(cp.body, tc.body); got != tc.compressed {
			t.Errorf("%s (%d bytes): compressed %v, want %v", tc.path, len(tc.body), got, tc.compressed)
			continue
		}
		if !tc.compressed {
			continue
		}
		in, err := chat.Parse(cp.body, chat.Interactions)
		if err != nil {
			t.Fatalf("the body sent does not parse: %v", err)
		}
		if n := len(in.Messages); in.Messages[n-1].ToolCallID != "c59" || !bytes.Contains(cp.body, []byte(`{"type":"function_call","id":"c59"`)) {
			t.Errorf("the newest call and result are not kept: %s", cp.body[len(cp.body)-300:])
		}
	}
	if len(results) != 2 || results[0].Tokens > 3000 {
		t.Errorf("reports %d (want the two requests read: the big one and the one that fits)", len(results))
	}
}
