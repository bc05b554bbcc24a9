package chat

// The JSON scanner of the fast path: it checks input by JSON's grammar as
// encoding/json does and reads strings as encoding/json decodes them.

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

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
