package trajectory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

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

func anthropicRewrite(item json.RawMessage, _ []string, texts map[string]string) (json.RawMessage, error) {
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
		for _, id := range slices.Sorted(maps.Keys(answered)) {
			out = append(out, fmt.Sprintf("messages[%d]: tool_result %q answers no tool_use of the message before", i, id))
		}
		pending = uses
	}
	if len(pending) > 0 {
		out = append(out, fmt.Sprintf("messages[%d]: %d tool_use blocks without results", len(items)-1, len(pending)))
	}
	return out
}
