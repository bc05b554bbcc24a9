package memory

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/swcmem/swc/chat"
)

// TestLoopKeepsToolReferences: Claude Code defers its MCP tools; the model
// loads them with ToolSearch, whose result holds tool_reference blocks
// the API expands into the tools' definitions. That exchange is never
// stubbed and never dropped, at any budget, whether a text goes beside
// the result (Claude Code's "Tool loaded.") or not: without it the model
// would lose the schemas of tools it goes on calling.
func TestLoopKeepsToolReferences(t *testing.T) {
	const result = `{"type":"tool_result","tool_use_id":"ts","content":[{"type":"tool_reference","tool_name":"mcp__swc__remember"},{"type":"tool_reference","tool_name":"mcp__swc__search"}]}`
	long := strings.Repeat("  12\tfunc decode(r *Reader) (Value, error) { return r.next() }\n", 60)
	for _, tc := range []struct{ name, beside, output string }{
		{"the result alone", "", "[]"},
		{"Claude Code's text beside it", `,{"type":"text","text":"Tool loaded."}`, "[]"},
		{"a long search result", "", `[{"type":"text","text":` + fmt.Sprintf("%q", long) + `}]`},
	} {
		res := result
		if tc.output != "[]" { // the references after a long text of the result
			res = strings.Replace(result, `"content":[`, `"content":[`+strings.Trim(tc.output, "[]")+`,`, 1)
		}
		msgs := []string{`{"role":"user","content":"Store the note, then keep working on the parser."}`,
			`{"role":"assistant","content":[{"type":"tool_use","id":"ts","name":"ToolSearch","input":{"query":"select:mcp__swc__remember,mcp__swc__search"}}]}`,
			`{"role":"user","content":[` + res + tc.beside + `]}`,
			`{"role":"assistant","content":[{"type":"tool_use","id":"r0","name":"mcp__swc__remember","input":{"text":"the note"}}]}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"r0","content":"{\"handle\":\"m1@notes\"}"}]}`}
		for k := range 30 {
			msgs = append(msgs,
				fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"I read part %d."},{"type":"tool_use","id":"t%d","name":"Read","input":{"offset":%d}}]}`, k, k, 100*k),
				fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":%q}]}`, k, long))
		}
		body := []byte(`{"model":"m","max_tokens":64,"system":"You are a coding agent.","tools":[{"name":"ToolSearch","input_schema":{"type":"object"}},` +
			`{"name":"mcp__swc__remember","input_schema":{"type":"object"},"defer_loading":true},{"name":"mcp__swc__search","input_schema":{"type":"object"},"defer_loading":true}],"messages":[` + strings.Join(msgs, ",") + `]}`)
		in, err := chat.Parse(body, chat.Anthropic)
		if err != nil {
			t.Fatal(err)
		}
		for _, budget := range []int{2000, 8000, 16000} {
			sent := compressSplice(t, tc.name, in, budget)
			if !bytes.Contains(sent, []byte(res)) || !bytes.Contains(sent, []byte(`"id":"ts"`)) {
				t.Errorf("%s, budget %d: ToolSearch's call or its tool_reference result is not sent as it came:\n%.600s", tc.name, budget, sent)
			}
		}
	}
}

// TestLoopKeepsToolSearchOutput: a Responses tool_search_output carries
// the definitions of the tools a tool search loaded (its "tools", no
// "output"); like Anthropic's tool_reference, it and its call go as they
// came and are never dropped.
func TestLoopKeepsToolSearchOutput(t *testing.T) {
	const (
		call   = `{"type":"tool_search_call","call_id":"ts1","arguments":{"query":"crm"},"execution":"client","status":"completed"}`
		output = `{"type":"tool_search_output","call_id":"ts1","execution":"client","status":"completed","tools":[{"type":"function","name":"crm_lookup","description":"Look a customer up.","parameters":{"type":"object","properties":{"id":{"type":"string"}}},"defer_loading":true}]}`
	)
	long := strings.Repeat("  12\tfunc decode(r *Reader) (Value, error) { return r.next() }\n", 60)
	items := []string{`{"role":"user","content":"Look customer 7 up, then keep working on the parser."}`, call, output,
		`{"type":"function_call","call_id":"c0","name":"crm_lookup","arguments":"{\"id\":\"7\"}"}`,
		`{"type":"function_call_output","call_id":"c0","output":"customer 7: Ada"}`}
	for k := range 30 {
		items = append(items,
			fmt.Sprintf(`{"type":"function_call","call_id":"t%d","name":"read","arguments":"{\"offset\":%d}"}`, k, 100*k),
			fmt.Sprintf(`{"type":"function_call_output","call_id":"t%d","output":%q}`, k, long))
	}
	body := []byte(`{"model":"m","instructions":"You are a coding agent.","tools":[{"type":"tool_search","execution":"client"},{"type":"function","name":"read","parameters":{"type":"object"}}],"input":[` + strings.Join(items, ",") + `]}`)
	in, err := chat.Parse(body, chat.Responses)
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int{2000, 8000, 16000} {
		sent := compressSplice(t, "responses", in, budget)
		if !bytes.Contains(sent, []byte(output)) || !bytes.Contains(sent, []byte(call)) {
			t.Errorf("budget %d: the tool search's call or output is not sent as it came:\n%.600s", budget, sent)
		}
	}
}

// TestHistoryKeepsToolLoaders: in a conversation (more of a person's
// texts than tool results: not a tool loop) the turn that loaded deferred
// tools and its result are kept verbatim, after the task and before the
// kept tail, when the rest of the history goes into the memory: in
// Anthropic form (the task kept first, as the API wants a user message
// first) and in Responses form.
func TestHistoryKeepsToolLoaders(t *testing.T) {
	say := strings.Repeat("We talked about the trip to Lisbon, the hotel near the river and the flights. ", 8)
	conversation := func(head []string, tail ...string) string {
		items := append([]string(nil), head...)
		for k := range 40 {
			items = append(items, fmt.Sprintf(`{"role":"user","content":"Question %d: %s"}`, k, say), fmt.Sprintf(`{"role":"assistant","content":"Answer %d."}`, k))
		}
		return strings.Join(append(items, tail...), ",")
	}
	const task = `{"role":"user","content":"Plan my trip; remember what I tell you."}`
	for _, tc := range []struct {
		name   string
		format chat.Format
		body   string
		want   []string
	}{
		{"anthropic", chat.Anthropic, `{"model":"m","max_tokens":64,"system":"You are an assistant.","messages":[` + conversation([]string{task,
			`{"role":"assistant","content":[{"type":"text","text":"Loading the notes tool."},{"type":"tool_use","id":"ts","name":"ToolSearch","input":{"query":"select:notes_add"}}]}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"ts","content":[{"type":"tool_reference","tool_name":"notes_add"}]},{"type":"text","text":"Tool loaded."}]}`},
			`{"role":"user","content":"Add a note: gate 12."}`,
			`{"role":"assistant","content":[{"type":"tool_use","id":"n1","name":"notes_add","input":{"text":"gate 12"}}]}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"n1","content":"added"}]}`) + `]}`,
			[]string{`{"type":"tool_result","tool_use_id":"ts","content":[{"type":"tool_reference","tool_name":"notes_add"}]}`, `"id":"ts"`, `Plan my trip`}},
		{"responses", chat.Responses, `{"model":"m","instructions":"You are an assistant.","input":[` + conversation([]string{task,
			`{"type":"tool_search_call","call_id":"ts1","arguments":{"query":"notes"},"execution":"client","status":"completed"}`,
			`{"type":"tool_search_output","call_id":"ts1","execution":"client","status":"completed","tools":[{"type":"function","name":"notes_add","parameters":{"type":"object"},"defer_loading":true}]}`},
			`{"role":"user","content":"Add a note: gate 12."}`,
			`{"type":"function_call","call_id":"n1","name":"notes_add","arguments":"{}"}`,
			`{"type":"function_call_output","call_id":"n1","output":"added"}`) + `]}`,
			[]string{`{"type":"tool_search_output","call_id":"ts1"`, `{"type":"tool_search_call","call_id":"ts1"`}},
		{"anthropic, server-run", chat.Anthropic, `{"model":"m","max_tokens":64,"system":"You are an assistant.","messages":[` + conversation([]string{task,
			`{"role":"assistant","content":[` + serverSearch + `,{"type":"text","text":"Loaded."}]}`},
			`{"role":"user","content":"Add a note: gate 12."}`,
			`{"role":"assistant","content":[{"type":"tool_use","id":"n1","name":"notes_add","input":{"text":"gate 12"}}]}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"n1","content":"added"}]}`) + `]}`,
			[]string{serverSearch, `Plan my trip`}},
		{"responses, server-run", chat.Responses, `{"model":"m","instructions":"You are an assistant.","input":[` + conversation([]string{task,
			serverCall, serverOutput},
			`{"role":"user","content":"Add a note: gate 12."}`,
			`{"type":"function_call","call_id":"n1","name":"notes_add","arguments":"{}"}`,
			`{"type":"function_call_output","call_id":"n1","output":"added"}`) + `]}`,
			[]string{serverCall + "," + serverOutput}},
	} {
		in, err := chat.Parse([]byte(tc.body), tc.format)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if asLoop(in.Messages) != nil {
			t.Fatalf("%s: read as a tool loop", tc.name)
		}
		for _, budget := range []int{1000, 4000} {
			sent := compressSplice(t, tc.name, in, budget)
			for _, w := range tc.want {
				if !bytes.Contains(sent, []byte(w)) {
					t.Errorf("%s, budget %d: %s is not sent:\n%.900s", tc.name, budget, w, sent)
				}
			}
			if _, err := chat.Parse(sent, tc.format); err != nil {
				t.Errorf("%s, budget %d: what swc sends does not parse: %v", tc.name, budget, err)
			}
		}
	}
}

// A tool search the provider ran, as its API sends it back: Anthropic's
// server_tool_use and tool_search_tool_result blocks in the assistant's
// turn; a Responses tool_search_call and tool_search_output without a
// call id.
const (
	serverSearch = `{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_regex","input":{"query":"notes"}},` +
		`{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"notes_add"}]}}`
	serverCall   = `{"type":"tool_search_call","call_id":null,"arguments":{"query":"notes"},"execution":"server","status":"completed"}`
	serverOutput = `{"type":"tool_search_output","call_id":null,"execution":"server","status":"completed","tools":[{"type":"function","name":"notes_add","parameters":{"type":"object"},"defer_loading":true}]}`
)

// TestLoopKeepsServerToolSearch: a tool search the provider ran (the
// assistant's turn holds it and its result) is never dropped from a tool
// loop either, at any budget, in Anthropic and in Responses form.
func TestLoopKeepsServerToolSearch(t *testing.T) {
	long := strings.Repeat("  12\tfunc decode(r *Reader) (Value, error) { return r.next() }\n", 60)
	msgs := []string{`{"role":"user","content":"Add a note, then keep working on the parser."}`,
		`{"role":"assistant","content":[{"type":"text","text":"Searching."},` + serverSearch + `,{"type":"tool_use","id":"n0","name":"notes_add","input":{"text":"x"}}]}`,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"n0","content":"added"}]}`}
	items := []string{`{"role":"user","content":"Add a note, then keep working on the parser."}`, serverCall, serverOutput,
		`{"type":"function_call","call_id":"n0","name":"notes_add","arguments":"{}"}`,
		`{"type":"function_call_output","call_id":"n0","output":"added"}`}
	for k := range 30 {
		msgs = append(msgs,
			fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"I read part %d."},{"type":"tool_use","id":"t%d","name":"Read","input":{"offset":%d}}]}`, k, k, 100*k),
			fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":%q}]}`, k, long))
		items = append(items,
			fmt.Sprintf(`{"type":"function_call","call_id":"t%d","name":"read","arguments":"{\"offset\":%d}"}`, k, 100*k),
			fmt.Sprintf(`{"type":"function_call_output","call_id":"t%d","output":%q}`, k, long))
	}
	for _, tc := range []struct {
		name   string
		format chat.Format
		body   string
		want   string
	}{
		{"anthropic", chat.Anthropic, `{"model":"m","max_tokens":64,"system":"You are a coding agent.","tools":[{"type":"tool_search_tool_regex_20251119","name":"tool_search_tool_regex"},` +
			`{"name":"Read","input_schema":{"type":"object"}},{"name":"notes_add","input_schema":{"type":"object"},"defer_loading":true}],"messages":[` + strings.Join(msgs, ",") + `]}`,
			serverSearch},
		{"responses", chat.Responses, `{"model":"m","instructions":"You are a coding agent.","tools":[{"type":"tool_search"},{"type":"function","name":"read","parameters":{"type":"object"}}],"input":[` + strings.Join(items, ",") + `]}`,
			serverCall + "," + serverOutput},
	} {
		in, err := chat.Parse([]byte(tc.body), tc.format)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if asLoop(in.Messages) == nil {
			t.Fatalf("%s: not read as a tool loop", tc.name)
		}
		for _, budget := range []int{2000, 8000, 16000} {
			sent := compressSplice(t, tc.name, in, budget)
			if !bytes.Contains(sent, []byte(tc.want)) {
				t.Errorf("%s, budget %d: the tool search the provider ran is not sent as it came:\n%.600s", tc.name, budget, sent)
			}
			if _, err := chat.Parse(sent, tc.format); err != nil {
				t.Errorf("%s, budget %d: what swc sends does not parse: %v", tc.name, budget, err)
			}
		}
	}
}

// compressSplice compresses in at budget with the default options (roles
// aligned in Anthropic form, as the proxy does) and returns the request
// body swc sends; it fails the test unless something was compressed.
func compressSplice(t *testing.T, name string, in *chat.Input, budget int) []byte {
	t.Helper()
	o := DefaultOptions()
	o.Budget = budget
	c := mustNew(t, o)
	if in.Format == chat.Anthropic {
		c = c.WithAlignUser()
	}
	r, err := c.Compress(t.Context(), in.Messages)
	if err != nil {
		t.Fatalf("%s, budget %d: %v", name, budget, err)
	}
	if r.Compacted == 0 {
		t.Fatalf("%s, budget %d: nothing compressed (%d tokens)", name, budget, r.Tokens)
	}
	sent, err := SpliceRequest(in, r)
	if err != nil {
		t.Fatalf("%s, budget %d: %v", name, budget, err)
	}
	return sent
}

// TestHistoryLoaderMemorySource: with a store's memory (WithMemory), the
// memory asked for covers every conversation message before the kept
// tail, the kept search turn and task among them: no message is left out
// of both the memory and what is sent.
func TestHistoryLoaderMemorySource(t *testing.T) {
	say := strings.Repeat("We talked about the trip to Lisbon, the hotel near the river and the flights. ", 4)
	for _, loads := range []bool{false, true} {
		ref := `[{"type":"tool_reference","tool_name":"notes_add"}]`
		if !loads {
			ref = `"notes_add loaded"`
		}
		items := []string{`{"role":"user","content":"Plan my trip; remember what I tell you."}`,
			`{"role":"assistant","content":[{"type":"tool_use","id":"ts","name":"ToolSearch","input":{"query":"select:notes_add"}}]}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"ts","content":` + ref + `}]}`,
			`{"role":"assistant","content":"ok"}`}
		for k := range 40 {
			items = append(items, fmt.Sprintf(`{"role":"user","content":"Question %d: %s"}`, k, say), fmt.Sprintf(`{"role":"assistant","content":"Answer %d."}`, k))
		}
		items = append(items, `{"role":"user","content":"last"}`)
		body := `{"model":"m","max_tokens":64,"system":"You are an assistant.","messages":[` + strings.Join(items, ",") + `]}`
		in, err := chat.Parse([]byte(body), chat.Anthropic)
		if err != nil {
			t.Fatal(err)
		}
		asked := -1
		o := DefaultOptions()
		o.Budget = 2000
		c := mustNew(t, o).WithAlignUser().WithMemory(func(_ context.Context, n, room int) (string, bool) {
			asked = n
			return "Summary of the conversation.", true
		})
		r, err := c.Compress(t.Context(), in.Messages)
		if err != nil {
			t.Fatal(err)
		}
		sent := map[int]bool{}
		for _, s := range r.Source {
			sent[s] = true
		}
		// conversation positions (instructions are msgs[0])
		var lost []int
		for i := 1; i < len(in.Messages); i++ {
			covered := i-1 < asked
			if !covered && !sent[i] {
				lost = append(lost, i)
			}
		}
		t.Logf("loads=%v: recent starts at msg %d, source asked for the first %d conversation messages; neither in memory nor sent: %v", loads, r.Recent, asked, lost)
		if len(lost) > 0 {
			t.Errorf("loads=%v: messages %v are lost", loads, lost)
		}
	}
}

// TestHistoryLoaderBudget: a search turn kept whatever the boundary (here
// with a 1,500-token result of a parallel call) counts in the boundary
// and the tail like the instructions: requests stay within the budget,
// with a memory, and the memory does not change at every request.
func TestHistoryLoaderBudget(t *testing.T) {
	say := strings.Repeat("We talked about the trip to Lisbon, the hotel near the river and the flights. ", 4)
	big := strings.Repeat("line of a file that was read in parallel with the tool search\n", 120)
	head := []string{`{"role":"user","content":"Plan my trip; remember what I tell you."}`,
		`{"role":"assistant","content":[{"type":"tool_use","id":"ts","name":"ToolSearch","input":{"query":"select:notes_add"}},{"type":"tool_use","id":"rd","name":"Read","input":{}}]}`,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"ts","content":[{"type":"tool_reference","tool_name":"notes_add"}]},{"type":"tool_result","tool_use_id":"rd","content":` + fmt.Sprintf("%q", big) + `}]}`,
		`{"role":"assistant","content":"ok"}`}
	var conv []string
	for k := range 60 {
		conv = append(conv, fmt.Sprintf(`{"role":"user","content":"Question %d: %s"}`, k, say), fmt.Sprintf(`{"role":"assistant","content":"Answer %d."}`, k))
	}
	changed := map[bool]int{}
	for _, loads := range []bool{false, true} {
		h := append([]string(nil), head...)
		if !loads {
			h[2] = strings.Replace(h[2], `[{"type":"tool_reference","tool_name":"notes_add"}]`, `"notes_add loaded"`, 1)
		}
		o := DefaultOptions()
		o.Budget = 3000
		o.Compaction = Epoch // the proxy's
		c := mustNew(t, o).WithAlignUser()
		prevMem, changes, over, empty := "", 0, 0, 0
		for n := 20; n < len(conv); n += 2 {
			body := `{"model":"m","max_tokens":64,"system":"You are an assistant.","messages":[` + strings.Join(append(append([]string(nil), h...), conv[:n+1]...), ",") + `]}`
			in, err := chat.Parse([]byte(body), chat.Anthropic)
			if err != nil {
				t.Fatal(err)
			}
			r, err := c.Compress(t.Context(), in.Messages)
			if err != nil {
				t.Fatal(err)
			}
			if r.Memory != prevMem {
				changes++
			}
			if r.Memory == "" && r.Compacted > 0 {
				empty++
			}
			if r.OverBudget > 0 {
				over++
			}
			prevMem = r.Memory
		}
		changed[loads] = changes
		if over > 0 || empty > 0 {
			t.Errorf("loads=%v: over budget %d times, history compacted without a memory %d times", loads, over, empty)
		}
	}
	// Kept, the 1,500-token turn leaves the memory and the tail half the
	// room, so epochs are shorter; but the memory must not change at
	// every request (it did when the boundary did not count the turn).
	if requests := (len(conv) - 20) / 2; changed[true] >= requests/2 {
		t.Errorf("the memory changed at %d of %d requests with the search's turn kept (%d without it)", changed[true], requests, changed[false])
	}
}
