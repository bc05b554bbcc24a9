// Package transcript writes LoCoMo conversations as the transcripts of
// agents (tool calls, both wire shapes) for the tests of the service.
package transcript

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// Options say how a LoCoMo conversation is written as an agent's
// transcript.
type Options struct {
	// Anthropic writes Messages API messages (tool_use and tool_result
	// blocks, roles alternating, no system message); otherwise Chat
	// Completions messages (a system prompt, tool messages).
	Anthropic bool
	// IDs gives every wire message an "id" (the turn's id, with a suffix
	// for the tool call and result around it).
	IDs bool
	// Timestamps gives every wire message a "timestamp": its session's
	// start plus 30 seconds per message.
	Timestamps bool
	// ReuseCallIDs names every tool call "call_0", as many local models
	// and OpenAI-compatible servers do; otherwise "call_1", "call_2", ….
	ReuseCallIDs bool
}

// Transcript is a conversation as an agent would send it.
type Transcript struct {
	// Wire holds the messages in their wire form, one JSON object each.
	Wire []json.RawMessage
	// Messages is what chat.Parse reads of all of Wire: the messages a
	// store must hold after the whole transcript is appended.
	Messages []swc.Message
}

// Agent returns c as an agent's transcript: speaker A is the user,
// speaker B the assistant; at each session's first answer the assistant
// calls get_date (its result is the session's date), a photo speaker B
// shares is a share_photo call before the answer, and a photo speaker A
// shares is read with a view_photo call before the answer (results: the
// captions). It returns an error only when the transcript does not parse,
// which would be a bug.
func Agent(c *swc.Conversation, o Options) (*Transcript, error) {
	var msgs []swc.Message
	call := 0
	callID := func() string {
		call++
		if o.ReuseCallIDs {
			return "call_0"
		}
		return fmt.Sprintf("call_%d", call)
	}
	if !o.Anthropic {
		msgs = append(msgs, swc.Message{Role: swc.RoleSystem, ID: "system",
			Content: fmt.Sprintf("You are %s, chatting with %s. Use the tools to check dates and photos.", c.SpeakerB, c.SpeakerA)})
	}
	last := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for si, s := range c.Sessions {
		start := s.Start
		if start.Before(last) {
			start = last
		}
		n := 0
		stamp := func(m swc.Message) swc.Message {
			if o.Timestamps {
				m.Time = start.Add(time.Duration(n) * 30 * time.Second)
				last = m.Time
			}
			n++
			return m
		}
		tool := func(id, name, args, result string) {
			cid := callID()
			msgs = append(msgs,
				stamp(swc.Message{Role: swc.RoleAssistant, ID: id + "/call", Name: c.SpeakerB, ToolCalls: []swc.ToolCall{{ID: cid, Name: name, Arguments: args}}}),
				stamp(swc.Message{Role: swc.RoleTool, ID: id + "/result", ToolCallID: cid, Content: result}))
		}
		answered := false
		for ti, t := range s.Turns {
			id := t.ID
			if id == "" {
				id = fmt.Sprintf("S%d:%d", si+1, ti+1)
			}
			role := swc.RoleUser
			if t.Speaker != c.SpeakerA {
				role = swc.RoleAssistant
			}
			if role == swc.RoleAssistant && !answered {
				answered = true
				tool(id+"/date", "get_date", "{}", "Today is "+s.DateText+".")
			}
			if t.Image != nil && t.Image.Caption != "" {
				q, _ := json.Marshal(map[string]string{"query": t.Image.Query})
				if role == swc.RoleAssistant {
					tool(id+"/photo", "share_photo", string(q), "Shared a photo: "+t.Image.Caption)
				}
			}
			text := t.Text
			if text == "" {
				text = "(a photo)"
			}
			msgs = append(msgs, stamp(swc.Message{Role: role, ID: id, Name: t.Speaker, Content: text}))
			if role == swc.RoleUser && t.Image != nil && t.Image.Caption != "" && ti+1 < len(s.Turns) {
				tool(id+"/view", "view_photo", fmt.Sprintf(`{"turn":%q}`, id), "The photo shows: "+t.Image.Caption)
			}
		}
	}
	tr := &Transcript{}
	var err error
	if o.Anthropic {
		tr.Wire, err = anthropicWire(msgs, o)
	} else {
		tr.Wire, err = openAIWire(msgs, o)
	}
	if err != nil {
		return nil, err
	}
	arr, err := json.Marshal(tr.Wire)
	if err != nil {
		return nil, err
	}
	f := chat.OpenAI
	if o.Anthropic {
		f = chat.Anthropic
	}
	in, err := chat.Parse(arr, f)
	if err != nil {
		return nil, fmt.Errorf("transcript: agent transcript of %s does not parse: %w", c.ID, err)
	}
	tr.Messages = in.Messages
	return tr, nil
}

// withMeta returns the JSON object b with the id and timestamp of m added
// as o asks.
func withMeta(b []byte, m swc.Message, o Options) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, err
	}
	if o.IDs {
		obj["id"], _ = json.Marshal(m.ID)
	}
	if o.Timestamps {
		obj["timestamp"], _ = json.Marshal(m.Time.Format(time.RFC3339))
	}
	return json.Marshal(obj)
}

func openAIWire(msgs []swc.Message, o Options) ([]json.RawMessage, error) {
	wire := chat.OpenAIMessages(msgs)
	out := make([]json.RawMessage, len(wire))
	for i, w := range wire {
		b, err := json.Marshal(w)
		if err != nil {
			return nil, err
		}
		if out[i], err = withMeta(b, msgs[i], o); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// anthropicWire writes msgs as Messages API messages: adjacent messages of
// one role (a tool result folded into the user's turn) become one, which
// takes the first one's id and time.
func anthropicWire(msgs []swc.Message, o Options) ([]json.RawMessage, error) {
	var out []json.RawMessage
	var group []swc.Message
	flush := func() error {
		if len(group) == 0 {
			return nil
		}
		req := chat.ToAnthropic(group)
		if n := len(req.Messages); n != 1 && (n != 2 || group[0].Role != swc.RoleAssistant) { // (ToAnthropic starts an assistant group with a user message)
			return fmt.Errorf("transcript: %d anthropic messages from one group", len(req.Messages))
		}
		b, err := json.Marshal(req.Messages[len(req.Messages)-1])
		if err != nil {
			return err
		}
		w, err := withMeta(b, group[0], o)
		out = append(out, w)
		group = group[:0]
		return err
	}
	role := func(m swc.Message) swc.Role {
		if m.Role == swc.RoleTool {
			return swc.RoleUser
		}
		return m.Role
	}
	for _, m := range msgs {
		if len(group) > 0 && role(group[len(group)-1]) != role(m) {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		group = append(group, m)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}
