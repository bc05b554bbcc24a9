package observe

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Bounds of a stub's first line.
const (
	maxCallBytes  = 64 // the call: tool name and arguments, or the command
	maxValueBytes = 40 // one argument's value (a path keeps its end)
)

// callText returns the call as a stub's first line names it: "name(args)"
// with the arguments shortened, or "$ command" for an agent that acts in
// text, or "" when there is neither.
func callText(o Observation) string {
	if o.Tool == "" {
		cmd := strings.TrimSpace(o.Arguments)
		if cmd == "" {
			return ""
		}
		return "$ " + clip(firstLine(cmd), maxCallBytes)
	}
	args := shortArgs(o.Arguments)
	return clip(o.Tool+"("+args, maxCallBytes+len(o.Tool)) + ")"
}

// contentKeys name arguments that carry file contents or patches: the
// call's own turn holds them, a stub names them only.
var contentKeys = map[string]bool{
	"old_str": true, "new_str": true, "file_text": true, "content": true, "new_string": true,
	"old_string": true, "patch": true, "input": true, "code": true, "text": true, "edits": true,
}

// shortArgs renders JSON arguments as "v1, key=v2, …": string values
// unkeyed when they are the first or a command or path, on one line and
// clipped; contents elided; objects and arrays short or elided. Text that
// is no JSON object is clipped as it is.
func shortArgs(args string) string {
	args = strings.TrimSpace(args)
	if args == "" || args == "{}" {
		return ""
	}
	dec := json.NewDecoder(strings.NewReader(args))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return clip(firstLine(args), maxValueBytes)
	}
	var b strings.Builder
	for i := 0; dec.More(); i++ {
		t, err := dec.Token()
		if err != nil {
			break
		}
		key, _ := t.(string)
		var v any
		if err := dec.Decode(&v); err != nil {
			break
		}
		part := ""
		switch v := v.(type) {
		case nil:
			continue
		case string:
			switch {
			case contentKeys[key]:
				part = key + "=…"
			case key == "path" || key == "file_path":
				part = clipPath(firstLine(v), maxValueBytes)
			case i == 0 || key == "command" || key == "cmd" || key == "pattern":
				part = clip(firstLine(v), maxValueBytes)
			default:
				part = key + "=" + clip(firstLine(v), maxValueBytes)
			}
		case json.Number:
			part = key + "=" + v.String()
		case bool:
			part = key + "=" + strconv.FormatBool(v)
		case []any:
			if words, ok := allStrings(v); ok && (i == 0 || key == "command" || key == "cmd" || key == "argv") {
				part = clip(firstLine(strings.Join(words, " ")), maxValueBytes) // Codex's ["bash", "-lc", "make"]
				break
			}
			raw, _ := json.Marshal(v)
			part = key + "=" + clip(string(raw), maxValueBytes/2)
		default:
			raw, _ := json.Marshal(v)
			part = key + "=" + clip(string(raw), maxValueBytes/2)
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(part)
		if b.Len() > maxCallBytes {
			break
		}
	}
	return b.String()
}

// allStrings returns the elements of v when all are strings.
func allStrings(v []any) ([]string, bool) {
	out := make([]string, len(v))
	for i, e := range v {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

// firstLine returns s's first line, with " …" when more lines follow.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimRight(s[:i], " \r\t") + " …"
	}
	return s
}

// clipPath cuts path p to at most about n bytes from its start, at a
// slash when one is near, marking the cut with "…": a path's end names
// the file.
func clipPath(p string, n int) string {
	if len(p) <= n {
		return p
	}
	at := len(p) - n
	if k := strings.IndexByte(p[at:], '/'); k >= 0 && k < n/2 {
		at += k
	}
	for at < len(p) && p[at]&0xC0 == 0x80 {
		at++
	}
	return "…" + p[at:]
}

// clip cuts s to at most n bytes (on a character boundary), marking the
// cut with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
