package trajectory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/swcmem/swc/chat"
)

// A codec is what the bench needs of one wire format: a format is one
// entry of codecs (and, for trajectory files, of wrapperFormats).
type codec struct {
	format chat.Format
	// list is the body's field holding the conversation.
	list string
	// assistant reports whether an item of the list starts an assistant
	// turn (a request is cut just before one).
	assistant func(item json.RawMessage) bool
	// turn returns the text of the assistant turn that starts at items[0]:
	// its text and the string values of its tool calls' arguments.
	turn func(items []json.RawMessage) string
	// rewrite returns item with contents replaced: texts maps a tool call
	// id to the new text of its result, "" to the new text of the item's
	// own content.
	rewrite func(item json.RawMessage, texts map[string]string) (json.RawMessage, error)
	// validate returns the provider-rule breaches of a body's list.
	validate func(o object, items []json.RawMessage) []string
}

var codecs = map[chat.Format]*codec{
	chat.OpenAI:    {format: chat.OpenAI, list: "messages", assistant: roleIs("assistant"), turn: openAITurn, rewrite: openAIRewrite, validate: validateOpenAI},
	chat.Anthropic: {format: chat.Anthropic, list: "messages", assistant: roleIs("assistant"), turn: anthropicTurn, rewrite: anthropicRewrite, validate: validateAnthropic},
	chat.Responses: {format: chat.Responses, list: "input", assistant: responsesAssistant, turn: responsesTurn, rewrite: responsesRewrite, validate: validateResponses},
}

// codecOf returns the codec of format f, or an error naming the formats
// the bench replays.
func codecOf(f chat.Format) (*codec, error) {
	if c := codecs[f]; c != nil {
		return c, nil
	}
	return nil, fmt.Errorf("format %s: the trajectory bench replays openai, anthropic and responses request bodies", f)
}

type roleOnly struct {
	Role string `json:"role"`
}

func roleOf(item json.RawMessage) string {
	var r roleOnly
	_ = json.Unmarshal(item, &r)
	return r.Role
}

func roleIs(role string) func(json.RawMessage) bool {
	return func(item json.RawMessage) bool { return roleOf(item) == role }
}

// openAIMessage is the part of a Chat Completions message the bench reads.
type openAIMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

func openAITurn(items []json.RawMessage) string {
	var m openAIMessage
	if len(items) == 0 || json.Unmarshal(items[0], &m) != nil {
		return ""
	}
	var b bytes.Buffer
	if len(m.Content) > 0 {
		jsonStrings(&b, m.Content)
	}
	for _, tc := range m.ToolCalls {
		jsonStrings(&b, json.RawMessage(tc.Function.Arguments))
	}
	return b.String()
}

func openAIRewrite(item json.RawMessage, texts map[string]string) (json.RawMessage, error) {
	o, err := decodeObject(item)
	if err != nil {
		return nil, err
	}
	for _, t := range texts { // one message holds one content
		if o["content"], err = marshal(t); err != nil {
			return nil, err
		}
	}
	return marshal(o)
}

// validateOpenAI checks Chat Completions' rules: every tool call of an
// assistant message answered by exactly one tool message right after it
// (before any other message), and no tool message answering anything
// else.
func validateOpenAI(_ object, items []json.RawMessage) []string {
	var out []string
	pending := map[string]bool{} // the calls of the last assistant message, true once answered
	from := -1
	flush := func(i int, role string) {
		n := 0
		for _, done := range pending {
			if !done {
				n++
			}
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("messages[%d]: %d tool calls of messages[%d] unanswered before a %s message", i, n, from, role))
		}
		clear(pending)
	}
	for i, it := range items {
		var m openAIMessage
		if err := json.Unmarshal(it, &m); err != nil {
			out = append(out, fmt.Sprintf("messages[%d]: %v", i, err))
			continue
		}
		if m.Role == "tool" {
			done, ok := pending[m.ToolCallID]
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("messages[%d]: tool result %q answers no call of the assistant message before it", i, m.ToolCallID))
			case done:
				out = append(out, fmt.Sprintf("messages[%d]: tool call %q answered twice", i, m.ToolCallID))
			default:
				pending[m.ToolCallID] = true
			}
			continue
		}
		flush(i, m.Role)
		if m.Role == "assistant" {
			from = i
			for _, tc := range m.ToolCalls {
				if _, dup := pending[tc.ID]; dup {
					out = append(out, fmt.Sprintf("messages[%d]: tool call id %q used twice", i, tc.ID))
				}
				pending[tc.ID] = false
			}
		}
	}
	flush(len(items), "missing")
	return out
}

// anthropicMessage is the part of a Messages API message the bench reads.
type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	ID        string          `json:"id"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
}

// blocks returns m's content as blocks (a string is one text block).
func (m anthropicMessage) blocks() ([]anthropicBlock, error) {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []anthropicBlock{{Type: "text", Text: &s}}, nil
	}
	var bs []anthropicBlock
	err := json.Unmarshal(m.Content, &bs)
	return bs, err
}

func anthropicTurn(items []json.RawMessage) string {
	var m anthropicMessage
	if len(items) == 0 || json.Unmarshal(items[0], &m) != nil {
		return ""
	}
	bs, _ := m.blocks()
	var b bytes.Buffer
	for _, bl := range bs {
		switch {
		case bl.Type == "text" && bl.Text != nil:
			b.WriteString(*bl.Text)
			b.WriteByte('\n')
		case bl.Type == "tool_use":
			jsonStrings(&b, bl.Input)
		}
	}
	return b.String()
}

func anthropicRewrite(item json.RawMessage, texts map[string]string) (json.RawMessage, error) {
	o, err := decodeObject(item)
	if err != nil {
		return nil, err
	}
	var s string
	if json.Unmarshal(o["content"], &s) == nil {
		if t, ok := texts[""]; ok {
			o["content"], err = marshal(t)
		}
		return marshalOr(o, err)
	}
	var bs []map[string]json.RawMessage
	if err := json.Unmarshal(o["content"], &bs); err != nil {
		return nil, err
	}
	var out []map[string]json.RawMessage
	own, ownDone := texts[""]
	ownDone = !ownDone
	for _, b := range bs {
		var typ, id string
		_ = json.Unmarshal(b["type"], &typ)
		_ = json.Unmarshal(b["tool_use_id"], &id)
		switch {
		case typ == "tool_result" && texts[id] != "":
			if b["content"], err = marshal(texts[id]); err != nil {
				return nil, err
			}
		case typ == "text" && !ownDone:
			if b["text"], err = marshal(own); err != nil {
				return nil, err
			}
			ownDone = true
		case typ == "text" && texts[""] != "":
			continue // the new text stands for all the text blocks
		}
		out = append(out, b)
	}
	if o["content"], err = marshal(out); err != nil {
		return nil, err
	}
	return marshal(o)
}

func marshalOr(o object, err error) (json.RawMessage, error) {
	if err != nil {
		return nil, err
	}
	return marshal(o)
}

// validateAnthropic checks the Messages API's rules: at least one message,
// the first a user's, roles alternating, no empty content or text, and
// each user message after an assistant message with tool_use blocks
// answering exactly those ids, each once (tool_result blocks first), and
// no tool_result elsewhere.
func validateAnthropic(_ object, items []json.RawMessage) []string {
	if len(items) == 0 {
		return []string{"no messages"}
	}
	var out []string
	var pending []string // tool_use ids of the previous assistant message
	for i, it := range items {
		var m anthropicMessage
		if err := json.Unmarshal(it, &m); err != nil {
			out = append(out, fmt.Sprintf("messages[%d]: %v", i, err))
			continue
		}
		want := "user"
		if i%2 == 1 {
			want = "assistant"
		}
		if m.Role != want {
			out = append(out, fmt.Sprintf("messages[%d]: role %s where %s is due (the first message is a user's, roles alternate)", i, m.Role, want))
		}
		bs, err := m.blocks()
		if err != nil {
			out = append(out, fmt.Sprintf("messages[%d].content: %v", i, err))
			continue
		}
		if len(bs) == 0 {
			out = append(out, fmt.Sprintf("messages[%d]: empty content", i))
		}
		answered := map[string]int{}
		var uses []string
		other := false
		for j, b := range bs {
			switch b.Type {
			case "text":
				if b.Text == nil || strings.TrimSpace(*b.Text) == "" {
					out = append(out, fmt.Sprintf("messages[%d].content[%d]: empty text", i, j))
				}
				other = true
			case "tool_use":
				uses = append(uses, b.ID)
				other = true
			case "tool_result":
				if other {
					out = append(out, fmt.Sprintf("messages[%d].content[%d]: tool_result after other content", i, j))
				}
				answered[b.ToolUseID]++
			default:
				other = true
			}
		}
		for _, id := range pending {
			if answered[id] != 1 {
				out = append(out, fmt.Sprintf("messages[%d]: tool_use %q of messages[%d] answered %d times (want once, right after)", i, id, i-1, answered[id]))
			}
			delete(answered, id)
		}
		for id := range answered {
			out = append(out, fmt.Sprintf("messages[%d]: tool_result %q answers no tool_use of the message before", i, id))
		}
		pending = uses
	}
	if len(pending) > 0 {
		out = append(out, fmt.Sprintf("messages[%d]: %d tool_use blocks without results", len(items)-1, len(pending)))
	}
	return out
}
