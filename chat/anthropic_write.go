package chat

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/swcmem/swc"
)

// anthropicCodec is the Messages format (anthropic.go reads it). Its
// requests' kept messages start at a user message.
type anthropicCodec struct{}

func (anthropicCodec) Format() Format                               { return Anthropic }
func (anthropicCodec) AlignUser() bool                              { return true }
func (anthropicCodec) parse(data []byte, _ reading) (*Input, error) { return parseAnthropic(data) }

// Splice writes the request body with the memory appended to system (or,
// when it follows a kept user message, as in a tool loop after the task,
// to that message as a text block: withMemoryBlock) and the kept messages
// as they came (a rewritten tool result with its
// block's "content" replaced, every other byte as it came; a rewritten
// assistant turn with its text written as anthropicTurn says; a source
// message whose tool results went into the memory is kept without its
// tool_result blocks, every other byte as it came; one otherwise partly
// kept is written anew). Unless out.NoCacheMark, the memory block gets a
// cache_control mark when the body's marks leave room (MaxBreakpoints),
// and so does the block before it.
func (anthropicCodec) Splice(in *Input, out Output) ([]byte, error) {
	var msgs []json.RawMessage
	kept := map[int]int{} // origin → kept parts
	for _, src := range out.Source {
		if src >= 0 && in.Origin[src] >= 0 {
			kept[in.Origin[src]]++
		}
	}
	total := map[int]int{}
	for _, o := range in.Origin {
		total[o]++
	}
	last := stubAt{msg: -1} // the last stub, by message and block
	memOrigin, memAt := memoryOrigin(in, out), -1
	for _, o := range keptOrigins(in, out) {
		if kept[o] == total[o] {
			raw, err := rewriteRaw(in, out, o, anthropicPath, anthropicValue)
			if err != nil {
				return nil, err
			}
			if raw, err = rewriteCalls(in, out, o, raw, anthropicCalls); err != nil {
				return nil, err
			}
			if o == memOrigin {
				memAt = len(msgs)
			}
			if k, ok := lastStub(in, out, o); ok {
				last = stubAt{msg: len(msgs), block: k}
			}
			msgs = append(msgs, raw)
			continue
		}
		var part []int
		for _, s := range out.Source {
			if s >= 0 && in.Origin[s] == o {
				part = append(part, s)
			}
		}
		if b, ok := keptWithoutResults(in, o, part); ok {
			msgs = append(msgs, b)
			continue
		}
		if b, ok := keptResultsOnly(in, out, o, part); ok {
			msgs = append(msgs, b)
			continue
		}
		sub := make([]int, len(part))
		copy(sub, part)
		ms := ToAnthropic(pick(in, out, sub)).Messages
		for _, m := range ms {
			b, err := json.Marshal(m)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, b)
		}
	}
	mark, hour := !out.NoCacheMark, false
	if mark && last.msg >= 0 {
		// A tool loop's stubs: the mark goes on the last one instead of
		// the memory (before it, so the mark there caches the memory too).
		n, _ := breakpoints(in.Body, msgs)
		if n < MaxBreakpoints {
			if raw, ok := markBlock(in.Body, msgs, last); ok {
				msgs[last.msg], mark = raw, false
			}
		}
	}
	// The memory goes into the message it follows (a tool loop's task)
	// or else the system, marked (mark) when there is room; the block
	// before it (the task's last, or the client's last system block)
	// takes one more when the client put none there and one is left: the
	// memory changes at every epoch boundary, and with it every prefix
	// that runs past it, so the instructions and the task stay cached
	// across it.
	var preMark bool
	if !out.NoCacheMark && out.Memory != "" {
		n, h := breakpoints(in.Body, msgs)
		hour = h
		// The marks before the memory (the tools' and system's, and the
		// messages' up to the one it goes into): ours may take the
		// 1-hour TTL a later mark needs only if none of those is a
		// 5-minute one.
		before := headMarks(in.Body)
		for _, m := range msgs[:memAt+1] {
			before.blocks(contentOf(m))
		}
		fits := !(hour && before.five > 0)
		if mark = mark && fits && n < MaxBreakpoints; mark {
			n++
		}
		preMark = fits && n < MaxBreakpoints
		if memAt < 0 {
			preMark = preMark && !systemMarked(in.Body["system"])
		}
	}
	marks := systemMarks{block: !out.NoCacheMark, memory: mark, system: preMark, hour: hour}
	sys := in.Body["system"]
	if memAt >= 0 {
		if raw, ok := withMemoryBlock(msgs[memAt], out.Memory, marks); ok {
			msgs[memAt] = raw
		} else {
			memAt = -1
		}
	}
	if memAt < 0 {
		var err error
		if sys, err = appendSystem(sys, out.Memory, marks); err != nil {
			return nil, err
		}
	}
	if th, ok := thinkingBinding(in.Body, msgs); ok && !out.KeepThinkingBinding {
		body := make(map[string]json.RawMessage, len(in.Body))
		for k, v := range in.Body {
			body[k] = v
		}
		body["thinking"] = th
		bound := *in
		bound.Body = body
		return withMessages(&bound, msgs, sys)
	}
	return withMessages(in, msgs, sys)
}

// anthropicPath is where a rewritten message's text goes: a tool_result
// block's "content", else the message's own "content".
func anthropicPath(where string, _ []byte) []any {
	if k, ok := blockIndex(where); ok {
		return []any{"content", k, "content"}
	}
	return []any{"content"}
}

// blockIndex returns k of a where ending in ".content[k]" (an Anthropic
// content block).
func blockIndex(where string) (int, bool) {
	i := strings.LastIndex(where, ".content[")
	if i < 0 || !strings.HasSuffix(where, "]") {
		return 0, false
	}
	k, err := strconv.Atoi(where[i+len(".content[") : len(where)-1])
	return k, err == nil
}

// keptWithoutResults returns the Anthropic source message o with its
// tool_result blocks removed and every other byte as it came, when the
// parts of it kept (part: input indexes) are exactly those that are not
// tool results: the calls they answer went into the memory, and the rest
// of the message (text with its cache_control marks, images, documents,
// blocks of any type) is kept, not rewritten.
func keptWithoutResults(in *Input, o int, part []int) (json.RawMessage, bool) {
	kept := make(map[int]bool, len(part))
	for _, k := range part {
		kept[k] = true
	}
	for k, origin := range in.Origin {
		if origin == o && (in.Messages[k].Role == swc.RoleTool) == kept[k] {
			return nil, false
		}
	}
	return WithoutToolResults(in.Raw[o])
}

// keptResultsOnly returns the Anthropic source message o with its
// tool_result blocks alone, each byte for byte, when the parts of it kept
// (part) are exactly its tool results, none of them rewritten: what came
// beside them went into the memory (the results of a turn that loaded
// deferred tools, kept out of a conversation's memory).
func keptResultsOnly(in *Input, out Output, o int, part []int) (json.RawMessage, bool) {
	kept := make(map[int]bool, len(part))
	for _, k := range part {
		if _, ok := out.Rewritten[k]; ok {
			return nil, false
		}
		kept[k] = true
	}
	for k, origin := range in.Origin {
		if origin == o && (in.Messages[k].Role == swc.RoleTool) != kept[k] {
			return nil, false
		}
	}
	return OnlyToolResults(in.Raw[o])
}

// systemMarks says how appendSystem and withMemoryBlock mark what they
// write: block (swc's marks on) writes the memory as a text block of its
// own; memory puts a cache_control mark on it, system one on the block
// before it (the client's last system block, or the task's; a string
// becomes a text block first); hour gives them the 1-hour TTL.
type systemMarks struct{ block, memory, system, hour bool }

// appendSystem returns the system field with memory appended: to the
// string, or as a text block. With m.block (swc's marks on) the memory is
// a text block whether or not it carries the mark (a string system
// becomes a text block before it), so the system's shape stays the same
// when the mark moves to a tool loop's last stub or the client's marks
// leave no room: a provider's cache reads the content, and
// "sys\n\nmemory" is not the same content as two blocks.
func appendSystem(sys json.RawMessage, memory string, m systemMarks) (json.RawMessage, error) {
	if memory == "" {
		return sys, nil
	}
	sys = bytes.TrimSpace(sys)
	mem, pre := m.marked(memory)
	block := m.block || m.memory
	var blocks []json.RawMessage
	var s string
	switch {
	case len(sys) == 0 || string(sys) == "null":
		if !block {
			return json.Marshal(memory)
		}
	case json.Unmarshal(sys, &s) == nil:
		if !block {
			if s != "" {
				s += "\n\n"
			}
			return json.Marshal(s + memory)
		}
		if s != "" {
			b, err := json.Marshal(memoryBlock{Type: "text", Text: s, CacheControl: pre})
			if err != nil {
				return nil, err
			}
			blocks = append(blocks, b)
		}
	default:
		if err := json.Unmarshal(sys, &blocks); err != nil {
			return nil, err
		}
		if last := len(blocks) - 1; pre != nil && last >= 0 {
			blocks[last] = markedBlock(blocks[last], pre)
		}
	}
	b, err := json.Marshal(mem)
	if err != nil {
		return nil, err
	}
	return json.Marshal(append(blocks, b))
}

// systemMarked reports whether a block of the system field carries a
// cache_control mark.
func systemMarked(sys json.RawMessage) bool {
	var t ttls
	t.blocks(sys)
	return t.five+t.hour > 0
}

// markedBlock returns the block with the mark cc as its last member, or
// as it came when it is not an object or has a cache_control member.
func markedBlock(b json.RawMessage, cc *cacheControl) json.RawMessage {
	b = bytes.TrimSpace(b)
	var v struct {
		CacheControl json.RawMessage `json:"cache_control"`
	}
	if len(b) < 2 || b[0] != '{' || json.Unmarshal(b, &v) != nil || v.CacheControl != nil {
		return b
	}
	mark, err := json.Marshal(cc)
	if err != nil {
		return b
	}
	return withMember(b, 0, len(b), `"cache_control":`+string(mark))
}

// withMemoryBlock returns the user message raw with the memory appended
// to its content as a text block (a string content becomes a text block
// first; every other member as it came), marked as m says: m.memory the
// memory's block, m.system the block before it unless it has a mark.
func withMemoryBlock(raw json.RawMessage, memory string, m systemMarks) (json.RawMessage, bool) {
	mem, pre := m.marked(memory)
	return appendBlock(raw, mem, pre)
}

// marked returns the memory's text block, with a mark when m.memory, and
// the mark for the block before it when m.system (nil otherwise), the
// 1-hour TTL when m.hour.
func (m systemMarks) marked(memory string) (mem memoryBlock, pre *cacheControl) {
	mem = memoryBlock{Type: "text", Text: memory}
	if !m.memory && !m.system {
		return mem, nil
	}
	cc := &cacheControl{Type: "ephemeral"}
	if m.hour {
		cc.TTL = "1h"
	}
	if m.memory {
		mem.CacheControl = cc
	}
	if m.system {
		pre = cc
	}
	return mem, pre
}

// appendBlock returns message raw with block after its content's blocks
// (a string content becomes one text block first; every other member as
// it came), the block before it marked with pre when pre is set and it
// has no mark (markedBlock); false when the content is neither a string
// nor a list.
func appendBlock(raw json.RawMessage, block memoryBlock, pre *cacheControl) (json.RawMessage, bool) {
	start, end, err := valueSpan(raw, "content")
	if err != nil {
		return nil, false
	}
	var blocks []json.RawMessage
	var s string
	switch content := raw[start:end]; {
	case json.Unmarshal(content, &s) == nil:
		if s != "" {
			b, err := json.Marshal(memoryBlock{Type: "text", Text: s, CacheControl: pre})
			if err != nil {
				return nil, false
			}
			blocks = append(blocks, b)
		}
	case json.Unmarshal(content, &blocks) == nil:
		if last := len(blocks) - 1; pre != nil && last >= 0 {
			blocks[last] = markedBlock(blocks[last], pre)
		}
	default:
		return nil, false
	}
	b, err := json.Marshal(block)
	if err != nil {
		return nil, false
	}
	content, err := json.Marshal(append(blocks, b))
	if err != nil {
		return nil, false
	}
	next := make([]byte, 0, len(raw)+len(b)+32)
	next = append(append(append(next, raw[:start]...), content...), raw[end:]...)
	return next, true
}

// contentOf returns a message's content field.
func contentOf(m json.RawMessage) json.RawMessage {
	var msg struct {
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(m, &msg)
	return msg.Content
}
