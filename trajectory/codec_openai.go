package trajectory

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// openAIMessage is the part of a Chat Completions message the bench reads.
type openAIMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

func openAITurn(items []json.RawMessage) string {
	var m openAIMessage
	if len(items) == 0 || json.Unmarshal(items[0], &m) != nil {
		return ""
	}
	var b bytes.Buffer
	if len(m.Content) > 0 {
		jsonStrings(&b, m.Content)
	}
	for _, tc := range m.ToolCalls {
		jsonStrings(&b, json.RawMessage(tc.Function.Arguments))
	}
	return b.String()
}

func openAIRewrite(item json.RawMessage, _ []string, texts map[string]string) (json.RawMessage, error) {
	o, err := decodeObject(item)
	if err != nil {
		return nil, err
	}
	for _, t := range texts { // one message holds one content
		if o["content"], err = marshal(t); err != nil {
			return nil, err
		}
	}
	return marshal(o)
}

// validateOpenAI checks Chat Completions' rules: every tool call of an
// assistant message answered by exactly one tool message right after it
// (before any other message), and no tool message answering anything
// else.
func validateOpenAI(_ object, items []json.RawMessage) []string {
	var out []string
	pending := map[string]bool{} // the calls of the last assistant message, true once answered
	from := -1
	flush := func(i int, role string) {
		n := 0
		for _, done := range pending {
			if !done {
				n++
			}
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("messages[%d]: %d tool calls of messages[%d] unanswered before a %s message", i, n, from, role))
		}
		clear(pending)
	}
	for i, it := range items {
		var m openAIMessage
		if err := json.Unmarshal(it, &m); err != nil {
			out = append(out, fmt.Sprintf("messages[%d]: %v", i, err))
			continue
		}
		if m.Role == "tool" {
			done, ok := pending[m.ToolCallID]
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("messages[%d]: tool result %q answers no call of the assistant message before it", i, m.ToolCallID))
			case done:
				out = append(out, fmt.Sprintf("messages[%d]: tool call %q answered twice", i, m.ToolCallID))
			default:
				pending[m.ToolCallID] = true
			}
			continue
		}
		flush(i, m.Role)
		if m.Role == "assistant" {
			from = i
			for _, tc := range m.ToolCalls {
				if _, dup := pending[tc.ID]; dup {
					out = append(out, fmt.Sprintf("messages[%d]: tool call id %q used twice", i, tc.ID))
				}
				pending[tc.ID] = false
			}
		}
	}
	flush(len(items), "missing")
	return out
}
