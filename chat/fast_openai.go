package chat

import (
	"strings"

	"github.com/swcmem/swc"
)

// oaMessage reads the OpenAI message t opens, source message k.
func (p *fast) oaMessage(t tok, k int) bool {
	var m swc.Message
	var md metaRaw
	var refusal string
	seen := 0
	// The members, in a loop rather than through object: the one object
	// read per message.
	if t.k != '{' {
		return false
	}
	for key := p.next(); key.k != '}'; key = p.next() {
		if key.k != '"' {
			return false
		}
		bit, ok := p.field(key, oaFields, &seen)
		if ok {
			switch bit {
			case 0:
				ok = p.skip()
			case bRole:
				ok = p.role(&m.Role)
			case bContent:
				ok = p.oaContent(&m.Content, &m.MediaTokens)
			case bName:
				ok = p.name(&m.Name)
			case bToolCalls:
				v := p.next()
				ok = v.k == 'n' || p.array(v, func(e tok) bool {
					tc, ok := p.oaToolCall(e)
					if ok {
						m.ToolCalls = append(m.ToolCalls, tc)
					}
					return ok
				})
			case bToolCallID:
				ok = p.strOrNull(&m.ToolCallID)
			case bRefusal:
				ok = p.strOrNull(&refusal)
			case bSpeaker:
				ok = p.next().k == 'n' // a null *string field: as if absent
			default:
				ok = p.meta(&md, bit)
			}
		}
		if !ok {
			return false
		}
	}
	if seen&bRole == 0 {
		return false
	}
	if m.Content == "" && refusal != "" {
		m.Content = refusal
	}
	if !md.apply(&m) {
		return false
	}
	p.add(m, "", k)
	return true
}

// oaToolCall reads the element of tool_calls t opens.
func (p *fast) oaToolCall(t tok) (swc.ToolCall, bool) {
	var id, typ, name, args string
	seen := 0
	ok := p.object(t, func(key tok) bool {
		bit, ok := p.field(key, callFields, &seen)
		if !ok {
			return false
		}
		switch bit {
		case 0:
			return p.skip()
		case bID:
			return p.strOrNull(&id)
		case bType:
			return p.typ(&typ)
		}
		fseen := 0
		v := p.next()
		return v.k == 'n' || p.object(v, func(key tok) bool {
			bit, ok := p.field(key, funcFields, &fseen)
			switch {
			case !ok:
				return false
			case bit == bName:
				return p.strOrNull(&name)
			case bit == bArguments:
				return p.strOrNull(&args)
			}
			return p.skip()
		})
	})
	if !ok || id == "" {
		return swc.ToolCall{}, false
	}
	if typ != "" && typ != "function" {
		return swc.ToolCall{ID: id, Name: placeholder(typ)}, true
	}
	return swc.ToolCall{ID: id, Name: name, Arguments: args}, true
}

// oaContent reads a content field as openAIContent does, adding what its
// parts count beyond their placeholders to *media.
func (p *fast) oaContent(dst *string, media *int) bool {
	t := p.next()
	switch t.k {
	case '"':
		return p.stringAt(t, dst)
	case 'n':
		return true
	case '[':
	default:
		return false
	}
	var room [4]string // on the stack while a message has so few parts
	texts := room[:0]
	ok := p.array(t, func(part tok) bool {
		var typ, text, refusal string
		hasText := false
		seen := 0
		ok := p.object(part, func(key tok) bool {
			bit, ok := p.field(key, partFields, &seen)
			switch {
			case !ok:
				return false
			case bit == bType:
				return p.typ(&typ)
			case bit == bText:
				v := p.next()
				hasText = v.k != 'n'
				return !hasText || p.stringAt(v, &text)
			case bit == bRefusal:
				return p.strOrNull(&refusal)
			}
			return p.skip()
		})
		if !ok {
			return false
		}
		switch {
		case typ == "text" && hasText:
			texts = append(texts, text)
		case typ == "text":
			return false
		case typ == "refusal":
			texts = append(texts, refusal)
		default:
			texts = append(texts, placeholder(typ))
			*media += openAIPartTokens(typ, p.b[part.a:p.offset()])
		}
		return true
	})
	if !ok {
		return false
	}
	*dst = strings.Join(texts, "\n")
	return true
}
