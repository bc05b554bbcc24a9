package memory

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// callBytes is the most bytes of a dropped call's arguments in its memory
// line (dropLine).
const callBytes = 48

// callValueBytes is the least a word is cut to to fit a call's line:
// with less room left, it is left out.
const callValueBytes = 14

// callSummary returns a dropped call as its memory line shows it: what
// the call was on, in at most callBytes bytes of arguments. Of a JSON
// object, its members' values in order without names or quotes (`view
// /workspace/…/pass/syntax.c`, not `{"command": "view", "path":
// "/workspace/pon…`); of a call in XML tags (xmlCommand's first line,
// `read file(path=src/a.ts)` and the call), its tag's name and its
// parameters' values (`read_file(src/a.ts)`); of a shell command, the
// command without a leading `cd DIR &&` (so too a JSON member named
// command, cmd or script). The values' words go in order (fitValues): a
// word too long keeps its start and its end (a path's file name) around
// "…", and the words that do not fit after it are left out. With a tool,
// the result is tool(arguments).
func callSummary(tool, args string) string {
	var values []string
	if tool == "" {
		if line, rest, ok := strings.Cut(args, "\n"); ok && strings.HasPrefix(rest, "<") && strings.HasSuffix(line, ")") {
			i, j := strings.IndexByte(line, '('), strings.IndexByte(rest, '>')
			xc, isCall := xmlCallOf(rest)
			if isCall && i > 0 && j > 1 && line[:i] == xmlNameWords.Replace(rest[1:j]) {
				tool = rest[1:j]              // the tag's name, as the agent writes it
				for _, v := range xc.values { // the values xmlCommand writes out
					if val := strings.TrimSpace(rest[v[0]:v[1]]); val != "" && len(val) <= xmlArgBytes && !strings.ContainsAny(val, "\r\n") {
						values = append(values, val)
					}
				}
			}
		}
		if tool == "" {
			values = []string{shellCommand(args)}
		}
	} else {
		values = argValues(args)
	}
	var words []string // each value's words: the longest are cut first
	for _, v := range values {
		words = append(words, strings.Fields(v)...)
	}
	s := fitValues(words, callBytes)
	if tool == "" {
		return s
	}
	return tool + "(" + s + ")"
}

// argValues returns the values of a JSON object's members in order
// (strings unquoted, lists and objects as compact JSON, nulls, falses and
// empty strings left out), or args itself when it is no object or has
// nothing else.
func argValues(args string) []string {
	t := strings.TrimSpace(args)
	if !strings.HasPrefix(t, "{") {
		return []string{t}
	}
	dec := jsontext.NewDecoder(strings.NewReader(t), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if _, err := dec.ReadToken(); err != nil {
		return []string{t}
	}
	var out []string
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil {
			break
		}
		command := shellMembers[name.String()]
		v, err := dec.ReadValue()
		if err != nil {
			break
		}
		switch v.Kind() {
		case 'n', 'f': // null, false: an option left off says nothing
		case '"':
			var s string
			if json.Unmarshal(v, &s) == nil && strings.TrimSpace(s) != "" {
				if command {
					s = shellCommand(s) // "command": "cd DIR && …"
				}
				out = append(out, s)
			}
		default:
			out = append(out, string(v))
		}
	}
	if len(out) == 0 && len(t) > 2 {
		return []string{t}
	}
	return out
}

// shellMembers name the members of a call's arguments that hold a shell
// command.
var shellMembers = map[string]bool{"command": true, "cmd": true, "script": true}

// shellCommand returns a command without a leading `cd DIR &&` or `cd
// DIR;` (where an agent runs everything from), when more follows.
func shellCommand(cmd string) string {
	c := strings.TrimSpace(cmd)
	if !strings.HasPrefix(c, "cd ") {
		return c
	}
	for _, sep := range []string{"&&", ";"} {
		if i := strings.Index(c, sep); i > 0 && !strings.ContainsAny(c[:i], "\n|&;") {
			if rest := strings.TrimSpace(c[i+len(sep):]); rest != "" {
				return rest
			}
		}
	}
	return c
}

// fitValues joins words with spaces in at most n bytes, in order: a word
// over 3/4 of n is cut in its middle to that (cutMiddle) first; one that
// does not fit what is left is cut to it when that is at least
// callValueBytes, and the words after it are left out ("…").
func fitValues(words []string, n int) string {
	var b strings.Builder
	for i, w := range words {
		w = cutMiddle(w, n*3/4)
		room := n - b.Len()
		if i > 0 {
			room--
		}
		if len(w) > room {
			if room >= callValueBytes {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(cutMiddle(w, room))
			}
			if i < len(words)-1 || room < callValueBytes {
				b.WriteString("…")
			}
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}

// cutMiddle returns s in at most n bytes: its first third and its end
// around "…" (whole characters), or s when it fits.
func cutMiddle(s string, n int) string {
	const mark = "…"
	if len(s) <= n || n <= len(mark)+2 {
		return s
	}
	head := (n - len(mark)) / 3
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	tail := len(s) - (n - len(mark) - head)
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + mark + s[tail:]
}
