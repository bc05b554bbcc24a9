package http

import (
	"strconv"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bm25"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/mention"
	"github.com/swcmem/swc/selection"
)

// recallQueryPassages is how many passages a query returns (as many lines
// as support@5 reads of a context), and recallPassageLines how many lines
// a passage holds at most.
const (
	recallQueryPassages = 5
	recallPassageLines  = 24
)

// queryPassage is a candidate answer to a query: a message of the
// request, or a piece of recallPassageLines lines of a longer one.
type queryPassage struct {
	msg      int    // its message's index in the request
	handle   string // the message's handle when it is an observation
	from, to int    // its lines in the message, from 1
	lines    int    // the message's lines
	date     string // its session's date ("" when unknown)
	text     string
}

// RecallQuery returns what swc_recall answers a query over msgs, a
// request's messages as the client sent them: the recallQueryPassages
// passages swc-recall ranks best for query (selection.Recall.Scores: BM25
// over the turns as shown, "Speaker: text" with relative dates anchored
// to the session's date, and a reply inheriting its question's score),
// each headed by where it is — an observation's handle and lines, any
// other message's position — and its session's date; a message's text is
// shown with its relative dates anchored ("yesterday (7 May 2023)"), an
// observation's as it came. Instructions are
// not searched; a message of more than recallPassageLines lines is ranked
// by pieces of that many. Sessions are found as the compressor finds them
// (chat.Sessionize: session ids, gaps in the timestamps, or every 20
// messages).
func RecallQuery(msgs []swc.Message, query string) string {
	var conv []swc.Message
	var idx []int
	for i, m := range msgs {
		if !chat.IsInstruction(m) {
			conv, idx = append(conv, m), append(idx, i)
		}
	}
	if len(conv) == 0 {
		return "swc_recall: no output matches " + strconv.Quote(query)
	}
	g := chat.Sessionize(conv, chat.SessionOptions{Index: idx})
	x := &selection.Analysis{Conv: g.Conversation}
	var ps []queryPassage
	for s, sp := range g.Spans {
		ses := g.Conversation.Sessions[s]
		date := ""
		if !ses.Start.IsZero() {
			date = ses.DateText
		}
		for k := sp.First; k < sp.End; k++ {
			i := idx[k]
			m := msgs[i]
			h, _ := observationHandle(msgs, i)
			text := m.Content
			for _, tc := range m.ToolCalls {
				text += "\n[calls " + tc.Name + "(" + tc.Arguments + ")]"
			}
			lines := strings.Split(strings.TrimSpace(text), "\n")
			for a := 0; a < len(lines); a += recallPassageLines {
				b := min(a+recallPassageLines, len(lines))
				piece := strings.Join(lines[a:b], "\n")
				if strings.TrimSpace(piece) == "" {
					continue
				}
				t := swc.Turn{ID: "m" + strconv.Itoa(i), Speaker: chat.Speaker(m), Text: piece}
				shown := t
				if h == "" && !ses.Start.IsZero() { // a tool output's dates are its own
					shown.Text = mention.Anchor(piece, ses.Start)
				}
				x.Turns = append(x.Turns, selection.TurnInfo{Session: s, Pos: len(ps), Turn: t, Line: swc.RenderTurn(shown)})
				p := queryPassage{msg: i, handle: h, from: a + 1, to: b, lines: len(lines), date: date, text: shown.Text}
				if h != "" {
					p.text = piece // an output as it came: its handle gives the same bytes
				}
				ps = append(ps, p)
			}
		}
	}
	scores := (&selection.Recall{Reply: selection.DefaultReply}).Scores(x, query)
	hits := bm25.TopOf(scores, recallQueryPassages)
	if len(hits) == 0 {
		return "swc_recall: no output matches " + strconv.Quote(query)
	}
	var b strings.Builder
	for k, hit := range hits {
		p := ps[hit.Doc]
		if k > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(p.header())
		b.WriteByte('\n')
		if p.handle == "" {
			b.WriteString(x.Turns[hit.Doc].Turn.Speaker + ": ")
		}
		b.WriteString(p.text)
	}
	return b.String()
}

// header is a passage's first line: "[swc:HANDLE lines a-b]" for an
// observation's, "[message N]" for another message's (its lines when
// it is a piece), with its session's date when known.
func (p queryPassage) header() string {
	var b strings.Builder
	b.WriteByte('[')
	if p.handle != "" {
		b.WriteString("swc:" + p.handle + " lines " + strconv.Itoa(p.from) + "-" + strconv.Itoa(p.to))
	} else {
		b.WriteString("message " + strconv.Itoa(p.msg))
		if p.lines > recallPassageLines {
			b.WriteString(" lines " + strconv.Itoa(p.from) + "-" + strconv.Itoa(p.to))
		}
	}
	if p.date != "" {
		b.WriteString(", " + p.date)
	}
	b.WriteByte(']')
	return b.String()
}
