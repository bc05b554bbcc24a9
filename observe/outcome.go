package observe

import (
	"encoding/json"
	"strconv"
	"strings"
)

// unwrap strips what a tool loop wrapped around an output and returns the
// output's own text and the exit status the wrapping gave (ok false when
// none): a JSON envelope {"output": …, "metadata": {"exit_code": N}},
// terminal escape sequences,
// mini-swe-agent's <returncode>/<output>/<warning> tags, <system-reminder>
// blocks, an "OBSERVATION:" label, leading status lines ("Exit code: N",
// "Wall time: …", "Output:") and trailing ones ("[The command completed
// with exit code N.]", "[Current working directory: …]").
func unwrap(out string) (body string, exit int, ok bool) {
	body = strings.Trim(out, "\n")
	if strings.HasPrefix(body, `{"output"`) {
		var env struct {
			Output   *string `json:"output"`
			Metadata struct {
				ExitCode *int `json:"exit_code"`
			} `json:"metadata"`
		}
		if json.Unmarshal([]byte(body), &env) == nil && env.Output != nil {
			body = strings.Trim(*env.Output, "\n")
			if env.Metadata.ExitCode != nil {
				exit, ok = *env.Metadata.ExitCode, true
			}
		}
	}
	if strings.Contains(body, "\x1b[") {
		body = stripANSI(body)
	}
	if strings.Contains(body, "<system-reminder>") {
		body = cutBlocks(body, "<system-reminder>", "</system-reminder>")
	}
	if rest, found := cutPrefixFold(body, "observation:"); found {
		body = strings.TrimLeft(rest, " \n")
	}
	if rest, found := strings.CutPrefix(body, "<returncode>"); found {
		if i := strings.Index(rest, "</returncode>"); i >= 0 {
			if n, err := strconv.Atoi(strings.TrimSpace(rest[:i])); err == nil {
				exit, ok = n, true
			}
			body = rest[i+len("</returncode>"):]
		}
	}
	if strings.HasPrefix(strings.TrimLeft(body, "\n "), "<") {
		body = untag(body)
	}
	// Leading status lines.
	for body != "" {
		line, rest, _ := strings.Cut(body, "\n")
		t := strings.TrimSpace(line)
		if exitLine(t) {
			if !ok {
				exit, ok = exitValue(t), true
			}
		} else if !hasPrefixFold(t, "wall time:") && t != "Output:" && !hasPrefixFold(t, "chunk id:") && !hasPrefixFold(t, "original token count:") {
			break
		}
		body = rest
	}
	// Trailing status lines.
	for body != "" {
		i := strings.LastIndexByte(body, '\n')
		t := strings.TrimSpace(body[i+1:])
		if !strings.HasPrefix(t, "[") || !strings.HasSuffix(t, "]") {
			break
		}
		if k := strings.Index(strings.ToLower(t), "exit code"); k >= 0 {
			if !ok {
				exit, ok = exitValue(t[k:]), true
			}
		} else if !hasPrefixFold(t, "[current working directory:") && !hasPrefixFold(t, "[python interpreter:") && !hasPrefixFold(t, "[jupyter current working directory:") {
			break
		}
		body = body[:max(i, 0)]
	}
	return strings.Trim(body, "\n"), exit, ok
}

// stripANSI removes terminal escape sequences (colours, cursor moves:
// ESC [ parameters final-byte) from s.
func stripANSI(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			break
		}
		b.WriteString(s[:i])
		j := i + 2
		for j < len(s) && (s[j] < 0x40 || s[j] > 0x7E) {
			j++
		}
		s = s[min(j+1, len(s)):]
	}
	b.WriteString(s)
	return b.String()
}

// cutBlocks removes every block from open to close (inclusive) of s.
func cutBlocks(s, open, close string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, open)
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], close)
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		s = s[i+j+len(close):]
	}
	if b.Len() == 0 {
		return s
	}
	b.WriteString(s)
	return b.String()
}

// untag removes mini-swe-agent's output tags (each becomes a line break)
// and its <warning> text about long outputs.
func untag(s string) string {
	if i := strings.Index(s, "<warning>"); i >= 0 {
		if j := strings.Index(s[i:], "</warning>"); j >= 0 {
			s = s[:i] + s[i+j+len("</warning>"):]
		}
	}
	return replaceTags(s)
}

// tagPairs are mini-swe-agent's output tags and what each becomes, in
// order: where two match at one place, the first is replaced (as
// strings.NewReplacer of them would: TestReplaceTags).
var tagPairs = [...][2]string{
	{"<output>\n", ""}, {"\n</output>", ""}, {"<output>", ""}, {"</output>", ""},
	{"<output_head>\n", ""}, {"\n</output_head>", ""}, {"<output_head>", ""}, {"</output_head>", ""},
	{"<output_tail>\n", ""}, {"\n</output_tail>", ""}, {"<output_tail>", ""}, {"</output_tail>", ""},
	{"<elided_chars>\n", "… "}, {"\n</elided_chars>", ""}, {"<elided_chars>", "… "}, {"</elided_chars>", ""},
	{"<stdout>", ""}, {"</stdout>", ""}, {"<stderr>", ""}, {"</stderr>", ""},
}

// replaceTags replaces tagPairs in s from left to right, without
// overlaps. Every tag opens with "<" or "\n<", so only the places of a
// "<" are looked at (a replacer of the same pairs looks at every byte).
func replaceTags(s string) string {
	var b strings.Builder
	done := 0 // s[:done] is written to b
	for i := 0; ; {
		k := strings.IndexByte(s[i:], '<')
		if k < 0 {
			break
		}
		p := i + k
		at, old, new := -1, "", ""
		if p-1 >= done && s[p-1] == '\n' {
			if o, n, ok := tagAt(s[p-1:]); ok {
				at, old, new = p-1, o, n
			}
		}
		if at < 0 {
			if o, n, ok := tagAt(s[p:]); ok {
				at, old, new = p, o, n
			}
		}
		if at < 0 {
			i = p + 1
			continue
		}
		if done == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[done:at])
		b.WriteString(new)
		done = at + len(old)
		i = done
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// tagAt returns the first of tagPairs that s starts with.
func tagAt(s string) (old, new string, ok bool) {
	for _, p := range tagPairs {
		if strings.HasPrefix(s, p[0]) {
			return p[0], p[1], true
		}
	}
	return "", "", false
}

// exitValue reads the status of an exit line (see exitLine): its first
// number, with a minus sign before it.
func exitValue(line string) int {
	for k := 0; k < len(line); k++ {
		if isDigitB(line[k]) {
			m := k
			for m < len(line) && isDigitB(line[m]) {
				m++
			}
			if k > 0 && line[k-1] == '-' {
				k--
			}
			n, _ := strconv.Atoi(line[k:m])
			return n
		}
	}
	return 0
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if hasPrefixFold(s, prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// outcome returns the outcome part of a stub's first line: the exit
// status or error mark, a test run's summary, a raised exception's name,
// or "no output".
func outcome(body string, exit int, hasExit, isError bool) string {
	var parts []string
	switch {
	case hasExit:
		parts = append(parts, "exit "+strconv.Itoa(exit))
	case isError:
		parts = append(parts, "error")
	}
	if s := testSummary(body); s != "" {
		parts = append(parts, s)
	}
	if e := exception(body); e != "" {
		parts = append(parts, e)
	}
	if strings.TrimSpace(body) == "" {
		parts = append(parts, "no output")
	}
	if len(parts) == 0 {
		return "ok"
	}
	return strings.Join(parts, ", ")
}

// tailLines returns up to n last lines of s, last first, by calling f;
// f returns false to stop.
func tailLines(s string, n int, f func(line string) bool) {
	for ; n > 0 && s != ""; n-- {
		i := strings.LastIndexByte(s, '\n')
		if !f(strings.TrimSpace(s[i+1:])) {
			return
		}
		if i < 0 {
			return
		}
		s = s[:i]
	}
}

// testSummary returns a test run's or a build's summary from the last
// lines of body: pytest's "3 failed, 2 passed" (timing cut), unittest's
// "FAILED (failures=1)", jest's "2 failed, 10 passed, 12 total", cargo's
// "1 passed; 2 failed", mocha's "2 failing", tsc's "Found 3 errors in 2
// files", ExUnit's "58 tests, 1 failure", RSpec's "5 examples, 2
// failures", PHPUnit's "Tests: 5, Assertions: 8, Failures: 2", or the
// count of go test's "--- FAIL" lines.
func testSummary(body string) string {
	sum := ""
	tailLines(body, 40, func(line string) bool {
		t := strings.Trim(line, "= ")
		if (strings.Contains(t, " passed") || strings.Contains(t, " failed") || strings.Contains(t, " error")) && strings.Contains(t, " in ") && countFirst(t) {
			if i := strings.LastIndex(t, " in "); i > 0 {
				t = t[:i]
			}
			sum = t
			return false
		}
		switch {
		case strings.HasPrefix(line, "FAILED (") && strings.HasSuffix(line, ")"): // unittest
			sum = line
		case strings.HasPrefix(line, "Tests:") && strings.Contains(line, "failed"): // jest, vitest
			sum = strings.Join(strings.Fields(line[len("Tests:"):]), " ")
		case strings.HasPrefix(line, "test result: FAILED."): // cargo test
			parts := strings.SplitN(line[len("test result: FAILED."):], ";", 3)
			sum = strings.TrimSpace(strings.Join(parts[:min(2, len(parts))], ";"))
		case strings.HasSuffix(line, " failing") && isDigitB(firstByte(line)): // mocha
			sum = line
		case strings.HasPrefix(line, "Found ") && strings.Contains(line, " error"): // tsc
			sum = strings.TrimSuffix(line, ".")
		case countsFailures(line): // ExUnit, RSpec
			sum = line
		case strings.HasPrefix(line, "Tests: ") && strings.Contains(line, "Failures: "): // PHPUnit
			sum = strings.TrimSuffix(line, ".")
		default:
			return true
		}
		return false
	})
	if sum != "" {
		return clip(sum, 60)
	}
	if n := strings.Count(body, "--- FAIL:"); n > 0 {
		return strconv.Itoa(n) + " FAIL"
	}
	return ""
}

// countFirst reports whether t opens with a count: digits and a space
// ("3 failed", not a numbered item's "2. **Return an error…**").
func countFirst(t string) bool {
	i := 0
	for i < len(t) && isDigitB(t[i]) {
		i++
	}
	return i > 0 && i < len(t) && t[i] == ' '
}

// countsFailures reports whether line is a run's counts with a count of
// failures: ", "-separated parts, each a count and a word, one of them
// failures ("58 tests, 1 failure", "3 doctests, 5 tests, 0 failures, 1
// excluded", "5 examples, 2 failures").
func countsFailures(line string) bool {
	if !isDigitB(firstByte(line)) || !strings.Contains(line, " failure") {
		return false
	}
	failures := false
	for _, part := range strings.Split(line, ", ") {
		count, word, ok := strings.Cut(part, " ")
		if !ok || count == "" || strings.Trim(count, "0123456789") != "" || word == "" {
			return false
		}
		word, _, _ = strings.Cut(word, " ")
		failures = failures || strings.HasPrefix(word, "failure")
	}
	return failures
}

func firstByte(s string) byte {
	if s == "" {
		return 0
	}
	return s[0]
}

// exception returns the name of the exception a Python traceback ends in
// ("UnicodeEncodeError"), or "".
func exception(body string) string {
	if !strings.Contains(body, "Traceback (most recent call last)") {
		return ""
	}
	name := ""
	tailLines(body, 60, func(line string) bool {
		if line == "" || line[0] == ' ' {
			return true
		}
		head, _, found := strings.Cut(line, ":")
		if !found {
			head = line
		}
		if strings.IndexByte(head, ' ') < 0 && (strings.HasSuffix(head, "Error") || strings.HasSuffix(head, "Exception") || strings.HasSuffix(head, "Exit") || strings.HasSuffix(head, "Interrupt")) {
			name = head
			return false
		}
		return true
	})
	return name
}
