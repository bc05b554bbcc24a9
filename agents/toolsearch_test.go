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
