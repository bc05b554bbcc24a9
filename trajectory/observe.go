package trajectory

import (
	"regexp"
	"strings"
)

// observationRE matches the opening of the observation message of an
// agent that acts in text: mini-swe-agent's "<returncode>0</returncode>",
// "<output>", SWE-agent's and OpenHands' "OBSERVATION:", "Exit code: 1",
// "[Command finished with exit code 0]", or a "<warning>" mini-swe-agent
// puts before a long output.
var observationRE = regexp.MustCompile(`(?i)^\s*(?:<returncode>-?\d+</returncode>|<output>|<warning>|<output_head>|observation:|exit code:\s*-?\d+|\[command finished with exit code -?\d+\]|\[the command (?:has no new output|timed out|completed)|the last command <command>)`)

// resultHeaderRE matches the header of a tool's result at the start of a
// line of its own, "[read_file for 'src/app.ts'] Result:" (what the tool
// was called on may span lines, "[read_file for 2 files] Result:"): agents that call tools in XML tags of
// their text (Cline's classic format, Roo Code). Such a message holding
// the person's <feedback> or <answer> is theirs (IsObservation).
var resultHeaderRE = regexp.MustCompile(`^\s*\[[A-Za-z][\w-]*(?: for (?s:.{1,1000}?))?\] Result:[ \t]*(?:\r?\n|$)`)

// promptRE matches the end of SWE-agent's observation message (before its
// tool calls): the state it appends to every output, "(Open file: …)",
// "(Current directory: …)" and the prompt "bash-$", whatever the output
// above them (empty, a file viewer's window, a compiler's errors).
var promptRE = regexp.MustCompile(`\(Current directory: [^\n]*\)\s*\n\s*bash-\$\s*$`)

// IsObservation reports whether the text of a user message other than the
// first has the shape of output returned to an agent that acts in text
// rather than something a person wrote: by its shape (see observationRE
// and promptRE), never by an agent's name. SWE-agent ends its task message
// with the same prompt, so the bench takes a message of that shape for an
// observation only after an assistant turn (classify).
func IsObservation(text string) bool {
	return observationRE.MatchString(text) || strings.Contains(text, "</returncode>") && strings.HasPrefix(strings.TrimSpace(text), "<") ||
		promptRE.MatchString(text) ||
		resultHeaderRE.MatchString(text) && !strings.Contains(text, "<feedback>") && !strings.Contains(text, "<answer>")
}
