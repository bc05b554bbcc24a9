package memory

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// Old assistant turns of a tool loop (Options.TurnTokens). An agent's
// turn is its reasoning in prose and its action: tool calls, or, for an
// agent that acts in text, a command in a fenced code block. Once the
// observations of its exchange are stubbed, what the loop goes on to use
// of the turn is its action and the names it shares with later turns;
// its paragraphs of reasoning cost tokens on every later request. A
// clipped turn keeps its first sentences, a handle to the whole turn
// (HistoryHandle: swc_recall gives it back) and its code blocks; its tool
// calls keep all but their long string arguments (loop_calls.go).

// turnHead returns the new text of old assistant message m: its text
// clipped, with the handle of the whole turn, or, for a turn holding
// reasoning (Anthropic's thinking blocks, Gemini's thought parts:
// chat.StripReasoning), its text as it came without their placeholders
// (handle ""; the writers then drop those parts, which the providers
// want only in the turn being answered), or, for a turn ending with a
// tool call in XML tags, its text with the call's long parameters
// clipped (clipXMLCall). ok
// is false when neither applies: reasoning aside, the text is not all of
// the message (a placeholder of a part that is not text,
// chat.HasPlaceholder), and clipping would save little or cannot be done
// (clipHead).
func (c *Compressor) turnHead(m swc.Message, max int) (text, handle string, ok bool) {
	if max <= 0 {
		return "", "", false
	}
	content, reasoning := chat.StripReasoning(m.Content)
	if chat.HasPlaceholder(content) {
		return "", "", false
	}
	if text, handle, ok := c.clipHead(m, content, max); ok {
		return text, handle, true
	}
	if text, handle, ok := c.clipXMLCall(m, content); ok {
		return text, handle, true
	}
	return content, "", reasoning
}

// clipHead returns content, the text of assistant message m, clipped,
// and the handle of m; ok false when clipping would save little: the
// prose is at most max+turnSlack tokens, or the text opens with a
// bracket (the text chat makes of a call with no place for text,
// "[web_search_call] {…}"), or it opens a fenced block it never closes,
// or its prose holds markup an agent acts by, or the command a
// text-acting agent's turn gives (see command) is in none of its blocks
// (a fence opened mid-line: the prose holds the command).
func (c *Compressor) clipHead(m swc.Message, content string, max int) (text, handle string, ok bool) {
	if len(content) < 4*max || strings.HasPrefix(content, "[") {
		return "", "", false
	}
	prose, code, ok := fences(content)
	if !ok {
		return "", "", false
	}
	if cmd := command(content); cmd != "" && len(m.ToolCalls) == 0 && !slices.ContainsFunc(code, func(k string) bool { return strings.Contains(k, cmd) }) {
		return "", "", false // a command the fences do not see as a block (one opened mid-line): the prose holds it
	}
	for _, p := range prose {
		if markup(p) { // an action written in tags, not in a fence
			return "", "", false
		}
	}
	all := strings.TrimSpace(strings.Join(prose, "\n"))
	if c.countText(all) <= max+turnSlack {
		return "", "", false
	}
	head := strings.TrimSpace(prose[0])
	if head == "" {
		head = all
	}
	head = sentences(head, c.counter.CountCached, max)
	handle = HistoryHandle([]swc.Message{m})
	var b strings.Builder
	if head != "" {
		b.WriteString(head)
		b.WriteByte(' ')
	}
	b.WriteString("[swc:" + handle + " …]")
	for _, k := range code {
		b.WriteString("\n\n")
		b.WriteString(k)
	}
	return b.String(), handle, true
}

// markup reports whether prose holds a closing tag or a tag that opens
// a call ("</execute_bash>", "<function=bash>"): agents that act in text
// write their action so too (OpenHands' CodeAct, function calls written
// as text), and a turn is never clipped without its action.
func markup(prose string) bool {
	return strings.Contains(prose, "</") || strings.Contains(prose, "<function=") || strings.Contains(prose, "<invoke")
}

// turnSlack is how many tokens over TurnTokens a turn's prose may run
// and stay whole: clipping it would save less than its handle costs.
const turnSlack = 16

// fences splits text into its prose (the runs outside fenced code
// blocks, in order, the first possibly empty) and its fenced blocks
// (with their fences). A block opens at a line starting with three
// backticks or more and closes at a line of as many backticks at least
// and nothing else, so a fence with an info string ("```python") inside
// it, or a shorter one, is its text. ok is false when a fence is left
// open.
func fences(text string) (prose, code []string, ok bool) {
	var cur strings.Builder
	in, open := false, 0 // open: the backticks of the fence that opened the block
	for line := range strings.SplitAfterSeq(text, "\n") {
		t := strings.TrimSpace(line)
		n := len(t) - len(strings.TrimLeft(t, "`"))
		switch {
		case !in && n >= 3:
			prose = append(prose, cur.String())
			cur.Reset()
			cur.WriteString(line)
			in, open = true, n
		case in && n >= open && n == len(t):
			cur.WriteString(line)
			code = append(code, strings.TrimRight(cur.String(), "\n"))
			cur.Reset()
			in = false
		default:
			cur.WriteString(line)
		}
	}
	if in {
		return nil, nil, false
	}
	return append(prose, cur.String()), code, true
}

// sentences returns the leading sentences of s that fit max tokens
// (count), a sentence ending at ". ", ": ", "? ", "! ", a full stop of
// Chinese or Japanese ("。", "！", "？") or a line's end; when even the
// first does not fit, its leading words that do, or, in a script written
// without spaces, its leading characters.
func sentences(s string, count func(string) int, max int) string {
	end := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		stop := c == '\n' || (c == '.' || c == ':' || c == '?' || c == '!') && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n')
		j := i + 1
		switch {
		case c == '\n':
			j = i
		case !stop && c == 0xE3 && strings.HasPrefix(s[i:], "。"),
			!stop && c == 0xEF && (strings.HasPrefix(s[i:], "！") || strings.HasPrefix(s[i:], "？")):
			stop, j = true, i+3
		}
		if !stop {
			continue
		}
		if count(s[:j]) > max {
			break
		}
		end = j
	}
	if end > 0 {
		return strings.TrimSpace(s[:end])
	}
	// The first sentence alone is too long: its words, as many as fit.
	end = min(len(s), 8*max) // no more bytes than max tokens could hold
	for end > 0 && !utf8.RuneStart(s[end%len(s)]) && end < len(s) {
		end--
	}
	for end > 0 && count(s[:end]) > max {
		sp := strings.LastIndexByte(s[:end], ' ')
		if sp <= 0 { // no spaces: characters, a rune at a time
			_, n := utf8.DecodeLastRuneInString(s[:end])
			sp = end - n
		}
		end = sp
	}
	return strings.TrimSpace(s[:end])
}

// clipTo returns the units before which a loop's assistant turns are
// clipped (Options.TurnTokens; 0 when off): those of the jumps of the
// masking boundary up to the last one that stubbed an observation, so
// that a turn is clipped by a jump that rewrites the request anyway, never
// by one that would have left it as it was.
func (c *Compressor) clipTo(l *loopShape, lc *loopCosts, b int) int {
	if c.opts.TurnTokens <= 0 {
		return 0
	}
	for u := b - 1; u >= 0; u-- {
		for _, i := range l.units[u].obs {
			if lc.stubbable(i) {
				return min(l.at[u], b)
			}
		}
	}
	return 0
}
