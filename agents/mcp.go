package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// MCPScript is a scripted Anthropic upstream on loopback that makes Claude
// Code use swc's memory through its MCP tools (swc serve's /mcp, added
// with `claude mcp add` under the name "swc"): its first answer calls
// mcp__swc__remember with Note, the next mcp__swc__search with
// NoteQuery, then it answers in text holding MCPDone. It records the
// tool results Claude Code sent back.
type MCPScript struct {
	URL string // http://127.0.0.1:PORT, without /v1

	srv *httptest.Server
	mu  sync.Mutex
	res MCPResults
}

// MCPResults is what the script saw.
type MCPResults struct {
	Requests   int // model calls declaring the MCP tools
	Tools      []string
	Remembered string // the text of remember's result ("" before it came)
	Found      string // the text of search's result
	Done       bool   // the final answer went out
	Errors     []string
}

// The note, the query that finds it and the final answer's mark.
const (
	MCPConversation = "agents-mcp"
	Note            = "Flight TP1331 to Lisbon leaves on 7 May at 06:40 from gate B12."
	NoteQuery       = "Lisbon flight gate"
	MCPDone         = "SWC-MCP-DONE"
)

// The MCP tools as Claude Code names them: mcp__SERVER__TOOL.
const (
	mcpRemember = "mcp__swc__remember"
	mcpSearch   = "mcp__swc__search"
)

// StartMCPScript starts the script's server on 127.0.0.1. Close it when
// done.
func StartMCPScript() *MCPScript {
	s := &MCPScript{}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close stops the server.
func (s *MCPScript) Close() { s.srv.Close() }

// Results returns what the script saw so far.
func (s *MCPScript) Results() MCPResults {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.res
	r.Tools = append([]string(nil), r.Tools...)
	r.Errors = append([]string(nil), r.Errors...)
	return r
}

func (s *MCPScript) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	p := r.URL.Path
	switch {
	case r.Method == http.MethodHead:
		w.WriteHeader(http.StatusOK)
	case r.Method == http.MethodGet && strings.HasSuffix(p, "/models"):
		writeJSON(w, `{"data":[{"type":"model","id":"claude-sonnet-4-6","display_name":"Claude Sonnet 4.6","created_at":"2026-02-17T00:00:00Z"}],"has_more":false,"first_id":"claude-sonnet-4-6","last_id":"claude-sonnet-4-6"}`)
	case strings.HasSuffix(p, "/messages/count_tokens"):
		writeJSON(w, fmt.Sprintf(`{"input_tokens":%d}`, len(body)/4))
	case strings.HasSuffix(p, "/messages"):
		s.messages(w, body)
	default:
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"no such route"}}`, http.StatusNotFound)
	}
}

// messages answers one Messages request: the step the tool results of
// its last message call for, or a short text for a request that does not
// declare the MCP tools (a title, a check).
func (s *MCPScript) messages(w http.ResponseWriter, body []byte) {
	var req antRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"invalid JSON"}}`, http.StatusBadRequest)
		return
	}
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	text, tool, id, input := "ok", "", "", ""
	if called, loaded := toolsLoaded(req.Messages); called && !loaded {
		s.mu.Lock()
		s.res.Errors = append(s.res.Errors, "a request calls swc's MCP tools without the tool_reference result of ToolSearch that loaded them (the API would not know their definitions)")
		s.mu.Unlock()
	}
	if !hasAll(names, mcpRemember, mcpSearch) && hasAll(names, toolSearch) && strings.Contains(string(body), "mcp__swc__") && !strings.Contains(string(body), toolSearchID) {
		// Claude Code defers MCP tools: the model fetches them with
		// ToolSearch first, and the next request declares them.
		tool, id, input = toolSearch, toolSearchID, `{"query":"select:`+mcpRemember+`,`+mcpSearch+`"}`
	}
	if hasAll(names, mcpRemember, mcpSearch) {
		results := map[string]string{}
		if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "user" {
			bs, _ := blocks(req.Messages[n-1].Content)
			for _, b := range bs {
				if b.Type == "tool_result" && b.ToolUseID != toolSearchID {
					results[b.ToolUseID] = partsText(b.Content)
				}
			}
		}
		s.mu.Lock()
		s.res.Requests++
		s.res.Tools = names
		switch {
		case results["toolu_mcp_search"] != "":
			s.res.Found = results["toolu_mcp_search"]
			s.res.Done = true
			text = "The note is stored and found again. " + MCPDone
		case results["toolu_mcp_remember"] != "":
			s.res.Remembered = results["toolu_mcp_remember"]
			tool, id = mcpSearch, "toolu_mcp_search"
			input = `{"query":"` + NoteQuery + `","conversation":"` + MCPConversation + `","limit":3}`
		case len(results) > 0:
			s.res.Errors = append(s.res.Errors, fmt.Sprintf("tool results of calls the script did not make: %v", results))
			text = "error"
		default:
			tool, id = mcpRemember, "toolu_mcp_remember"
			input = `{"conversation":"` + MCPConversation + `","text":"` + Note + `","speaker":"Claude Code"}`
		}
		s.mu.Unlock()
	}
	var content []map[string]any
	stop := "end_turn"
	if tool != "" {
		content = append(content, map[string]any{"type": "tool_use", "id": id, "name": tool, "input": json.RawMessage(input)})
		stop = "tool_use"
	} else {
		content = append(content, map[string]any{"type": "text", "text": text})
	}
	usage := map[string]any{"input_tokens": len(body) / 4, "output_tokens": 20}
	if !req.Stream {
		b, _ := json.Marshal(map[string]any{"id": "msg_mcp", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		writeJSON(w, string(b))
		return
	}
	e := newSSE(w)
	e.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_mcp", "type": "message", "role": "assistant",
		"model": "claude-sonnet-4-6", "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	c := content[0]
	if tool != "" {
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "tool_use", "id": id, "name": tool, "input": map[string]any{}}})
		e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": input}})
	} else {
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": c["text"]}})
	}
	e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	e.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 20}})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}

// toolSearch is Claude Code's tool that fetches deferred tools' schemas
// (MCP tools among them), and toolSearchID the script's call of it.
const toolSearch, toolSearchID = "ToolSearch", "toolu_mcp_toolsearch"

// toolsLoaded reports whether msgs call an MCP tool of swc's, and
// whether they hold the tool_result of the script's ToolSearch call with
// its tool_reference blocks.
func toolsLoaded(msgs []antMessage) (called, loaded bool) {
	for _, m := range msgs {
		bs, _ := blocks(m.Content)
		for _, b := range bs {
			switch {
			case b.Type == "tool_use" && strings.HasPrefix(b.Name, "mcp__swc__"):
				called = true
			case b.Type == "tool_result" && b.ToolUseID == toolSearchID:
				loaded = bytes.Contains(b.Content, []byte(`"tool_reference"`))
			}
		}
	}
	return called, loaded
}

// hasAll reports whether names holds every one of want.
func hasAll(names []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, n := range names {
			found = found || n == w
		}
		if !found {
			return false
		}
	}
	return true
}
