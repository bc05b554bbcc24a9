package memory

import (
	"bytes"
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
			o := DefaultOptions()
			o.Budget = budget
			r, err := mustNew(t, o).WithAlignUser().Compress(t.Context(), in.Messages)
			if err != nil {
				t.Fatalf("%s, budget %d: %v", tc.name, budget, err)
			}
			sent, err := SpliceRequest(in, r)
			if err != nil {
				t.Fatal(err)
			}
			if r.Compacted == 0 {
				t.Fatalf("%s, budget %d: nothing compressed (%d tokens)", tc.name, budget, r.Tokens)
			}
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
		o := DefaultOptions()
		o.Budget = budget
		r, err := mustNew(t, o).Compress(t.Context(), in.Messages)
		if err != nil {
			t.Fatalf("budget %d: %v", budget, err)
		}
		sent, err := SpliceRequest(in, r)
		if err != nil {
			t.Fatal(err)
		}
		if r.Compacted == 0 {
			t.Fatalf("budget %d: nothing compressed (%d tokens)", budget, r.Tokens)
		}
		if !bytes.Contains(sent, []byte(output)) || !bytes.Contains(sent, []byte(call)) {
			t.Errorf("budget %d: the tool search's call or output is not sent as it came:\n%.600s", budget, sent)
		}
	}
}
