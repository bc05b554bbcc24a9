package agents

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestCheckLoaded: a call of a deferred tool must follow a search that
// loaded it, the API's own (a tool_search_tool_result in the assistant's
// turn) or a client's (tool_reference blocks in a tool_result); a tool
// not deferred needs none.
func TestCheckLoaded(t *testing.T) {
	const (
		task   = `{"role":"user","content":"go"}`
		call   = `{"type":"tool_use","id":"c1","name":"read_file","input":{}}`
		result = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"out"}]}`
		server = `{"type":"server_tool_use","id":"s1","name":"tool_search_tool_bm25","input":{"query":"read"}},` +
			`{"type":"tool_search_tool_result","tool_use_id":"s1","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"read_file"}]}}`
		client = `{"role":"assistant","content":[{"type":"tool_use","id":"ts","name":"ToolSearch","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"ts","content":[{"type":"tool_reference","tool_name":"read_file"}]}]}`
		searchTool = `{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}`
	)
	for _, c := range []struct {
		name, tools, msgs string
		want              []string
	}{
		{"loaded by the API's search", `{"name":"read_file","defer_loading":true},` + searchTool,
			task + `,{"role":"assistant","content":[` + server + `,` + call + `]},` + result, nil},
		{"loaded by a client's search", `{"name":"read_file","defer_loading":true},{"name":"ToolSearch"}`,
			task + `,` + client + `,{"role":"assistant","content":[` + call + `]},` + result, nil},
		{"the search dropped", `{"name":"read_file","defer_loading":true},` + searchTool,
			task + `,{"role":"assistant","content":[` + call + `]},` + result, []string{"deferred-tool-not-loaded"}},
		{"another tool loaded", `{"name":"read_file","defer_loading":true},` + searchTool,
			task + `,{"role":"assistant","content":[` + server[:len(server)-len(`read_file"}]}}`)] + `grep"}]}},` + call + `]},` + result, []string{"deferred-tool-not-loaded"}},
		{"not deferred", `{"name":"read_file"},` + searchTool,
			task + `,{"role":"assistant","content":[` + call + `]},` + result, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var req antRequest
			body := `{"model":"m","max_tokens":10,"tools":[` + c.tools + `],"messages":[` + c.msgs + `]}`
			if err := json.Unmarshal([]byte(body), &req); err != nil {
				t.Fatal(err)
			}
			bs, _ := checkAnthropic(req, "", sentOf(nil))
			if got := rules(bs); !slices.Equal(got, c.want) {
				t.Errorf("rules %v, want %v (%v)", got, c.want, bs)
			}
		})
	}
}

// TestCheckLoadedResponses: in Responses form a function_call of a
// deferred tool must follow a tool_search_output that lists it; the
// search the API ran (no call ids) answers no call and is answered by
// none, and a reasoning item before it still belongs to the call after.
func TestCheckLoadedResponses(t *testing.T) {
	def := json.RawMessage(`{"type":"function","name":"read_file","defer_loading":true}`)
	search := `{"type":"tool_search_call","id":"tsc_1","execution":"server","call_id":null,"status":"completed","arguments":{}},` +
		`{"type":"tool_search_output","id":"tso_1","execution":"server","call_id":null,"status":"completed","tools":[` + string(def) + `]}`
	call := `{"type":"function_call","call_id":"c1","name":"read_file","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"x"}`
	for _, c := range []struct {
		name, input string
		want        []string
	}{
		{"loaded", `[{"role":"user","content":"go"},` + search + `,{"role":"assistant","content":"Reading."},` + call + `]`, nil},
		{"the search dropped", `[{"role":"user","content":"go"},` + call + `]`, []string{"deferred-tool-not-loaded"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var items []item
			if err := json.Unmarshal([]byte(c.input), &items); err != nil {
				t.Fatal(err)
			}
			bs, _ := checkResponses(items, sentOf(nil), func(string) (string, bool) { return "", false })
			loaded := checkLoadedResponses(&bs, items, map[string]json.RawMessage{"read_file": def})
			if got := rules(bs); !slices.Equal(got, c.want) {
				t.Errorf("rules %v, want %v (%v)", got, c.want, bs)
			}
			if loaded["read_file"] != (c.want == nil) {
				t.Errorf("loaded %v", loaded)
			}
		})
	}
	rs := []item{{Type: "reasoning", ID: "rs_1"}, {Type: "tool_search_call", Execution: "server"}, {Type: "tool_search_output", Execution: "server"},
		{Role: "assistant"}, {Type: "function_call", CallID: "c1"}}
	if !precededBy(rs, 4, "rs_1") {
		t.Error("the reasoning before a search the API ran does not count as the call's")
	}
}
