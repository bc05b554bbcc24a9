package chat

import (
	"fmt"
)

// CheckOpenAI returns an error describing the first way msgs would be
// rejected by the Chat Completions API's structure rules: a role it does
// not know, a tool message not answering a call of the assistant message
// just before it, or a call without its result.
func CheckOpenAI(msgs []OpenAIMessage) error {
	open := map[string]bool{}
	for i, m := range msgs {
		switch m.Role {
		case "system", "developer", "user", "assistant":
			if len(open) > 0 {
				return fmt.Errorf("messages[%d]: %d tool calls still unanswered before a %s message", i, len(open), m.Role)
			}
		case "tool":
			if !open[m.ToolCallID] {
				return fmt.Errorf("messages[%d]: tool result %q answers no pending call", i, m.ToolCallID)
			}
			delete(open, m.ToolCallID)
			continue
		default:
			return fmt.Errorf("messages[%d]: unknown role %q", i, m.Role)
		}
		if m.Content == nil && len(m.ToolCalls) == 0 {
			return fmt.Errorf("messages[%d]: no content", i)
		}
		for _, tc := range m.ToolCalls {
			open[tc.ID] = true
		}
	}
	if len(open) > 0 {
		return fmt.Errorf("%d tool calls unanswered at the end", len(open))
	}
	return nil
}

// CheckAnthropic returns an error describing the first way req would be
// rejected by the Messages API's structure rules: the first message not a
// user's, roles not alternating, empty content or text, a tool_result not
// answering a tool_use of the message just before, tool_result blocks after
// other content, or a tool_use without its result in the next message.
func CheckAnthropic(req AnthropicRequest) error {
	if len(req.Messages) == 0 {
		return fmt.Errorf("no messages")
	}
	var pending map[string]bool
	for i, m := range req.Messages {
		want := "user"
		if i%2 == 1 {
			want = "assistant"
		}
		if m.Role != want {
			return fmt.Errorf("messages[%d]: role %s, want %s (roles must alternate, starting with user)", i, m.Role, want)
		}
		if len(m.Content) == 0 {
			return fmt.Errorf("messages[%d]: empty content", i)
		}
		next := map[string]bool{}
		seenOther := false
		for j, b := range m.Content {
			switch b.Type {
			case "text":
				if b.Text == nil || *b.Text == "" {
					return fmt.Errorf("messages[%d].content[%d]: empty text block", i, j)
				}
				seenOther = true
			case "tool_use":
				if m.Role != "assistant" {
					return fmt.Errorf("messages[%d].content[%d]: tool_use in a user message", i, j)
				}
				next[b.ID] = true
			case "tool_result":
				if seenOther {
					return fmt.Errorf("messages[%d].content[%d]: tool_result after other content", i, j)
				}
				if !pending[b.ToolUseID] {
					return fmt.Errorf("messages[%d].content[%d]: tool_result %q answers no tool_use of the message before", i, j, b.ToolUseID)
				}
				delete(pending, b.ToolUseID)
			default:
				return fmt.Errorf("messages[%d].content[%d]: unexpected block type %q", i, j, b.Type)
			}
		}
		if len(pending) > 0 {
			return fmt.Errorf("messages[%d]: %d tool_use blocks of the message before have no tool_result", i, len(pending))
		}
		pending = next
	}
	if len(pending) > 0 {
		return fmt.Errorf("the last message has %d tool_use blocks without results", len(pending))
	}
	return nil
}
