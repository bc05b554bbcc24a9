package chat

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/swcmem/swc"
)

// Format names an input format.
type Format string

// The message formats. Auto asks Parse to detect the format.
const (
	Auto      Format = "auto"
	OpenAI    Format = "openai"
	Anthropic Format = "anthropic"
	JSONL     Format = "jsonl"
	LoCoMo    Format = "locomo"
)

// Formats lists the formats an input can be in, in the order Detect tries them.
var Formats = []Format{OpenAI, Anthropic, JSONL, LoCoMo}

// ParseFormat returns the format named s ("" means Auto), or an EINVALID
// error listing the known names.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case "", Auto:
		return Auto, nil
	case OpenAI, Anthropic, Gemini, Responses, Interactions, JSONL, LoCoMo:
		return f, nil
	}
	return "", swc.Errorf(swc.EINVALID, "unknown format %q (want auto, openai, anthropic, gemini, responses, interactions, jsonl or locomo)", s)
}

// tried is the end of Detect's error: what it looked for.
const tried = "tried openai (a message array, a {\"messages\":…} request body, or JSONL with \"role\"), anthropic (a request body with \"system\" or tool_use/tool_result blocks), gemini (a request body with \"contents\"), responses and interactions (a request body with \"input\"), jsonl (lines of {\"time\",\"speaker\",\"text\"}) and locomo (an array of samples with \"conversation\")"

// Detect returns the format of data by its shape, or an EINVALID error
// naming the formats it tried. It reads structure only; Parse reports what
// is wrong inside a message.
func Detect(data []byte) (Format, error) {
	data = bytes.TrimSpace(trimBOM(data))
	if len(data) == 0 {
		return "", swc.Errorf(swc.EINVALID, "empty input: no messages")
	}
	switch data[0] {
	case '[':
		var arr []json.RawMessage
		if err := json.Unmarshal(data, &arr); err != nil {
			return "", swc.Errorf(swc.EINVALID, "cannot detect the format: input starts with '[' but is not a JSON array (%s); %s", jsonErr(err), tried)
		}
		if len(arr) == 0 {
			return OpenAI, nil // Parse reports the empty list
		}
		keys := objectKeys(arr[0])
		switch {
		case keys["conversation"] || keys["sample_id"] || keys["qa"]:
			return LoCoMo, nil
		case keys["speaker"]:
			return JSONL, nil
		case keys["role"]:
			if anthropicBlocks(arr) {
				return Anthropic, nil
			}
			return OpenAI, nil
		}
		return "", swc.Errorf(swc.EINVALID, "cannot detect the format: the first element has none of \"role\", \"speaker\", \"conversation\"; %s", tried)
	case '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(data, &obj); err == nil {
			return detectObject(obj)
		}
		// Several values: JSONL. The first line decides; Parse rejects
		// lines of another format.
		line, _, _ := bytes.Cut(data, []byte("\n"))
		if err := json.Unmarshal(bytes.TrimSpace(line), &obj); err != nil {
			return "", swc.Errorf(swc.EINVALID, "cannot detect the format: line 1 is not a JSON object (%s); %s", jsonErr(err), tried)
		}
		switch lineFormat(obj) {
		case OpenAI:
			return OpenAI, nil
		case JSONL:
			return JSONL, nil
		}
		return "", swc.Errorf(swc.EINVALID, "cannot detect the format: line 1 has neither \"role\" nor \"speaker\"; %s", tried)
	}
	return "", swc.Errorf(swc.EINVALID, "cannot detect the format: input is not JSON or JSONL; %s", tried)
}

func detectObject(obj map[string]json.RawMessage) (Format, error) {
	if _, _, err := GeminiRequest(obj); err == nil {
		return Gemini, nil
	}
	if msgs, ok := obj["messages"]; ok {
		if _, ok := obj["system"]; ok {
			return Anthropic, nil
		}
		var arr []json.RawMessage
		if json.Unmarshal(msgs, &arr) == nil && anthropicBlocks(arr) {
			return Anthropic, nil
		}
		return OpenAI, nil
	}
	_, role := obj["role"]
	_, speaker := obj["speaker"]
	if _, ok := obj["input"]; ok && !role && !speaker {
		return inputFormat(obj), nil
	}
	if _, ok := obj["conversation"]; ok {
		return LoCoMo, nil
	}
	switch lineFormat(obj) {
	case OpenAI:
		return OpenAI, nil
	case JSONL:
		return JSONL, nil
	}
	return "", swc.Errorf(swc.EINVALID, "cannot detect the format: a JSON object without \"messages\", \"role\" or \"speaker\"; %s", tried)
}

// interactionsFields are top-level fields of an Interactions request that
// a Responses request does not have; responsesFields the other way round.
var (
	interactionsFields = []string{"system_instruction", "generation_config", "agent", "agent_config", "previous_interaction_id", "response_modalities"}
	responsesFields    = []string{"instructions", "previous_response_id", "conversation", "reasoning", "max_output_tokens", "include", "truncation", "prompt_cache_key"}
)

// inputFormat tells a request body with "input" of the Responses API from
// one of the Interactions API. What only a Responses request holds
// decides first — one of its own top-level fields, an input item of a
// role or type the Interactions API does not have (assistant, system,
// developer; message, function_call_output, reasoning, item_reference,
// …) — then what only an Interactions request holds: one of its own
// top-level fields, an input that is one content object, an element of a
// type the Responses API does not have (user_input, model_output,
// thought, function_result, text, image, audio, document, video) or a
// turn of role "model", and last a Gemini or Gemma model (a Responses
// request to one through an OpenAI-compatible server shows one of the
// marks above as soon as it has an answer in it). Anything else is a
// Responses request, whose history Parse then reads or rejects.
func inputFormat(obj map[string]json.RawMessage) Format {
	for _, k := range responsesFields {
		if _, ok := obj[k]; ok {
			return Responses
		}
	}
	var items []struct {
		Type string `json:"type"`
		Role string `json:"role"`
	}
	json.Unmarshal(obj["input"], &items)
	for _, it := range items {
		if responsesOnly(it.Type, it.Role) {
			return Responses
		}
	}
	for _, k := range interactionsFields {
		if _, ok := obj[k]; ok {
			return Interactions
		}
	}
	if in := bytes.TrimSpace(obj["input"]); len(in) > 0 && in[0] == '{' {
		return Interactions // one content object: a Responses input is a string or a list
	}
	for _, it := range items {
		if it.Role == "model" || interactionsOnly(it.Type) {
			return Interactions
		}
	}
	var model string
	if json.Unmarshal(obj["model"], &model) == nil {
		if m := strings.TrimPrefix(strings.ToLower(model), "models/"); strings.HasPrefix(m, "gemini") || strings.HasPrefix(m, "gemma") {
			return Interactions
		}
	}
	return Responses
}

// responsesOnly reports whether an input item of type typ and role role
// is one only the Responses API has.
func responsesOnly(typ, role string) bool {
	switch role {
	case "assistant", "system", "developer":
		return true
	}
	switch typ {
	case "message", "function_call_output", "reasoning", "item_reference", "custom_tool_call", "custom_tool_call_output",
		"computer_call", "computer_call_output", "local_shell_call", "local_shell_call_output", "shell_call", "shell_call_output",
		"apply_patch_call", "apply_patch_call_output", "mcp_approval_request", "mcp_approval_response", "compaction":
		return true
	}
	return false
}

// interactionsOnly reports whether typ is an input element type of the
// Interactions API that no Responses input item has.
func interactionsOnly(typ string) bool {
	switch typ {
	case "user_input", "model_output", "thought", "function_result", "text", "image", "audio", "document", "video":
		return true
	}
	return false
}

// lineFormat classifies one JSONL line: OpenAI for a message with "role",
// JSONL for {"speaker","text"}, "" otherwise.
func lineFormat(obj map[string]json.RawMessage) Format {
	_, role := obj["role"]
	_, speaker := obj["speaker"]
	switch {
	case speaker && !role:
		return JSONL
	case role && !speaker:
		return OpenAI
	case role && speaker:
		return JSONL // a jsonl line may say its role
	}
	return ""
}

// anthropicBlocks reports whether any message has content blocks only
// Anthropic's API uses (tool_use, tool_result, or an image with a source).
func anthropicBlocks(msgs []json.RawMessage) bool {
	for _, m := range msgs {
		var v struct {
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m, &v) != nil || len(v.Content) == 0 || v.Content[0] != '[' {
			continue
		}
		var blocks []struct {
			Type   string          `json:"type"`
			Source json.RawMessage `json:"source"`
		}
		if json.Unmarshal(v.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_use" || b.Type == "tool_result" || len(b.Source) > 0 {
				return true
			}
		}
	}
	return false
}

func objectKeys(raw json.RawMessage) map[string]bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	keys := make(map[string]bool, len(obj))
	for k := range obj {
		keys[k] = true
	}
	return keys
}

func trimBOM(b []byte) []byte { return bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) }

// jsonErr shortens a JSON decoding error to one line.
func jsonErr(err error) string {
	s := err.Error()
	s = strings.TrimPrefix(s, "json: ")
	return s
}
