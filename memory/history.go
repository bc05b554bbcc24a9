package memory

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/tokens"
)

// truncateLong cuts every history turn that alone exceeds the history's
// budget to half of it, ending with a visible marker
// ("[… truncated: 1234 tokens omitted]"), and returns the input indexes of
// the messages cut.
func truncateLong(g *chat.Grouping, budget int, history []int) []int {
	if budget <= 0 {
		return nil
	}
	var cut []int
	limit := max(budget/2, 1)
	for s := range g.Conversation.Sessions {
		ses := &g.Conversation.Sessions[s]
		header := tokens.Header(ses)
		for t := range ses.Turns {
			turn := &ses.Turns[t]
			if renderedBytes(turn)+header <= budget || tokens.Turn(*turn)+header <= budget {
				continue
			}
			n := tokens.Count(turn.Text)
			keep := tokens.Truncate(turn.Text, limit)
			turn.Text = fmt.Sprintf("%s [… truncated: %d tokens omitted]", keep, n-tokens.Count(keep))
			cut = append(cut, history[g.TurnMessages[s][t]])
		}
	}
	return cut
}

// renderedBytes bounds the bytes of a turn's line with the newline before
// it (swc.RenderTurn), and so its tokens: a token covers at least a byte.
func renderedBytes(t *swc.Turn) int {
	n := 1 + len(t.Speaker) + 2 + len(t.Text)
	if t.Image != nil {
		n += len(" [shares an image: ]") + len(t.Image.Caption)
	}
	return n
}

var blockHead = regexp.MustCompile(`^\[(?:Session (\d+) —|Summary of sessions (\d+)–(\d+)\]|Sessions? (\d+)(?:–(\d+))? omitted\])`)

// withOmissions inserts "[Sessions a–b omitted]" markers (one block each)
// where the sessions of a rendered context skip some of the n sessions, so
// that the model knows what is missing. Markers already present are kept.
func withOmissions(text string, n int) string {
	body := strings.TrimRight(text, "\n")
	if body == "" {
		if n == 0 {
			return text
		}
		return omitted(1, n) + "\n"
	}
	blocks := strings.Split(body, swc.BlockSeparator)
	var out []string
	next := 1 // the first session (1-based) not yet covered
	for _, b := range blocks {
		first, last, ok := covers(b)
		if !ok { // not a block head (a gist line): leave as it is
			out = append(out, b)
			continue
		}
		if first > next {
			out = append(out, omitted(next, first-1))
		}
		out = append(out, b)
		next = max(next, last+1)
	}
	if next <= n {
		out = append(out, omitted(next, n))
	}
	return strings.Join(out, swc.BlockSeparator) + "\n"
}

// covers returns the 1-based sessions a block stands for.
func covers(block string) (first, last int, ok bool) {
	m := blockHead.FindStringSubmatch(block)
	if m == nil {
		return 0, 0, false
	}
	num := func(s string) int { v, _ := strconv.Atoi(s); return v }
	switch {
	case m[1] != "":
		return num(m[1]), num(m[1]), true
	case m[2] != "":
		return num(m[2]), num(m[3]), true
	case m[5] != "":
		return num(m[4]), num(m[5]), true
	}
	return num(m[4]), num(m[4]), true
}

// omitted is the marker of sessions first..last (1-based).
func omitted(first, last int) string {
	if first == last {
		return fmt.Sprintf("[Session %d omitted]", first)
	}
	return fmt.Sprintf("[Sessions %d–%d omitted]", first, last)
}
