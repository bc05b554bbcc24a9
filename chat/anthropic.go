package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/swcmem/swc"
)

type anMessage struct {
	Role    *string         `json:"role"`
	Content json.RawMessage `json:"content"`
	meta
}

type anBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// parseAnthropic reads a Messages request body, or a bare messages array.
// The system prompt becomes leading system messages; an assistant
// message's tool_use blocks become its ToolCalls; a user message's
// tool_result blocks become tool messages, placed before the message's
// other content, as the API orders them.
func parseAnthropic(data []byte) (*Input, error) {
	in := &Input{}
	msgs := data
	if len(data) > 0 && data[0] == '{' {
		if err := json.Unmarshal(data, &in.Body); err != nil {
			return nil, swc.Errorf(swc.EINVALID, "not one JSON object (%s): anthropic input is a Messages request body or a messages array", jsonErr(err))
		}
		var ok bool
		if msgs, ok = in.Body["messages"]; !ok {
			return nil, swc.Errorf(swc.EINVALID, "request body has no \"messages\"")
		}
		if len(msgs) == 0 || msgs[0] != '[' {
			return nil, swc.Errorf(swc.EINVALID, "messages: want an array, got %s", kind(msgs))
		}
		if sys, ok := in.Body["system"]; ok && string(sys) != "null" {
			text, err := anthropicSystem(sys)
			if err != nil {
				return nil, err
			}
			if text != "" {
				in.Messages = append(in.Messages, swc.Message{Role: swc.RoleSystem, Content: text})
				in.Where = append(in.Where, "system")
				in.Origin = append(in.Origin, -1)
			}
		}
	}
	elems, where, _, err := splitTop(bytes.TrimSpace(msgs), "messages")
	if err != nil {
		return nil, err
	}
	in.Raw = elems
	for i, raw := range elems {
		var am anMessage
		if err := json.Unmarshal(raw, &am); err != nil {
			return nil, swc.Errorf(swc.EINVALID, "%s: %s", where[i], jsonErr(err))
		}
		if am.Role == nil {
			return nil, swc.Errorf(swc.EINVALID, "%s.role: missing", where[i])
		}
		role := swc.Role(*am.Role)
		inPlace := false
		switch role {
		case swc.RoleUser, swc.RoleAssistant:
		case swc.RoleSystem:
			inPlace = true // a mid-conversation system message: history, in its place
		default:
			return nil, swc.Errorf(swc.EINVALID, "%s.role: %q is not an Anthropic message role (want user, assistant or system)", where[i], *am.Role)
		}
		var base swc.Message
		if err := am.meta.apply(&base, where[i]); err != nil {
			return nil, err
		}
		add := func(m swc.Message, w string) {
			m.ID, m.Time, m.Session = base.ID, base.Time, base.Session
			in.Messages = append(in.Messages, m)
			in.Where = append(in.Where, w)
			in.Origin = append(in.Origin, i)
		}
		var s string
		if json.Unmarshal(am.Content, &s) == nil {
			add(swc.Message{Role: role, Content: s, InPlace: inPlace}, where[i])
			continue
		}
		var blocks []json.RawMessage
		if err := json.Unmarshal(am.Content, &blocks); err != nil {
			return nil, swc.Errorf(swc.EINVALID, "%s.content: want a string or a list of blocks, got %s", where[i], kind(am.Content))
		}
		main := swc.Message{Role: role, InPlace: inPlace}
		var texts []string
		hasMain := false
		for j, rb := range blocks {
			bw := fmt.Sprintf("%s.content[%d]", where[i], j)
			b, err := decodeBlock(rb, bw)
			if err != nil {
				return nil, err
			}
			switch b.Type {
			case "text":
				if b.Text == nil {
					return nil, swc.Errorf(swc.EINVALID, "%s.text: missing", bw)
				}
				texts = append(texts, *b.Text)
				hasMain = true
			case "tool_use":
				if role != swc.RoleAssistant {
					return nil, swc.Errorf(swc.EINVALID, "%s: a tool_use block in a %s message (only the assistant calls tools)", bw, role)
				}
				if b.ID == "" {
					return nil, swc.Errorf(swc.EINVALID, "%s.id: missing", bw)
				}
				args := string(bytes.TrimSpace(b.Input))
				if args == "" || args == "null" {
					args = "{}"
				}
				main.ToolCalls = append(main.ToolCalls, swc.ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
				hasMain = true
			case "tool_result":
				if role != swc.RoleUser {
					return nil, swc.Errorf(swc.EINVALID, "%s: a tool_result block in a message of role %s (results come in user messages)", bw, role)
				}
				if b.ToolUseID == "" {
					return nil, swc.Errorf(swc.EINVALID, "%s.tool_use_id: missing", bw)
				}
				if hasMain {
					return nil, swc.Errorf(swc.EINVALID, "%s: tool_result blocks must come before other content in a user message", bw)
				}
				text, media, loads, err := toolResultText(b.Content, bw)
				if err != nil {
					return nil, err
				}
				if b.IsError {
					text = "[error] " + text
				}
				add(swc.Message{Role: swc.RoleTool, Content: text, ToolCallID: b.ToolUseID, MediaTokens: media, LoadsTools: loads}, bw)
			default:
				texts = append(texts, placeholder(b.Type))
				main.MediaTokens += anthropicBlockTokens(b.Type, rb)
				main.LoadsTools = main.LoadsTools || loadsBlock(b.Type, rb)
				hasMain = true
			}
		}
		main.Content = strings.Join(texts, "\n")
		if hasMain || len(blocks) == 0 {
			add(main, where[i])
		}
	}
	return in, nil
}

// anthropicSystem reads the system field: a string or text blocks.
func anthropicSystem(raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var blocks []anBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "", swc.Errorf(swc.EINVALID, "system: want a string or a list of text blocks, got %s", kind(raw))
	}
	var texts []string
	for j, b := range blocks {
		if b.Type != "text" || b.Text == nil {
			return "", swc.Errorf(swc.EINVALID, "system[%d]: want a text block", j)
		}
		texts = append(texts, *b.Text)
	}
	return strings.Join(texts, "\n"), nil
}

// decodeBlock reads a content block at where: its type, and for the
// types swc reads (text, tool_use, tool_result) their fields. A block of
// any other type — thinking, redacted_thinking, image, document,
// search_result, server tool blocks, types not yet invented — is read
// for its type alone, whatever its other fields hold: the message passes
// on byte for byte, its text holding a placeholder naming the type.
func decodeBlock(raw json.RawMessage, where string) (anBlock, error) {
	var b anBlock
	var head struct {
		Type json.RawMessage `json:"type"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return b, swc.Errorf(swc.EINVALID, "%s: want a block object, got %s", where, kind(raw))
	}
	if len(head.Type) > 0 && string(head.Type) != "null" {
		if err := json.Unmarshal(head.Type, &b.Type); err != nil {
			return b, swc.Errorf(swc.EINVALID, "%s.type: want a string, got %s", where, kind(head.Type))
		}
	}
	switch b.Type {
	case "text", "tool_use", "tool_result":
		if err := json.Unmarshal(raw, &b); err != nil {
			return b, swc.Errorf(swc.EINVALID, "%s: %s", where, jsonErr(err))
		}
	}
	return b, nil
}

// toolResultText reads a tool_result's content: a string or blocks (text,
// image, document, search_result, …: those not text stand as
// placeholders), what its images count (anthropicBlockTokens), and
// whether it loads deferred tools (a tool_reference block).
func toolResultText(raw json.RawMessage, where string) (string, int, bool, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", 0, false, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, 0, false, nil
	}
	var blocks []json.RawMessage
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "", 0, false, swc.Errorf(swc.EINVALID, "%s.content: want a string or a list of blocks, got %s", where, kind(raw))
	}
	var texts []string
	media, loads := 0, false
	for j, rb := range blocks {
		b, err := decodeBlock(rb, fmt.Sprintf("%s.content[%d]", where, j))
		if err != nil {
			return "", 0, false, err
		}
		if b.Type == "text" && b.Text != nil {
			texts = append(texts, *b.Text)
		} else {
			texts = append(texts, placeholder(b.Type))
			media += anthropicBlockTokens(b.Type, rb)
			loads = loads || b.Type == toolReference
		}
	}
	return strings.Join(texts, "\n"), media, loads, nil
}

// toolReference is the type of an Anthropic block that loads a deferred
// tool (in a tool_result: Claude Code's ToolSearch returns them).
const toolReference = "tool_reference"

// toolSearchResult is the type of the block of an assistant message that
// holds the result of the API's own tool search (its tool_references,
// after the server_tool_use block that ran it).
const toolSearchResult = "tool_search_tool_result"

// loadsBlock reports whether an assistant message's block of type typ
// (raw, its bytes) loads deferred tools: the result of the API's own tool
// search, unless the search failed (a tool_search_tool_result_error
// loads nothing).
func loadsBlock(typ string, raw []byte) bool {
	return typ == toolSearchResult && !bytes.Contains(raw, []byte(`"tool_search_tool_result_error"`))
}

// AnthropicRequest is the part of a Messages request body that holds the
// conversation.
type AnthropicRequest struct {
	System   string             `json:"system,omitempty"`
	Messages []AnthropicMessage `json:"messages"`
}

// AnthropicMessage is one message of a Messages request, with its content
// as blocks.
type AnthropicMessage struct {
	Role    string           `json:"role"`
	Content []AnthropicBlock `json:"content"`
}

// AnthropicBlock is a text, tool_use or tool_result content block.
type AnthropicBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   *string         `json:"content,omitempty"`
}

// ToAnthropic returns msgs as a Messages request: system and developer
// messages joined into System (blank line between them), tool messages
// folded into the following user turn as tool_result blocks, and adjacent
// messages of one role merged, so that user/assistant alternation holds;
// a conversation starting with an assistant message gets a first user
// message, StartText, as the API wants one. A tool call's arguments that
// are not a JSON object are sent as {"arguments": text}.
func ToAnthropic(msgs []swc.Message) AnthropicRequest {
	var req AnthropicRequest
	var sys []string
	for _, m := range msgs {
		switch m.Role {
		case swc.RoleSystem, swc.RoleDeveloper:
			sys = append(sys, m.Content)
			continue
		}
		role := "user"
		var blocks []AnthropicBlock
		switch m.Role {
		case swc.RoleAssistant:
			role = "assistant"
			if m.Content != "" {
				blocks = append(blocks, textBlock(m.Content))
			}
			for _, tc := range m.ToolCalls {
				blocks = append(blocks, AnthropicBlock{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: toolInput(tc.Arguments)})
			}
		case swc.RoleTool:
			c := m.Content
			blocks = append(blocks, AnthropicBlock{Type: "tool_result", ToolUseID: m.ToolCallID, Content: &c})
		default:
			blocks = append(blocks, textBlock(m.Content))
		}
		if len(blocks) == 0 {
			blocks = append(blocks, textBlock("(empty)"))
		}
		if len(req.Messages) == 0 && role == "assistant" {
			req.Messages = append(req.Messages, AnthropicMessage{Role: "user", Content: []AnthropicBlock{textBlock(StartText)}})
		}
		if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == role {
			prev := &req.Messages[n-1]
			prev.Content = append(prev.Content, blocks...)
			continue
		}
		req.Messages = append(req.Messages, AnthropicMessage{Role: role, Content: blocks})
	}
	req.System = strings.Join(sys, "\n\n")
	return req
}

// StartText is the first user message ToAnthropic gives a conversation
// that starts with the assistant.
const StartText = "(conversation start)"

func textBlock(s string) AnthropicBlock {
	if s == "" {
		s = "(empty)"
	}
	return AnthropicBlock{Type: "text", Text: &s}
}

// toolInput returns arguments as a JSON object.
func toolInput(args string) json.RawMessage {
	args = strings.TrimSpace(args)
	if args == "" {
		return json.RawMessage("{}")
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &obj) == nil {
		return json.RawMessage(args)
	}
	b, _ := json.Marshal(map[string]string{"arguments": args})
	return b
}
