package chat

import (
	"slices"

	"github.com/swcmem/swc"
)

// Answered returns msgs as a provider accepts them, for reads of a stored
// conversation (an agent's log may hold calls still waiting for their
// results): the last assistant message with calls, while any of its calls
// has no result, is left out with the results it has so far (the call and
// its results are one unit: they come back together once the last result
// is stored); an earlier call that never got a result is left out of its
// message (the message too, when nothing else is left of it). Tool results
// answering no call of the assistant message before them are left out.
// msgs is not modified; when nothing is left out, msgs itself is returned.
func Answered(msgs []swc.Message) []swc.Message {
	// answered[i] lists the answered call ids of assistant message i.
	answered := map[int][]string{}
	pending := -1 // the trailing unit's assistant message, when a call of it is open
	last := -1    // the last assistant message with calls
	var open []string
	drop := false
	for i, m := range msgs {
		switch {
		case m.Role == swc.RoleTool:
			if k := slices.Index(open, m.ToolCallID); k >= 0 {
				open = slices.Delete(open, k, k+1)
				answered[last] = append(answered[last], m.ToolCallID)
			} else {
				drop = true // an orphan result
			}
		case IsInstruction(m):
		default:
			if len(open) > 0 {
				drop = true // calls that never got a result
			}
			open = nil
			if len(m.ToolCalls) > 0 {
				last = i
				for _, tc := range m.ToolCalls {
					open = append(open, tc.ID)
				}
			}
		}
	}
	if len(open) > 0 {
		pending = last
	}
	if !drop && pending < 0 {
		return msgs
	}
	out := make([]swc.Message, 0, len(msgs))
	owner := -1 // the assistant message tool results belong to
	for i, m := range msgs {
		if pending >= 0 && i >= pending && !IsInstruction(m) && (i == pending || m.Role == swc.RoleTool) {
			continue
		}
		switch {
		case m.Role == swc.RoleTool:
			if owner < 0 || !slices.Contains(answered[owner], m.ToolCallID) {
				continue
			}
		case IsInstruction(m):
		default:
			owner = -1
			if len(m.ToolCalls) > 0 {
				owner = i
				kept := make([]swc.ToolCall, 0, len(m.ToolCalls))
				for _, tc := range m.ToolCalls {
					if slices.Contains(answered[i], tc.ID) {
						kept = append(kept, tc)
					}
				}
				if len(kept) < len(m.ToolCalls) {
					m.ToolCalls = kept
					if len(kept) == 0 && m.Content == "" {
						continue
					}
				}
			}
		}
		out = append(out, m)
	}
	return out
}
