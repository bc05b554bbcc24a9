package chat

// The token reading of the fast path, on jsontext
// (github.com/go-json-experiment/json/jsontext, the standard library's
// encoding/json/jsontext once encoding/json/v2 leaves GOEXPERIMENT): it
// checks the input by JSON's grammar and UTF-8, and reads every token
// once, where it is, as offsets into the input. A reader gets the token
// it starts with from next; any error marks the parse failed (Parse then
// runs the general parser).

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"
)

// fastOptions: duplicate names are the parser's business (the general
// parser keeps the last; the fast path keeps the last of unknown fields
// and refuses a repeated known one).
var fastOptions = jsontext.AllowDuplicateNames(true)

// tok is a token read: its kind and where its bytes are in b (for a
// string, the text inside the quotes).
type tok struct {
	k    jsontext.Kind
	a, e int
}

// offset is where the last token or value read ends.
func (p *fast) offset() int { return int(p.dec.InputOffset()) }

// next reads the next token; its kind is 0 at an error.
func (p *fast) next() tok {
	prev := p.offset()
	t, err := p.dec.ReadToken()
	if err != nil {
		p.failed = true
		return tok{}
	}
	e := p.offset()
	k := t.Kind()
	if k == '{' || k == '[' || k == '}' || k == ']' {
		return tok{k, e - 1, e}
	}
	a := prev // past the whitespace, ':' and ',' before the token
	for p.b[a] == ' ' || p.b[a] == ',' || p.b[a] == ':' || p.b[a] == '\n' || p.b[a] == '\t' || p.b[a] == '\r' {
		a++
	}
	if k == '"' {
		return tok{k, a + 1, e - 1}
	}
	return tok{k, a, e}
}

// skip reads past the next value.
func (p *fast) skip() bool {
	if err := p.dec.SkipValue(); err != nil {
		p.failed = true
		return false
	}
	return true
}

// rest reads past the rest of the value t begins and returns where the
// value ends.
func (p *fast) rest(t tok) (int, bool) {
	if t.k == '{' || t.k == '[' {
		for depth := p.dec.StackDepth(); p.dec.StackDepth() >= depth; {
			if p.next().k == 0 {
				return 0, false
			}
		}
		return p.offset(), true
	}
	if t.k == '"' {
		return t.e + 1, true
	}
	return t.e, t.k != 0
}

// esc reports whether the string t has escapes.
func (p *fast) esc(t tok) bool {
	s := p.b[t.a:t.e]
	if len(s) > 16 {
		return bytes.IndexByte(s, '\\') >= 0
	}
	for _, c := range s {
		if c == '\\' {
			return true
		}
	}
	return false
}

// text returns the decoded text of the string t, copied.
func (p *fast) text(t tok) (string, bool) {
	if !p.esc(t) {
		return string(p.b[t.a:t.e]), true
	}
	var err error
	if p.scratch, err = jsontext.AppendUnquote(p.scratch[:0], p.b[t.a-1:t.e+1]); err != nil {
		p.failed = true
		return "", false
	}
	return string(p.scratch), true
}

// stringAt reads the string t into *dst; anything else fails.
func (p *fast) stringAt(t tok, dst *string) bool {
	if t.k != '"' {
		return false
	}
	var ok bool
	*dst, ok = p.text(t)
	return ok
}

// strOrNull reads a string into *dst or skips a null (a null leaves a
// string field as it was); anything else fails.
func (p *fast) strOrNull(dst *string) bool {
	t := p.next()
	return t.k == 'n' || p.stringAt(t, dst)
}

// kinds are the part, block and tool call types clients send, kept as
// constants rather than allocated for every part.
var kinds = []string{"text", "image_url", "input_audio", "file", "refusal", "function", "custom",
	"image", "document", "tool_use", "tool_result", "thinking", "redacted_thinking", "search_result"}

// known reads a string or null as strOrNull does, taking an equal string
// of *seen rather than allocating one, and adding a new one while seen
// holds fewer than max.
func (p *fast) known(dst *string, seen *[]string, max int) bool {
	t := p.next()
	switch t.k {
	case 'n':
		return true
	case '"':
	default:
		return false
	}
	if !p.esc(t) {
		for _, k := range *seen {
			if string(p.b[t.a:t.e]) == k {
				*dst = k
				return true
			}
		}
	}
	var ok bool
	if *dst, ok = p.text(t); ok && len(*seen) < max {
		*seen = append(*seen, *dst)
	}
	return ok
}

// typ reads a type field as strOrNull does, without allocating for the
// usual kinds.
func (p *fast) typ(dst *string) bool {
	seen := kinds
	return p.known(dst, &seen, 0)
}

// object reads the members of the object t opens, calling f with each
// name (decoded; valid until f reads a value) to read its value. It fails
// when t opens no object, and when f does.
func (p *fast) object(t tok, f func(name []byte) bool) bool {
	if t.k != '{' {
		return false
	}
	for {
		n := p.next()
		switch n.k {
		case '}':
			return true
		case '"':
		default:
			return false
		}
		name := p.b[n.a:n.e]
		if p.esc(n) {
			var err error
			if p.keybuf, err = jsontext.AppendUnquote(p.keybuf[:0], p.b[n.a-1:n.e+1]); err != nil {
				p.failed = true
				return false
			}
			name = p.keybuf
		}
		if !f(name) {
			return false
		}
	}
}

// array reads the elements of the array t opens, calling f with the
// first token of each to read the rest. It fails when t opens no array,
// and when f does.
func (p *fast) array(t tok, f func(first tok) bool) bool {
	if t.k != '[' {
		return false
	}
	for {
		switch e := p.next(); e.k {
		case ']':
			return true
		case 0:
			return false
		default:
			if !f(e) {
				return false
			}
		}
	}
}
