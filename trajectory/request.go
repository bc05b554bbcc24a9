package trajectory

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// A Request is one request of a replay, parsed, with its answer's text.
type Request struct {
	Replay *Replay
	Index  int // the request's position in the run, from 0
	Cut    int // the number of list items it holds
	Body   []byte
	Input  *chat.Input
	// Next is the text of the assistant turn at the cut: its text and the
	// string values of its tool calls' arguments.
	Next string

	self   *sent    // Body decoded, once a condition sent it unchanged
	hs     []string // per message of Input, its swc_recall handle (handles)
	kinds  []kind   // per message of Input
	costs  []int    // per message of Input
	Tokens int      // the messages' tokens as sent uncompressed
}

// kind is what a message of a request is to the bench.
type kind uint8

const (
	instruction kind = iota // system or developer
	task                    // the user messages before the first assistant message
	assistant
	observation // a tool result, or a user message shaped like command output
	user        // any other user message
)

// classify sets each message's kind and cost.
func (q *Request) classify() {
	msgs := q.Input.Messages
	q.kinds = make([]kind, len(msgs))
	q.costs = make([]int, len(msgs))
	taskOrigin := -2
	acted := false // an assistant message came before
	for i, m := range msgs {
		q.costs[i] = q.Replay.cost(m)
		q.Tokens += q.costs[i]
		switch m.Role {
		case swc.RoleSystem, swc.RoleDeveloper:
			q.kinds[i] = instruction
		case swc.RoleAssistant:
			q.kinds[i] = assistant
			acted = true
		case swc.RoleTool:
			q.kinds[i] = observation
		default:
			switch {
			case taskOrigin == -2 || q.Input.Origin[i] == taskOrigin || !acted:
				// the task: the first user message, and any other
				// before the agent's first turn (SWE-agent sends a
				// demonstration, then the task)
				taskOrigin = q.Input.Origin[i]
				q.kinds[i] = task
			case i > 0 && (q.kinds[i-1] == assistant || q.kinds[i-1] == observation) && IsObservation(m.Content):
				// what answers the agent's turn, not a second task or
				// instructions after the first user message (SWE-agent
				// sends a demonstration, then the task ending with its
				// prompt)
				q.kinds[i] = observation
			default:
				q.kinds[i] = user
			}
		}
	}
}

// Targets returns the identifiers of the next turn (Identifiers) that the
// request holds only in observations: each a substring of some
// observation's text and of no other message's text (instructions, task,
// assistant turns with their tool calls' arguments, other user messages).
func (q *Request) Targets() []string {
	var obs, ctx strings.Builder
	for i, m := range q.Input.Messages {
		w := &ctx
		if q.kinds[i] == observation {
			w = &obs
		}
		writeMessage(w, m)
	}
	return q.heldIn(obs.String(), ctx.String())
}

// heldIn returns the identifiers of the next turn that in holds and
// without does not.
func (q *Request) heldIn(in, without string) []string {
	var out []string
	for _, id := range Identifiers(q.Next) {
		if strings.Contains(in, id) && !strings.Contains(without, id) {
			out = append(out, id)
		}
	}
	return out
}

// OwnTargets returns the identifiers of the next turn (Identifiers) that
// the request's earlier assistant turns hold (their text or their calls'
// arguments) and its instructions and task do not: what the agent goes
// on to use of its own words. They may sit in observations too. FRR
// leaves them out (Targets); a condition that rewrites the agent's own
// turns is measured on them.
func (q *Request) OwnTargets() []string {
	var own, ctx strings.Builder
	for i, m := range q.Input.Messages {
		switch q.kinds[i] {
		case assistant:
			writeMessage(&own, m)
		case instruction, task:
			writeMessage(&ctx, m)
		}
	}
	return q.heldIn(own.String(), ctx.String())
}

// writeMessage writes a message's text and its tool calls' names and
// arguments, each on a line of its own.
func writeMessage(w *strings.Builder, m swc.Message) {
	w.WriteString(m.Content)
	w.WriteByte('\n')
	for _, tc := range m.ToolCalls {
		w.WriteString(tc.Name)
		w.WriteByte('\n')
		w.WriteString(argsText(tc.Arguments))
		w.WriteByte('\n')
	}
}

// argsText is a tool call's arguments as their string values, so that a
// path written "a\/b" or a newline escaped in JSON reads as in the text.
func argsText(args string) string {
	var b bytes.Buffer
	jsonStrings(&b, json.RawMessage(args))
	return b.String()
}

// messagesText is the text of a message list, as FRR searches it.
func messagesText(msgs []swc.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		writeMessage(&b, m)
	}
	return b.String()
}

// bodyText is every string of a body that chat.Parse cannot read.
func bodyText(body []byte) string {
	var b bytes.Buffer
	jsonStrings(&b, body)
	return b.String()
}

// decode is Replay.decode, done once for the request's own body (sent
// unchanged by every condition that had nothing to do).
func (q *Request) decode(body []byte) *sent {
	if !bytes.Equal(body, q.Body) {
		return q.Replay.decode(body)
	}
	if q.self == nil {
		q.self = q.Replay.decode(body)
	}
	return q.self
}
