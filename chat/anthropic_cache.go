package chat

import (
	"bytes"
	"encoding/json"

	"github.com/swcmem/swc"
)

// Anthropic prompt caching. A Messages request may carry at most
// MaxBreakpoints cache_control marks (on tools, system blocks and message
// content blocks; a top-level cache_control, automatic caching, takes one
// too). The memory block is the end of the prefix that stays put for a
// whole epoch, so a mark there caches instructions and memory even for a
// client that marks only its last message, or none.

// MaxBreakpoints is the most cache_control marks the Messages API takes
// in one request.
const MaxBreakpoints = 4

// breakpoints counts the cache_control marks of a Messages request body:
// the top level's, those of tools and system blocks, and those of the
// given messages' content blocks (tool_result contents included). It also
// reports whether a mark among the messages asks for the 1-hour TTL
// (marks with a longer TTL must come first, so the memory's mark takes
// it too).
func breakpoints(body map[string]json.RawMessage, msgs []json.RawMessage) (n int, hour bool) {
	if marked(body["cache_control"]) {
		n++
	}
	var tools []struct {
		CacheControl json.RawMessage `json:"cache_control"`
	}
	if json.Unmarshal(body["tools"], &tools) == nil {
		for _, t := range tools {
			if marked(t.CacheControl) {
				n++
			}
		}
	}
	n += blockMarks(body["system"], nil)
	for _, m := range msgs {
		if !hasMark(m) {
			continue
		}
		var msg struct {
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m, &msg) == nil {
			n += blockMarks(msg.Content, &hour)
		}
	}
	return n, hour
}

// blockMarks counts the marks of a content field: a list of blocks, each
// with its cache_control, a tool_result's content a list of its own.
func blockMarks(content json.RawMessage, hour *bool) int {
	content = bytes.TrimSpace(content)
	if len(content) == 0 || content[0] != '[' {
		return 0
	}
	var blocks []struct {
		CacheControl json.RawMessage `json:"cache_control"`
		Content      json.RawMessage `json:"content"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return 0
	}
	n := 0
	for _, b := range blocks {
		if marked(b.CacheControl) {
			n++
			if hour != nil && ttl(b.CacheControl) == "1h" {
				*hour = true
			}
		}
		n += blockMarks(b.Content, hour)
	}
	return n
}

// hasMark reports whether a message may hold a mark: most hold none,
// and a message without the member's name is not decoded to count them.
func hasMark(m json.RawMessage) bool { return bytes.Contains(m, []byte(`"cache_control"`)) }

func marked(cc json.RawMessage) bool {
	cc = bytes.TrimSpace(cc)
	return len(cc) > 0 && string(cc) != "null"
}

func ttl(cc json.RawMessage) string {
	var v struct {
		TTL string `json:"ttl"`
	}
	_ = json.Unmarshal(cc, &v)
	return v.TTL
}

// cacheControl is the mark put on the memory block.
type cacheControl struct {
	Type string `json:"type"`
	TTL  string `json:"ttl,omitempty"`
}

// memoryBlock is the memory as a system text block, marked when mark.
type memoryBlock struct {
	Type         string        `json:"type"`
	Text         string        `json:"text"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

// A tool loop's stubs (tool_result contents swc rewrote) stay as they are
// from one jump of the masking boundary to the next, and a jump rewrites
// only the outputs after the last stub. A mark on the last stub so keeps
// the instructions, the memory and every stub cached across a jump, where
// the client's own mark on its last message, whose prefix the jump
// changed, keeps nothing. The memory's mark would cache less (it comes
// before the stubs), so the stub's takes its place.

// stubAt is where the last stub of a request is: its message's index in
// the written messages and its tool_result block's index in the content.
type stubAt struct{ msg, block int }

// lastStub returns the content block index of the last stub of source
// message o: of the last tool_result whose content out rewrote, or of the
// text block a rewrite of what is beside its tool_result blocks became
// (besideResults: it comes after them, so its index is their number), or
// of the one text block a user message's rewrite became (a result in the
// user's text, as Cline's).
func lastStub(in *Input, out Output, o int) (int, bool) {
	k, found := 0, false
	results, beside := 0, false
	for i, oi := range in.Origin {
		if oi != o {
			continue
		}
		if in.Messages[i].Role == swc.RoleTool {
			results++
		}
		text, ok := out.Rewritten[i]
		if !ok {
			continue
		}
		if b, ok := blockIndex(in.Where[i]); ok {
			if !found || b > k {
				k, found = b, true
			}
		} else if in.Messages[i].Role == swc.RoleUser && text != "" {
			beside = true // an empty rewrite is written as a string, no block
		}
	}
	switch {
	case beside && results > 0:
		return results, true // after every tool_result block
	case beside && !found:
		return 0, true // the whole message, one text block (anthropicValue)
	}
	return k, found
}

// markBlock returns message at.msg of msgs with a cache_control mark on
// its content block at.block, unless the block has one already, or a
// mark can't go there: a later mark asks for the 1-hour TTL (so this one
// would need it) while an earlier message's mark has the 5-minute one
// (marks with a longer TTL must come first).
func markBlock(body map[string]json.RawMessage, msgs []json.RawMessage, at stubAt) (json.RawMessage, bool) {
	raw := msgs[at.msg]
	start, end, err := valueSpan(raw, "content", at.block)
	if err != nil || end-start < 2 || raw[start] != '{' {
		return nil, false
	}
	var b struct {
		CacheControl json.RawMessage `json:"cache_control"`
	}
	if json.Unmarshal(raw[start:end], &b) != nil || marked(b.CacheControl) {
		return nil, false
	}
	// The TTLs of the marks before the block (the top level's, tools',
	// system blocks', earlier messages') and after it.
	before, after := headMarks(body), ttls{}
	for j, m := range msgs {
		if !hasMark(m) {
			continue
		}
		var msg struct {
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m, &msg) != nil {
			continue
		}
		if j == at.msg { // the stub's own message: its other blocks
			var blocks []json.RawMessage
			_ = json.Unmarshal(msg.Content, &blocks)
			for k, b := range blocks {
				switch {
				case k < at.block:
					before.block(b)
				case k > at.block:
					after.block(b)
				}
			}
			continue
		}
		if j < at.msg {
			before.blocks(msg.Content)
		} else {
			after.blocks(msg.Content)
		}
	}
	hourAfter := after.hour > 0
	if hourAfter && before.five > 0 {
		return nil, false
	}
	cc := `{"type":"ephemeral"}`
	if hourAfter {
		cc = `{"type":"ephemeral","ttl":"1h"}`
	}
	if b.CacheControl != nil {
		// A "cache_control": null member takes the mark as its value (a
		// second member of the name would be a duplicate key).
		if vs, ve, err := valueSpan(raw, "content", at.block, "cache_control"); err == nil {
			next := make([]byte, 0, len(raw)+len(cc))
			next = append(append(append(next, raw[:vs]...), cc...), raw[ve:]...)
			return next, true
		}
	}
	return withMember(raw, start, end, `"cache_control":`+cc), true
}

// withMember returns raw with member (`"name":value`) added as the last
// member of the object at raw[start:end], every other byte as it came.
func withMember(raw []byte, start, end int, member string) json.RawMessage {
	close := end - 1
	for close > start && raw[close] != '}' {
		close--
	}
	sep := ","
	if inner := bytes.TrimSpace(raw[start+1 : close]); len(inner) == 0 {
		sep = ""
	}
	next := make([]byte, 0, len(raw)+len(member)+1)
	next = append(next, raw[:close]...)
	next = append(next, sep+member...)
	next = append(next, raw[close:]...)
	return next
}

// ttls counts cache_control marks by TTL.
type ttls struct{ five, hour int }

func (t *ttls) of(cc json.RawMessage) {
	switch {
	case !marked(cc):
	case ttl(cc) == "1h":
		t.hour++
	default:
		t.five++
	}
}

// block counts the marks of one content block and of its own content.
func (t *ttls) block(b json.RawMessage) {
	var bl struct {
		CacheControl json.RawMessage `json:"cache_control"`
		Content      json.RawMessage `json:"content"`
	}
	if json.Unmarshal(b, &bl) != nil {
		return
	}
	t.of(bl.CacheControl)
	t.blocks(bl.Content)
}

// headMarks counts the marks of a Messages body before its messages: the
// top level's, the tools' and the system blocks'.
func headMarks(body map[string]json.RawMessage) ttls {
	var t ttls
	t.of(body["cache_control"])
	var tools []struct {
		CacheControl json.RawMessage `json:"cache_control"`
	}
	if json.Unmarshal(body["tools"], &tools) == nil {
		for _, tl := range tools {
			t.of(tl.CacheControl)
		}
	}
	t.blocks(body["system"])
	return t
}

// blocks counts the marks of a content field (a list of blocks, a
// tool_result's content a list of its own).
func (t *ttls) blocks(content json.RawMessage) {
	content = bytes.TrimSpace(content)
	if len(content) == 0 || content[0] != '[' {
		return
	}
	var blocks []struct {
		CacheControl json.RawMessage `json:"cache_control"`
		Content      json.RawMessage `json:"content"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return
	}
	for _, b := range blocks {
		t.of(b.CacheControl)
		t.blocks(b.Content)
	}
}
