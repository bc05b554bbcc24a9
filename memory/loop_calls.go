package memory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/swcmem/swc"
)

// Old tool calls' long arguments (Options.TurnTokens). A coding agent's
// calls carry what it wrote: a file's whole content (Write), the text an
// edit replaces and its replacement (Edit's old_string and new_string), a
// script in a shell command. Once the observations of its exchange are
// stubbed, the file on disk holds what the call wrote and later reads
// show it; every later request pays for it again. An old turn's call
// keeps its name, its id and every member of its arguments, each string
// member over clipArgTokens tokens cut to its leading lines (about
// TurnTokens/2 tokens) and a mark naming the turn's handle and what was
// left out (a custom tool's free-text input clipped so whole). The turn
// being answered is never clipped.

// clipArgTokens is the most tokens a string member of an old call's
// arguments keeps whole: TurnTokens and turnSlack.
func (c *Compressor) clipArgTokens() int { return c.opts.TurnTokens + turnSlack }

// clipCalls returns the tool calls of old assistant message m with their
// long string members clipped (see above), the turn's handle
// (HistoryHandle) that each clipped member names, and whether any was.
// Arguments that are not a JSON object (a custom tool's free text) go as
// they came.
func (c *Compressor) clipCalls(m swc.Message) ([]swc.ToolCall, string, bool) {
	if c.opts.TurnTokens <= 0 {
		return nil, "", false
	}
	var out []swc.ToolCall
	handle := ""
	for k, tc := range m.ToolCalls {
		if len(tc.Arguments) < 4*c.clipArgTokens() {
			continue
		}
		if handle == "" {
			handle = HistoryHandle([]swc.Message{m})
		}
		args, ok := c.clipArgs(tc.Arguments, handle)
		if !ok {
			continue
		}
		if out == nil {
			out = append([]swc.ToolCall(nil), m.ToolCalls...)
		}
		out[k].Arguments = args
	}
	return out, handle, out != nil
}

// clipArgs returns args with each string over clipArgTokens tokens
// clipped (clipValue), every other byte as it came: in a JSON object, each
// such string value at any depth (an Edit's old_string, a MultiEdit's
// edits' strings), the members and their order kept; arguments that are
// not JSON (a Responses custom tool's free text: Codex's apply_patch)
// clipped whole. ok is false when nothing is, or when args is a JSON
// value other than an object.
func (c *Compressor) clipArgs(args, handle string) (string, bool) {
	if len(args) < 4*c.clipArgTokens() {
		return "", false // too short to hold a long string: no parse
	}
	t := strings.TrimSpace(args)
	if !strings.HasPrefix(t, "{") {
		if json.Valid([]byte(t)) {
			return "", false // a list, a number: not a call's members
		}
		return c.clipValue(args, handle)
	}
	dec := jsontext.NewDecoder(strings.NewReader(args), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var b bytes.Buffer
	pos, clipped := 0, false
	var walk func() bool // reads the next value, clipping its long strings
	walk = func() bool {
		switch dec.PeekKind() {
		case '{', '[':
			t, err := dec.ReadToken()
			if err != nil {
				return false
			}
			end := jsontext.Kind('}')
			if t.Kind() == '[' {
				end = ']'
			}
			for dec.PeekKind() != end {
				if t.Kind() == '{' {
					if _, err := dec.ReadToken(); err != nil { // the member's name
						return false
					}
				}
				if !walk() {
					return false
				}
			}
			_, err = dec.ReadToken()
			return err == nil
		case '"':
			v, err := dec.ReadValue()
			if err != nil {
				return false
			}
			if len(v) < 4*c.clipArgTokens() {
				return true
			}
			var str string
			if json.Unmarshal(v, &str) != nil {
				return false
			}
			if short, ok := c.clipValue(str, handle); ok {
				end := int(dec.InputOffset())
				b.WriteString(args[pos : end-len(v)])
				q, err := jsontext.AppendQuote(nil, short) // no HTML escaping
				if err != nil {
					return false
				}
				b.Write(q)
				pos, clipped = end, true
			}
			return true
		default:
			return dec.SkipValue() == nil
		}
	}
	if !walk() || !clipped {
		return "", false
	}
	if _, err := dec.ReadToken(); err != io.EOF { // args is one whole object
		return "", false
	}
	b.WriteString(args[pos:])
	return b.String(), true
}

// clipValue returns string member s clipped: its leading lines that fit
// TurnTokens/2 tokens (the first line's leading words when it alone is
// longer), then a mark naming the turn's handle and how many lines and
// tokens were left out; ok false when s is at most clipArgTokens tokens.
func (c *Compressor) clipValue(s, handle string) (string, bool) {
	n := c.countText(s)
	if n <= c.clipArgTokens() {
		return "", false
	}
	keep := max(c.opts.TurnTokens/2, 1)
	lines := strings.SplitAfter(s, "\n")
	head, used, kept := "", 0, 0
	for _, line := range lines {
		t := c.countText(line)
		if used+t > keep {
			break
		}
		head += line
		used += t
		kept++
	}
	if kept == 0 {
		head = sentences(strings.TrimRight(lines[0], "\n"), c.counter.CountCached, keep)
	}
	rest := len(lines) - kept // the lines not shown whole
	if rest > 0 && lines[len(lines)-1] == "" {
		rest--
	}
	if kept == 0 {
		rest-- // the first, shown in part
	}
	if head != "" && !strings.HasSuffix(head, "\n") {
		head += " "
	}
	left := n - c.countText(head)
	if rest <= 0 {
		return head + fmt.Sprintf("[swc:%s … %d tokens left out]", handle, left), true
	}
	return head + fmt.Sprintf("[swc:%s … %d more lines, %d tokens left out]", handle, rest, left), true
}
