package chat

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/swcmem/swc"
)

// Validate checks a message list before compression and returns an
// EINVALID error naming the first problem's message (where[i], or
// "messages[i]" when where is nil) and field: an empty list, an unknown
// role, text that is not UTF-8, a tool result whose call is missing or a
// tool call without its result, a tool call id used twice, and timestamps
// going backwards.
func Validate(msgs []swc.Message, where []string) error {
	at := func(i int) string {
		if i < len(where) {
			return where[i]
		}
		return fmt.Sprintf("messages[%d]", i)
	}
	if len(msgs) == 0 {
		return swc.Errorf(swc.EINVALID, "no messages: the list is empty")
	}
	open := map[string]int{} // call id → message index, until answered
	seen := map[string]bool{}
	var lastTime int = -1
	for i, m := range msgs {
		switch m.Role {
		case swc.RoleSystem, swc.RoleDeveloper, swc.RoleUser, swc.RoleAssistant, swc.RoleTool:
		default:
			return swc.Errorf(swc.EINVALID, "%s.role: unknown role %q (want system, developer, user, assistant or tool)", at(i), m.Role)
		}
		if !utf8.ValidString(m.Content) {
			return swc.Errorf(swc.EINVALID, "%s.content: not valid UTF-8", at(i))
		}
		if !utf8.ValidString(m.Name) {
			return swc.Errorf(swc.EINVALID, "%s.name: not valid UTF-8", at(i))
		}
		if len(m.ToolCalls) > 0 && m.Role != swc.RoleAssistant {
			return swc.Errorf(swc.EINVALID, "%s.tool_calls: only assistant messages call tools (role is %s)", at(i), m.Role)
		}
		// Results must come before the next non-tool message.
		if m.Role != swc.RoleTool && len(open) > 0 {
			id, j := oldestOpen(open)
			return swc.Errorf(swc.EINVALID, "%s.tool_calls: call %q has no result (a tool message with tool_call_id %q must follow it)", at(j), id, id)
		}
		for k, tc := range m.ToolCalls {
			if tc.ID == "" {
				return swc.Errorf(swc.EINVALID, "%s.tool_calls[%d].id: missing", at(i), k)
			}
			if seen[tc.ID] {
				return swc.Errorf(swc.EINVALID, "%s.tool_calls[%d].id: %q is used by an earlier call", at(i), k, tc.ID)
			}
			if !utf8.ValidString(tc.Name) || !utf8.ValidString(tc.Arguments) {
				return swc.Errorf(swc.EINVALID, "%s.tool_calls[%d]: not valid UTF-8", at(i), k)
			}
			seen[tc.ID] = true
			open[tc.ID] = i
		}
		if m.Role == swc.RoleTool {
			field := "tool_call_id"
			if strings.Contains(at(i), ".content[") { // an Anthropic tool_result block
				field = "tool_use_id"
			}
			if m.ToolCallID == "" {
				return swc.Errorf(swc.EINVALID, "%s.%s: missing on a tool message", at(i), field)
			}
			if _, ok := open[m.ToolCallID]; !ok {
				return swc.Errorf(swc.EINVALID, "%s.%s: %q answers no tool call of the assistant message before it", at(i), field, m.ToolCallID)
			}
			delete(open, m.ToolCallID)
		} else if m.ToolCallID != "" {
			return swc.Errorf(swc.EINVALID, "%s.tool_call_id: set on a %s message (only tool messages answer calls)", at(i), m.Role)
		}
		if !m.Time.IsZero() {
			if lastTime >= 0 && m.Time.Before(msgs[lastTime].Time) {
				return swc.Errorf(swc.EINVALID, "%s.timestamp: %s is before %s's %s (timestamps must not go backwards)",
					at(i), m.Time.Format("2006-01-02T15:04:05Z07:00"), at(lastTime), msgs[lastTime].Time.Format("2006-01-02T15:04:05Z07:00"))
			}
			lastTime = i
		}
	}
	if len(open) > 0 {
		id, j := oldestOpen(open)
		return swc.Errorf(swc.EINVALID, "%s.tool_calls: call %q has no result (a tool message with tool_call_id %q must follow it)", at(j), id, id)
	}
	return nil
}

func oldestOpen(open map[string]int) (string, int) {
	best, bi := "", -1
	for id, i := range open {
		if bi < 0 || i < bi || i == bi && strings.Compare(id, best) < 0 {
			best, bi = id, i
		}
	}
	return best, bi
}

// IsInstruction reports whether m is a system or developer message, which
// compression keeps verbatim and first.
func IsInstruction(m swc.Message) bool {
	return m.Role == swc.RoleSystem || m.Role == swc.RoleDeveloper
}
