package chat

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/tokens"
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
	// media is what the block or, for a tool_result, its blocks count
	// beyond their placeholders (anthropicBlockTokens).
	media int
	// loads: a tool_result holding a tool_reference block.
	loads bool
}

// anBlock reads the content block t opens. With inner set (blocks within
// a block) content is only checked to be JSON.
func (p *fast) anBlock(t tok, inner bool) (fastBlock, bool) {
	var b fastBlock
	var thinking string // a thinking block's text (hasThinking: it has one)
	hasThinking := false
	seen := 0
	if t.k != '{' {
		return b, false
	}
	// The members, in a loop rather than through object, as oaMessage.
	for key := p.next(); key.k != '}'; key = p.next() {
		if key.k != '"' {
			return b, false
		}
		bit, ok := p.field(key, blockFields, &seen)
		if ok {
			switch bit {
			case 0:
				ok = p.skip()
			case bType:
				ok = p.typ(&b.typ)
			case bText:
				v := p.next()
				b.hasText = v.k != 'n'
				ok = !b.hasText || p.stringAt(v, &b.text)
			case bID:
				ok = p.strOrNull(&b.id)
			case bName:
				ok = p.strOrNull(&b.name)
			case bInput:
				v := p.next()
				a := v.a
				if v.k == '"' {
					a--
				}
				var e int
				if e, ok = p.rest(v); ok {
					b.input = p.b[a:e]
				}
			case bToolUseID:
				ok = p.strOrNull(&b.toolUseID)
			case bThinking:
				v := p.next()
				hasThinking = v.k == '"'
				if hasThinking {
					ok = p.stringAt(v, &thinking)
				} else {
					_, ok = p.rest(v)
				}
			case bIsError:
				v := p.next()
				b.isError = v.k == 't'
				ok = v.k == 't' || v.k == 'f' || v.k == 'n'
			case bContent:
				if inner {
					ok = p.skip()
				} else {
					ok = p.toolResult(&b)
				}
			}
		}
		if !ok {
			return b, false
		}
	}
	switch b.typ {
	case "text", "tool_use": // read for what they hold
		b.media = 0
	case "tool_result": // its blocks' media, read with them
	case "thinking": // its text already read
		b.media = 0
		if hasThinking {
			b.media = tokens.CountCached(thinking)
		}
	default:
		b.media = anthropicBlockTokens(b.typ, p.b[t.a:p.offset()])
		b.loads = loadsBlock(b.typ, p.b[t.a:p.offset()])
	}
	return b, true
}

// toolResult reads a block's content as toolResultText would.
func (p *fast) toolResult(b *fastBlock) bool {
	t := p.next()
	switch t.k {
	case '"':
		return p.stringAt(t, &b.result)
	case 'n':
		return true
	case '[':
	default:
		b.badResult = true
		_, ok := p.rest(t)
		return ok
	}
	var texts []string
	ok := p.array(t, func(e tok) bool {
		ib, ok := p.anBlock(e, true)
		if !ok {
			return false
		}
		if ib.typ == "text" && ib.hasText {
			texts = append(texts, ib.text)
		} else {
			texts = append(texts, placeholder(ib.typ))
			b.media += ib.media
			b.loads = b.loads || ib.typ == toolReference
		}
		return true
	})
	b.result = strings.Join(texts, "\n")
	return ok
}

// system reads the anthropic system field t begins as anthropicSystem
// does.
func (p *fast) system(t tok) bool {
	var text string
	switch t.k {
	case 'n':
		p.sys = nil
		return true
	case '"':
		ok := p.stringAt(t, &text)
		p.sys = &text
		return ok
	case '[':
	default:
		return false
	}
	var texts []string
	ok := p.array(t, func(e tok) bool {
		b, ok := p.anBlock(e, true)
		if !ok || b.typ != "text" || !b.hasText {
			return false
		}
		texts = append(texts, b.text)
		return true
	})
	text = strings.Join(texts, "\n")
	p.sys = &text
	return ok
}

// anMessage reads the Anthropic message t opens, source message k.
func (p *fast) anMessage(t tok, k int) bool {
	var md metaRaw
	var role swc.Role
	var text string
	const (
		cNone = iota
		cString
		cBlocks
	)
	content := cNone
	var room [4]fastBlock // on the stack while a message has so few
	blocks := room[:0]
	seen := 0
	if t.k != '{' {
		return false
	}
	// The members, in a loop rather than through object, as oaMessage.
	for key := p.next(); key.k != '}'; key = p.next() {
		if key.k != '"' {
			return false
		}
		bit, ok := p.field(key, anFields, &seen)
		if ok {
			switch bit {
			case 0:
				ok = p.skip()
			case bRole:
				ok = p.role(&role)
			case bContent:
				switch v := p.next(); v.k {
				case '"':
					content = cString
					ok = p.stringAt(v, &text)
				case 'n':
					content = cString // null reads as ""
				case '[':
					content = cBlocks
					ok = p.array(v, func(e tok) bool {
						b, ok := p.anBlock(e, false)
						if ok {
							blocks = append(blocks, b)
						}
						return ok
					})
				default:
					ok = false
				}
			default:
				ok = p.meta(&md, bit)
			}
		}
		if !ok {
			return false
		}
	}
	if content == cNone || role != swc.RoleUser && role != swc.RoleAssistant && role != swc.RoleSystem {
		return false
	}
	inPlace := role == swc.RoleSystem // a mid-conversation system message
	var base swc.Message
	if !md.apply(&base) {
		return false
	}
	add := func(m swc.Message, where string) {
		m.ID, m.Time, m.Session = base.ID, base.Time, base.Session
		p.add(m, where, k)
	}
	if content == cString {
		add(swc.Message{Role: role, Content: text, InPlace: inPlace}, "")
		return true
	}
	main := swc.Message{Role: role, InPlace: inPlace}
	var textRoom [4]string
	texts := textRoom[:0]
	hasMain := false
	for j, b := range blocks {
		switch b.typ {
		case "text":
			if !b.hasText {
				return false
			}
			texts = append(texts, b.text)
			hasMain = true
		case "tool_use":
			if role != swc.RoleAssistant || b.id == "" {
				return false
			}
			args := string(bytes.TrimSpace(b.input))
			if args == "" || args == "null" {
				args = "{}"
			}
			main.ToolCalls = append(main.ToolCalls, swc.ToolCall{ID: b.id, Name: b.name, Arguments: args})
			hasMain = true
		case "tool_result":
			if role != swc.RoleUser || b.toolUseID == "" || hasMain || b.badResult {
				return false
			}
			text := b.result
			if b.isError {
				text = "[error] " + text
			}
			where := "messages[" + strconv.Itoa(k) + "].content[" + strconv.Itoa(j) + "]"
			add(swc.Message{Role: swc.RoleTool, Content: text, ToolCallID: b.toolUseID, MediaTokens: b.media, LoadsTools: b.loads}, where)
		default:
			texts = append(texts, placeholder(b.typ))
			main.MediaTokens += b.media
			main.LoadsTools = main.LoadsTools || b.loads
			hasMain = true
		}
	}
	main.Content = strings.Join(texts, "\n")
	if hasMain || len(blocks) == 0 {
		add(main, "")
	}
	return true
}
