package http_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/swcmem/swc/chat"
	swchttp "github.com/swcmem/swc/http"
)

// interactionsLoop is a stateless Interactions request of a tool loop
// with n calls: steps (the API's revision of May 2026), or turns (its
// first) when turns is set. Each call comes after a signed thought, each
// output is twelve like lines.
func interactionsLoop(n int, turns bool) string {
	task := `{"type":"text","text":"Fix the failing test in pkg/store (ticket 4411)."}`
	var elems []string
	if turns {
		elems = append(elems, `{"role":"user","content":[`+task+`]}`)
	} else {
		elems = append(elems, `{"type":"user_input","content":[`+task+`]}`)
	}
	for i := range n {
		out := strings.Repeat(fmt.Sprintf("line %d of step %d: store_%d.go ok\\n", i, i, i), 12)
		thought := fmt.Sprintf(`{"type":"thought","signature":"c2ln%04d","summary":[{"type":"text","text":"step %d"}]}`, i, i)
		call := fmt.Sprintf(`{"type":"function_call","id":"call_%d","name":"run_shell_command","arguments":{"command":"go test -run T%d"}}`, i, i)
		result := fmt.Sprintf(`{"type":"function_result","call_id":"call_%d","name":"run_shell_command","result":"%s"}`, i, out)
		if turns {
			elems = append(elems, `{"role":"model","content":[`+thought+","+call+`]}`, `{"role":"user","content":[`+result+`]}`)
		} else {
			elems = append(elems, thought, call, result)
		}
	}
	return `{"model":"gemini-3-flash-preview","system_instruction":"You are a coding agent.","store":false,"tools":[{"type":"function","name":"run_shell_command"}],"input":[` + strings.Join(elems, ",") + `]}`
}

// TestInteractionsToolLoop: a stateless interaction of a growing tool
// loop, in either shape, over the budget, is compressed as generateContent
// is: what goes upstream parses as an interaction (every function_result
// answering a call sent before it), holds the newest call and its result
// byte for byte, counts the tokens X-SWC-Tokens-After says, within the
// budget; between compactions each request extends the one before.
func TestInteractionsToolLoop(t *testing.T) {
	for _, turns := range []bool{false, true} {
		e, g := newGeminiEnv(t)
		g.reply = func(w http.ResponseWriter, r *http.Request, body []byte) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"v1_1","status":"completed","steps":[{"type":"model_output","content":[{"type":"text","text":"ok"}]}]}`)
		}
		prev, extended, compressed := -1, 0, 0
		var prevSent []byte
		for n := 30; n <= 60; n++ {
			body := interactionsLoop(n, turns)
			resp := geminiDo(t, e, "POST", "/v1beta/interactions", body, "x-goog-api-key: "+e.key, swchttp.HeaderBudget+": 3000", "Api-Revision: 2026-05-20")
			if got := readAll(t, resp); resp.StatusCode != 200 {
				t.Fatalf("turns %v, %d calls: %d %s", turns, n, resp.StatusCode, got)
			}
			r, sent := g.last(t)
			mode := resp.Header.Get(swchttp.HeaderMode)
			if r.URL.Path != "/v1beta/interactions" || r.Header.Get("X-Goog-Api-Key") != "gemini-upstream-key" || r.Header.Get("Api-Revision") != "2026-05-20" {
				t.Fatalf("upstream got %s, key %q", r.URL.Path, r.Header.Get("X-Goog-Api-Key"))
			}
			if mode != "stateless" {
				t.Fatalf("turns %v, %d calls: mode %q (%s), want stateless", turns, n, mode, resp.Header.Get(swchttp.HeaderPassthrough))
			}
			compressed++
			in, err := chat.Parse(sent, chat.Interactions)
			if err != nil {
				t.Fatalf("turns %v, %d calls: the body sent does not parse: %v\n%s", turns, n, err, sent)
			}
			after, _ := strconv.Atoi(resp.Header.Get(swchttp.HeaderTokensAfter))
			if after > 3000 || after == 0 {
				t.Errorf("turns %v, %d calls: %d tokens after, budget 3000", turns, n, after)
			}
			last := fmt.Sprintf(`{"type":"function_result","call_id":"call_%d"`, n-1)
			lastCall := fmt.Sprintf(`{"type":"function_call","id":"call_%d"`, n-1)
			if !bytes.Contains(sent, []byte(last)) || !bytes.Contains(sent, []byte(lastCall)) {
				t.Errorf("turns %v, %d calls: the newest call and result are not sent as they came", turns, n)
			}
			if m := in.Messages[len(in.Messages)-1]; m.ToolCallID != fmt.Sprintf("call_%d", n-1) {
				t.Errorf("turns %v, %d calls: the last message answers %q", turns, n, m.ToolCallID)
			}
			var req struct {
				Input  []json.RawMessage `json:"input"`
				Store  bool              `json:"store"`
				Tools  json.RawMessage   `json:"tools"`
				System string            `json:"system_instruction"`
			}
			if err := json.Unmarshal(sent, &req); err != nil || req.Store || string(req.Tools) != `[{"type":"function","name":"run_shell_command"}]` || !strings.HasPrefix(req.System, "You are a coding agent.") {
				t.Errorf("turns %v, %d calls: fields not kept: %v %s", turns, n, err, sent[:min(len(sent), 300)])
			}
			compacted, _ := strconv.Atoi(resp.Header.Get(swchttp.HeaderCompacted))
			if compacted == prev {
				input := func(b []byte) []byte {
					i := bytes.Index(b, []byte(`"input":[`))
					j := bytes.LastIndex(b, []byte(`],"model"`))
					return b[i:j]
				}
				if bytes.HasPrefix(input(sent), input(prevSent)) {
					extended++
				}
			}
			prev, prevSent = compacted, sent
		}
		t.Logf("turns %v: 31 requests, %d compressed, %d extend the one before", turns, compressed, extended)
		if extended < 15 {
			t.Errorf("turns %v: only %d of 31 requests extend the one before", turns, extended)
		}
	}
}

// TestInteractionsContinued: an interaction that continues another
// (previous_interaction_id) goes as it came, its history being Google's,
// and so does one without an input; one that fits goes as it came too,
// counted.
func TestInteractionsContinued(t *testing.T) {
	e, g := newGeminiEnv(t)
	g.reply = func(w http.ResponseWriter, r *http.Request, body []byte) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"v1_2","status":"completed"}`)
	}
	for _, tc := range []struct{ body, mode, why string }{
		{`{"model":"gemini-3-flash-preview","previous_interaction_id":"v1_1","input":[{"type":"function_result","call_id":"c9","name":"f","result":"ok"}]}`, "passthrough", "provider history: previous_interaction_id"},
		{`{"model":"gemini-3-flash-preview","previous_interaction_id":"v1_1","input":"and then?"}`, "passthrough", "provider history: previous_interaction_id"},
		{`{"model":"gemini-3-flash-preview","input":"hello"}`, "fits", ""},
		{`{"agent":"deep-research-pro-preview","continuation_token":"t1"}`, "passthrough", "no input"},
	} {
		resp := geminiDo(t, e, "POST", "/v1beta/interactions", tc.body, "x-goog-api-key: "+e.key, swchttp.HeaderBudget+": 3000")
		readAll(t, resp)
		_, sent := g.last(t)
		if resp.StatusCode != 200 || resp.Header.Get(swchttp.HeaderMode) != tc.mode || resp.Header.Get(swchttp.HeaderPassthrough) != tc.why || string(sent) != tc.body {
			t.Errorf("%s: %d, mode %q (%q), sent %s", tc.body, resp.StatusCode, resp.Header.Get(swchttp.HeaderMode), resp.Header.Get(swchttp.HeaderPassthrough), sent)
		}
	}
}

// TestGeminiModelCounts: a picture counts as the model the request names
// counts it: a 4K screenshot 15 tiles of 258 tokens to gemini-2.5-flash
// (the URL's model; the body's for an interaction), 1,120 to a Gemini 3
// model; X-SWC-Tokens-Before says so.
func TestGeminiModelCounts(t *testing.T) {
	e, g := newGeminiEnv(t)
	g.reply = func(w http.ResponseWriter, r *http.Request, body []byte) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, geminiAnswer)
	}
	var png bytes.Buffer
	if err := pngEncode(&png, 3840, 2160); err != nil {
		t.Fatal(err)
	}
	data := base64.StdEncoding.EncodeToString(png.Bytes())
	gen := `{"contents":[{"role":"user","parts":[{"text":"what is on screen?"},{"inlineData":{"mimeType":"image/png","data":"` + data + `"}}]}]}`
	before := map[string]int{}
	for _, m := range []string{"gemini-2.5-flash", "gemini-3-flash-preview"} {
		resp := geminiDo(t, e, "POST", "/v1beta/models/"+m+":generateContent", gen, "x-goog-api-key: "+e.key, swchttp.HeaderBudget+": 100000")
		readAll(t, resp)
		before[m], _ = strconv.Atoi(resp.Header.Get(swchttp.HeaderTokensBefore))
		inter := `{"model":"` + m + `","input":[{"type":"text","text":"what is on screen?"},{"type":"image","mime_type":"image/png","data":"` + data + `"}]}`
		resp = geminiDo(t, e, "POST", "/v1beta/interactions", inter, "x-goog-api-key: "+e.key, swchttp.HeaderBudget+": 100000")
		readAll(t, resp)
		if n, _ := strconv.Atoi(resp.Header.Get(swchttp.HeaderTokensBefore)); n <= 0 || n-before[m] > 8 || before[m]-n > 8 {
			t.Errorf("%s: an interaction counts %d, generateContent %d", m, n, before[m])
		}
	}
	if d := before["gemini-2.5-flash"] - before["gemini-3-flash-preview"]; d != 15*258-1120 {
		t.Errorf("tokens before %v: the 2.5 request counts %d more, want %d", before, d, 15*258-1120)
	}
}

// pngEncode writes a w×h grey PNG.
func pngEncode(w io.Writer, width, height int) error {
	img := image.NewGray(image.Rect(0, 0, width, height))
	return png.Encode(w, img)
}
