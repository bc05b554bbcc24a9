package chat

import (
	"strings"

	"github.com/swcmem/swc"
)

// oaMessage reads the OpenAI message at b[i] == '{', source message k.
func (p *fast) oaMessage(i, k int) (int, bool) {
	var m swc.Message
	var md metaRaw
	var refusal string
	seen := 0
	end, ok := p.object(i, func(key []byte, esc bool, v int) (int, bool) {
		bit, ok := field(key, esc, oaFields, &seen)
		if !ok {
			return 0, false
		}
		switch bit {
		case 0:
			return p.value(v)
		case bRole:
			if p.c(v) != '"' { // null is a missing role
				return 0, false
			}
			e, esc, ok := p.str(v)
			if !ok {
				return 0, false
			}
			m.Role = p.role(v, e, esc)
			return e, true
		case bContent:
			return p.oaContent(v, &m.Content)
		case bName:
			return p.name(v, &m.Name)
		case bToolCalls:
			if p.null(v) {
				return v + 4, true
			}
			return p.array(v, func(v int) (int, bool) {
				tc, e, ok := p.oaToolCall(v)
				if ok {
					m.ToolCalls = append(m.ToolCalls, tc)
				}
				return e, ok
			})
		case bToolCallID:
			return p.strOrNull(v, &m.ToolCallID)
		case bRefusal:
			return p.strOrNull(v, &refusal)
		case bSpeaker:
			if p.null(v) { // a null *string field: as if absent
				return v + 4, true
			}
			return 0, false
		}
		return p.meta(&md, bit, v)
	})
	if !ok || seen&bRole == 0 {
		return 0, false
	}
	if m.Content == "" && refusal != "" {
		m.Content = refusal
	}
	if !md.apply(&m) {
		return 0, false
	}
	p.add(m, "", k)
	return end, true
}

// oaToolCall reads one element of tool_calls.
func (p *fast) oaToolCall(i int) (swc.ToolCall, int, bool) {
	var id, typ, name, args string
	seen := 0
	e, ok := p.object(i, func(key []byte, esc bool, v int) (int, bool) {
		bit, ok := field(key, esc, callFields, &seen)
		if !ok {
			return 0, false
		}
		switch bit {
		case 0:
			return p.value(v)
		case bID:
			return p.strOrNull(v, &id)
		case bType:
			return p.kind(v, &typ)
		}
		if p.null(v) {
			return v + 4, true
		}
		fseen := 0
		return p.object(v, func(key []byte, esc bool, v int) (int, bool) {
			bit, ok := field(key, esc, funcFields, &fseen)
			switch {
			case !ok:
				return 0, false
			case bit == bName:
				return p.strOrNull(v, &name)
			case bit == bArguments:
				return p.strOrNull(v, &args)
			}
			return p.value(v)
		})
	})
	if !ok || id == "" {
		return swc.ToolCall{}, 0, false
	}
	if typ != "" && typ != "function" {
		return swc.ToolCall{ID: id, Name: placeholder(typ)}, e, true
	}
	return swc.ToolCall{ID: id, Name: name, Arguments: args}, e, true
}

// oaContent reads a content field as openAIContent does.
func (p *fast) oaContent(i int, dst *string) (int, bool) {
	switch p.c(i) {
	case '"':
		return p.string(i, dst)
	case 'n':
		if p.null(i) {
			return i + 4, true
		}
		return 0, false
	case '[':
	default:
		return 0, false
	}
	texts := p.texts[:0]
	e, ok := p.array(i, func(v int) (int, bool) {
		var typ, text, refusal string
		hasText := false
		seen := 0
		e, ok := p.object(v, func(key []byte, esc bool, v int) (int, bool) {
			bit, ok := field(key, esc, partFields, &seen)
			switch {
			case !ok:
				return 0, false
			case bit == bType:
				return p.kind(v, &typ)
			case bit == bText:
				if p.null(v) {
					hasText = false
					return v + 4, true
				}
				hasText = true
				return p.string(v, &text)
			case bit == bRefusal:
				return p.strOrNull(v, &refusal)
			}
			return p.value(v)
		})
		if !ok {
			return 0, false
		}
		switch {
		case typ == "text" && hasText:
			texts = append(texts, text)
		case typ == "text":
			return 0, false
		case typ == "refusal":
			texts = append(texts, refusal)
		default:
			texts = append(texts, placeholder(typ))
		}
		return e, true
	})
	if !ok {
		return 0, false
	}
	*dst = strings.Join(texts, "\n")
	clear(texts)
	p.texts = texts[:0]
	return e, true
}
