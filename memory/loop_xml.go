package memory

import (
	"strings"

	"github.com/swcmem/swc"
)

// Agents that call tools in XML tags of their text (Cline's classic
// format, Roo Code, Kilo Code) end a turn with the call: an element named
// after the tool, one child element per parameter, each on lines of its
// own, and the user message after it opens with the result's header
// ("[write_to_file for 'src/app.ts'] Result:", observe.IsObservation).
//
//	<write_to_file>
//	<path>src/app.ts</path>
//	<content>
//	…the whole file…
//	</content>
//	</write_to_file>
//
// Such a call is the turn's command, as a fenced block is a shell agent's
// (command), and an old turn's long parameters are clipped as an old
// native call's long string arguments are (clipCalls): the file on disk
// holds what write_to_file wrote.

// An xmlCall is the tool call a turn's text ends with: the element's
// span in the text, and each parameter's value span.
type xmlCall struct {
	start, end int      // the element, from its opening tag's "<" to the end of its closing tag
	values     [][2]int // each parameter's value, between its tags
}

// xmlCallOf returns the tool call text ends with: the text, trailing
// space aside, ends with a closing tag "</NAME>" (a lowercase name of
// letters, digits, "_" and "-"), whose opening tag "<NAME>" opens a line
// of its own before it, and what lies between is nothing but parameter
// elements "<P>value</P>", each opening at a line's start (the value may
// span lines and hold anything but the closing tag followed by the next
// parameter's opening or the call's end). ok is false when the text ends
// otherwise.
func xmlCallOf(text string) (xc xmlCall, ok bool) {
	t := strings.TrimRight(text, " \t\r\n")
	if !strings.HasSuffix(t, ">") {
		return xc, false
	}
	lt := strings.LastIndex(t, "</")
	if lt < 0 {
		return xc, false
	}
	name := t[lt+2 : len(t)-1]
	if !tagName(name) {
		return xc, false
	}
	open := "<" + name + ">"
	// The call opens at the first line-start opening tag from which the
	// rest parses as one (a written file may show the same tool's call
	// as an example: its opening comes later); at most maxXMLOpenings of
	// them are tried.
	tried := 0
	for i := 0; tried < maxXMLOpenings; {
		k := strings.Index(t[i:lt], open)
		if k < 0 {
			break
		}
		at := i + k
		i = at + 1
		if at > 0 && t[at-1] != '\n' {
			continue
		}
		tried++
		if values, ok := xmlParams(t[at+len(open):lt], at+len(open)); ok {
			return xmlCall{start: at, end: len(t), values: values}, true
		}
	}
	return xc, false
}

// maxXMLOpenings bounds the openings xmlCallOf tries, so that a text of
// many lines opening with the tag costs a few parses, not one per line.
const maxXMLOpenings = 4

// xmlParams returns the value spans (offset by base) of body, the text
// between a call's tags, when it is nothing but parameter elements
// "<P>value</P>", each opening at a line's start (a value may span lines
// and hold anything but its closing tag followed by the next parameter's
// opening or the call's end).
func xmlParams(body string, base int) ([][2]int, bool) {
	var values [][2]int
	for p := 0; ; {
		for p < len(body) && strings.IndexByte(" \t\r\n", body[p]) >= 0 {
			p++
		}
		if p == len(body) {
			return values, true
		}
		if body[p] != '<' || p > 0 && body[p-1] != '\n' {
			return nil, false
		}
		gt := strings.IndexByte(body[p:], '>')
		if gt < 0 || !tagName(body[p+1:p+gt]) {
			return nil, false
		}
		param := body[p+1 : p+gt]
		from := p + gt + 1
		closing := "</" + param + ">"
		to := -1
		for q := from; ; {
			k := strings.Index(body[q:], closing)
			if k < 0 {
				break
			}
			k += q
			if nextParam(body[k+len(closing):]) {
				to = k
				break
			}
			q = k + 1
		}
		if to < 0 {
			return nil, false
		}
		values = append(values, [2]int{base + from, base + to})
		p = to + len(closing)
	}
}

// xmlCommand returns the call text ends with as a command: a line with
// the tool's name, "_" and "-" read as spaces (so that "read_file" reads
// as reading, see looksAt), then its parameters, "name=value" for a value
// on one line of at most xmlArgBytes bytes, the name alone for another;
// then, on the next lines, the call as written (its arguments whole, as
// a native call's are: what the loop works on). "" when text ends with
// no such call.
func xmlCommand(text string) string {
	xc, ok := xmlCallOf(text)
	if !ok {
		return ""
	}
	call := text[xc.start:xc.end]
	name := call[1:strings.IndexByte(call, '>')]
	var b strings.Builder
	b.WriteString(xmlNameWords.Replace(name))
	b.WriteByte('(')
	for k, v := range xc.values {
		if k > 0 {
			b.WriteString(", ")
		}
		open := strings.LastIndexByte(text[:v[0]], '<')
		b.WriteString(text[open+1 : v[0]-1])
		val := strings.TrimSpace(text[v[0]:v[1]])
		if len(val) <= xmlArgBytes && !strings.ContainsAny(val, "\r\n") {
			b.WriteString("=" + val)
		}
	}
	b.WriteString(")\n")
	b.WriteString(call)
	return b.String()
}

// xmlNameWords writes a tool's tag name as words ("read_file": "read
// file"), as xmlCommand's line names the call.
var xmlNameWords = strings.NewReplacer("_", " ", "-", " ")

// xmlArgBytes is the longest parameter value xmlCommand writes out.
const xmlArgBytes = 200

// nextParam reports whether rest, what follows a parameter's closing
// tag, is the end of the call or, after space, the next parameter's
// opening tag on a line of its own.
func nextParam(rest string) bool {
	r := strings.TrimLeft(rest, " \t\r")
	if r == "" {
		return true
	}
	if r[0] != '\n' {
		return false
	}
	r = strings.TrimLeft(r, " \t\r\n")
	if r == "" {
		return true
	}
	gt := strings.IndexByte(r, '>')
	return r[0] == '<' && gt > 0 && tagName(r[1:gt])
}

// tagName reports whether s names a tool or a parameter: a lowercase
// letter, then lowercase letters, digits, "_" and "-", at most 64 bytes.
func tagName(s string) bool {
	if s == "" || len(s) > 64 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// clipXMLCall returns content, an old turn's text ending with a tool call
// in XML tags (xmlCallOf), with each parameter value over clipArgTokens
// tokens clipped (clipValue: its leading lines and a mark naming the
// turn's handle), every other byte as it came, and the handle; ok false
// when the text ends otherwise or no value is that long.
func (c *Compressor) clipXMLCall(m swc.Message, content string) (string, string, bool) {
	if c.opts.TurnTokens <= 0 || len(m.ToolCalls) > 0 || len(content) < 4*c.clipArgTokens() {
		return "", "", false
	}
	xc, ok := xmlCallOf(content)
	if !ok {
		return "", "", false
	}
	var b strings.Builder
	pos, handle := 0, ""
	for _, v := range xc.values {
		val := content[v[0]:v[1]]
		if len(val) < 4*c.clipArgTokens() {
			continue
		}
		if handle == "" {
			handle = HistoryHandle([]swc.Message{m})
		}
		short, ok := c.clipValue(val, handle)
		if !ok {
			continue
		}
		if strings.HasPrefix(val, "\n") && !strings.HasPrefix(short, "\n") {
			short = "\n" + short
		}
		if !strings.HasSuffix(short, "\n") && strings.HasSuffix(val, "\n") {
			short += "\n"
		}
		b.WriteString(content[pos:v[0]])
		b.WriteString(short)
		pos = v[1]
	}
	if handle == "" || pos == 0 {
		return "", "", false
	}
	b.WriteString(content[pos:])
	return b.String(), handle, true
}
