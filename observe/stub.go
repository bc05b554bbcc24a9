package observe

import (
	"strconv"
	"strings"

	"github.com/swcmem/swc/tokens"
)

// Stub returns the text that stands in for an old observation:
// deterministic, at most MaxTokens tokens (cl100k_base), line structure
// kept. Its first line names the handle, the call (unless OmitCall) and
// the outcome, "[swc:h3f9a2c1b0 execute_bash(cd /x && pytest -q) → exit 1,
// 3 failed]";
// an output that fits whole follows it as it is (its wrapping tags cut,
// and the result header and trailing <environment_details> of an agent
// that answers calls in its user's text: resultBody).
// Of a longer output, Stub keeps the lines a next turn most likely needs,
// as they stood, in their original order, each run of omitted lines
// marked "[…37 lines]" — a bare "[…]" between two lines of a file view
// whose line numbers say how many lines it stands for (a view's numbers
// lose their alignment padding: "   41\t" is written "41\t"). Lines are
// chosen greedily by value per token in
// three rounds: diagnostic headlines (an exception raised, a failing
// test, an error message), then lines holding a Focus identifier not
// Known and not yet kept, then any line (see choose). A line's value is
// that of the identifiers it holds that are not Known and not in a line
// already chosen — names weigh most, then dotted names and paths, then
// numbers and file:line references; a name the output repeats more; a
// Focus identifier the request lacks most of all, a Known one a little —
// plus bonuses for diagnostic lines and definitions (see kindWeight). A line
// longer than maxLineBytes is cut around its most valuable identifier (a
// file view's line number kept); a very long one into pieces. The call in
// the first line is clipped to maxCallBytes (a path keeps its end): the
// request holds the call in full in the assistant turn above, and the
// tokens are worth more as lines of the output.
func Stub(o Observation, opt StubOptions) string {
	limit := opt.MaxTokens
	if limit <= 0 {
		limit = DefaultStubTokens
	}
	body, exit, hasExit := unwrap(o.output())
	body = resultBody(body)
	call := ""
	if !opt.OmitCall {
		call = callText(o)
	}
	head := header(opt.Handle, call, outcome(body, exit, hasExit, o.IsError))
	headTokens := tokens.Count(head)
	if headTokens >= limit {
		return tokens.Truncate(head, limit)
	}
	if body == "" {
		return head
	}
	if len(body) <= 12*limit {
		if full := head + "\n" + body; tokens.Count(full) <= limit {
			return full
		}
	}
	if opt.Same != "" && opt.Same != opt.Handle {
		if same := head + "\n[the same output as swc:" + opt.Same + " above]"; tokens.Count(same) <= limit {
			return same
		}
		return head
	}
	s := newSelector(body, opt)
	s.choose(limit - headTokens)
	return s.render(head, limit)
}

// header writes a stub's first line.
func header(handle, call, out string) string {
	var b strings.Builder
	b.WriteString("[swc:")
	b.WriteString(handle)
	if call != "" {
		b.WriteByte(' ')
		b.WriteString(call)
	}
	b.WriteString(" → ")
	b.WriteString(out)
	b.WriteByte(']')
	return b.String()
}

// marker writes the line that stands for n omitted lines.
func marker(n int) string {
	if n == 1 {
		return "[…1 line]"
	}
	return "[…" + strconv.Itoa(n) + " lines]"
}

// markerTokens is about what a marker line costs ("\n[…37 lines]": 5
// tokens, against 6 for "\n[… 37 lines]" and 4 for "\n[…37]", which
// says less of what it stands for). A
// marker opens with an ASCII character, so tokens.Count counts (and
// remembers) it as a piece of its own.
const markerTokens = 5

// bareMarker stands for an omitted run of a file view whose length the
// line numbers around it say ("41\t…" "[…]" "97\t…"); it costs
// bareMarkerTokens ("\n[…]").
const (
	bareMarker       = "[…]"
	bareMarkerTokens = 2
)
