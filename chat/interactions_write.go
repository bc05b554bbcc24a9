package chat

import (
	"bytes"
	"encoding/json"

	"github.com/swcmem/swc"
)

// interactionsCodec is the Gemini Interactions API's format
// (interactions.go reads it).
type interactionsCodec struct{}

func (interactionsCodec) Format() Format  { return Interactions }
func (interactionsCodec) AlignUser() bool { return false }
func (interactionsCodec) parse(data []byte, rd reading) (*Input, error) {
	return parseInteractions(data, rd.files)
}

// Splice writes an Interactions request body with out's messages as an
// array in "input", in the input's own shape (turns stay turns, steps
// steps; a string or a content object becomes an array of contents): a
// kept element's items byte for byte; an element only partly kept or
// holding a rewritten message from its items as they came, the kept ones
// only (interactionsPartly); clipped calls' arguments written into their
// function_call items. A tool loop's memory goes after the task, so the
// task stays a cached prefix: in steps or contents a user element of its
// own right after the task's (a user_input step, a text object), in turns
// a text object appended to the task's turn; a conversation's at the end
// of "system_instruction", else, when the body has none, as the first
// user element. When the kept elements start with the model's, a user
// element holding the memory (StartText without one) comes first. Every
// other field as it came.
func (interactionsCodec) Splice(in *Input, out Output) ([]byte, error) {
	groups, _, turns, err := interactionsGroups(bytes.TrimSpace(in.Body["input"]))
	if err != nil {
		return nil, err
	}
	if len(groups) != len(in.Raw) {
		return nil, swc.Errorf(swc.EINVALID, "interactions input: %d elements, %d read", len(groups), len(in.Raw))
	}
	style := interactionsStyle(groups, turns)
	byOrigin, kept := originMessages(in, out)
	var elems []json.RawMessage
	memOrigin, memIn := memoryOrigin(in, out), false
	for _, o := range keptOrigins(in, out) {
		whole := keptWhole(byOrigin[o], kept, out.Rewritten)
		args := callArgs(in, out, o)
		mem := whole && o == memOrigin
		if whole && args == nil && !mem {
			if turns {
				elems = append(elems, groups[o].raw)
			} else {
				elems = append(elems, groups[o].items...)
			}
			continue
		}
		items := groups[o].items
		var turn map[string]json.RawMessage
		if turns {
			if err := json.Unmarshal(groups[o].raw, &turn); err != nil {
				return nil, swc.Errorf(swc.EINVALID, "interactions turn: %v", err)
			}
			if items, _, err = interactionsContent(turn["content"], "content"); err != nil {
				return nil, err
			}
		}
		items, err := interactionsPartly(in, byOrigin[o], items, !turns, o, kept, out.Rewritten, args)
		if err != nil {
			return nil, err
		}
		if turns {
			if mem {
				items, memIn = append(items, interactionsText(out.Memory)), true
			}
			elems = append(elems, writeObject(turn, map[string]json.RawMessage{"content": joinArray(items)}))
			continue
		}
		elems = append(elems, items...)
		if mem {
			elems, memIn = append(elems, interactionsUser(style, out.Memory)), true
		}
	}
	fields := map[string]json.RawMessage{}
	first, model := firstKept(in, out)
	lead := ""
	if model && (out.Memory != "" || first > 0) {
		// The model's turn must follow a user's: the memory is that turn
		// (StartText when there is none and earlier elements were left out).
		lead = out.Memory
		if lead == "" {
			lead = StartText
		}
	} else if out.Memory != "" && !memIn {
		var sys string
		if json.Unmarshal(in.Body["system_instruction"], &sys) == nil && sys != "" {
			fields["system_instruction"] = jsonString(sys + "\n\n" + out.Memory)
		} else {
			lead = out.Memory
		}
	}
	if lead != "" {
		elems = append([]json.RawMessage{interactionsUser(style, lead)}, elems...)
	}
	fields["input"] = joinArray(elems)
	return writeObject(in.Body, fields), nil
}

// The shapes of an input array, for the user elements swc writes.
const (
	styleContents = iota // content objects: a text object
	styleSteps           // steps: a user_input step
	styleTurns           // turns: a user turn
)

// interactionsStyle returns the shape of an input's array: steps when it
// holds a user_input or model_output step (the revision of May 2026),
// else content objects (the first revision's list, which may hold
// function_call and function_result contents too).
func interactionsStyle(groups []interactionsGroup, turns bool) int {
	if turns {
		return styleTurns
	}
	for _, g := range groups {
		for _, e := range g.items {
			var head struct {
				Type string `json:"type"`
			}
			json.Unmarshal(e, &head)
			if head.Type == "user_input" || head.Type == "model_output" {
				return styleSteps
			}
		}
	}
	return styleContents
}

// interactionsText returns a text content object.
func interactionsText(text string) json.RawMessage {
	return writeObject(nil, map[string]json.RawMessage{"type": json.RawMessage(`"text"`), "text": jsonString(text)})
}

// interactionsUser returns a user element holding text, in style's shape.
func interactionsUser(style int, text string) json.RawMessage {
	content := joinArray([]json.RawMessage{interactionsText(text)})
	switch style {
	case styleTurns:
		return writeObject(nil, map[string]json.RawMessage{"role": json.RawMessage(`"user"`), "content": content})
	case styleSteps:
		return writeObject(nil, map[string]json.RawMessage{"type": json.RawMessage(`"user_input"`), "content": content})
	}
	return interactionsText(text)
}

// interactionsPartly returns the items of source element o whose
// messages are msgs (its function results' tool messages, in order, then
// the message of its other items), the kept ones only: a rewritten
// function_result's result the stub's text; a rewritten user message as
// one text (a user_input step of it where the first of its items was a
// step); a rewritten model message's text as its first text (in the first
// model_output step, or one of its own before the others when steps says
// the items are top-level steps and none has one), its other texts gone, its thoughts kept without
// their summaries (a thought without a signature goes unless the text
// still holds "[thought]"), its calls (args: clipped arguments by call
// id) and every other item as they came.
func interactionsPartly(in *Input, msgs []int, items []json.RawMessage, steps bool, o int, kept map[int]bool, rewritten map[int]string, args map[string]string) ([]json.RawMessage, error) {
	main := -1
	var tools []int
	for _, i := range msgs {
		if in.Messages[i].Role == swc.RoleTool {
			tools = append(tools, i)
		} else {
			main = i
		}
	}
	model := main >= 0 && in.Messages[main].Role == swc.RoleAssistant
	mainKept := main >= 0 && kept[main]
	text, rw := rewritten[main]
	var out []json.RawMessage
	mainDone := false
	for j, raw := range items {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, swc.Errorf(swc.EINVALID, "interactions item: %v", err)
		}
		var typ string
		json.Unmarshal(obj["type"], &typ)
		switch {
		case typ == "function_result":
			if len(tools) == 0 {
				return nil, swc.Errorf(swc.EINVALID, "interactions input: more function_result items than its parsed tool messages")
			}
			i := tools[0]
			tools = tools[1:]
			if !kept[i] {
				continue
			}
			if t, ok := rewritten[i]; ok {
				raw = writeObject(obj, map[string]json.RawMessage{"result": jsonString(t)})
			}
			out = append(out, raw)
		case !mainKept:
		case typ == "function_call":
			var id string
			json.Unmarshal(obj["id"], &id)
			if id == "" {
				id = interactionsSyntheticID(o, j)
			}
			if a, ok := args[id]; ok && json.Valid([]byte(a)) {
				raw = writeObject(obj, map[string]json.RawMessage{"arguments": json.RawMessage(a)})
			}
			out = append(out, raw)
		case !rw:
			out = append(out, raw)
		case !model:
			if mainDone {
				continue
			}
			mainDone = true
			if typ == "user_input" {
				out = append(out, interactionsUser(styleSteps, text))
			} else {
				out = append(out, interactionsText(text))
			}
		case typ == "text":
			if !mainDone && text != "" {
				out, mainDone = append(out, interactionsText(text)), true
			}
		case typ == "model_output":
			content, _, err := interactionsContent(obj["content"], "content")
			if err != nil {
				return nil, err
			}
			var next []json.RawMessage
			if !mainDone && text != "" {
				next, mainDone = append(next, interactionsText(text)), true
			}
			for _, c := range content {
				var h struct {
					Type string `json:"type"`
				}
				if json.Unmarshal(c, &h); h.Type != "text" {
					next = append(next, c)
				}
			}
			if len(next) > 0 {
				out = append(out, writeObject(obj, map[string]json.RawMessage{"content": joinArray(next)}))
			}
		case typ == "thought":
			if sig := bytes.TrimSpace(obj["signature"]); len(sig) > 0 && string(sig) != "null" {
				out = append(out, writeObject(obj, map[string]json.RawMessage{"summary": nil}))
			} else if holdsReasoning(text) {
				out = append(out, raw)
			}
		default:
			out = append(out, raw)
		}
	}
	if model && rw && mainKept && !mainDone && text != "" {
		lead := interactionsText(text)
		if steps {
			lead = writeObject(nil, map[string]json.RawMessage{"type": json.RawMessage(`"model_output"`), "content": joinArray([]json.RawMessage{lead})})
		}
		out = append([]json.RawMessage{lead}, out...)
	}
	return out, nil
}
