package chat

import (
	"encoding/json"
	"strings"

	"github.com/swcmem/swc"
)

type oaMessage struct {
	Role       *string         `json:"role"`
	Content    json.RawMessage `json:"content"`
	Name       string          `json:"name"`
	ToolCalls  []oaToolCall    `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Refusal    string          `json:"refusal"`
	Speaker    *string         `json:"speaker"`
	meta
}

type oaToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// parseOpenAI reads a message array, a request body or JSONL.
func parseOpenAI(data []byte) (*Input, error) {
	in := &Input{}
	what := "messages"
	if len(data) > 0 && data[0] == '{' {
		var body map[string]json.RawMessage
		if err := json.Unmarshal(data, &body); err == nil {
			msgs, ok := body["messages"]
			if !ok {
				if _, role := body["role"]; !role {
					return nil, swc.Errorf(swc.EINVALID, "request body has no \"messages\"")
				}
			} else {
				in.Body = body
				data = msgs
				if len(data) == 0 || data[0] != '[' {
					return nil, swc.Errorf(swc.EINVALID, "messages: want an array, got %s", kind(data))
				}
			}
		}
	}
	elems, where, isLines, err := splitTop(data, what)
	if err != nil {
		return nil, err
	}
	in.Raw = elems
	for i, raw := range elems {
		var om oaMessage
		if err := json.Unmarshal(raw, &om); err != nil {
			return nil, swc.Errorf(swc.EINVALID, "%s: %s", where[i], jsonErr(err))
		}
		if om.Speaker != nil {
			if isLines {
				return nil, swc.Errorf(swc.EINVALID, "%s: a jsonl {speaker,text} line among openai messages (one file holds one format)", where[i])
			}
			return nil, swc.Errorf(swc.EINVALID, "%s.speaker: not an openai message field (use \"role\" and \"content\", or --format jsonl)", where[i])
		}
		if om.Role == nil {
			return nil, swc.Errorf(swc.EINVALID, "%s.role: missing", where[i])
		}
		m := swc.Message{Role: swc.Role(*om.Role), Name: om.Name, ToolCallID: om.ToolCallID}
		if m.Content, m.MediaTokens, err = openAIContent(om.Content, where[i]); err != nil {
			return nil, err
		}
		if m.Content == "" && om.Refusal != "" {
			m.Content = om.Refusal
		}
		for j, tc := range om.ToolCalls {
			if tc.ID == "" {
				return nil, swc.Errorf(swc.EINVALID, "%s.tool_calls[%d].id: missing", where[i], j)
			}
			if tc.Type != "" && tc.Type != "function" {
				m.ToolCalls = append(m.ToolCalls, swc.ToolCall{ID: tc.ID, Name: placeholder(tc.Type)})
				continue
			}
			m.ToolCalls = append(m.ToolCalls, swc.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		if err := om.meta.apply(&m, where[i]); err != nil {
			return nil, err
		}
		in.Messages = append(in.Messages, m)
		in.Where = append(in.Where, where[i])
		in.Origin = append(in.Origin, i)
	}
	return in, nil
}

// openAIContent reads a content field: a string, null, or a list of
// parts; and what its parts count beyond their placeholders
// (openAIPartTokens).
func openAIContent(raw json.RawMessage, where string) (string, int, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", 0, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, 0, nil
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", 0, swc.Errorf(swc.EINVALID, "%s.content: want a string or a list of parts, got %s", where, kind(raw))
	}
	var texts []string
	media := 0
	for j, p := range parts {
		// The type first: a part of a type swc does not read (input_audio,
		// file, image_url, types not yet invented) is a placeholder,
		// whatever its other fields hold.
		var head struct {
			Type json.RawMessage `json:"type"`
		}
		if err := json.Unmarshal(p, &head); err != nil {
			return "", 0, swc.Errorf(swc.EINVALID, "%s.content[%d]: want a part object, got %s", where, j, kind(p))
		}
		var typ string
		if len(head.Type) > 0 && string(head.Type) != "null" && json.Unmarshal(head.Type, &typ) != nil {
			return "", 0, swc.Errorf(swc.EINVALID, "%s.content[%d].type: want a string, got %s", where, j, kind(head.Type))
		}
		var part struct {
			Text    *string `json:"text"`
			Refusal string  `json:"refusal"`
		}
		if typ == "text" || typ == "refusal" {
			if err := json.Unmarshal(p, &part); err != nil {
				return "", 0, swc.Errorf(swc.EINVALID, "%s.content[%d]: %s", where, j, jsonErr(err))
			}
		}
		switch {
		case typ == "text" && part.Text != nil:
			texts = append(texts, *part.Text)
		case typ == "text":
			return "", 0, swc.Errorf(swc.EINVALID, "%s.content[%d].text: missing", where, j)
		case typ == "refusal":
			texts = append(texts, part.Refusal)
		default:
			texts = append(texts, placeholder(typ))
			media += openAIPartTokens(typ, p)
		}
	}
	return strings.Join(texts, "\n"), media, nil
}

// OpenAIMessage is one Chat Completions message in its wire form.
type OpenAIMessage struct {
	Role       string           `json:"role"`
	Content    *string          `json:"content"`
	Name       string           `json:"name,omitempty"`
	ToolCalls  []OpenAIToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

// OpenAIToolCall is a function tool call in its wire form.
type OpenAIToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// OpenAIMessages returns msgs in Chat Completions wire form. An assistant
// message with tool calls and no text gets null content, as the API
// writes it; a name is kept only where the API accepts one and only when it
// matches the API's pattern.
func OpenAIMessages(msgs []swc.Message) []OpenAIMessage {
	out := make([]OpenAIMessage, len(msgs))
	for i, m := range msgs {
		c := m.Content
		o := OpenAIMessage{Role: string(m.Role), Content: &c, ToolCallID: m.ToolCallID}
		if m.Role != swc.RoleTool && validName(m.Name) {
			o.Name = m.Name
		}
		for _, tc := range m.ToolCalls {
			w := OpenAIToolCall{ID: tc.ID, Type: "function"}
			w.Function.Name, w.Function.Arguments = tc.Name, tc.Arguments
			if w.Function.Arguments == "" {
				w.Function.Arguments = "{}"
			}
			o.ToolCalls = append(o.ToolCalls, w)
		}
		if len(o.ToolCalls) > 0 && c == "" {
			o.Content = nil
		}
		out[i] = o
	}
	return out
}

// validName reports whether s fits OpenAI's name pattern ^[a-zA-Z0-9_-]{1,64}$.
func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}
