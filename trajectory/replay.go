package trajectory

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/tokens"
)

// A Replay gives the requests an agent sent in one run: a body holding the
// whole run is cut just before every assistant turn after the first
// message, and each prefix is a request the agent sent, the turn at the cut
// its answer.
type Replay struct {
	Trajectory string
	Format     chat.Format
	codec      *codec
	top        object
	items      []json.RawMessage
	cuts       []int
	counts     map[string]int // token counts of the texts seen, by text
}

// NewReplay returns the replay of body b of trajectory name. It returns an
// EINVALID error when b is not a request body of its format or holds no
// assistant turn.
func NewReplay(name string, b Body) (*Replay, error) {
	c, err := codecOf(b.Format)
	if err != nil {
		return nil, swc.Errorf(swc.EINVALID, "trajectory: %s: %v", name, err)
	}
	top, err := decodeObject(b.Data)
	if err != nil {
		return nil, swc.Errorf(swc.EINVALID, "trajectory: %s: %s body: %v", name, b.Format, err)
	}
	items, err := top.list(c.list)
	if err != nil {
		return nil, swc.Errorf(swc.EINVALID, "trajectory: %s: %s body: %v", name, b.Format, err)
	}
	r := &Replay{Trajectory: name, Format: b.Format, codec: c, top: top, items: items, counts: map[string]int{}}
	for k := 1; k < len(items); k++ {
		if c.assistant(items[k]) && !c.assistant(items[k-1]) {
			r.cuts = append(r.cuts, k)
		}
	}
	if len(r.cuts) == 0 {
		return nil, nothingError{swc.Errorf(swc.EINVALID, "trajectory: %s: %s body has no assistant turn after its first message: nothing to replay", name, b.Format)}
	}
	return r, nil
}

// ErrNothingToReplay is in the chain of NewReplay's error for a body with
// no assistant turn after its first message (a session that ended before
// the agent answered): a valid body with no request to replay, which the
// Runner skips.
var ErrNothingToReplay = errors.New("nothing to replay")

// nothingError is NewReplay's EINVALID error for a body with nothing to
// replay, with ErrNothingToReplay in its chain.
type nothingError struct{ err *swc.Error }

func (e nothingError) Error() string   { return e.err.Error() }
func (e nothingError) Unwrap() []error { return []error{e.err, ErrNothingToReplay} }

// Len is the number of requests.
func (r *Replay) Len() int { return len(r.cuts) }

// count returns the tokens of s, remembered for the replay (its requests
// share most of their texts).
func (r *Replay) count(s string) int {
	if s == "" {
		return 0
	}
	if n, ok := r.counts[s]; ok {
		return n
	}
	n := tokens.Count(s)
	r.counts[s] = n
	return n
}

// cost is a message's tokens as a budget counts them: its text, each tool
// call's name and arguments, its media, the reasoning it carries unshown
// (ReasoningTokens), and MessageOverhead.
func (r *Replay) cost(m swc.Message) int {
	n := r.count(m.Content) + m.MediaTokens + m.ReasoningTokens + MessageOverhead
	for _, tc := range m.ToolCalls {
		n += r.count(tc.Name) + r.count(tc.Arguments)
	}
	return n
}

// MessageOverhead is the tokens counted per message on top of its text, as
// swc's compressor counts them (role, separators).
const MessageOverhead = 4

// Request returns the i-th request (0-based): the body cut before the i-th
// assistant turn, parsed. It returns an EINVALID error when the prefix is
// not a valid request (chat.Parse's error).
func (r *Replay) Request(i int) (*Request, error) {
	k := r.cuts[i]
	body := r.top.with(r.codec.list, r.items[:k])
	in, err := chat.Parse(body, r.Format)
	if err != nil {
		return nil, swc.Errorf(swc.EINVALID, "trajectory: %s: %s request %d (before message %d): %s", r.Trajectory, r.Format, i, k, swc.ErrorMessage(err))
	}
	end := k + 1
	for end < len(r.items) && r.codec.assistant(r.items[end]) {
		end++
	}
	q := &Request{Replay: r, Index: i, Cut: k, Body: body, Input: in, Next: r.codec.turn(r.items[k:end])}
	q.classify()
	return q, nil
}

// Measure returns the tokens and text of a compressed body: its messages
// as chat.Parse reads them, or, when it cannot, every string of its list
// and other fields counted as one text.
func (r *Replay) Measure(body []byte) (int, string) {
	if in, err := chat.Parse(body, r.Format); err == nil {
		n := 0
		for _, m := range in.Messages {
			n += r.cost(m)
		}
		return n, messagesText(in.Messages)
	}
	text := bodyText(body)
	return tokens.Count(text), text
}

// Breaches returns the provider-rule breaches of a compressed body
// (see the codecs' validate).
func (r *Replay) Breaches(body []byte) []string { return r.decode(body).breaches }

// sent is a body as sent, decoded once for the checks of a row.
type sent struct {
	top   object
	items []json.RawMessage
	// leadKey is the codec's lead (Anthropic's "system"): the body's
	// prefix units are then content blocks (blockUnits), and the lead is
	// not compared as a whole with the other fields.
	leadKey  string
	blocks   bool   // the units are content blocks (the codec's blocks)
	paras    bool   // a string content's paragraphs are units (the codec's paragraphs)
	u        []unit // prefixUnits, once
	breaches []string
}

// decode reads a sent body and checks it.
func (r *Replay) decode(body []byte) *sent {
	o, err := decodeObject(body)
	if err != nil {
		return &sent{breaches: []string{fmt.Sprintf("body: %v", err)}}
	}
	items, err := o.list(r.codec.list)
	if err != nil {
		return &sent{breaches: []string{fmt.Sprintf("body: %v", err)}}
	}
	s := &sent{top: o, items: items, breaches: r.codec.validate(o, items), blocks: r.codec.blocks || r.codec.lead != "", paras: r.codec.paragraphs}
	if k := r.codec.lead; k != "" {
		s.leadKey = k
		if _, ok := o[k]; !ok && k == "systemInstruction" {
			if _, ok := o["system_instruction"]; ok {
				s.leadKey = "system_instruction"
			}
		}
	}
	return s
}
