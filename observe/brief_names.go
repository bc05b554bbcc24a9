package observe

import "strings"

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

// defName returns the name a definition's first line defines, or "":
// the kind, then the name, then what a definition goes on with (defAfter),
// so that prose and comments that open with such a word ("type of
// value", "function or an array") define nothing.
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
		r, ok := strings.CutPrefix(t, k)
		if !ok {
			continue
		}
		switch {
		case k == "func " && strings.HasPrefix(r, "("): // a Go method: its receiver first
			if i := strings.IndexByte(r, ')'); i > 0 {
				r = strings.TrimLeft(r[i+1:], " ")
			}
		case k == "def ": // Ruby's class method
			r = strings.TrimPrefix(r, "self.")
		}
		name := nameAt(r)
		if k == "defmodule " && name != "" { // a dotted name: Spotter.Services.Store
			i := len(name)
			for i < len(r) && (isWord(r[i]) || r[i] == '.' && i+1 < len(r) && isAlpha(r[i+1])) {
				i++
			}
			name = r[:i]
		}
		if name == "" || !defAfter(k, r[len(name):]) {
			return ""
		}
		return name
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

// defAfterWords may follow a definition's name after a space.
var defAfterWords = []string{"{", "(", "=", ":", "<", "do", "extends", "implements", "struct", "interface", "where", "is", "as", "->"}

// defAfter reports whether rest, what follows a definition's name on its
// line, goes on as a definition does: nothing, an opening bracket,
// ':', '=', ';', ',', or a word such as "extends" or "do"; after Go's
// "type X", one type (`int`, `[]string`, `map[K]V`).
func defAfter(kind, rest string) bool {
	if rest == "" {
		return true
	}
	if strings.ContainsRune("({:<[=;,", rune(rest[0])) {
		return true
	}
	if rest[0] != ' ' {
		return false
	}
	r := strings.TrimSpace(rest)
	if r == "" {
		return true
	}
	for _, w := range defAfterWords {
		if strings.HasPrefix(r, w) && (len(r) == len(w) || !isWord(r[len(w)]) || !isWord(w[len(w)-1])) {
			return true
		}
	}
	return kind == "type " && strings.IndexByte(r, ' ') < 0
}

// headName returns the name an unindented C-like function head defines
// ("static int parse_x(parser_t* p)", "void Foo::bar() {"): the name
// right before its first '(', after a type of at most a few words, the
// line ending as a head does (in ')', '{', ',' or '('; not a statement's
// ';' nor a sentence's '.') with nothing but qualifiers after the
// parameters' ')', no '=' or keyword before the name; or "".
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
	case "return", "if", "for", "while", "switch", "else", "await", "new", "throw", "case", "yield", "delete", "typeof", "do", "echo", "print", "assert", "raise", "del", "not", "and", "or", "in", "is", "go", "defer", "select", "export", "default", "module":
		return ""
	}
	if !paramsClose(t[i:]) {
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

// paramsClose reports whether params, a head's text from its '(', closes
// as a function head does: the parameters' ')' followed by nothing, '{'
// or a qualifier (const, noexcept, override, throws), or no ')' on the
// line (the parameters go on below).
func paramsClose(params string) bool {
	depth := 0
	for i := 0; i < len(params); i++ {
		switch params[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				r := strings.TrimSpace(params[i+1:])
				if r == "" || r[0] == '{' {
					return true
				}
				for _, w := range []string{"const", "noexcept", "override", "throws", "->"} {
					if strings.HasPrefix(r, w) {
						return true
					}
				}
				return false
			}
		}
	}
	return true
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
