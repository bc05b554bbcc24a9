package chat

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
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
