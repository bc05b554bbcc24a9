package memory

import (
	"strings"

	"github.com/swcmem/swc/chat"
)

// turnHead is how an old assistant turn's text is clipped (Options.TurnTokens):
// its prose (the text outside fenced code blocks) keeps its first sentences, up
// to max tokens, then "[…]"; its fenced blocks (a text-acting agent's
// command) stay whole. ok is false when clipping would save little.
func (c *Compressor) turnHead(text string, max int) (string, bool) {
	if max <= 0 || len(text) < 4*max || chat.HasPlaceholder(text) {
		return "", false
	}
	var prose []string
	var code []string
	var cur strings.Builder
	in := false
	for line := range strings.SplitAfterSeq(text, "\n") {
		fence := strings.HasPrefix(strings.TrimSpace(line), "```")
		switch {
		case !in && fence:
			prose = append(prose, cur.String())
			cur.Reset()
			cur.WriteString(line)
			in = true
		case in && fence:
			cur.WriteString(line)
			code = append(code, strings.TrimRight(cur.String(), "\n"))
			cur.Reset()
			in = false
		default:
			cur.WriteString(line)
		}
	}
	if in { // an unclosed fence: leave the turn whole
		return "", false
	}
	prose = append(prose, cur.String())
	all := strings.TrimSpace(strings.Join(prose, "\n"))
	if c.countText(all) <= max+16 {
		return "", false
	}
	head := strings.TrimSpace(prose[0])
	if head == "" {
		head = all
	}
	head = sentences(head, func(s string) int { return c.counter.CountCached(s) }, max)
	var b strings.Builder
	b.WriteString(head)
	b.WriteString(" […]")
	for _, k := range code {
		b.WriteString("\n\n")
		b.WriteString(k)
	}
	return b.String(), true
}

// sentences returns the leading sentences of s that fit max tokens (the
// first one cut at a word when it alone does not).
func sentences(s string, count func(string) int, max int) string {
	end := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\n' || (c == '.' || c == ':' || c == '?' || c == '!') && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n') {
			j := i + 1
			if c == '\n' {
				j = i
			}
			if count(s[:j]) > max {
				break
			}
			end = j
		}
	}
	if end == 0 {
		end = len(s)
		for count(s[:end]) > max && end > 0 {
			end = strings.LastIndexByte(s[:end], ' ')
			if end < 0 {
				end = min(len(s), 4*max)
				break
			}
		}
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
