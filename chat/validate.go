package chat

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/swcmem/swc"
)

// Validate checks a message list before compression (a request as a
// provider gets it) and returns an EINVALID error naming the first
// problem's message (where[i], or "messages[i]" when where is nil) and
// field: an empty list, an unknown role, text that is not UTF-8, a tool
// result not answering a call of the assistant message before it, a tool
// call without its result, a call id used twice in one message, and
// timestamps going backwards (system and developer messages aside). Call
// ids may repeat across assistant messages: a result answers the calls
// of the last assistant message before it, as in Chat Completions.
func Validate(msgs []swc.Message, where []string) error {
	return validate(msgs, where, true, false)
}

// ValidateBatch checks a batch of messages appended to a stored
// conversation: Validate's checks of each message alone (roles, UTF-8, a
// call's id present and unique within its message, a tool message naming
// the call it answers), not those spanning messages (a result pairing
// with its call, times in order), which the store applies across batches
// (swc.PlanAppend).
func ValidateBatch(msgs []swc.Message, where []string) error {
	return validate(msgs, where, false, false)
}

// validate is Validate (strict) or ValidateBatch; utf8OK skips the UTF-8
// checks for messages whose every string is known valid (the fast path's:
// jsontext checked the input, and unquoting yields valid UTF-8).
func validate(msgs []swc.Message, where []string, strict, utf8OK bool) error {
	at := func(i int) string {
		if i < len(where) {
			return where[i]
		}
		return fmt.Sprintf("messages[%d]", i)
	}
	if len(msgs) == 0 {
		return swc.Errorf(swc.EINVALID, "no messages: the list is empty")
	}
	open := map[string]int{} // the last assistant message's calls, until answered
	var lastTime int = -1
	for i, m := range msgs {
		switch m.Role {
		case swc.RoleSystem, swc.RoleDeveloper, swc.RoleUser, swc.RoleAssistant, swc.RoleTool:
		default:
			return swc.Errorf(swc.EINVALID, "%s.role: unknown role %q (want system, developer, user, assistant or tool)", at(i), m.Role)
		}
		if !utf8OK && !utf8.ValidString(m.Content) {
			return swc.Errorf(swc.EINVALID, "%s.content: not valid UTF-8", at(i))
		}
		if !utf8OK && !utf8.ValidString(m.Name) {
			return swc.Errorf(swc.EINVALID, "%s.name: not valid UTF-8", at(i))
		}
		if len(m.ToolCalls) > 0 && m.Role != swc.RoleAssistant {
			return swc.Errorf(swc.EINVALID, "%s.tool_calls: only assistant messages call tools (role is %s)", at(i), m.Role)
		}
		// Results must come before the next non-tool message.
		if strict && m.Role != swc.RoleTool && len(open) > 0 {
			id, j := oldestOpen(open)
			return swc.Errorf(swc.EINVALID, "%s.tool_calls: call %q has no result (a tool message with tool_call_id %q must follow it)", at(j), id, id)
		}
		if len(m.ToolCalls) > 0 {
			clear(open)
		}
		for k, tc := range m.ToolCalls {
			if tc.ID == "" {
				return swc.Errorf(swc.EINVALID, "%s.tool_calls[%d].id: missing", at(i), k)
			}
			if _, dup := open[tc.ID]; dup {
				return swc.Errorf(swc.EINVALID, "%s.tool_calls[%d].id: %q is used by an earlier call of the same message", at(i), k, tc.ID)
			}
			if !utf8OK && (!utf8.ValidString(tc.Name) || !utf8.ValidString(tc.Arguments)) {
				return swc.Errorf(swc.EINVALID, "%s.tool_calls[%d]: not valid UTF-8", at(i), k)
			}
			open[tc.ID] = i
		}
		if m.Role == swc.RoleTool {
			if m.ToolCallID == "" {
				return swc.Errorf(swc.EINVALID, "%s.%s: missing on a tool message", at(i), ToolCallField(at(i)))
			}
			if _, ok := open[m.ToolCallID]; strict && !ok {
				return swc.Errorf(swc.EINVALID, "%s.%s: %q answers no tool call of the assistant message before it", at(i), ToolCallField(at(i)), m.ToolCallID)
			}
			delete(open, m.ToolCallID)
		} else if m.ToolCallID != "" {
			return swc.Errorf(swc.EINVALID, "%s.tool_call_id: set on a %s message (only tool messages answer calls)", at(i), m.Role)
		}
		if strict && !m.Time.IsZero() && !IsInstruction(m) {
			if lastTime >= 0 && m.Time.Before(msgs[lastTime].Time) {
				return swc.Errorf(swc.EINVALID, "%s.timestamp: %s is before %s's %s (timestamps must not go backwards)",
					at(i), m.Time.Format("2006-01-02T15:04:05Z07:00"), at(lastTime), msgs[lastTime].Time.Format("2006-01-02T15:04:05Z07:00"))
			}
			lastTime = i
		}
	}
	if strict && len(open) > 0 {
		id, j := oldestOpen(open)
		return swc.Errorf(swc.EINVALID, "%s.tool_calls: call %q has no result (a tool message with tool_call_id %q must follow it)", at(j), id, id)
	}
	return nil
}

// ToolCallField names the field of a tool result naming its call at
// where: tool_use_id in an Anthropic tool_result block, else tool_call_id.
func ToolCallField(where string) string {
	if strings.Contains(where, ".content[") {
		return "tool_use_id"
	}
	return "tool_call_id"
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
// compression keeps verbatim and first (swc.IsInstruction).
func IsInstruction(m swc.Message) bool { return swc.IsInstruction(m) }
