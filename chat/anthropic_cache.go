package chat

import (
	"bytes"
	"encoding/json"
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
