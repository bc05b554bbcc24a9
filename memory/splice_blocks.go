package memory

import (
	"encoding/json"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// keptWithoutResults returns the Anthropic source message o with its
// tool_result blocks removed and every other byte as it came, when the
// parts of it kept (part: input indexes) are exactly those that are not
// tool results: the calls they answer went into the memory, and the rest
// of the message (text with its cache_control marks, images, documents,
// blocks of any type) is kept, not rewritten.
func keptWithoutResults(in *chat.Input, o int, part []int) (json.RawMessage, bool) {
	kept := make(map[int]bool, len(part))
	for _, k := range part {
		kept[k] = true
	}
	for k, origin := range in.Origin {
		if origin == o && (in.Messages[k].Role == swc.RoleTool) == kept[k] {
			return nil, false
		}
	}
	return chat.WithoutToolResults(in.Raw[o])
}
