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

func (anthropicCodec) Format() Format                    { return Anthropic }
func (anthropicCodec) AlignUser() bool                   { return true }
func (anthropicCodec) parse(data []byte) (*Input, error) { return parseAnthropic(data) }

// Splice writes the request body with the memory appended to system and
// the kept messages as they came (a rewritten tool result with its
// block's "content" replaced, every other byte as it came; a rewritten
// assistant turn with its text written as anthropicTurn says; a source
// message whose tool results went into the memory is kept without its
// tool_result blocks, every other byte as it came; one otherwise partly
// kept is written anew). Unless out.NoCacheMark, the memory block gets a
// cache_control mark when the body's marks leave room (MaxBreakpoints).
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
	for _, o := range keptOrigins(in, out) {
		if kept[o] == total[o] {
			raw, err := rewriteRaw(in, out, o, anthropicPath, anthropicValue)
			if err != nil {
				return nil, err
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
	if mark && out.Memory != "" {
		var n int
		n, hour = breakpoints(in.Body, msgs)
		// The memory comes after the tools' and system's marks: it may
		// take the 1-hour TTL a later mark needs only if none of those
		// is a 5-minute one.
		mark = n < MaxBreakpoints && !(hour && headMarks(in.Body).five > 0)
	}
	sys, err := appendSystem(in.Body["system"], out.Memory, !out.NoCacheMark, mark, hour)
	if err != nil {
		return nil, err
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

// appendSystem returns the system field with memory appended: to the
// string, or as a text block. With block (swc's marks on) the memory is a
// text block whether or not it carries the mark (a string system becomes
// a text block before it), so the system's shape stays the same when the
// mark moves to a tool loop's last stub or the client's marks leave no
// room: a provider's cache reads the content, and "sys\n\nmemory" is
// not the same content as two blocks. With mark the block has a
// cache_control mark, with the 1-hour TTL when hour.
func appendSystem(sys json.RawMessage, memory string, block, mark, hour bool) (json.RawMessage, error) {
	if memory == "" {
		return sys, nil
	}
	sys = bytes.TrimSpace(sys)
	mem := memoryBlock{Type: "text", Text: memory}
	if mark {
		mem.CacheControl = &cacheControl{Type: "ephemeral"}
		if hour {
			mem.CacheControl.TTL = "1h"
		}
	}
	block = block || mark
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
			b, err := json.Marshal(memoryBlock{Type: "text", Text: s})
			if err != nil {
				return nil, err
			}
			blocks = append(blocks, b)
		}
	default:
		if err := json.Unmarshal(sys, &blocks); err != nil {
			return nil, err
		}
	}
	b, err := json.Marshal(mem)
	if err != nil {
		return nil, err
	}
	return json.Marshal(append(blocks, b))
}
