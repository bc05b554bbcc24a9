package trajectory

import (
	"encoding/json"
	"fmt"

	"github.com/swcmem/swc/chat"
)

// A codec is what the bench needs of one wire format: a format is one
// entry of codecs (and, for trajectory files, of wrapperFormats).
type codec struct {
	format chat.Format
	// list is the body's field holding the conversation.
	list string
	// lead is the field before the list that, with the list, the
	// provider's prompt cache reads content block by content block, each
	// block's end a prefix of its own (Anthropic's system: its blocks,
	// then each message's; Gemini's systemInstruction, also spelled
	// system_instruction: its parts, then each content's), or "" when
	// the cache's units are the list's items.
	lead string
	// blocks makes the cache's units the messages' content blocks (and
	// what else each message holds) without a lead: Chat Completions,
	// whose cache reads the prompt's tokens, so a part appended to a
	// message leaves its earlier parts cached.
	blocks bool
	// paragraphs splits a string content's units at its blank lines:
	// Chat Completions, whose cache reads tokens, so text appended to a
	// string after a blank line leaves the text before it cached.
	paragraphs bool
	// assistant reports whether an item of the list starts an assistant
	// turn (a request is cut just before one).
	assistant func(item json.RawMessage) bool
	// turn returns the text of the assistant turn that starts at items[0]:
	// its text and the string values of its tool calls' arguments.
	turn func(items []json.RawMessage) string
	// rewrite returns item with contents replaced: texts maps a tool call
	// id to the new text of its result, "" to the new text of the item's
	// own content. calls are the ids of the calls the item's tool results
	// answer, in the order chat.Parse read them (what Gemini needs: its
	// function responses may carry no id, and chat gives a call without
	// one an id of its position).
	rewrite func(item json.RawMessage, calls []string, texts map[string]string) (json.RawMessage, error)
	// validate returns the provider-rule breaches of a body's list.
	validate func(o object, items []json.RawMessage) []string
}

var codecs = map[chat.Format]*codec{
	chat.OpenAI:    {format: chat.OpenAI, list: "messages", blocks: true, paragraphs: true, assistant: roleIs("assistant"), turn: openAITurn, rewrite: openAIRewrite, validate: validateOpenAI},
	chat.Anthropic: {format: chat.Anthropic, list: "messages", lead: "system", assistant: roleIs("assistant"), turn: anthropicTurn, rewrite: anthropicRewrite, validate: validateAnthropic},
	chat.Responses: {format: chat.Responses, list: "input", assistant: responsesAssistant, turn: responsesTurn, rewrite: responsesRewrite, validate: validateResponses},
	chat.Gemini:    {format: chat.Gemini, list: "contents", lead: "systemInstruction", assistant: roleIs("model"), turn: geminiTurn, rewrite: geminiRewrite, validate: validateGemini},
}

// codecOf returns the codec of format f, or an error naming the formats
// the bench replays.
func codecOf(f chat.Format) (*codec, error) {
	if c := codecs[f]; c != nil {
		return c, nil
	}
	return nil, fmt.Errorf("format %s: the trajectory bench replays openai, anthropic, responses and gemini request bodies", f)
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
