package memory

import "github.com/swcmem/swc"

// Never refusing for the budget. When the instructions and the kept tail
// alone exceed the budget, the tail shrinks to the first later message
// that may start one and fits; when none fits, to the last that may start
// one (the request goes out over budget, Result.OverBudget). A tail may
// start at any message but a tool result (its call comes along); with
// AlignUser at a user message, or at an assistant turn when a user
// message (the task) comes before it: that message is then kept before
// the tail (pinnedTask), as Anthropic needs a user message first.

// mayStart reports whether conv[k] may start the kept tail.
func (c *Compressor) mayStart(msgs []swc.Message, conv []int, k int) bool {
	switch msgs[conv[k]].Role {
	case swc.RoleTool:
		return false
	case swc.RoleUser:
		return true
	case swc.RoleAssistant:
		return !c.opts.AlignUser || firstUser(msgs, conv[:k]) >= 0
	}
	return !c.opts.AlignUser
}

// firstUser returns the position in conv of its first user message, or -1.
func firstUser(msgs []swc.Message, conv []int) int {
	for k, i := range conv {
		if msgs[i].Role == swc.RoleUser {
			return k
		}
	}
	return -1
}

// pinnedTask returns the position in conv of the message kept before a
// tail starting at start (the first user message, with AlignUser when the
// tail starts at an assistant turn), or -1 for none.
func (c *Compressor) pinnedTask(msgs []swc.Message, conv []int, start int) int {
	if !c.opts.AlignUser || start >= len(conv) || msgs[conv[start]].Role != swc.RoleAssistant {
		return -1
	}
	return firstUser(msgs, conv[:start])
}

// shrinkTail returns where the tail starts instead of start when the
// instructions and conv[start:] exceed the budget: the first later
// position that may start a tail and fits, else the last one that may
// (start itself when none may).
func (c *Compressor) shrinkTail(msgs []swc.Message, conv []int, start, instrCost int) int {
	tail := 0
	for _, i := range conv[start:] {
		tail += c.Cost(msgs[i])
	}
	last := start
	for k := start; k < len(conv); k++ {
		if k > start && c.mayStart(msgs, conv, k) {
			need := instrCost + tail
			if p := c.pinnedTask(msgs, conv, k); p >= 0 {
				need += c.Cost(msgs[conv[p]])
			}
			if need <= c.opts.Budget {
				return k
			}
			last = k
		}
		tail -= c.Cost(msgs[conv[k]])
	}
	return last
}
