package trajectory

import (
	"strings"

	"github.com/swcmem/swc/memory"
)

// Recoverable forward references. A target the sent body's text lacks is
// still within the agent's reach when the observation that held it was
// stubbed or dropped and its handle is shown in the body: one swc_recall
// call on that handle returns the observation whole. The handle is the
// one the compressing proxy resolves (http's handleOf): observe.Handle of
// a tool message's call id and output, or of "" and the text of a user
// message after the first that has the shape of command output
// (observe.IsObservation); a body shows it as "[swc:" and the handle, in
// a stub's first line or a line of the memory's list of earlier calls,
// or in the handles the memory's count line lists ("[… 40 earlier calls
// left out; their handles: h0a… h1b…]").
// The baselines' placeholders show no handle: their recoverable count is
// their retained count.

// The reasons a lost target is not recoverable (Row.Unrecoverable,
// Cell.Misses).
const (
	// MissCountLine: the observations holding it were dropped into the
	// loop memory's "[… N earlier calls left out…]" line, which does not
	// list their handles.
	MissCountLine = "count line"
	// MissNoHandleLine: they were dropped and the body shows none of
	// their handles, and no count line either (a memory that lists no
	// calls, or a truncation).
	MissNoHandleLine = "dropped without handle"
	// MissNotObservation: no message holding it has a handle (a user
	// message the proxy does not take for command output).
	MissNotObservation = "no handle"
)

// countLineMark is in the loop memory's line counting the calls it does
// not list ("[… 12 earlier calls left out]", or "[… 12 earlier calls left
// out; their handles: …]").
const countLineMark = "earlier calls left out"

// A Miss is a target neither in the sent text nor behind a handle it
// shows, and why.
type Miss struct {
	ID  string `json:"id"`
	Why string `json:"why"`
}

// handles returns the handle of each message of the request ("" for a
// message swc_recall cannot name: memory.ObservationHandle, the handle
// the proxy resolves), made once.
func (q *Request) handles() []string {
	if q.hs != nil {
		return q.hs
	}
	msgs := q.Input.Messages
	q.hs = make([]string, len(msgs))
	for i := range msgs {
		q.hs[i], _ = memory.ObservationHandle(msgs, i)
	}
	return q.hs
}

// recoverable returns "" when id, absent from text (the sent body's),
// is returned by one swc_recall call on a handle text shows — an
// observation holding it whose handle is there — and otherwise why not.
func (q *Request) recoverable(id, text string) string {
	hs := q.handles()
	held := false
	for i, m := range q.Input.Messages {
		if hs[i] == "" || !strings.Contains(m.Content, id) {
			continue
		}
		if strings.Contains(text, "[swc:"+hs[i]) || inCountLine(text, hs[i]) {
			return ""
		}
		held = true
	}
	switch {
	case !held:
		return MissNotObservation
	case strings.Contains(text, countLineMark):
		return MissCountLine
	}
	return MissNoHandleLine
}

// inCountLine reports whether the count line of text lists handle h.
func inCountLine(text, h string) bool {
	at := strings.Index(text, countLineMark)
	if at < 0 {
		return false
	}
	line, _, _ := strings.Cut(text[at:], "]")
	return strings.Contains(line, " "+h)
}
