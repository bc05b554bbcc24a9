package observe

import "strings"

// What a line is: its size in tokens as estimated, a file view's
// line-number prefix, a diagnostic, a definition.

// estimate is about how many cl100k_base tokens t has, without the
// tokenizer: a token per run of letters (one more per 8 letters past the
// first 8), per 3 digits, per 2 punctuation bytes (per 16 of one
// repeated), per run of spaces (a single space before letters or
// punctuation is theirs), per non-ASCII character.
func estimate(t string) int {
	n := 0
	for i := 0; i < len(t); {
		c := t[i]
		j := i + 1
		switch {
		case 'a' <= c|0x20 && c|0x20 <= 'z':
			for j < len(t) && 'a' <= t[j]|0x20 && t[j]|0x20 <= 'z' {
				j++
			}
			n += 1 + max(j-i-8, 0)/8
		case isDigitB(c):
			for j < len(t) && isDigitB(t[j]) {
				j++
			}
			n += (j - i + 2) / 3
		case c == ' ' || c == '\t':
			for j < len(t) && (t[j] == ' ' || t[j] == '\t') {
				j++
			}
			if j < len(t) && j-i == 1 && t[j] != '\t' && !isDigitB(t[j]) {
				i = j
				continue // a space before a word or punctuation is theirs
			}
			n++
		case c >= 0x80:
			for j < len(t) && t[j]&0xC0 == 0x80 {
				j++
			}
			n++
		default:
			same := true
			for j < len(t) && t[j] > ' ' && t[j] < 0x80 && !isWord(t[j]) {
				same = same && t[j] == c
				j++
			}
			if same {
				n += 1 + (j-i)/16 // "=====": long runs are single tokens
			} else {
				n += (j - i + 1) / 2
			}
		}
		i = j
	}
	return n
}

// viewPrefix returns the length of a file view's line-number prefix
// ("   123\t", "   123→", "123:" not before a digit), or 0.
func viewPrefix(t string) int {
	i := 0
	for i < len(t) && t[i] == ' ' {
		i++
	}
	j := i
	for j < len(t) && isDigitB(t[j]) {
		j++
	}
	if j == i || j >= len(t) {
		return 0
	}
	switch {
	case t[j] == '\t':
		return j + 1
	case strings.HasPrefix(t[j:], "→"):
		return j + len("→")
	case t[j] == ':' && i == 0 && (j+1 == len(t) || !isDigitB(t[j+1])):
		return j + 1 // SWE-agent's viewer, grep -n of one file: "123:code"
	}
	return 0
}

// locationPrefix returns the length of a line's leading location, a
// path or file name and a line number, "a/b.go:12:" or "x.c:12:5:" (grep
// -n of several files, a compiler's message), or 0.
func locationPrefix(t string) int {
	i := 0
	for i < len(t) && t[i] != ':' && t[i] != ' ' && t[i] != '\t' {
		i++
	}
	if i == 0 || i == len(t) || t[i] != ':' || strings.IndexAny(t[:i], "./") < 0 {
		return 0
	}
	end := 0
	for k := 0; k < 2; k++ { // a line, then maybe a column
		j := i + 1
		for j < len(t) && isDigitB(t[j]) {
			j++
		}
		if j == i+1 || j == len(t) || t[j] != ':' {
			break
		}
		i, end = j, j+1
	}
	return end
}

// viewNumber returns the line number of a file view's line-number
// prefix, or -1.
func viewNumber(t string) int32 {
	n := viewPrefix(t)
	if n == 0 {
		return -1
	}
	t = strings.TrimLeft(t[:n], " ")
	v := int32(0)
	for i := 0; i < len(t) && isDigitB(t[i]); i++ {
		if v > 1<<27 {
			return -1
		}
		v = v*10 + int32(t[i]-'0')
	}
	return v
}

// codeOf returns a line's code without a file view's line-number prefix,
// and whether it had one.
func codeOf(t string) (string, bool) {
	if n := viewPrefix(t); n > 0 {
		return t[n:], true
	}
	return t, false
}

// Kinds of diagnostic lines.
const (
	diagNone = iota
	diagLine // part of a diagnostic: a traceback's frame or header, pytest's "E" lines
	diagHead // a diagnostic's headline: an exception raised, a failing test, an error message
)

// diagnostic tells whether a line reads as a diagnostic, and which kind.
// Source code that merely names errors ("except ValueError:", "raise
// NotSupportedError(") is none.
func diagnostic(t string) int {
	tt := trimIndent(t)
	if tt == "" {
		return diagNone
	}
	if headFirst[tt[0]] {
		for _, p := range headStarts {
			if strings.HasPrefix(tt, p) && (p != "** (" || beamError(tt[len(p):])) {
				return diagHead
			}
		}
	}
	if strings.Contains(t, "rror") {
		for _, p := range headMarks {
			if strings.Contains(t, p) {
				return diagHead
			}
		}
	}
	for _, p := range headEnds {
		if strings.HasSuffix(tt, p) {
			return diagHead
		}
	}
	if lineFirst[tt[0]] {
		for _, p := range lineStarts {
			if strings.HasPrefix(tt, p) {
				return diagLine
			}
		}
	}
	if len(tt) < len(t) {
		// An indented "x_test.go:42: got 1, want 2" (go test's failure text).
		if i := strings.Index(tt, "_test.go:"); i > 0 && strings.IndexByte(tt[:i], ' ') < 0 {
			return diagLine
		}
		return diagNone
	}
	if !isAlpha(tt[0]) {
		return diagNone
	}
	// An unindented "pkg.SomeError: message" or "SomeError" line.
	i := 0
	for i < len(tt) && (isWord(tt[i]) || tt[i] == '.') {
		i++
	}
	name := tt[:i]
	if i < len(tt) && tt[i] != ':' {
		return diagNone
	}
	for _, suffix := range []string{"Error", "Exception", "Exit", "Interrupt", "Failure"} {
		if strings.HasSuffix(name, suffix) {
			return diagHead
		}
	}
	return diagNone
}

// headStarts open a diagnostic's headline (after indentation).
var headStarts = []string{
	"FAILED", "FAIL:", "FAIL\t", "--- FAIL", "ERROR", "Error:", "error:", "error[",
	"fatal:", "fatal error:", "panic:", "make: ***", "AssertionError", "thread '",
	// Maven's "[ERROR] /src/A.java:[12,5] cannot find symbol", a JVM's
	// "Exception in thread "main" java.lang.X" and its "Caused by: …",
	// Jest's "● Suite › test".
	"[ERROR]", "Exception in thread", "Caused by:", "● ",
	// Elixir's and Erlang's "** (RuntimeError) message" (beamError).
	"** (",
}

// beamError reports whether s, what follows "** (", is an Elixir or
// Erlang error's name and its ')': "RuntimeError) boom", "exit)
// exited in", "Mix) Could not" — not a C block comment's "** (a virtual
// table) …".
func beamError(s string) bool {
	i := 0
	for i < len(s) && (isWord(s[i]) || s[i] == '.') {
		i++
	}
	return i > 0 && i < len(s) && s[i] == ')'
}

// headMarks are headlines inside a line: a compiler's "x.c:12:5: error:",
// eslint's "12:5  error  'x' is not defined".
var headMarks = []string{": error:", ": error ", ": fatal error:", " Error: ", "] Error ", "  error  "}

// headEnds close a failing test's line: pytest -v's "test_x FAILED",
// unittest's "test_x (m.C) ... FAIL" or "... ERROR".
var headEnds = []string{" FAILED", " ... FAIL", " ... ERROR", " ERROR"}

// lineStarts open the other lines of a diagnostic.
var lineStarts = []string{"Traceback (", "File \"", "E   ", "at ", "During handling of the above exception", "--> "}

// headFirst and lineFirst hold the first bytes of headStarts and
// lineStarts: most lines are ruled out by one look.
var headFirst, lineFirst = firstBytes(headStarts), firstBytes(lineStarts)

func firstBytes(list []string) (set [256]bool) {
	for _, p := range list {
		set[p[0]] = true
	}
	return set
}

// definition reports whether code opens a definition: def, class, func,
// fn, type, struct, interface, impl, function; or an unindented C-like
// function head ("static int f(…)" not ending in ";").
func definition(code string) bool {
	t := trimIndent(code)
	if t != "" && defFirst[t[0]] {
		for _, p := range defWords {
			if strings.HasPrefix(t, p) {
				return true
			}
		}
	}
	if t == code && t != "" && isAlpha(t[0]) && strings.IndexByte(t, '(') > 0 && !strings.HasSuffix(t, ";") {
		for _, p := range []string{"return", "if", "for", "while", "switch", "else"} {
			if strings.HasPrefix(t, p) {
				return false
			}
		}
		return true
	}
	return false
}

var defWords = []string{"def ", "async def ", "class ", "func ", "fn ", "pub fn ", "pub struct ", "pub enum ", "type ", "struct ", "interface ", "impl ", "function ", "export function ", "export class ", "module ", "package "}

var defFirst = firstBytes(defWords)

// trimIndent returns t without its leading spaces and tabs.
func trimIndent(t string) string {
	i := 0
	for i < len(t) && (t[i] == ' ' || t[i] == '\t') {
		i++
	}
	return t[i:]
}
