package observe

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Brief returns what a line standing for a whole observation (a dropped
// call's line in a tool loop's memory) says of its output, in about n
// bytes: the outcome a stub's first line gives (exit status or error
// mark, a test run's summary, a raised exception), the output's line
// count, and then the one thing most worth naming in what is left:
//   - the first diagnostic headline ("ERROR: No replacement was
//     performed…", "x.c:12:5: error: …", "- [ts Error] Line 291: …");
//     a file view has none, and a line that reads as code or settings
//     (`FAILED = 2`, `ERROR_NOT_FOUND,`, `  error: red`) is none;
//   - of a listing (file names or paths, one a line: ls, find, Glob, a
//     list_files result) or of search hits ("path:12: text"), the
//     entries or files, in order, their common directory left out;
//   - of code (a file view), the names its definitions define, in order;
//   - a one-line output that holds an identifier its call lacks (the
//     path a search found);
//   - the names the code the call wrote defines ("defines …");
//   - a short one-line output with no identifier ("No matches found").
//
// What a tool loop wraps around the output is not counted: the tags and
// status lines a stub's outcome reads, and the header and trailing
// <environment_details> of an agent that answers calls in its user's
// text ("[read_file for 'a.ts'] Result:"). The result is the same for
// the same observation in any process.
func Brief(o Observation, n int) string {
	body, exit, hasExit := unwrap(o.output())
	body = resultBody(body)
	var parts []string
	switch {
	case hasExit:
		parts = append(parts, "exit "+strconv.Itoa(exit))
	case o.IsError:
		parts = append(parts, "error")
	}
	if s := testSummary(body); s != "" {
		parts = append(parts, s)
	}
	if e := exception(body); e != "" {
		parts = append(parts, clip(e, 60))
	}
	if strings.TrimSpace(body) == "" {
		return wrote(o, strings.Join(append(parts, "no output"), ", "), n)
	}
	lines := strings.Count(body, "\n") + 1
	if lines == 1 {
		parts = append(parts, "1 line")
	} else {
		parts = append(parts, strconv.Itoa(lines)+" lines")
	}
	out := strings.Join(parts, ", ")
	room := n - len(out) - 2
	if h := headline(body); h != "" {
		return out + ", " + clip(h, max(room, 24))
	}
	if room < 16 {
		return out
	}
	if names := entries(body, lines); len(names) > 0 {
		return out + ": " + fitNames(names, room)
	}
	if names := defined(body, room); len(names) > 0 {
		return out + ": " + fitNames(names, room)
	}
	say := nothingNew
	if lines == 1 {
		say = saysMore(body, o.Arguments)
	}
	if say == newIDs {
		return out + ": " + clip(strings.Join(strings.Fields(body), " "), room)
	}
	if w := wrote(o, out, n); w != out || say != short {
		return w
	}
	return out + ": " + clip(strings.Join(strings.Fields(body), " "), room)
}

// What a one-line output says beyond its call (saysMore).
const (
	nothingNew = iota
	newIDs     // an identifier the call's arguments lack: a path a search found
	short      // no identifier and short: "No matches found"
)

// saysMoreBytes bounds what saysMore reads of a one-line output.
const saysMoreBytes = 4 << 10

// saysMore tells what a one-line output says beyond its call: newIDs
// when it holds an identifier the call's arguments do not (not the path
// an edit's "The file a.go has been updated." repeats), short when it
// holds none and is short, else nothingNew. Only the line's first
// saysMoreBytes are read, and the arguments' identifiers once.
func saysMore(line, args string) int {
	if len(line) > saysMoreBytes {
		line = line[:saysMoreBytes]
	}
	ids := Identifiers(line)
	if len(ids) == 0 {
		if len(line) <= 48 {
			return short
		}
		return nothingNew
	}
	have := map[string]bool{}
	for _, id := range Identifiers(args) {
		have[id] = true
	}
	for _, id := range ids {
		if !have[id] {
			return newIDs
		}
	}
	return nothingNew
}

// wrote returns out and, in what is left of n bytes, the names that the
// code the call wrote defines ("…, defines ReviewTokenStore start_link
// …"): a file's content, an edit's new string, a patch's added lines, a
// text-acting agent's heredoc. What the agent wrote is what its later
// turns name.
func wrote(o Observation, out string, n int) string {
	const mark = ", defines "
	room := n - len(out) - len(mark)
	if room < 16 {
		return out
	}
	if names := defined(written(o), room); len(names) > 0 {
		return out + mark + fitNames(names, room)
	}
	return out
}

// written returns the code a call writes: of JSON arguments, the values
// of content, file_text, new_str, new_string and code, an edits list's
// new strings, and a patch's (patch, input) added lines; of a
// text-acting agent's command, its lines after the first (a heredoc's
// body; the command line itself is no code it wrote).
func written(o Observation) string {
	if o.Tool == "" {
		_, rest, _ := strings.Cut(o.Arguments, "\n")
		return rest
	}
	args := strings.TrimSpace(o.Arguments)
	if !strings.HasPrefix(args, "{") {
		return ""
	}
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return ""
	}
	var b strings.Builder
	add := func(s string) {
		b.WriteString(s)
		b.WriteByte('\n')
	}
	for _, k := range []string{"content", "file_text", "new_str", "new_string", "code"} {
		if s, ok := m[k].(string); ok {
			add(s)
		}
	}
	if edits, ok := m["edits"].([]any); ok {
		for _, e := range edits {
			if e, ok := e.(map[string]any); ok {
				if s, ok := e["new_string"].(string); ok {
					add(s)
				}
			}
		}
	}
	for _, k := range []string{"patch", "input"} {
		if s, ok := m[k].(string); ok {
			for rest := s; rest != ""; {
				line, next, _ := strings.Cut(rest, "\n")
				rest = next
				if a, ok := strings.CutPrefix(line, "+"); ok && !strings.HasPrefix(a, "++") {
					add(a)
				}
			}
		}
	}
	return b.String()
}

// resultBody returns body without the header of a result that answers a
// call written in XML tags ("[read_file for 'a.ts'] Result:", which may
// span lines when the call's value does) and without a trailing
// <environment_details> block (the editor's state an agent appends to
// each message), without the blank lines around it.
func resultBody(body string) string {
	if resultHeader(body) {
		const mark = "] Result:"
		for k := 0; k <= maxHeaderBytes+len(mark); {
			j := strings.Index(body[k:], mark)
			if j < 0 {
				break
			}
			if end := k + j + len(mark); lineEnds(body[end:]) {
				if _, rest, ok := strings.Cut(body[end:], "\n"); ok {
					body = rest
				} else {
					body = ""
				}
				break
			}
			k += j + 1
		}
	}
	if strings.HasSuffix(strings.TrimRight(body, " \n"), "</environment_details>") {
		if i := strings.LastIndex(body, "<environment_details>"); i >= 0 {
			body = body[:i]
		}
	}
	return strings.Trim(body, "\n")
}

// headline returns the first diagnostic headline of body (or an
// editor's problem line, "- [ts Error] Line 291: …", which an agent
// writing files in XML tags is told), its spaces collapsed; a bare
// "ERROR:" takes the line after it too. A file view (its first lines
// numbered) has none, nor has a line that reads as code or settings
// (codeLike).
func headline(body string) string {
	if isView(body) {
		return ""
	}
	for rest := body; rest != ""; {
		line, next, _ := strings.Cut(rest, "\n")
		rest = next
		if !strings.Contains(line, " Error] ") && (diagnostic(line) != diagHead || codeLike(line)) {
			continue
		}
		h := strings.Join(strings.Fields(line), " ")
		if len(h) < 16 && rest != "" {
			more, _, _ := strings.Cut(rest, "\n")
			h += " " + strings.Join(strings.Fields(more), " ")
		}
		return h
	}
	return ""
}

// isView reports whether body is a numbered file view: its first three
// non-empty lines (or all, when fewer) carry a view's line number.
func isView(body string) bool {
	seen := 0
	for rest := body; rest != "" && seen < 3; {
		line, next, _ := strings.Cut(rest, "\n")
		rest = next
		if strings.TrimSpace(line) == "" {
			continue
		}
		if viewPrefix(line) == 0 {
			return false
		}
		seen++
	}
	return seen > 0
}

// codeLike reports whether a line that reads as a diagnostic is more
// likely code, settings or a list item: it ends as a statement or an
// item does (',', ';', '{'), assigns (" = ", "=>"), is an indented
// lowercase "error:" key, or a Markdown bullet.
func codeLike(line string) bool {
	t := strings.TrimSpace(line)
	if t == "" {
		return true
	}
	switch t[len(t)-1] {
	case ',', ';', '{':
		return true
	}
	if strings.Contains(t, " = ") || strings.Contains(t, "=>") || strings.HasPrefix(t, "* ") {
		return true
	}
	return len(t) < len(line) && (strings.HasPrefix(t, "error:") || strings.HasPrefix(t, "error "))
}

// fitNames writes names in order, space-separated, in at most n bytes:
// all of them when they fit, else as many as fit before " …".
func fitNames(names []string, n int) string {
	total := len(names) - 1
	for _, s := range names {
		total += len(s)
	}
	if total <= n {
		return strings.Join(names, " ")
	}
	var b strings.Builder
	for i, s := range names {
		sep := 0
		if i > 0 {
			sep = 1
		}
		if b.Len()+sep+len(s)+len(" …") > n {
			if i == 0 {
				return clip(s, max(n-len("…"), 8))
			}
			b.WriteString(" …")
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	return b.String()
}
