package http_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/memory"
	"github.com/swcmem/swc/observe"
)

// reusedLoop returns a tool loop of n turns that each make two calls with
// the same two ids as every other turn (ids[0], ids[1]: an SDK that
// numbers each turn's calls), their results in the other order than the
// calls, every output its own; and the originals by handle.
func reusedLoop(tag string, n int, ids [2]string) ([]swc.Message, map[string]string) {
	msgs := []swc.Message{
		{Role: swc.RoleSystem, Content: "You are a coding agent."},
		{Role: swc.RoleUser, Content: "Fix the failing test in pkg/" + tag + "."},
	}
	originals := map[string]string{}
	for i := range n {
		a := swc.Message{Role: swc.RoleAssistant, Content: fmt.Sprintf("Step %d.", i)}
		var results []swc.Message
		for k, id := range ids {
			a.ToolCalls = append(a.ToolCalls, swc.ToolCall{ID: id, Name: "bash", Arguments: fmt.Sprintf(`{"command":"cat pkg/%s/file%d_%d.go"}`, tag, i, k)})
			var b strings.Builder
			for l := range 40 {
				fmt.Fprintf(&b, "line %d of file%d_%d.go in %s: value_%s_%d_%d_%d := compute(%d)\n", l, i, k, tag, tag, i, k, l, l*i+k)
			}
			out := b.String()
			results = append([]swc.Message{{Role: swc.RoleTool, ToolCallID: id, Content: out}}, results...)
			originals[observe.Handle(id, out)] = out
		}
		msgs = append(append(msgs, a), results...)
	}
	msgs = append(msgs, swc.Message{Role: swc.RoleAssistant, Content: "Looking further."},
		swc.Message{Role: swc.RoleUser, Content: "Go on."})
	return msgs, originals
}

// reuseIDs are the call ids every turn of a protocol's loop uses, as
// its SDKs or local servers number them.
var reuseIDs = map[string][2]string{"openai": {"call_0", "call_1"}, "anthropic": {"toolu_01", "toolu_02"}, "responses": {"call_0", "call_1"}}

// TestRecallReusedIDs: an agent whose every turn names its calls with the
// same ids (and gets their results in another order) sends its loop
// through the proxy; the upstream, which reuses the ids too, calls
// swc_recall on two stubs whose calls share an id, one round each: each
// call gets its own stub's output, byte for byte — from the request's
// own messages, and from the tenant's cache for a later request that
// holds neither.
func TestRecallReusedIDs(t *testing.T) {
	for _, c := range recallCases {
		t.Run(c.String(), func(t *testing.T) {
			e := newProxyEnv(t)
			ids := reuseIDs[c.proto]
			msgs, originals := reusedLoop("a", 16, ids)
			var mu sync.Mutex
			var picked []string // the two handles, chosen from the first request sent
			round := 0
			e.up.handle = func(w http.ResponseWriter, r *http.Request, body []byte) {
				mu.Lock()
				round++
				n := round
				if n == 1 && picked == nil {
					picked = twoStubsOneID(t, c.proto, body, originals)
				}
				rep := recallReply{}
				if k := (n - 1) % 3; k < 2 && len(picked) == 2 {
					rep.args = `{"handle":"` + picked[k] + `"}`
				}
				mu.Unlock()
				writeReusedReply(w, c, rep, n, ids[0])
			}
			check := func(what string, from int) {
				t.Helper()
				e.up.mu.Lock()
				bodies := e.up.bodies[from:]
				e.up.mu.Unlock()
				if len(bodies) != 3 {
					t.Fatalf("%s: %d upstream requests; want 3 (two swc_recall rounds, then the answer)", what, len(bodies))
				}
				for k, h := range picked {
					results, call := toolResults(t, c.proto, bodies[k+1])
					if len(results) != 1 || results[0] != originals[h] {
						t.Errorf("%s: swc_recall(%s) returned %.100q; want its own output %.100q", what, h, results, originals[h])
					}
					if b, _ := json.Marshal(call); !strings.Contains(string(b), `"`+ids[0]+`"`) {
						t.Errorf("%s: the upstream's swc_recall call is not named %s: %s", what, ids[0], b)
					}
				}
			}
			resp := e.post(t, c.path(), c.body(t, msgs), "X-SWC-Budget: 6000", "anthropic-version: 2023-06-01")
			if got := readAll(t, resp); resp.StatusCode != 200 || !strings.Contains(got, "done") || strings.Contains(got, "swc_recall") {
				t.Fatalf("%d: %s", resp.StatusCode, got)
			}
			if len(picked) != 2 {
				t.Fatal("no two stubs of one call id in the request sent")
			}
			if originals[picked[0]] == originals[picked[1]] {
				t.Fatal("the two stubs stand for the same output")
			}
			check("the request's own outputs", 0)

			// A later request of another loop, compressed, holds neither
			// output: the tenant's cache answers.
			fresh, _ := reusedLoop("b", 16, ids)
			from := e.up.count()
			mu.Lock()
			round = 0
			mu.Unlock()
			resp = e.post(t, c.path(), c.body(t, fresh), "X-SWC-Budget: 6000", "anthropic-version: 2023-06-01")
			if got := readAll(t, resp); resp.StatusCode != 200 || !strings.Contains(got, "done") {
				t.Fatalf("%d: %s", resp.StatusCode, got)
			}
			check("the tenant's cache", from)
		})
	}
}

// twoStubsOneID returns the handles of two stubs of body (a request
// sent upstream) whose results answer calls of one id, for different
// outputs.
func twoStubsOneID(t *testing.T, proto string, body []byte, originals map[string]string) []string {
	t.Helper()
	in, err := chat.Parse(body, chat.Format(proto))
	if err != nil {
		t.Errorf("the request sent does not parse: %v", err)
		return nil
	}
	byID := map[string]string{}
	for _, m := range in.Messages {
		if m.Role != swc.RoleTool || !strings.HasPrefix(m.Content, "[swc:") {
			continue
		}
		h := stubHandle.FindStringSubmatch(m.Content)
		if h == nil || originals[h[1]] == "" {
			t.Errorf("a stub of %s shows no handle of an output: %.80q", m.ToolCallID, m.Content)
			continue
		}
		if prev, ok := byID[m.ToolCallID]; ok && prev != h[1] {
			return []string{prev, h[1]}
		}
		byID[m.ToolCallID] = h[1]
	}
	return nil
}

// writeReusedReply is writeReply with the upstream's swc_recall call
// named id, the id the client's calls use too.
func writeReusedReply(w http.ResponseWriter, c recallCase, r recallReply, round int, id string) {
	rec := httptest.NewRecorder()
	writeReply(rec, c.proto, c.stream, r, round)
	own := fmt.Sprintf("call_r%d", round)
	if c.proto == "anthropic" {
		own = fmt.Sprintf("toolu_r%d", round)
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write([]byte(strings.ReplaceAll(rec.Body.String(), `"`+own+`"`, `"`+id+`"`)))
}

// geminiNoIDsBody returns the generateContent body of msgs with no ids
// on the calls and responses, as most Gemini clients send it (chat names
// each call by its place and pairs a response with the first open call
// of its name, so the results go in the calls' order).
func geminiNoIDsBody(t *testing.T, msgs []swc.Message) string {
	t.Helper()
	var cs []string
	for _, m := range msgs {
		switch m.Role {
		case swc.RoleUser:
			cs = append(cs, `{"role":"user","parts":[{"text":`+mustJSON(t, m.Content)+`}]}`)
		case swc.RoleAssistant:
			parts := []string{`{"text":` + mustJSON(t, m.Content) + `}`}
			for _, c := range m.ToolCalls {
				parts = append(parts, `{"functionCall":{"name":"bash","args":`+c.Arguments+`}}`)
			}
			cs = append(cs, `{"role":"model","parts":[`+strings.Join(parts, ",")+`]}`)
		case swc.RoleTool: // a turn's responses in one user content
			part := `{"functionResponse":{"name":"bash","response":{"output":` + mustJSON(t, m.Content) + `}}}`
			if n := len(cs) - 1; n >= 0 && strings.HasPrefix(cs[n], `{"role":"user","parts":[{"functionResponse"`) {
				cs[n] = strings.TrimSuffix(cs[n], `]}`) + `,` + part + `]}`
				continue
			}
			cs = append(cs, `{"role":"user","parts":[`+part+`]}`)
		}
	}
	return `{"systemInstruction":{"parts":[{"text":"You are a coding agent."}]},"contents":[` + strings.Join(cs, ",") + `],"tools":` + recallClientToolsGemini + `}`
}

// TestGeminiRecallNoIDs: a Gemini loop whose calls carry no ids, two of
// the same tool a turn, through the proxy; the upstream recalls two
// stubs of one turn's calls of the same name, one round each: each
// returns its own output.
func TestGeminiRecallNoIDs(t *testing.T) {
	e := newProxyEnv(t)
	msgs, _ := reusedLoop("g", 16, [2]string{"call_0", "call_1"})
	for i := 0; i+2 < len(msgs); i++ { // the results in the calls' order
		if msgs[i].Role == swc.RoleAssistant && len(msgs[i].ToolCalls) == 2 {
			msgs[i+1], msgs[i+2] = msgs[i+2], msgs[i+1]
		}
	}
	body := geminiNoIDsBody(t, msgs)
	in, err := chat.Parse([]byte(body), chat.Gemini)
	if err != nil {
		t.Fatal(err)
	}
	originals := map[string]string{}
	for i := range in.Messages {
		if h, ok := memory.ObservationHandle(in.Messages, i); ok {
			originals[h] = in.Messages[i].Content
		}
	}
	var mu sync.Mutex
	var picked []string
	round := 0
	e.up.handle = func(w http.ResponseWriter, r *http.Request, body []byte) {
		mu.Lock()
		round++
		n := round
		if n == 1 {
			picked = twoStubsOneTurn(t, body, originals)
		}
		rep := recallReply{}
		if n <= 2 && len(picked) == 2 {
			rep.args = `{"handle":"` + picked[n-1] + `"}`
		}
		mu.Unlock()
		writeGeminiReply(w, geminiJSON, rep, n)
	}
	resp := e.post(t, geminiJSON.path(), body, "X-SWC-Budget: 6000")
	if got := readAll(t, resp); resp.StatusCode != 200 || !strings.Contains(got, `"done"`) {
		t.Fatalf("%d: %s", resp.StatusCode, got)
	}
	if len(picked) != 2 {
		t.Fatal("no two stubs of one turn in the request sent")
	}
	e.up.mu.Lock()
	bodies := e.up.bodies
	e.up.mu.Unlock()
	if len(bodies) != 3 {
		t.Fatalf("%d upstream requests; want 3", len(bodies))
	}
	for k, h := range picked {
		_, responses := geminiRoundOf(t, bodies[k+1])
		if len(responses) != 1 || responseOutput(responses[0]) != originals[h] {
			t.Errorf("swc_recall(%s) returned %v; want its own output %.80q", h, responses, originals[h])
		}
	}
}

// twoStubsOneTurn returns the handles of the two stubs of one turn's
// calls in body (a Gemini request sent upstream).
func twoStubsOneTurn(t *testing.T, body []byte, originals map[string]string) []string {
	t.Helper()
	in, err := chat.Parse(body, chat.Gemini)
	if err != nil {
		t.Errorf("the request sent does not parse: %v", err)
		return nil
	}
	for i := 0; i+1 < len(in.Messages); i++ {
		a, b := in.Messages[i], in.Messages[i+1]
		if a.Role != swc.RoleTool || b.Role != swc.RoleTool || a.Name != b.Name {
			continue
		}
		ha, hb := stubHandle.FindStringSubmatch(a.Content), stubHandle.FindStringSubmatch(b.Content)
		if ha != nil && hb != nil && strings.HasPrefix(a.Content, "[swc:") && strings.HasPrefix(b.Content, "[swc:") &&
			ha[1] != hb[1] && originals[ha[1]] != "" && originals[hb[1]] != "" {
			return []string{ha[1], hb[1]}
		}
	}
	return nil
}

// TestRecallStoredReusedIDs: in stored mode the proxy stores a loop whose
// turns reuse their call ids; a request holding only its start (a retry
// from earlier in the loop), compressed, recalls the handles of two later outputs of one call id,
// which neither it nor the cache holds: the stored conversation returns
// each its own.
func TestRecallStoredReusedIDs(t *testing.T) {
	e := newProxyEnv(t)
	c := recallCase{"anthropic", false}
	ids := reuseIDs[c.proto]
	msgs, originals := reusedLoop("s", 16, ids)
	conv := "X-SWC-Conversation: conv-reused"
	if resp := e.post(t, c.path(), c.body(t, msgs), conv, "X-SWC-Budget: 1000000", "anthropic-version: 2023-06-01"); resp.StatusCode != 200 {
		t.Fatalf("%d: %s", resp.StatusCode, readAll(t, resp))
	} else {
		readAll(t, resp)
	}
	// The last two turns' outputs of ids[0]: in the stored loop only.
	var late []string
	for i := len(msgs) - 1; i >= 0 && len(late) < 2; i-- {
		if m := msgs[i]; m.Role == swc.RoleTool && m.ToolCallID == ids[0] {
			late = append(late, observe.Handle(m.ToolCallID, m.Content))
		}
	}
	earlier := msgs[:2+3*12] // the instructions, the task and the first 12 turns of 16: a retry
	for _, h := range late {
		script(e, c, []recallReply{{args: `{"handle":"` + h + `"}`}, {}}, nil)
		n := e.up.count()
		resp := e.post(t, c.path(), c.body(t, earlier), conv, "X-SWC-Budget: 1500", "anthropic-version: 2023-06-01")
		got := readAll(t, resp)
		if resp.StatusCode != 200 || e.up.count() != n+2 {
			t.Fatalf("%d, %d upstream requests: %s", resp.StatusCode, e.up.count()-n, got)
		}
		body, _ := e.up.last(t)
		if results, _ := toolResults(t, c.proto, body); len(results) != 1 || results[0] != originals[h] {
			t.Errorf("swc_recall(%s) returned %.100q; want its own output %.100q", h, results, originals[h])
		}
	}
}
