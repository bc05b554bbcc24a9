package observe

import "strings"

// IsObservation reports whether the text of a user message (not the first
// user message) has the shape of output returned to an agent that acts in
// text rather than something a person wrote: it opens with a result tag
// (<returncode>, <output>, <observation>, <stdout>, …), an "OBSERVATION:"
// or "EXECUTION RESULT of [" label, a file viewer's "[File: …]", a JSON
// envelope {"output": …}, an exit status line ("Exit code: 1",
// "returncode: 0"), or a file viewer's header ("Here's the result of
// running `cat -n`"), or a tool's result header on a line of its own
// ("[read_file for 'src/app.ts'] Result:", "[attempt_completion] Result:":
// agents that write their calls as XML tags in their text, see
// resultHeader); or it ends with a shell's completion line ("[The
// command completed with exit code 0.]", "Exit code: 0"). By shape, never
// by an agent's name.
func IsObservation(text string) bool {
	t := strings.TrimSpace(text)
	if t == "" {
		return false
	}
	first, last := t, t
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		first = t[:i]
	}
	if i := strings.LastIndexByte(t, '\n'); i >= 0 {
		last = t[i+1:]
	}
	first = strings.TrimSpace(first)
	last = strings.TrimSpace(last)
	for _, tag := range openTags {
		if hasPrefixFold(first, tag) {
			return true
		}
	}
	if exitLine(first) || exitLine(last) || resultHeader(t) {
		return true
	}
	for _, end := range endings {
		if hasPrefixFold(last, end) {
			return true
		}
	}
	return false
}

// openTags are the openings of a text-acting agent's observation message.
var openTags = []string{
	"<returncode>", "<output>", "<output_head>", "<observation>", "<stdout>", "<stderr>",
	"<tool_output>", "<tool_result>", "<function_results>", "<exit_code>", "<result>",
	"observation:", "execution result of [", "execution output of [", "tool output:",
	"here's the result of running `cat -n`", "your command ran successfully and did not produce any output",
	"[file: ",    // SWE-agent's file viewer: "[File: /x/y.py (120 lines total)]"
	`{"output":`, // a JSON envelope with the exit status in its metadata
	"file created successfully at:",
}

// endings are the last lines of a shell tool's output.
var endings = []string{
	"[the command completed with exit code", "[command finished with exit code",
	"[command timed out", "[the command has no new output after",
	"</returncode>", "</output>", "</observation>", "</stdout>", "</tool_output>",
	"(current directory:", "bash-$", // SWE-agent's prompt after an observation
}

// exitLine reports whether line is an exit status line: "Exit code: 1",
// "exit status 2", "returncode: 0", "Return code: 0", "Process exited with
// code 1".
func exitLine(line string) bool {
	for _, p := range []string{"exit code:", "exit code", "exit status:", "exit status", "returncode:", "return code:", "process exited with code"} {
		if hasPrefixFold(line, p) {
			rest := strings.TrimSpace(line[len(p):])
			return rest != "" && (isDigitB(rest[0]) || rest[0] == '-' && len(rest) > 1 && isDigitB(rest[1]))
		}
	}
	return false
}

// resultHeader reports whether text opens with a tool result's header:
// "[", the tool's name (letters, digits, "_" and "-", a letter first),
// then optionally " for " what it was called on (which may span lines,
// up to maxHeaderBytes), then "] Result:" at the end of a line
// ("[execute_command for 'npm test'] Result:", "[ask_followup_question
// for 'Which port?'] Result:", "[read_file for 'a.ts', 'b.ts'] Result:",
// "[read_file for 2 files] Result:", "[attempt_completion] Result:") — how
// agents that call tools in XML tags of their text (Cline's classic
// format, Roo Code, Kilo Code) open the user message that answers the
// call. Such a message that holds the person's words, their <feedback>
// on a result or their <answer> to a question, is theirs: not an
// observation, so it is kept whole as a person's text is.
func resultHeader(text string) bool {
	rest, ok := strings.CutPrefix(strings.TrimLeft(text, " \t\r\n"), "[")
	if !ok || rest == "" || !isLetterB(rest[0]) {
		return false
	}
	i := 0
	for i < len(rest) && (isLetterB(rest[i]) || isDigitB(rest[i]) || rest[i] == '_' || rest[i] == '-') {
		i++
	}
	rest = rest[i:]
	const mark = "] Result:"
	if on, ok := strings.CutPrefix(rest, " for "); ok {
		end := -1
		for k := 0; k < len(on) && k <= maxHeaderBytes; {
			j := strings.Index(on[k:], mark)
			if j < 0 || k+j > maxHeaderBytes {
				break
			}
			if k+j > 0 && lineEnds(on[k+j+len(mark):]) {
				end = k + j
				break
			}
			k += j + 1
		}
		if end < 0 {
			return false
		}
		rest = on[end:]
	}
	if !strings.HasPrefix(rest, mark) || !lineEnds(rest[len(mark):]) {
		return false
	}
	return !strings.Contains(text, "<feedback>") && !strings.Contains(text, "<answer>")
}

// maxHeaderBytes bounds what a result's header names ("for '…'").
const maxHeaderBytes = 1000

// lineEnds reports whether s, after spaces and tabs, is empty or starts
// a new line.
func lineEnds(s string) bool {
	s = strings.TrimLeft(s, " \t\r")
	return s == "" || s[0] == '\n'
}

func isLetterB(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
