package chat

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/swcmem/swc"
)

// parseFast reads an openai or anthropic request body or message array
// (data trimmed, BOM removed) in one pass over its tokens (jsontext), as
// the general parsers (parseOpenAI, parseAnthropic) would read it, without
// their repeated encoding/json passes. It returns nil for anything but
// input those parsers accept, in the plain shapes clients send — invalid
// JSON or UTF-8 (an unpaired surrogate escape too), a field of the wrong
// type, a differently cased field name, a repeated known field, a null
// part — and Parse then runs the general parser, which words the error or
// reads the oddity. For input it accepts the result equals the general
// parser's field for field (TestParseFastMatchesGeneral checks it).
//
// Raw elements and Body values are slices of one private copy of data
// (of data itself when owned), capped so that appending to one copies it;
// the texts of Messages (content, names, ids, arguments) share that
// memory too where the input has them without escapes, and the rest share
// a few private arrays: no text is copied on its own.
func parseFast(data []byte, f Format, owned bool) *Input {
	if f != OpenAI && f != Anthropic || len(data) == 0 {
		return nil
	}
	if !owned {
		data = bytes.Clone(data)
	}
	p := &fast{b: data, anthropic: f == Anthropic, dec: jsontext.NewDecoder(bytes.NewBuffer(data), fastOptions)}
	return p.top()
}

type span struct{ a, e int }

type fast struct {
	b         []byte            // the input: data when owned, else a private copy; never written
	dec       *jsontext.Decoder // reading b
	failed    bool              // a read failed: the input is not for the fast path
	anthropic bool
	in        Input
	sys       *string // the anthropic system text, once read
	unq       []byte  // unescaping texts (each copied out)
	keybuf    []byte  // unescaping names
	speakers  []string
}

// top reads the whole input: a request body object or a message array.
func (p *fast) top() *Input {
	var ok bool
	switch t := p.next(); t.k {
	case '[':
		ok = p.messages(t)
	case '{':
		p.in.Body = make(map[string]json.RawMessage, 8)
		seenMsgs := false
		ok = p.object(t, func(n tok) bool {
			name, ok := p.key(n)
			if !ok {
				return false
			}
			key := string(name)
			v := p.next()
			var e int
			switch {
			case key == "messages":
				if seenMsgs {
					return false
				}
				seenMsgs = true
				ok, e = p.messages(v), p.offset()
			case p.anthropic && key == "system":
				ok, e = p.system(v), p.offset()
			default:
				e, ok = p.rest(v)
			}
			if ok {
				a := v.a
				if v.k == '"' {
					a--
				}
				p.in.Body[key] = p.b[a:e:e]
			}
			return ok
		})
		if !seenMsgs {
			return nil
		}
	}
	if !ok || p.failed || p.offset() != len(p.b) {
		return nil
	}
	return p.finish()
}

// finish returns the Input read, with the system text in the place kept
// for it (or that place dropped) and slices trimmed that are mostly empty.
func (p *fast) finish() *Input {
	in := new(Input) // not &p.in, which would keep the parser's buffers
	*in = p.in
	if p.anthropic && in.Body != nil { // the place kept for the system text
		if p.sys != nil && *p.sys != "" {
			in.Messages[0].Content = *p.sys
		} else {
			in.Messages, in.Where, in.Origin = in.Messages[1:], in.Where[1:], in.Origin[1:]
		}
	}
	if cap(in.Messages) > 2*len(in.Messages)+16 { // messages estimated far too many
		in.Messages = slices.Clone(in.Messages)
		in.Where = slices.Clone(in.Where)
		in.Origin = slices.Clone(in.Origin)
	}
	return in
}

// messages reads the message array t opens.
func (p *fast) messages(t tok) bool {
	// Room for every message, so that append does not grow the slices,
	// and an anthropic body's first place for its system text (finish
	// drops it when there is none). The count: the objects that do not
	// open an array of objects ("[{", such as content parts or blocks),
	// two quick counts of bytes. Each message is one of them (the first
	// opens the message array, which rest starts past); other objects, "{"
	// and "[{" within texts and tool results (each a message of its own)
	// make it too many or too few at times, and finish trims a slice that
	// ends up less than half used.
	rest := p.b[p.offset():]
	n := bytes.Count(rest, []byte{'{'}) - bytes.Count(rest, []byte("[{"))
	n = min(max(n, 0), len(rest)/12)
	p.in.Messages = make([]swc.Message, 0, n+1)
	p.in.Where = make([]string, 0, n+1)
	p.in.Origin = make([]int, 0, n+1)
	p.in.Raw = make([]json.RawMessage, 0, n)
	if p.anthropic && p.in.Body != nil {
		p.add(swc.Message{Role: swc.RoleSystem}, "system", -1)
	}
	return p.array(t, func(m tok) bool {
		var ok bool
		if p.anthropic {
			ok = p.anMessage(m, len(p.in.Raw))
		} else {
			ok = p.oaMessage(m, len(p.in.Raw))
		}
		if e := p.offset(); ok {
			p.in.Raw = append(p.in.Raw, p.b[m.a:e:e])
		}
		return ok
	})
}

// add appends m, from source message origin, named by where ("" for
// "messages[origin]").
func (p *fast) add(m swc.Message, where string, origin int) {
	if where == "" {
		where = messageWhere(origin)
	}
	p.in.Messages = append(p.in.Messages, m)
	p.in.Where = append(p.in.Where, where)
	p.in.Origin = append(p.in.Origin, origin)
}

// metaRaw holds the raw values of a message's metadata fields.
type metaRaw struct{ id, timestamp, createdAt, session []byte }

// meta reads the value of a metadata field bit as it is.
func (p *fast) meta(md *metaRaw, bit int) bool {
	t := p.next()
	a := t.a
	if t.k == '"' {
		a--
	}
	e, ok := p.rest(t)
	if !ok {
		return false
	}
	switch bit {
	case bID:
		md.id = p.b[a:e]
	case bTimestamp:
		md.timestamp = p.b[a:e]
	case bCreatedAt:
		md.createdAt = p.b[a:e]
	case bSession:
		md.session = p.b[a:e]
	}
	return true
}

// apply is meta.apply for input it accepts.
func (md *metaRaw) apply(m *swc.Message) bool {
	if md.id == nil && md.session == nil && md.timestamp == nil && md.createdAt == nil {
		return true // the usual message, without any
	}
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
		if t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(alias(raw[1:len(raw)-1]))); err == nil {
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

// knownRole returns the role constant s spells, if any.
func knownRole(s []byte) (swc.Role, bool) {
	switch swc.Role(s) {
	case swc.RoleUser:
		return swc.RoleUser, true
	case swc.RoleAssistant:
		return swc.RoleAssistant, true
	case swc.RoleSystem:
		return swc.RoleSystem, true
	case swc.RoleTool:
		return swc.RoleTool, true
	case swc.RoleDeveloper:
		return swc.RoleDeveloper, true
	}
	return "", false
}

// role reads the role string, a known one as its constant; a null or
// anything else fails (a null role is a missing one).
func (p *fast) role(dst *swc.Role) bool {
	t := p.next()
	if t.k != '"' {
		return false
	}
	if r, ok := knownRole(p.b[t.a:t.e]); ok { // as it stands: no escapes
		*dst = r
		return true
	}
	s, ok := p.text(t)
	*dst = swc.Role(s)
	return ok
}

// name reads a string or null as strOrNull does, reusing an earlier
// equal name, so that a conversation's few speaker names are allocated
// once.
func (p *fast) name(dst *string) bool { return p.known(dst, &p.speakers, 8) }
