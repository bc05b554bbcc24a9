package loadtest

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// RequestBody returns an OpenAI Chat Completions request body of msgs
// (model gpt-4o, temperature 0.2), streaming or not.
func RequestBody(msgs []swc.Message, stream bool) ([]byte, error) {
	b, err := json.Marshal(chat.OpenAIMessages(msgs))
	if err != nil {
		return nil, err
	}
	return []byte(fmt.Sprintf(`{"model":"gpt-4o","temperature":0.2,"stream":%v,"messages":%s}`, stream, b)), nil
}

// AgentHistory returns a system prompt and n messages (n-1 when the n-th
// would be a tool call without its result) of agent a's conversation:
// users telling facts, the assistant answering, and every fifth exchange
// a tool call with its result. Every agent's messages are its own.
func AgentHistory(n, a int) []swc.Message {
	facts := []string{
		"My sister Ana moved to Lisbon in 2022 and works as a nurse at Santa Maria hospital.",
		"We adopted a dog named Rex from the shelter on Saturday; he is three years old.",
		"The marathon in Boston is on 21 April and I have trained for 16 weeks with Coach Lee.",
		"My manager Priya approved the budget of 40,000 dollars for the Atlas project.",
		"I finished reading Dune last week and loved the desert scenes and the politics.",
		"Our flat in Porto needs a new boiler; the plumber quoted 1,200 euros.",
	}
	out := []swc.Message{{Role: swc.RoleSystem, Content: "You are a helpful assistant with tools."}}
	for i := 0; len(out) < n+1; i++ {
		f := facts[i%len(facts)]
		out = append(out, swc.Message{Role: swc.RoleUser, Content: fmt.Sprintf("Update %d for agent %d: %s What do you think?", i, a, f)})
		if i%5 == 4 {
			id := fmt.Sprintf("call_%d", i)
			out = append(out,
				swc.Message{Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: id, Name: "lookup_weather", Arguments: fmt.Sprintf(`{"city":"Lisbon","day":%d}`, i)}}},
				swc.Message{Role: swc.RoleTool, ToolCallID: id, Content: fmt.Sprintf("Lisbon day %d: 21°C, sunny.", i)})
		}
		out = append(out, swc.Message{Role: swc.RoleAssistant, Content: fmt.Sprintf("Noted (%d). That sounds important; I will remember it.", i)})
	}
	out = out[:n+1]
	if len(out[n].ToolCalls) > 0 {
		out = out[:n]
	}
	return out
}

// ConversationMessages turns a conversation into messages as a client
// would append them: ids are the turn ids (s<session>-t<turn> when a turn
// has none), times the session's start plus 30s per turn (never before
// the previous message's), explicit session ids s1, s2, ….
func ConversationMessages(c *swc.Conversation) []swc.Message {
	var out []swc.Message
	last := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for si, s := range c.Sessions {
		start := s.Start
		if start.Before(last) {
			start = last
		}
		for ti, t := range s.Turns {
			role := swc.RoleUser
			if t.Speaker == c.SpeakerB {
				role = swc.RoleAssistant
			}
			id := t.ID
			if id == "" {
				id = fmt.Sprintf("s%d-t%d", si, ti)
			}
			m := swc.Message{ID: id, Role: role, Name: t.Speaker, Content: t.Text, Time: start.Add(time.Duration(ti) * 30 * time.Second), Session: fmt.Sprintf("s%d", si+1)}
			out = append(out, m)
			last = m.Time
		}
	}
	return out
}
