package chat

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/swcmem/swc"
)

// fastBlock is an anBlock as read.
type fastBlock struct {
	typ, text, id, name, toolUseID string
	hasText, isError               bool
	input                          []byte
	// result is the content read as a tool_result's (string, null or
	// blocks); badResult says it has another shape.
	result    string
	badResult bool
}

// anBlock reads the content block at b[i] == '{'. With inner set (blocks
// within a block) content is only checked to be JSON.
func (p *fast) anBlock(i int, inner bool) (fastBlock, int, bool) {
	var b fastBlock
	seen := 0
	e, ok := p.object(i, func(key []byte, esc bool, v int) (int, bool) {
		bit, ok := field(key, esc, blockFields, &seen)
		if !ok {
			return 0, false
		}
		switch bit {
		case 0:
			return p.value(v)
		case bType:
			return p.kind(v, &b.typ)
		case bText:
			if p.null(v) {
				return v + 4, true
			}
			b.hasText = true
			return p.string(v, &b.text)
		case bID:
			return p.strOrNull(v, &b.id)
		case bName:
			return p.strOrNull(v, &b.name)
		case bInput:
			e, ok := p.value(v)
			if ok {
				b.input = p.b[v:e]
			}
			return e, ok
		case bToolUseID:
			return p.strOrNull(v, &b.toolUseID)
		case bIsError:
			switch p.c(v) {
			case 't':
				b.isError = true
				return p.lit(v, "true")
			case 'f':
				return p.lit(v, "false")
			}
			if p.null(v) {
				return v + 4, true
			}
			return 0, false
		}
		// content
		if inner {
			return p.value(v)
		}
		return p.toolResult(v, &b)
	})
	return b, e, ok
}

// toolResult reads a block's content as toolResultText would.
func (p *fast) toolResult(i int, b *fastBlock) (int, bool) {
	switch p.c(i) {
	case '"':
		return p.string(i, &b.result)
	case 'n':
		if p.null(i) {
			return i + 4, true
		}
		return 0, false
	case '[':
	default:
		b.badResult = true
		return p.value(i)
	}
	var texts []string
	e, ok := p.array(i, func(v int) (int, bool) {
		if p.c(v) != '{' {
			return 0, false
		}
		ib, e, ok := p.anBlock(v, true)
		if !ok {
			return 0, false
		}
		if ib.typ == "text" && ib.hasText {
			texts = append(texts, ib.text)
		} else {
			texts = append(texts, placeholder(ib.typ))
		}
		return e, true
	})
	b.result = strings.Join(texts, "\n")
	return e, ok
}

// system reads the anthropic system field as anthropicSystem does.
func (p *fast) system(i int) (int, bool) {
	var text string
	switch p.c(i) {
	case 'n':
		if !p.null(i) {
			return 0, false
		}
		p.sys = nil
		return i + 4, true
	case '"':
		e, ok := p.string(i, &text)
		p.sys = &text
		return e, ok
	case '[':
	default:
		return 0, false
	}
	var texts []string
	e, ok := p.array(i, func(v int) (int, bool) {
		if p.c(v) != '{' {
			return 0, false
		}
		b, e, ok := p.anBlock(v, true)
		if !ok || b.typ != "text" || !b.hasText {
			return 0, false
		}
		texts = append(texts, b.text)
		return e, true
	})
	text = strings.Join(texts, "\n")
	p.sys = &text
	return e, ok
}

// anMessage reads the Anthropic message at b[i] == '{', source message k.
func (p *fast) anMessage(i, k int) (int, bool) {
	var md metaRaw
	var role swc.Role
	var text string
	const (
		cNone = iota
		cString
		cBlocks
	)
	content := cNone
	blocks := p.blocks[:0]
	seen := 0
	end, ok := p.object(i, func(key []byte, esc bool, v int) (int, bool) {
		bit, ok := field(key, esc, anFields, &seen)
		if !ok {
			return 0, false
		}
		switch bit {
		case 0:
			return p.value(v)
		case bRole:
			if p.c(v) != '"' {
				return 0, false
			}
			e, esc, ok := p.str(v)
			if !ok {
				return 0, false
			}
			role = p.role(v, e, esc)
			return e, true
		case bContent:
			switch p.c(v) {
			case '"':
				content = cString
				return p.string(v, &text)
			case 'n':
				content = cString // null reads as ""
				if p.null(v) {
					return v + 4, true
				}
				return 0, false
			case '[':
				content = cBlocks
				return p.array(v, func(v int) (int, bool) {
					if p.c(v) != '{' {
						return 0, false
					}
					b, e, ok := p.anBlock(v, false)
					if ok {
						blocks = append(blocks, b)
					}
					return e, ok
				})
			}
			return 0, false
		}
		return p.meta(&md, bit, v)
	})
	p.blocks = blocks[:0]
	defer clear(blocks)
	if !ok || content == cNone || role != swc.RoleUser && role != swc.RoleAssistant {
		return 0, false
	}
	var base swc.Message
	if !md.apply(&base) {
		return 0, false
	}
	add := func(m swc.Message, where string) {
		m.ID, m.Time, m.Session = base.ID, base.Time, base.Session
		p.add(m, where, k)
	}
	if content == cString {
		add(swc.Message{Role: role, Content: text}, "")
		return end, true
	}
	main := swc.Message{Role: role}
	texts := p.texts[:0]
	defer func() { clear(texts); p.texts = texts[:0] }()
	hasMain := false
	for j, b := range blocks {
		switch b.typ {
		case "text":
			if !b.hasText {
				return 0, false
			}
			texts = append(texts, b.text)
			hasMain = true
		case "tool_use":
			if role != swc.RoleAssistant || b.id == "" {
				return 0, false
			}
			args := string(bytes.TrimSpace(b.input))
			if args == "" || args == "null" {
				args = "{}"
			}
			main.ToolCalls = append(main.ToolCalls, swc.ToolCall{ID: b.id, Name: b.name, Arguments: args})
			hasMain = true
		case "tool_result":
			if role != swc.RoleUser || b.toolUseID == "" || hasMain || b.badResult {
				return 0, false
			}
			text := b.result
			if b.isError {
				text = "[error] " + text
			}
			where := "messages[" + strconv.Itoa(k) + "].content[" + strconv.Itoa(j) + "]"
			add(swc.Message{Role: swc.RoleTool, Content: text, ToolCallID: b.toolUseID}, where)
		default:
			texts = append(texts, placeholder(b.typ))
			hasMain = true
		}
	}
	main.Content = strings.Join(texts, "\n")
	if hasMain || len(blocks) == 0 {
		add(main, "")
	}
	return end, true
}
