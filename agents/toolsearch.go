package agents

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Deferred tools and Anthropic's own tool search. A request may declare
// tools with "defer_loading": true beside a tool search tool the API runs
// ("type": "tool_search_tool_bm25_20251119" or …_regex_…): the model
// sees a deferred tool only once a search loaded it, through a
// tool_search_tool_result block of an assistant turn (the API's search)
// or tool_reference blocks in a tool_result (a client's search, as
// Claude Code's ToolSearch). The script searches before it first calls a
// deferred tool the request has not loaded, as the model would; a request
// holding a call of a deferred tool that nothing in it loads is a breach:
// the model would be calling a tool whose definition it no longer has.

// deferredTools returns the name of the request's server-run tool search
// ("" when none) and the tools it declares deferred.
func deferredTools(req antRequest) (search string, deferred map[string]bool) {
	deferred = map[string]bool{}
	for _, tl := range req.Tools {
		if strings.HasPrefix(tl.Type, "tool_search_tool_") && search == "" {
			search = tl.Name
		}
		if tl.DeferLoading {
			deferred[tl.Name] = true
		}
	}
	return search, deferred
}

// loadedTools returns the tools the messages load: the tool_references of
// tool_search_tool_result blocks and of tool_result contents.
func loadedTools(msgs [][]antBlock) map[string]bool {
	loaded := map[string]bool{}
	for _, m := range msgs {
		for _, b := range m {
			switch b.Type {
			case "tool_search_tool_result":
				var c struct {
					Refs []antBlock `json:"tool_references"`
				}
				if json.Unmarshal(b.Content, &c) == nil {
					for _, r := range c.Refs {
						loaded[r.ToolName] = true
					}
				}
			case "tool_result":
				inner, _ := blocks(b.Content)
				for _, r := range inner {
					if r.Type == "tool_reference" {
						loaded[r.ToolName] = true
					}
				}
			}
		}
	}
	return loaded
}

// checkLoaded adds a breach for each call of a deferred tool that nothing
// in the request loads.
func checkLoaded(bs *breaches, req antRequest, msgs [][]antBlock) {
	_, deferred := deferredTools(req)
	if len(deferred) == 0 {
		return
	}
	loaded := loadedTools(msgs)
	for i, m := range msgs {
		for _, b := range m {
			if b.Type == "tool_use" && deferred[b.Name] && !loaded[b.Name] {
				bs.add("deferred-tool-not-loaded", "message %d calls %s (%s), a deferred tool that no tool search in the request loads", i, b.Name, b.ID)
			}
		}
	}
}

// searchBlocks returns the blocks of the API's own search (named search)
// that loads tool, for request n: its server_tool_use and its
// tool_search_tool_result.
func searchBlocks(search, tool string, n int) []map[string]any {
	id := fmt.Sprintf("srvtoolu_%04d", n)
	return []map[string]any{
		{"type": "server_tool_use", "id": id, "name": search, "input": json.RawMessage(`{"query":"read a text file"}`)},
		{"type": "tool_search_tool_result", "tool_use_id": id, "content": map[string]any{
			"type": "tool_search_tool_search_result", "tool_references": []map[string]any{{"type": "tool_reference", "tool_name": tool}}}},
	}
}

// serverSearch returns the output items of a tool search the Responses
// API runs (no call id) that loads the tool def declares, for request n.
func serverSearch(n int, def json.RawMessage) []map[string]any {
	return []map[string]any{
		{"id": fmt.Sprintf("tsc_%04d", n), "type": "tool_search_call", "execution": "server", "call_id": nil, "status": "completed",
			"arguments": map[string]any{"query": "read a text file"}},
		{"id": fmt.Sprintf("tso_%04d", n), "type": "tool_search_output", "execution": "server", "call_id": nil, "status": "completed",
			"tools": []json.RawMessage{def}},
	}
}

// checkLoadedResponses adds a breach for each function_call of a deferred
// tool (by name, in deferred) that no tool_search_output of items loads,
// and returns the tools they load.
func checkLoadedResponses(bs *breaches, items []item, deferred map[string]json.RawMessage) map[string]bool {
	loaded := map[string]bool{}
	for _, it := range items {
		if it.Type == "tool_search_output" {
			for _, tl := range it.Tools {
				loaded[tl.Name] = true
			}
		}
	}
	for i, it := range items {
		if _, ok := deferred[it.Name]; ok && it.Type == "function_call" && !loaded[it.Name] {
			bs.add("deferred-tool-not-loaded", "item %d calls %s (%s), a deferred tool that no tool search in the request loads", i, it.Name, it.CallID)
		}
	}
	return loaded
}
