package chat

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
)

// Preserved thinking. On newer Claude models a thinking block sent back
// is checked against its prefix: the system prompt, the tools and every
// message before it must be what they were when the block was produced,
// or the request is refused with a 400 ("The block is bound to a
// different conversation"; the default for accounts created from 31
// August 2026) or the block dropped, as the request's
// thinking.block_binding.prefix_mismatch_behavior says. A compressed
// request changes its prefix (stubs, clipped turns, the memory in
// system), so a thinking block it keeps after the change would fail the
// check: for a model that runs it, the Anthropic writer asks the API to
// drop such blocks instead (thinkingBinding), as its error message itself
// advises.

// DropBlock is the prefix_mismatch_behavior the Anthropic writer sets.
const DropBlock = "drop_block"

// preservedModel matches the Claude model names whose family and version
// run the prefix check: Fable and Mythos, and Opus, Sonnet and Haiku
// from 5.5 on (and any later major version). Older models do not know
// block_binding, so a request for one keeps its thinking field as sent.
var preservedModel = regexp.MustCompile(`claude-(fable|mythos|opus|sonnet|haiku)-(\d+)(?:[-.](\d+))?`)

// checksPrefix reports whether model (a request's "model", or a cloud
// platform's name holding it) runs the preserved-thinking prefix check.
func checksPrefix(model string) bool {
	m := preservedModel.FindStringSubmatch(model)
	if m == nil {
		return false
	}
	if m[1] == "fable" || m[1] == "mythos" {
		return true
	}
	major, _ := strconv.Atoi(m[2])
	minor := 0
	if len(m[3]) < 3 { // a minor version, not a date (claude-sonnet-4-20250514)
		minor, _ = strconv.Atoi(m[3])
	}
	return major > 5 || major == 5 && minor >= 5
}

// thinkingBinding returns body's "thinking" field with
// block_binding.prefix_mismatch_behavior set to DropBlock, ok false when
// it is to stay as it came: a model that does not run the prefix check
// (checksPrefix), thinking absent or disabled, a block_binding the client
// set, or no kept message (msgs) holding a thinking or redacted_thinking
// block.
func thinkingBinding(body map[string]json.RawMessage, msgs []json.RawMessage) (json.RawMessage, bool) {
	var model string
	if json.Unmarshal(body["model"], &model) != nil || !checksPrefix(model) {
		return nil, false
	}
	th := bytes.TrimSpace(body["thinking"])
	if len(th) == 0 || th[0] != '{' {
		return nil, false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(th, &obj) != nil {
		return nil, false
	}
	var typ string
	_ = json.Unmarshal(obj["type"], &typ)
	if typ == "disabled" || obj["block_binding"] != nil || !keepsThinking(msgs) {
		return nil, false
	}
	binding, _ := json.Marshal(map[string]string{"prefix_mismatch_behavior": DropBlock})
	return writeObject(obj, map[string]json.RawMessage{"block_binding": binding}), true
}

// keepsThinking reports whether an assistant message of msgs holds a
// thinking or redacted_thinking block.
func keepsThinking(msgs []json.RawMessage) bool {
	for _, m := range msgs {
		if !bytes.Contains(m, []byte("thinking")) {
			continue
		}
		var v struct {
			Role    string `json:"role"`
			Content []struct {
				Type string `json:"type"`
			} `json:"content"`
		}
		if json.Unmarshal(m, &v) != nil || v.Role != "assistant" {
			continue
		}
		for _, b := range v.Content {
			if b.Type == "thinking" || b.Type == "redacted_thinking" {
				return true
			}
		}
	}
	return false
}
