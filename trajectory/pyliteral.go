package trajectory

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// pyLiteral parses s, Python's repr of a value made of dicts, lists,
// tuples, strings, numbers, True, False and None (as SWE-agent's
// demonstrations write their calls), into the values encoding/json
// writes: map[string]any, []any, string, float64, bool, nil. A dict's
// keys must be strings.
func pyLiteral(s string) (any, error) {
	p := &pyParser{s: s}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if p.skip(); p.i < len(p.s) {
		return nil, p.errorf("unexpected %q after the value", p.s[p.i])
	}
	return v, nil
}

type pyParser struct {
	s string
	i int
}

func (p *pyParser) errorf(format string, args ...any) error {
	return fmt.Errorf("python literal at byte %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *pyParser) skip() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyParser) value() (any, error) {
	p.skip()
	if p.i >= len(p.s) {
		return nil, p.errorf("unexpected end")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.dict()
	case c == '[':
		return p.list('[', ']')
	case c == '(':
		return p.list('(', ')')
	case c == '\'' || c == '"':
		return p.str()
	case c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9':
		return p.number()
	}
	for word, v := range map[string]any{"None": nil, "True": true, "False": false} {
		if strings.HasPrefix(p.s[p.i:], word) {
			p.i += len(word)
			return v, nil
		}
	}
	return nil, p.errorf("unexpected %q", p.s[p.i])
}

func (p *pyParser) dict() (any, error) {
	p.i++ // {
	out := map[string]any{}
	for {
		p.skip()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return out, nil
		}
		k, err := p.value()
		if err != nil {
			return nil, err
		}
		key, ok := k.(string)
		if !ok {
			return nil, p.errorf("a dict key that is not a string")
		}
		if p.skip(); p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.errorf("want ':' after a dict key")
		}
		p.i++
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out[key] = v
		if err := p.sep('}'); err != nil {
			return nil, err
		}
	}
}

func (p *pyParser) list(open, close byte) (any, error) {
	p.i++ // open
	out := []any{}
	for {
		p.skip()
		if p.i < len(p.s) && p.s[p.i] == close {
			p.i++
			return out, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if err := p.sep(close); err != nil {
			return nil, err
		}
	}
}

// sep reads the ',' after an element, or sees the closing bracket.
func (p *pyParser) sep(close byte) error {
	p.skip()
	switch {
	case p.i < len(p.s) && p.s[p.i] == ',':
		p.i++
		return nil
	case p.i < len(p.s) && p.s[p.i] == close:
		return nil
	}
	return p.errorf("want ',' or %q", close)
}

func (p *pyParser) number() (any, error) {
	j := p.i
	for j < len(p.s) && strings.IndexByte("+-.0123456789eE_", p.s[j]) >= 0 {
		j++
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(p.s[p.i:j], "_", ""), 64)
	if err != nil {
		return nil, p.errorf("bad number %q", p.s[p.i:j])
	}
	p.i = j
	return f, nil
}

// str reads a quoted string with Python's escapes (\n, \t, \r, \\, \',
// \", \xhh, \uhhhh, \Uhhhhhhhh).
func (p *pyParser) str() (any, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c != '\\':
			b.WriteByte(c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.s) {
			break
		}
		e := p.s[p.i+1]
		p.i += 2
		switch e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '0':
			b.WriteByte(0)
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if p.i+n > len(p.s) {
				return nil, p.errorf("short \\%c escape", e)
			}
			r, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
			if err != nil || !utf8.ValidRune(rune(r)) {
				return nil, p.errorf("bad \\%c escape", e)
			}
			b.WriteRune(rune(r))
			p.i += n
		case '\n':
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return nil, p.errorf("unterminated string")
}
