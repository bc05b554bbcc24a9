package memory

import "github.com/swcmem/swc"

// Deferred tools in a conversation. A tool search's result (Anthropic's
// tool_reference blocks, in a tool_result or, when the API ran the
// search, in the assistant's turn; a Responses tool_search_output) is
// what gives the model the definitions of the deferred tools it loaded:
// dropped or folded into a memory, those tools become names without
// schemas, while the kept messages go on calling them. A tool loop never stubs nor drops
// such an exchange (Compressor.pin); a conversation's history keeps each
// such turn and its results verbatim, in order after the pinned task and
// before the kept tail (loaderPins).

// loaderPins returns the positions in conv, before start, of the
// assistant turns that load deferred tools (loadsTools: some of their
// tool results do, or the turn holds a tool search the provider ran),
// each followed by its tool results, in order; nil when there are none. With AlignUser the task (the first user message before
// the first of them) comes first, so the messages sent start with a
// user message; pinTask reports that it is to be kept.
func (c *Compressor) loaderPins(msgs []swc.Message, conv []int, start int) (pins []int, pinTask int) {
	pinTask = -1
	for k := 0; k < start; k++ {
		m := msgs[conv[k]]
		if m.Role != swc.RoleAssistant || len(m.ToolCalls) == 0 && !loadsTools(m) {
			continue
		}
		end, loads := k+1, loadsTools(m)
		for end < start && len(m.ToolCalls) > 0 && msgs[conv[end]].Role == swc.RoleTool {
			loads = loads || loadsTools(msgs[conv[end]])
			end++
		}
		if !loads {
			continue
		}
		if len(pins) == 0 && c.opts.AlignUser {
			pinTask = firstUser(msgs, conv[:k])
		}
		for j := k; j < end; j++ {
			pins = append(pins, j)
		}
		k = end - 1
	}
	return pins, pinTask
}
