package memory

import (
	"github.com/swcmem/swc"
	"github.com/swcmem/swc/observe"
)

// ObservationHandle returns the handle a tool loop's stub or memory line
// shows for message i of msgs when it is an observation, and the handle
// swc_recall resolves to its text: observe.Handle of a tool message's
// call id and content, or of "" and the content of a user message (not
// the first) of a text-acting agent's observation shape. ok is false for
// any other message.
//
// The handle hashes the output with the call id, so it names one output,
// not one call: agents that reuse call ids across turns (every turn's
// call "call_0" or "toolu_01") still get a handle per output, and a
// handle resolves to the bytes of the output it was made of. Two results
// that share both id and text share a handle, and the same bytes.
func ObservationHandle(msgs []swc.Message, i int) (string, bool) {
	m := msgs[i]
	switch m.Role {
	case swc.RoleTool:
		return observe.Handle(m.ToolCallID, m.Content), true
	case swc.RoleUser:
		for _, p := range msgs[:i] {
			if p.Role == swc.RoleUser { // not the first user message
				if isObservation(m.Content) {
					return observe.Handle("", m.Content), true
				}
				return "", false
			}
		}
	}
	return "", false
}
