package trajectory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/swcmem/swc/internal/rawjson"
)

// The Responses API's input items the bench tells apart.
var (
	// responsesOutput are the item types the model produces: a request is
	// cut before a run of them (an assistant message item is one too).
	responsesOutput = map[string]bool{
		"reasoning": true, "function_call": true, "custom_tool_call": true, "computer_call": true, "local_shell_call": true,
		"shell_call": true, "apply_patch_call": true, "web_search_call": true, "file_search_call": true,
		"code_interpreter_call": true, "image_generation_call": true, "mcp_call": true, "mcp_list_tools": true,
	}
	// responsesCalls are the calls a later input item answers by call_id.
	responsesCalls = map[string]bool{
		"function_call": true, "custom_tool_call": true, "computer_call": true, "local_shell_call": true,
		"shell_call": true, "apply_patch_call": true,
	}
)

// responsesItem is the part of a Responses input item the bench reads.
type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
}

func responsesAssistant(item json.RawMessage) bool {
	var it responsesItem
	_ = decodeResponsesItem(item, &it)
	return it.Role == "assistant" || responsesOutput[it.Type]
}

// responsesTurn is the text of a run of output items: the assistant
// messages' text parts and the calls' arguments (function calls) or input
// (custom tool calls).
func responsesTurn(items []json.RawMessage) string {
	var b bytes.Buffer
	for _, raw := range items {
		var it responsesItem
		if decodeResponsesItem(raw, &it) != nil || !(it.Role == "assistant" || responsesOutput[it.Type]) {
			break
		}
		var s string
		var parts []struct{ Text string }
		switch {
		case it.Role == "assistant" && rawjson.Unquote(it.Content, &s) == nil:
			b.WriteString(s)
			b.WriteByte('\n')
		case it.Role == "assistant" && json.Unmarshal(it.Content, &parts) == nil:
			for _, p := range parts {
				b.WriteString(p.Text)
				b.WriteByte('\n')
			}
		case it.Arguments != "":
			jsonStrings(&b, json.RawMessage(it.Arguments))
		case it.Input != "":
			b.WriteString(it.Input)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// responsesRewrite rewrites the items of one message (chat.Parse joins a
// message's items with commas: "{…},{…}"): an output item answering a
// call named in texts gets the new "output", a user message item the new
// content ("").
func responsesRewrite(raw json.RawMessage, _ []string, texts map[string]string) (json.RawMessage, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(append(append([]byte{'['}, raw...), ']'), &items); err != nil {
		return nil, err
	}
	parts := make([]string, len(items))
	for i, item := range items {
		var it responsesItem
		if err := decodeResponsesItem(item, &it); err != nil {
			return nil, err
		}
		key, field := "", ""
		switch {
		case strings.HasSuffix(it.Type, "_output") && it.CallID != "":
			key, field = it.CallID, "output"
		case it.Role == "user":
			key, field = "", "content"
		}
		t, ok := texts[key]
		if field == "" || !ok {
			parts[i] = string(bytes.TrimSpace(item))
			continue
		}
		o, err := decodeObject(item)
		if err != nil {
			return nil, err
		}
		if o[field], err = marshal(t); err != nil {
			return nil, err
		}
		b, err := marshal(o)
		if err != nil {
			return nil, err
		}
		parts[i] = string(b)
	}
	return json.RawMessage(strings.Join(parts, ",")), nil
}

// validateResponses checks that every call item is answered by exactly
// one output item after it (by call_id) and that every output answers a
// call before it. An output answers the latest call of its id: a call_id
// may come again once its call is answered (agents whose every turn
// names its call call_0), not while it waits for its output.
func validateResponses(_ object, items []json.RawMessage) []string {
	var out []string
	open := map[string]int{}  // call_id → its call item, until answered
	done := map[string]bool{} // call_ids whose latest call is answered
	for i, raw := range items {
		var it responsesItem
		if err := decodeResponsesItem(raw, &it); err != nil {
			out = append(out, fmt.Sprintf("input[%d]: %v", i, err))
			continue
		}
		switch {
		case responsesCalls[it.Type]:
			if j, dup := open[it.CallID]; dup {
				out = append(out, fmt.Sprintf("input[%d]: call_id %q used again while input[%d]'s call of it is unanswered", i, it.CallID, j))
			}
			open[it.CallID], done[it.CallID] = i, false
		case strings.HasSuffix(it.Type, "_output") && it.CallID != "":
			if _, ok := open[it.CallID]; ok {
				delete(open, it.CallID)
				done[it.CallID] = true
				break
			}
			if done[it.CallID] {
				out = append(out, fmt.Sprintf("input[%d]: output %q answers a call answered already (want once)", i, it.CallID))
				break
			}
			out = append(out, fmt.Sprintf("input[%d]: output %q answers no call before it", i, it.CallID))
		}
	}
	for _, id := range slices.Sorted(maps.Keys(open)) {
		out = append(out, fmt.Sprintf("input[%d]: call %q answered 0 times (want once)", open[id], id))
	}
	return out
}
