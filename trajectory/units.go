package trajectory

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/swcmem/swc/internal/rawjson"
)

// A unit is where a prefix a provider's prompt cache holds may end: a
// list item, or, for a codec whose cache reads blocks (Chat Completions,
// Anthropic, Gemini), a content block (part) of the lead or of a
// message, and what else the message holds. key is what two requests
// must share for the unit to be the same (cache_control marks aside, see
// sameItem), size its bytes as sent.
type unit struct {
	key    []byte
	size   int
	blocks int // content blocks it holds (the provider's lookback counts them)
}

// prefixUnits returns the body's units in order, computed once.
func (s *sent) prefixUnits() []unit {
	if s.u != nil || len(s.items) == 0 && s.leadKey == "" {
		return s.u
	}
	if !s.blocks && s.leadKey == "" {
		s.u = make([]unit, len(s.items))
		for i, it := range s.items {
			it = bytes.TrimSpace(it)
			s.u[i] = unit{key: it, size: len(it), blocks: contentBlocks(it)}
		}
		return s.u
	}
	if s.leadKey != "" {
		s.u = blockUnits(s.u[:0], "system", s.top[s.leadKey], false)
	}
	for _, it := range s.items {
		var m map[string]json.RawMessage
		if json.Unmarshal(it, &m) != nil {
			it = bytes.TrimSpace(it)
			s.u = append(s.u, unit{key: it, size: len(it), blocks: 1})
			continue
		}
		var role string
		_ = json.Unmarshal(m["role"], &role)
		content := m["content"]
		if content == nil {
			content = m["parts"] // a Gemini content's parts
		}
		n := len(s.u)
		s.u = blockUnits(s.u, role, content, s.paras)
		// What else the message holds (a Chat Completions turn's
		// tool_calls, a tool message's tool_call_id) is one more unit,
		// its members in order of name.
		delete(m, "role")
		delete(m, "content")
		delete(m, "parts")
		if len(m) == 0 {
			continue
		}
		rest, _ := json.Marshal(m) // a map's keys sorted
		key := rest
		if len(s.u) == n {
			key = append([]byte(role+"\x00"), rest...)
		}
		s.u = append(s.u, unit{key: key, size: len(rest), blocks: 1})
	}
	return s.u
}

// blockUnits appends the content blocks of a content field (a string, the
// one text block it stands for; a list; or a Gemini content object, its
// parts) as units, each compacted (a provider reads the JSON, not its
// spacing), the first keyed with role too: the same blocks in another
// message are another prefix. With paras a string's text block is split
// at its blank lines (paragraphUnits).
func blockUnits(us []unit, role string, content json.RawMessage, paras bool) []unit {
	var blocks []json.RawMessage
	var s string
	var err error
	switch {
	case bytes.HasPrefix(bytes.TrimSpace(content), []byte("{")) && decodeParts(content, &blocks) == nil:
	case rawjson.Unquote(content, &s) == nil:
		if s == "" {
			return us
		}
		b, _ := json.Marshal(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{"text", s})
		if paras {
			return paragraphUnits(us, role, s, len(b))
		}
		blocks = []json.RawMessage{b}
	default:
		if blocks, err = rawjson.Array(content); err != nil {
			return us
		}
	}
	for i, b := range blocks {
		var c bytes.Buffer
		if json.Compact(&c, b) != nil {
			c.Reset()
			c.Write(bytes.TrimSpace(b))
		}
		size := c.Len()
		key := c.Bytes()
		if i == 0 {
			key = append([]byte(role+"\x00"), key...)
		}
		us = append(us, unit{key: key, size: size, blocks: 1})
	}
	return us
}

// paragraphUnits appends the text s of a string content as units, one a
// paragraph (a blank line ends one): a cache that reads tokens serves a
// message's text up to where it changed, so a text appended after a blank
// line leaves the paragraphs before it cached. The first is keyed with
// role; the sizes are the paragraphs' JSON-escaped bytes, the first
// holding the rest of size (the block's bytes as sent), so they add up to
// size.
func paragraphUnits(us []unit, role, s string, size int) []unit {
	first := len(us)
	rest := 0
	for i, p := range strings.SplitAfter(s, "\n\n") {
		if p == "" {
			continue
		}
		q, _ := json.Marshal(p)
		key := q
		if i == 0 {
			key = append([]byte(role+"\x00"), q...)
		} else {
			rest += len(q) - 2
		}
		us = append(us, unit{key: key, size: len(q) - 2, blocks: 1})
	}
	us[first].size = size - rest
	return us
}
