package observe

import (
	"strconv"
	"strings"
)

// unwrap strips what a tool loop wrapped around an output and returns the
// output's own text and the exit status the wrapping gave (ok false when
// none): mini-swe-agent's <returncode>/<output>/<warning> tags, an
// "OBSERVATION:" label, a leading "Exit code: N" (with "Wall time:" and
// "Output:") or a trailing "[The command completed with exit code N.]".
func unwrap(out string) (body string, exit int, ok bool) {
	body = strings.Trim(out, "\n")
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
	for {
		line, rest, _ := strings.Cut(body, "\n")
		t := strings.TrimSpace(line)
		switch {
		case exitLine(t) && !ok:
			exit, ok = exitValue(t), true
		case hasPrefixFold(t, "wall time:"), t == "Output:", hasPrefixFold(t, "chunk id:"), hasPrefixFold(t, "original token count:"):
		default:
			goto tail
		}
		body = rest
	}
tail:
	// A trailing completion line.
	if i := strings.LastIndexByte(body, '\n'); i >= 0 || body != "" {
		last := strings.TrimSpace(body[i+1:])
		if rest, found := cutPrefixFold(last, "[the command completed with exit code"); found {
			if n, err := strconv.Atoi(strings.TrimRight(strings.TrimSpace(rest), ".]")); err == nil && !ok {
				exit, ok = n, true
			}
			body = body[:max(i, 0)]
		}
	}
	return strings.Trim(body, "\n"), exit, ok
}

// untag removes mini-swe-agent's output tags (each becomes a line break)
// and its <warning> text about long outputs.
func untag(s string) string {
	if i := strings.Index(s, "<warning>"); i >= 0 {
		if j := strings.Index(s[i:], "</warning>"); j >= 0 {
			s = s[:i] + s[i+j+len("</warning>"):]
		}
	}
	return tagReplacer.Replace(s)
}

var tagReplacer = strings.NewReplacer(
	"<output>\n", "", "\n</output>", "", "<output>", "", "</output>", "",
	"<output_head>\n", "", "\n</output_head>", "", "<output_head>", "", "</output_head>", "",
	"<output_tail>\n", "", "\n</output_tail>", "", "<output_tail>", "", "</output_tail>", "",
	"<elided_chars>\n", "… ", "\n</elided_chars>", "", "<elided_chars>", "… ", "</elided_chars>", "",
	"<stdout>", "", "</stdout>", "", "<stderr>", "", "</stderr>", "",
)

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

// testSummary returns a test run's summary from the last lines of body:
// pytest's "3 failed, 2 passed" (timing cut), unittest's "FAILED
// (failures=1)" or "OK", the count of go test's "--- FAIL" lines.
func testSummary(body string) string {
	sum := ""
	tailLines(body, 40, func(line string) bool {
		t := strings.Trim(line, "= ")
		if (strings.Contains(t, " passed") || strings.Contains(t, " failed") || strings.Contains(t, " error")) && strings.Contains(t, " in ") && isDigitB(firstByte(t)) {
			if i := strings.LastIndex(t, " in "); i > 0 {
				t = t[:i]
			}
			sum = t
			return false
		}
		if strings.HasPrefix(line, "FAILED (") && strings.HasSuffix(line, ")") {
			sum = line
			return false
		}
		return true
	})
	if sum != "" {
		return clip(sum, 60)
	}
	if n := strings.Count(body, "--- FAIL:"); n > 0 {
		return strconv.Itoa(n) + " FAIL"
	}
	return ""
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
