package chat

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/swcmem/swc"
)

// parseFast reads an openai or anthropic request body or message array
// (data trimmed, BOM removed) in one pass over its bytes, as the general
// parsers (parseOpenAI, parseAnthropic) would read it, without their
// repeated encoding/json passes. It returns nil for anything but input
// those parsers accept, in the plain shapes clients send — invalid JSON
// or UTF-8, a field of the wrong type, an escaped or differently cased
// field name, a duplicate field, a null part — and Parse then runs the
// general parser, which words the error or reads the oddity. For input it
// accepts the result equals the general parser's field for field
// (TestParseFastMatchesGeneral checks it).
//
// Raw elements and Body values are slices of one private copy of data,
// capped so that appending to one copies it.
func parseFast(data []byte, f Format) *Input {
	if f != OpenAI && f != Anthropic || len(data) == 0 || !utf8.Valid(data) {
		return nil
	}
	p := &fast{b: data, anthropic: f == Anthropic}
	return p.top()
}

// maxFastDepth bounds nesting; deeper input takes the general path,
// whose decoder has its own limit (10000) and error.
const maxFastDepth = 1000

type span struct{ a, e int }

type fast struct {
	b         []byte
	anthropic bool
	depth     int
	in        Input
	raw       []span // Raw elements, as offsets into b
	body      map[string]span
	sys       *string // the anthropic system text, once read
	scratch   []byte  // unescaping
	names     []string
	blocks    []fastBlock
	texts     []string
}

// top reads the whole input: a request body object or a message array.
func (p *fast) top() *Input {
	var end int
	var ok bool
	switch p.b[0] {
	case '[':
		end, ok = p.messages(0)
	case '{':
		p.body = make(map[string]span, 8)
		seenMsgs := false
		end, ok = p.object(0, func(key []byte, esc bool, v int) (int, bool) {
			if esc {
				return 0, false
			}
			var e int
			var ok bool
			switch {
			case string(key) == "messages":
				if seenMsgs || p.c(v) != '[' {
					return 0, false
				}
				seenMsgs = true
				e, ok = p.messages(v)
			case p.anthropic && string(key) == "system":
				e, ok = p.system(v)
			default:
				e, ok = p.value(v)
			}
			if ok {
				p.body[string(key)] = span{v, e}
			}
			return e, ok
		})
		if !seenMsgs {
			return nil
		}
	}
	if !ok || end != len(p.b) {
		return nil
	}
	return p.finish()
}

// finish copies the input once and points Raw, Body and Where into it.
func (p *fast) finish() *Input {
	in := new(Input) // not &p.in, which would keep the parser's buffers
	*in = p.in
	buf := bytes.Clone(p.b)
	in.Raw = make([]json.RawMessage, len(p.raw))
	for k, s := range p.raw {
		in.Raw[k] = buf[s.a:s.e:s.e]
	}
	if p.body != nil {
		in.Body = make(map[string]json.RawMessage, len(p.body))
		for k, s := range p.body {
			in.Body[k] = buf[s.a:s.e:s.e]
		}
	}
	if p.sys != nil && *p.sys != "" {
		in.Messages = append(in.Messages, swc.Message{})
		copy(in.Messages[1:], in.Messages)
		in.Messages[0] = swc.Message{Role: swc.RoleSystem, Content: *p.sys}
		in.Where = append(in.Where, "")
		copy(in.Where[1:], in.Where)
		in.Where[0] = "system"
		in.Origin = append(in.Origin, 0)
		copy(in.Origin[1:], in.Origin)
		in.Origin[0] = -1
	}
	if cap(in.Messages) > 2*len(in.Messages)+16 { // many braces in the text
		in.Messages = slices.Clone(in.Messages)
		in.Where = slices.Clone(in.Where)
		in.Origin = slices.Clone(in.Origin)
	}
	// "messages[i]" for every message without a where of its own, all in
	// one string.
	n := 0
	for k, w := range in.Where {
		if w == "" {
			n += len("messages[]") + digits(in.Origin[k])
		}
	}
	all := make([]byte, 0, n)
	for k, w := range in.Where {
		if w == "" {
			all = append(all, "messages["...)
			all = strconv.AppendInt(all, int64(in.Origin[k]), 10)
			all = append(all, ']')
		}
	}
	s := string(all)
	for k, w := range in.Where {
		if w == "" {
			l := len("messages[]") + digits(in.Origin[k])
			in.Where[k], s = s[:l], s[l:]
		}
	}
	return in
}

func digits(i int) int {
	n := 1
	for ; i >= 10; i /= 10 {
		n++
	}
	return n
}

// messages reads the message array at b[i] == '['.
func (p *fast) messages(i int) (int, bool) {
	// Room for every message, so that append does not grow the slices:
	// each is an object, and the smallest ({"role":"x"}) 12 bytes long.
	// Braces within messages and strings make this too many at times;
	// finish trims a slice that ends up less than half used.
	n := min(bytes.Count(p.b[i:], []byte{'{'}), (len(p.b)-i)/12) + 1
	p.in.Messages = make([]swc.Message, 0, n)
	p.in.Where = make([]string, 0, n)
	p.in.Origin = make([]int, 0, n)
	p.raw = make([]span, 0, n)
	return p.array(i, func(v int) (int, bool) {
		if p.c(v) != '{' {
			return 0, false
		}
		var e int
		var ok bool
		if p.anthropic {
			e, ok = p.anMessage(v, len(p.raw))
		} else {
			e, ok = p.oaMessage(v, len(p.raw))
		}
		if ok {
			p.raw = append(p.raw, span{v, e})
		}
		return e, ok
	})
}

// add appends m, from source message origin, named by where ("" for
// "messages[origin]").
func (p *fast) add(m swc.Message, where string, origin int) {
	p.in.Messages = append(p.in.Messages, m)
	p.in.Where = append(p.in.Where, where)
	p.in.Origin = append(p.in.Origin, origin)
}

// Field bits, to refuse duplicates (the general parser keeps the last).
const (
	bRole = 1 << iota
	bContent
	bName
	bToolCalls
	bToolCallID
	bRefusal
	bSpeaker
	bID
	bTimestamp
	bCreatedAt
	bSession
	bType
	bText
	bInput
	bToolUseID
	bIsError
	bFunction
	bArguments
)

// A fieldSet lists the JSON names of a struct's fields with their bits.
type fieldSet []struct {
	name string
	bit  int
}

var (
	oaFields = fieldSet{{"role", bRole}, {"content", bContent}, {"name", bName}, {"tool_calls", bToolCalls},
		{"tool_call_id", bToolCallID}, {"refusal", bRefusal}, {"speaker", bSpeaker}, {"id", bID},
		{"timestamp", bTimestamp}, {"created_at", bCreatedAt}, {"session", bSession}}
	anFields    = fieldSet{{"role", bRole}, {"content", bContent}, {"id", bID}, {"timestamp", bTimestamp}, {"created_at", bCreatedAt}, {"session", bSession}}
	partFields  = fieldSet{{"type", bType}, {"text", bText}, {"refusal", bRefusal}}
	callFields  = fieldSet{{"id", bID}, {"type", bType}, {"function", bFunction}}
	funcFields  = fieldSet{{"name", bName}, {"arguments", bArguments}}
	blockFields = fieldSet{{"type", bType}, {"text", bText}, {"id", bID}, {"name", bName}, {"input", bInput},
		{"tool_use_id", bToolUseID}, {"content", bContent}, {"is_error", bIsError}}
)

// field returns the bit of key among fields, or 0 for a key encoding/json
// would not match to any of them. ok is false for a duplicate, an escaped
// key, or a key matching only case-insensitively (encoding/json matches
// those too): the general parser reads them.
func field(key []byte, esc bool, fields fieldSet, seen *int) (bit int, ok bool) {
	if esc {
		return 0, false
	}
	for _, f := range fields {
		if string(key) == f.name {
			if *seen&f.bit != 0 {
				return 0, false
			}
			*seen |= f.bit
			return f.bit, true
		}
	}
	for _, f := range fields {
		if equalFold(key, f.name) {
			return 0, false
		}
	}
	return 0, true
}

// equalFold is bytes.EqualFold for a string, without converting it.
func equalFold(b []byte, s string) bool {
	for len(b) > 0 && len(s) > 0 {
		if b[0] < utf8.RuneSelf && s[0] < utf8.RuneSelf {
			x, y := b[0]|0x20, s[0]|0x20
			if x != y || x < 'a' || x > 'z' {
				if b[0] != s[0] {
					return false
				}
			}
			b, s = b[1:], s[1:]
			continue
		}
		return bytes.EqualFold(b, []byte(s))
	}
	return len(b) == len(s)
}

// metaRaw holds the raw values of a message's metadata fields.
type metaRaw struct{ id, timestamp, createdAt, session []byte }

// set records the value at v for a metadata field bit.
func (p *fast) meta(md *metaRaw, bit, v int) (int, bool) {
	e, ok := p.value(v)
	if !ok {
		return 0, false
	}
	switch bit {
	case bID:
		md.id = p.b[v:e]
	case bTimestamp:
		md.timestamp = p.b[v:e]
	case bCreatedAt:
		md.createdAt = p.b[v:e]
	case bSession:
		md.session = p.b[v:e]
	}
	return e, true
}

// apply is meta.apply for input it accepts.
func (md *metaRaw) apply(m *swc.Message) bool {
	var ok bool
	if m.ID, ok = fastScalar(md.id); !ok {
		return false
	}
	if m.Session, ok = fastScalar(md.session); !ok {
		return false
	}
	if len(md.timestamp) > 0 && string(md.timestamp) != "null" {
		m.Time, ok = fastTime(md.timestamp, false)
	} else if len(md.createdAt) > 0 && string(md.createdAt) != "null" {
		m.Time, ok = fastTime(md.createdAt, true)
	}
	return ok
}

// fastScalar is scalar for a valid JSON value.
func fastScalar(raw []byte) (string, bool) {
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return "", true
	case raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0:
		return string(raw[1 : len(raw)-1]), true
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		return string(raw), true // a json.Number's text
	}
	s, err := scalar(raw)
	return s, err == nil
}

// fastTime is parseTime for a valid JSON value.
func fastTime(raw []byte, unix bool) (time.Time, bool) {
	switch {
	case raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0:
		if t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(raw[1:len(raw)-1]))); err == nil {
			return t, true
		}
	case unix && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9'):
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return time.Time{}, false
		}
		t, err := unixTime(f)
		return t, err == nil
	}
	t, err := parseTime(raw, unix)
	return t, err == nil
}

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

// role returns the role in the string b[a:e], without allocating for the
// known ones.
func (p *fast) role(a, e int, esc bool) swc.Role {
	if !esc {
		switch string(p.b[a+1 : e-1]) {
		case string(swc.RoleUser):
			return swc.RoleUser
		case string(swc.RoleAssistant):
			return swc.RoleAssistant
		case string(swc.RoleSystem):
			return swc.RoleSystem
		case string(swc.RoleTool):
			return swc.RoleTool
		case string(swc.RoleDeveloper):
			return swc.RoleDeveloper
		}
	}
	var s string
	p.string(a, &s)
	return swc.Role(s)
}

// name reads a string or null as strOrNull does, reusing an earlier
// equal name, so that a conversation's few speaker names are allocated
// once.
func (p *fast) name(i int, dst *string) (int, bool) {
	if p.c(i) == '"' {
		e, esc, ok := p.str(i)
		if !ok {
			return 0, false
		}
		if !esc {
			for _, n := range p.names {
				if string(p.b[i+1:e-1]) == n {
					*dst = n
					return e, true
				}
			}
		}
		p.string(i, dst)
		if len(p.names) < 8 {
			p.names = append(p.names, *dst)
		}
		return e, true
	}
	return p.strOrNull(i, dst)
}

// c returns b[i], or 0 past the end (never valid where a token starts).
func (p *fast) c(i int) byte {
	if uint(i) < uint(len(p.b)) {
		return p.b[i]
	}
	return 0
}

func (p *fast) ws(i int) int {
	for i < len(p.b) {
		switch p.b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// value checks the JSON value at b[i] and returns the index after it.
func (p *fast) value(i int) (int, bool) {
	switch p.c(i) {
	case '"':
		e, _, ok := p.str(i)
		return e, ok
	case '{':
		return p.object(i, func(_ []byte, _ bool, v int) (int, bool) { return p.value(v) })
	case '[':
		return p.array(i, p.value)
	case 't':
		return p.lit(i, "true")
	case 'f':
		return p.lit(i, "false")
	case 'n':
		return p.lit(i, "null")
	}
	return p.num(i)
}

func (p *fast) lit(i int, s string) (int, bool) {
	if len(p.b)-i >= len(s) && string(p.b[i:i+len(s)]) == s {
		return i + len(s), true
	}
	return 0, false
}

func (p *fast) null(i int) bool {
	_, ok := p.lit(i, "null")
	return ok
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// num checks the number at b[i] (JSON's grammar) and returns the index
// after it.
func (p *fast) num(i int) (int, bool) {
	if p.c(i) == '-' {
		i++
	}
	switch c := p.c(i); {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		for i++; isDigit(p.c(i)); i++ {
		}
	default:
		return 0, false
	}
	if p.c(i) == '.' {
		i++
		if !isDigit(p.c(i)) {
			return 0, false
		}
		for i++; isDigit(p.c(i)); i++ {
		}
	}
	if c := p.c(i); c == 'e' || c == 'E' {
		i++
		if c := p.c(i); c == '+' || c == '-' {
			i++
		}
		if !isDigit(p.c(i)) {
			return 0, false
		}
		for i++; isDigit(p.c(i)); i++ {
		}
	}
	return i, true
}

// strSpecial marks the bytes a string scan stops at.
var strSpecial = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// str checks the string at b[i] == '"' and returns the index after its
// closing quote and whether it has escapes.
func (p *fast) str(i int) (end int, esc bool, ok bool) {
	b := p.b
	for i++; ; i++ {
		i = plain(b, i)
		if i >= len(b) {
			return 0, false, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, esc, true
		case c < 0x20:
			return 0, false, false
		}
		esc = true
		i++
		switch p.c(i) {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			for k := 1; k <= 4; k++ {
				if !isHex(p.c(i + k)) {
					return 0, false, false
				}
			}
			i += 4
		default:
			return 0, false, false
		}
	}
}

// plain returns the index of the first control character, '"' or '\\' in
// b from i on, or len(b).
func plain(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if m := special8(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b) && !strSpecial[b[i]]; i++ {
	}
	return i
}

// special8 returns a word with the high bit set in the first byte of x
// (in memory order) that is a control character, '"' or '\\', or 0 if none
// is: the word tricks of Hacker's Delight (a byte's high bit survives
// x-0x20 &^ x only when it was below 0x20; borrows can mark later bytes
// too, never earlier ones).
func special8(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	lt := (x - 0x20*ones) &^ x
	q := x ^ '"'*ones
	bs := x ^ '\\'*ones
	return (lt | (q-ones)&^q | (bs-ones)&^bs) & highs
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// string reads the string at b[i] into *dst; anything else fails.
func (p *fast) string(i int, dst *string) (int, bool) {
	if p.c(i) != '"' {
		return 0, false
	}
	e, esc, ok := p.str(i)
	if !ok {
		return 0, false
	}
	if !esc {
		*dst = string(p.b[i+1 : e-1])
		return e, true
	}
	p.scratch = unescape(p.scratch[:0], p.b[i+1:e-1])
	*dst = string(p.scratch)
	return e, true
}

// kinds are the part, block and tool call types clients send, kept as
// constants rather than allocated for every part.
var kinds = []string{"text", "image_url", "input_audio", "file", "refusal", "function", "custom",
	"image", "document", "tool_use", "tool_result", "thinking", "redacted_thinking", "search_result"}

// kind reads a type field as strOrNull does, without allocating for the
// usual kinds.
func (p *fast) kind(i int, dst *string) (int, bool) {
	if p.c(i) == '"' {
		e, esc, ok := p.str(i)
		if ok && !esc {
			for _, k := range kinds {
				if string(p.b[i+1:e-1]) == k {
					*dst = k
					return e, true
				}
			}
		}
	}
	return p.strOrNull(i, dst)
}

// strOrNull reads a string into *dst or skips a null (a null leaves a
// string field as it was); anything else fails.
func (p *fast) strOrNull(i int, dst *string) (int, bool) {
	if p.null(i) {
		return i + 4, true
	}
	return p.string(i, dst)
}

// unescape appends the text of s, the inside of a checked JSON string
// holding valid UTF-8, to dst, decoding escapes as encoding/json does (an
// unpaired surrogate becomes U+FFFD).
func unescape(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			j := i + 1
			for j < len(s) && s[j] != '\\' {
				j++
			}
			dst = append(dst, s[i:j]...)
			i = j
			continue
		}
		switch s[i+1] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(s[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) {
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					if dec := utf16.DecodeRune(r, hex4(s[i+2:i+6])); dec != utf8.RuneError {
						dst = utf8.AppendRune(dst, dec)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default: // " \ /
			dst = append(dst, s[i+1])
		}
		i += 2
	}
	return dst
}

func hex4(s []byte) rune {
	var r rune
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// object checks the object at b[i] == '{', calling f for each member with
// its key (the raw inside of the quotes), whether the key has escapes, and
// the index of its value; f returns the index after the value. object
// returns the index after the object.
func (p *fast) object(i int, f func(key []byte, esc bool, v int) (int, bool)) (int, bool) {
	if p.c(i) != '{' || p.depth >= maxFastDepth {
		return 0, false
	}
	p.depth++
	i = p.ws(i + 1)
	if p.c(i) == '}' {
		p.depth--
		return i + 1, true
	}
	for {
		if p.c(i) != '"' {
			return 0, false
		}
		e, esc, ok := p.str(i)
		if !ok {
			return 0, false
		}
		key := p.b[i+1 : e-1]
		i = p.ws(e)
		if p.c(i) != ':' {
			return 0, false
		}
		if i, ok = f(key, esc, p.ws(i+1)); !ok {
			return 0, false
		}
		i = p.ws(i)
		switch p.c(i) {
		case ',':
			i = p.ws(i + 1)
		case '}':
			p.depth--
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// array checks the array at b[i] == '[', calling f with the index of each
// element; f returns the index after it. array returns the index after the
// array.
func (p *fast) array(i int, f func(v int) (int, bool)) (int, bool) {
	if p.c(i) != '[' || p.depth >= maxFastDepth {
		return 0, false
	}
	p.depth++
	i = p.ws(i + 1)
	if p.c(i) == ']' {
		p.depth--
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = f(i); !ok {
			return 0, false
		}
		i = p.ws(i)
		switch p.c(i) {
		case ',':
			i = p.ws(i + 1)
		case ']':
			p.depth--
			return i + 1, true
		default:
			return 0, false
		}
	}
}
