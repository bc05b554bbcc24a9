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
//     source code that merely names an error (`throw new Error(…)`) is
//     none;
//   - of a listing (file names or paths, one a line: ls, find, Glob, a
//     list_files result) or of search hits ("path:12: text"), the
//     entries or files, in order, their common directory left out;
//   - of code (a file view), the names its definitions define, in order.
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
		parts = append(parts, e)
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
	say := 0
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

// saysMore tells what a one-line output says beyond its call: newIDs
// when it holds an identifier the call's arguments do not (not the path
// an edit's "The file a.go has been updated." repeats), short when it
// holds none and is short, else nothingNew.
func saysMore(line, args string) int {
	ids := Identifiers(line)
	for _, id := range ids {
		if !strings.Contains(args, id) {
			return newIDs
		}
	}
	if len(ids) == 0 && len(line) <= 48 {
		return short
	}
	return nothingNew
}

// wrote returns out and, in what is left of n bytes, the names that the
// code the call wrote defines ("…, defines ReviewTokenStore start_link
// …"): a file's content, an edit's new string, a patch's added lines, a
// text-acting agent's command (a heredoc). What the agent wrote is what
// its later turns name.
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
// text-acting agent's command, the command.
func written(o Observation) string {
	if o.Tool == "" {
		return o.Arguments
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
// call written in XML tags ("[read_file for 'a.ts'] Result:") and
// without a trailing <environment_details> block (the editor's state an
// agent appends to each message), without the blank lines around it.
func resultBody(body string) string {
	if resultHeader(body) {
		if _, rest, ok := strings.Cut(body, "\n"); ok {
			body = rest
		} else {
			body = ""
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
// "ERROR:" takes the line after it too.
func headline(body string) string {
	for rest := body; rest != ""; {
		line, next, _ := strings.Cut(rest, "\n")
		rest = next
		if diagnostic(line) != diagHead && !strings.Contains(line, " Error] ") {
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

// entries returns the entries of a listing or the files of search hits,
// their common directory cut, or nil when body is neither: at least two
// non-empty lines, nine in ten of them an entry (a path or a file name
// alone, a tree's "- " before it; or a bare name, as ls lists a
// directory, so long as half are paths or named files) or all of them
// hits ("path:12:…").
// lines is body's line count; the scan stops as soon as body cannot be
// either, and only a listing's entries are gathered.
func entries(body string, lines int) []string {
	n, named, notEntry, notHit := 0, 0, 0, 0
	for rest := body; rest != ""; {
		line, next, _ := strings.Cut(rest, "\n")
		rest = next
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		n++
		if _, ok := hitPath(t); ok {
			notEntry++
		} else {
			notHit++
			switch e := strings.TrimPrefix(t, "- "); {
			case entry(e):
				named++
			case !bareName(e):
				notEntry++
			}
		}
		if notHit > 0 && notEntry*10 > lines {
			return nil
		}
	}
	hits := notHit == 0
	if n < 2 || !hits && (notEntry*10 > n || named*2 < n) {
		return nil
	}
	var list []string
	var seen map[string]bool
	for rest := body; rest != ""; {
		line, next, _ := strings.Cut(rest, "\n")
		rest = next
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		if hits {
			if p, _ := hitPath(t); !seen[p] {
				if seen == nil {
					seen = map[string]bool{}
				}
				seen[p] = true
				list = append(list, p)
			}
		} else if t = strings.TrimPrefix(t, "- "); entry(t) || bareName(t) {
			list = append(list, t)
		}
	}
	if len(list) < 2 {
		return list
	}
	cut := commonDir(list)
	for i, e := range list {
		if len(e) > cut {
			list[i] = e[cut:]
		}
	}
	return list
}

// entry reports whether t is a path or a file name alone: a path (a '/'
// in it, at most three spaces inside its names) or a name with an
// extension ("app.ts", ".gitignore", no spaces), nothing a sentence, a
// version ("lazy_html 0.1.8") or a line of code holds.
func entry(t string) bool {
	if t == "" || len(t) > 200 || strings.ContainsAny(t, "\t(){}[]<>=;,:\"'`") || strings.Count(t, " ") > 3 {
		return false
	}
	if strings.HasSuffix(t, "/") {
		return true
	}
	if !isWord(t[len(t)-1]) {
		return false
	}
	if strings.IndexByte(t, '/') >= 0 {
		return true
	}
	dot := strings.LastIndexByte(t, '.')
	return dot >= 0 && dot < len(t)-1 && isAlpha(t[dot+1]) && strings.IndexByte(t, ' ') < 0
}

// bareName reports whether t is one name alone (a directory ls lists
// without a '/': "dsl", "node_modules"): letters, digits, '_', '-', '.'.
func bareName(t string) bool {
	if t == "" || len(t) > 80 {
		return false
	}
	for i := 0; i < len(t); i++ {
		if !isWord(t[i]) && t[i] != '-' && t[i] != '.' {
			return false
		}
	}
	return true
}

// hitPath returns the path of a search hit's line ("src/a.py:12:…",
// "src/a.py-13-…"): a path, a ':' or '-', a line number and the same
// separator again.
func hitPath(t string) (string, bool) {
	i := strings.IndexAny(t, ":-")
	for i > 0 {
		sep := t[i]
		j := i + 1
		for j < len(t) && isDigitB(t[j]) {
			j++
		}
		if j > i+1 && j < len(t) && t[j] == sep && strings.ContainsAny(t[:i], "/.") && !strings.ContainsAny(t[:i], " \t") {
			return t[:i], true
		}
		k := strings.IndexAny(t[i+1:], ":-")
		if k < 0 {
			break
		}
		i += 1 + k
	}
	return "", false
}

// commonDir returns the length of the directory (up to and with its last
// '/') that every one of list opens with.
func commonDir(list []string) int {
	p := list[0]
	for _, e := range list[1:] {
		i := 0
		for i < len(p) && i < len(e) && p[i] == e[i] {
			i++
		}
		p = p[:i]
	}
	return strings.LastIndexByte(p, '/') + 1
}

// defined returns the names body's definitions define, in order, each
// once: a function, method, class, type or interface of the usual
// languages, and a JavaScript `const f = (…) =>` or `= function`; the
// scan stops once the names fill more than n bytes.
func defined(body string, n int) []string {
	var names []string
	size := 0
	var seen map[string]bool
	for rest := body; rest != ""; {
		line, next, _ := strings.Cut(rest, "\n")
		rest = next
		code, _ := codeOf(line)
		name := defName(trimIndent(code))
		if name == "" && code != "" && code[0] != ' ' && code[0] != '\t' {
			name = headName(code)
		}
		if name != "" && !seen[name] {
			if seen == nil {
				seen = map[string]bool{}
			}
			seen[name] = true
			names = append(names, name)
			if size += len(name) + 1; size > n {
				break
			}
		}
	}
	return names
}

// defModifiers are the words a definition may open with before its kind.
var defModifiers = []string{"export ", "default ", "async ", "pub ", "public ", "private ", "protected ", "static ", "abstract ", "final ", "override ", "declare "}

// defKinds open a definition; the name follows.
var defKinds = []string{"def ", "class ", "func ", "fn ", "fun ", "function ", "function* ", "interface ", "type ", "struct ", "enum ", "trait ", "module ", "object ", "record ",
	"defmodule ", "defp ", "defmacro "}

// defName returns the name a definition's first line defines, or "".
func defName(t string) string {
	if t == "" || !defFirstAll[t[0]] {
		return ""
	}
	for again := true; again; {
		again = false
		for _, m := range defModifiers {
			if r, ok := strings.CutPrefix(t, m); ok {
				t, again = r, true
			}
		}
	}
	for _, k := range defKinds {
		if r, ok := strings.CutPrefix(t, k); ok {
			if k == "func " && strings.HasPrefix(r, "(") { // a Go method: its receiver first
				if i := strings.IndexByte(r, ')'); i > 0 {
					r = strings.TrimLeft(r[i+1:], " ")
				}
			}
			if k == "defmodule " { // a dotted name: Spotter.Services.Store
				i := 0
				for i < len(r) && (isWord(r[i]) || r[i] == '.') {
					i++
				}
				if nameAt(r) == "" {
					return ""
				}
				return strings.TrimRight(r[:i], ".")
			}
			return nameAt(r)
		}
	}
	for _, k := range []string{"const ", "let ", "var "} {
		if r, ok := strings.CutPrefix(t, k); ok {
			name := nameAt(r)
			v, ok := strings.CutPrefix(strings.TrimLeft(r[len(name):], " "), "=")
			if name == "" || !ok {
				return ""
			}
			v = strings.TrimPrefix(strings.TrimLeft(v, " "), "async ")
			if strings.HasPrefix(v, "(") && strings.Contains(v, "=>") || strings.HasPrefix(v, "function") {
				return name
			}
			return ""
		}
	}
	return ""
}

// headName returns the name an unindented C-like function head defines
// ("static int parse_x(parser_t* p)", "void Foo::bar() {"): the name
// right before its first '(', after a type of at most a few words, the line
// ending as a head does (in ')', '{', ',' or '('; not a statement's ';'
// nor a sentence's '.'), no '=' or keyword before the name; or "".
func headName(code string) string {
	t := strings.TrimRight(code, " \r")
	i := strings.IndexByte(t, '(')
	if i <= 0 || !isWord(t[i-1]) || !isAlpha(t[0]) || !strings.ContainsRune("){,(", rune(t[len(t)-1])) {
		return ""
	}
	before := strings.TrimRight(t[:i], " ")
	sp := strings.LastIndexAny(before, " *&")
	if sp <= 0 || strings.ContainsAny(before, "=.,\"'") || strings.Count(before, " ") > 4 {
		return ""
	}
	first, _, _ := strings.Cut(before, " ")
	switch first {
	case "return", "if", "for", "while", "switch", "else", "await", "new", "throw", "case", "yield", "delete", "typeof", "do", "echo", "print", "assert", "raise", "del", "not", "and", "or", "in", "is", "go", "defer", "select":
		return ""
	}
	name := before[sp+1:]
	if j := strings.LastIndex(name, "::"); j >= 0 {
		name = name[j+2:]
	}
	if nameAt(name) != name {
		return ""
	}
	return name
}

// defFirstAll holds the first bytes of the words defName looks for.
var defFirstAll = firstBytes(append(append(append([]string{}, defModifiers...), defKinds...), "const ", "let ", "var "))

// nameAt returns the identifier s opens with ("" when none).
func nameAt(s string) string {
	i := 0
	for i < len(s) && (isWord(s[i]) || s[i] == '$') {
		i++
	}
	if i == 0 || isDigitB(s[0]) {
		return ""
	}
	return s[:i]
}

// fitNames writes names in order, space-separated, in at most n bytes: a
// name that does not fit ends the list with "…".
func fitNames(names []string, n int) string {
	var b strings.Builder
	for i, s := range names {
		need := b.Len() + 1 + len(s)
		if i < len(names)-1 {
			need += len(" …")
		}
		if need > n {
			if i == 0 {
				return clip(s, max(n-3, 8))
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
