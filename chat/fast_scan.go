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
	"strings"
	"unsafe"

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

// before is 1 for the bytes that may come between two tokens, and kindOf
// gives the kind of a token by its first byte.
var before, kindOf = func() (before [256]uint8, kind [256]jsontext.Kind) {
	for _, c := range " \t\n\r,:" {
		before[c] = 1
	}
	for _, c := range "{}[]\"ntf" {
		kind[c] = jsontext.Kind(c)
	}
	for _, c := range "-0123456789" {
		kind[c] = '0'
	}
	return
}()

// offset is where the last token or value read ends.
func (p *fast) offset() int { return int(p.dec.InputOffset()) }

// next reads the next token; its kind is 0 at an error.
func (p *fast) next() tok {
	prev := p.offset()
	if _, err := p.dec.ReadToken(); err != nil {
		p.failed = true
		return tok{}
	}
	e := p.offset()
	// The token starts past the whitespace, ':' and ',' after the last:
	// most often one byte, skipped without a branch.
	a := prev + int(before[p.b[prev]])
	for before[p.b[a]] != 0 {
		a++
	}
	k := kindOf[p.b[a]] // (the token's own Kind checks it is the last)
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

// alias returns the bytes of b as a string sharing their memory, for a
// string that does not outlive the parse (a time's text parsed).
func alias(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// text returns the decoded text of the string t, a copy of its own: a
// message kept after the request (in a memo, a store's state) keeps its
// texts in memory, not the whole body they came in.
func (p *fast) text(t tok) (string, bool) {
	if !p.esc(t) {
		return string(p.b[t.a:t.e]), true
	}
	out, err := jsontext.AppendUnquote(p.unq[:0], p.b[t.a-1:t.e+1])
	if err != nil {
		p.failed = true
		return "", false
	}
	p.unq = out
	return string(out), true
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
// of *seen rather than another one, and adding a new one while seen
// holds fewer than max. Strings of seen hold no backslash, so that one
// equal to the input as it stands is the string it encodes.
func (p *fast) known(dst *string, seen *[]string, max int) bool {
	t := p.next()
	switch t.k {
	case 'n':
		return true
	case '"':
	default:
		return false
	}
	for _, k := range *seen {
		if string(p.b[t.a:t.e]) == k {
			*dst = k
			return true
		}
	}
	var ok bool
	if *dst, ok = p.text(t); ok && len(*seen) < max && strings.IndexByte(*dst, '\\') < 0 {
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
// name, as it stands in the input (p.field and p.key decode it), to read
// its value. It fails when t opens no object, and when f does.
func (p *fast) object(t tok, f func(name tok) bool) bool {
	if t.k != '{' {
		return false
	}
	for {
		switch n := p.next(); n.k {
		case '}':
			return true
		case '"':
			if !f(n) {
				return false
			}
		default:
			return false
		}
	}
}

// key returns the decoded text of the name n: the input's bytes, or
// keybuf's (valid until the next key).
func (p *fast) key(n tok) ([]byte, bool) {
	if !p.esc(n) {
		return p.b[n.a:n.e], true
	}
	var err error
	if p.keybuf, err = jsontext.AppendUnquote(p.keybuf[:0], p.b[n.a-1:n.e+1]); err != nil {
		p.failed = true
		return nil, false
	}
	return p.keybuf, true
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
