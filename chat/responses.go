package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/swcmem/swc"
	"github.com/swcmem/swc/internal/rawjson"
	"github.com/swcmem/swc/tokens"
)

// Responses is an OpenAI Responses API request body (POST /v1/responses):
// {"model":…,"instructions":…,"input":"text" or […items]}.
//
// Its input items become messages as chat completions' do:
//
//   - "instructions" is the first system message;
//   - a message item (type "message", or a role without a type) is a
//     message of its role: input_text, output_text and refusal parts are
//     its text, and other parts stand as placeholders ("[input_image]"),
//     an image counted by ImageTokens (swc.Message.MediaTokens);
//   - a tool call item (function_call, custom_tool_call, computer_call,
//     local_shell_call, shell_call, apply_patch_call, tool_search_call,
//     program, mcp_approval_request) answered by an output item later in
//     the input is an assistant tool call, consecutive calls one assistant
//     message; its output (function_call_output, …, mcp_approval_response)
//     is a tool message, so compression keeps a call and its output
//     together or consolidates both;
//   - a call nobody answers here, and the model's own tool calls
//     (web_search_call, file_search_call, code_interpreter_call,
//     image_generation_call, mcp_call, mcp_list_tools), are assistant
//     messages with a placeholder text;
//   - compaction (OpenAI's encrypted compaction of earlier items),
//     configuration_update and additional_tools items are developer
//     messages, which compression keeps verbatim and first;
//   - a reasoning item goes with the item after it (the last one with the
//     item before it), so that a reasoning item is kept or dropped with its
//     turn, and is never read (its content is encrypted); an output
//     nothing calls, a compaction_trigger and items of a type swc does not
//     know go with the item before them.
//
// Raw holds each message's items byte for byte, as the comma-separated
// items of the input array ("{…},{…}" when a reasoning item came with it),
// Request the whole body and Span where the input value is in it, so that a
// compressed input can be written back leaving every other byte as it was.
// A body whose history is stored at the provider (ProviderHistory says
// why) is an error.
const Responses Format = "responses"

// ProviderHistory returns why a Responses request body's history is (at
// least partly) stored at the provider rather than in its input, so that
// compressing the input cannot shorten it: "previous_response_id",
// "conversation", "item_reference" (an input item naming a stored item), or
// "no input". It returns "" when the input holds the whole history, and
// for a body that is not a JSON object (Parse reports what is wrong).
func ProviderHistory(body []byte) string {
	dec := jsontext.NewDecoder(bytes.NewBuffer(body), fastOptions)
	if t, err := dec.ReadToken(); err != nil || t.Kind() != '{' {
		return ""
	}
	input := false
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil {
			return ""
		}
		k := name.String()
		v, err := dec.ReadValue()
		if err != nil {
			return ""
		}
		switch k {
		case "previous_response_id", "conversation":
			if v.Kind() != 'n' && string(v) != `""` {
				return k
			}
		case "input":
			input = v.Kind() != 'n'
			if v.Kind() == '[' && bytes.Contains(v, []byte(`"item_reference"`)) && hasItemReference(v) {
				return "item_reference"
			}
		}
	}
	if !input {
		return "no input"
	}
	return ""
}

// hasItemReference reports whether an input array holds an item of type
// item_reference.
func hasItemReference(arr []byte) bool {
	var items []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(arr, &items) != nil {
		return false
	}
	for _, it := range items {
		if it.Type == "item_reference" {
			return true
		}
	}
	return false
}

// rItem is the part of an input item swc reads.
type rItem struct {
	Type              string          `json:"type"`
	Role              *string         `json:"role"`
	Content           json.RawMessage `json:"content"`
	ID                string          `json:"id"`
	CallID            string          `json:"call_id"`
	ApprovalRequestID string          `json:"approval_request_id"`
	Name              string          `json:"name"`
	Arguments         json.RawMessage `json:"arguments"` // a string, or a value (tool_search_call)
	Input             string          `json:"input"`     // custom_tool_call
	Action            json.RawMessage `json:"action"`
	Operation         json.RawMessage `json:"operation"`
	Code              string          `json:"code"`
	Output            json.RawMessage `json:"output"`
	Result            string          `json:"result"`            // program_output
	EncryptedContent  json.RawMessage `json:"encrypted_content"` // reasoning
	// text and media are outputText's, when known (read is set): an
	// item remembered by itemMemo carries them.
	text  string
	media int
	read  bool
}

// Item kinds.
const (
	kMessage = iota
	kCall    // a call an output may answer
	kOutput  // an output answering a call
	kHosted  // a call the provider ran itself: no output item
	kPinned  // kept verbatim and first
	kForward // goes with the next item (reasoning)
	kBack    // goes with the item before (compaction_trigger, unknown types)
)

var itemKinds = map[string]int{
	"message":       kMessage,
	"function_call": kCall, "custom_tool_call": kCall, "computer_call": kCall, "local_shell_call": kCall,
	"shell_call": kCall, "apply_patch_call": kCall, "tool_search_call": kCall, "program": kCall,
	"mcp_approval_request": kCall,
	"function_call_output": kOutput, "custom_tool_call_output": kOutput, "computer_call_output": kOutput,
	"local_shell_call_output": kOutput, "shell_call_output": kOutput, "apply_patch_call_output": kOutput,
	"tool_search_output": kOutput, "program_output": kOutput, "mcp_approval_response": kOutput,
	"web_search_call": kHosted, "file_search_call": kHosted, "code_interpreter_call": kHosted,
	"image_generation_call": kHosted, "mcp_call": kHosted, "mcp_list_tools": kHosted,
	"compaction": kPinned, "configuration_update": kPinned, "additional_tools": kPinned,
	"reasoning":          kForward,
	"compaction_trigger": kBack,
}

// kind returns the kind of an item, and for calls and outputs the id that
// pairs them.
func (it *rItem) kind() (int, string) {
	if it.Type == "" && it.Role != nil {
		return kMessage, ""
	}
	k, ok := itemKinds[it.Type]
	if !ok {
		return kBack, ""
	}
	switch {
	case it.Type == "mcp_approval_request":
		return k, it.ID
	case it.Type == "mcp_approval_response":
		return k, it.ApprovalRequestID
	case it.Type == "local_shell_call_output" && it.CallID == "":
		return k, it.ID // its id names the call
	}
	return k, it.CallID
}

// parseResponses reads a Responses request body.
func parseResponses(data []byte) (*Input, error) {
	if len(data) == 0 || data[0] != '{' {
		return nil, swc.Errorf(swc.EINVALID, "a responses request is a JSON object {\"input\":…}, got %s", kind(data))
	}
	buf := bytes.Clone(data)
	in := &Input{Format: Responses, Body: map[string]json.RawMessage{}, Request: buf}
	dec := jsontext.NewDecoder(bytes.NewBuffer(buf), fastOptions)
	if _, err := dec.ReadToken(); err != nil {
		return nil, swc.Errorf(swc.EINVALID, "body: %s", jsonErr(err))
	}
	var input []byte
	var spans []span // of input's items, when it is a list
	var instructions, stored string
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return nil, swc.Errorf(swc.EINVALID, "body: %s", jsonErr(err))
		}
		key := name.String()
		if key == "input" && dec.PeekKind() == '[' && in.Body[key] == nil {
			// The items' places are found in the same pass.
			a, e, sp, err := readItems(dec)
			if err != nil {
				return nil, swc.Errorf(swc.EINVALID, "body: %s", jsonErr(err))
			}
			spans = sp
			in.Body[key] = buf[a:e:e]
			input, in.Span = buf[a:e:e], [2]int{a, e}
			continue
		}
		v, err := dec.ReadValue()
		if err != nil {
			return nil, swc.Errorf(swc.EINVALID, "body: %s", jsonErr(err))
		}
		end := int(dec.InputOffset())
		val := buf[end-len(v) : end : end]
		if _, dup := in.Body[key]; dup && (key == "input" || key == "instructions") {
			return nil, swc.Errorf(swc.EINVALID, "body: %q appears twice", key)
		}
		in.Body[key] = val
		switch key {
		case "previous_response_id", "conversation":
			if v.Kind() != 'n' && string(v) != `""` {
				stored = key
			}
		case "input":
			input, in.Span = val, [2]int{end - len(v), end}
		case "instructions":
			if v.Kind() != 'n' {
				if err := json.Unmarshal(val, &instructions); err != nil {
					return nil, swc.Errorf(swc.EINVALID, "instructions: want a string, got %s", kind(val))
				}
			}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, swc.Errorf(swc.EINVALID, "body: %s", jsonErr(err))
	}
	if _, err := dec.ReadToken(); err == nil {
		return nil, swc.Errorf(swc.EINVALID, "body: more than one JSON value")
	}
	if stored != "" {
		return nil, swc.Errorf(swc.EINVALID, "%s: the history is stored at the provider, not in input, so there is nothing to compress (the proxy passes such requests through)", stored)
	}
	if input == nil || string(input) == "null" {
		return nil, swc.Errorf(swc.EINVALID, "request body has no \"input\"")
	}
	if instructions != "" {
		addMessage(in, swc.Message{Role: swc.RoleSystem, Content: instructions}, "instructions", -1)
	}
	switch input[0] {
	case '"':
		var s string
		json.Unmarshal(input, &s)
		in.Raw = append(in.Raw, json.RawMessage(`{"role":"user","content":`+string(input)+`}`))
		addMessage(in, swc.Message{Role: swc.RoleUser, Content: s}, "input", 0)
		return in, nil
	case '[':
	default:
		return nil, swc.Errorf(swc.EINVALID, "input: want a string or a list of items, got %s", kind(input))
	}
	items := make([]rItem, len(spans))
	for k, sp := range spans {
		raw := input[sp.a:sp.e]
		if raw[0] != '{' {
			return nil, swc.Errorf(swc.EINVALID, "input[%d]: want an item object, got %s", k, kind(raw))
		}
		if err := decodeItemMemo(raw, &items[k]); err != nil {
			// An item of a type swc does not know is read for its type
			// alone, whatever its other fields hold (it goes with the
			// item before, byte for byte).
			var head struct {
				Type string `json:"type"`
			}
			herr := json.Unmarshal(raw, &head)
			if _, known := itemKinds[head.Type]; herr != nil || head.Type == "" || known || head.Type == "item_reference" {
				return nil, swc.Errorf(swc.EINVALID, "input[%d]: %s", k, jsonErr(err))
			}
			items[k] = rItem{Type: head.Type}
		}
		if items[k].Type == "item_reference" {
			return nil, swc.Errorf(swc.EINVALID, "input[%d]: an item_reference names an item stored at the provider, which swc cannot compress (the proxy passes such requests through)", k)
		}
	}
	b := responsesBuilder{in: in, input: input, spans: spans, items: items}
	if err := b.build(); err != nil {
		return nil, err
	}
	return in, nil
}

// readItems reads the array dec is at (PeekKind '[') and returns where it
// is in the decoder's input, [a, e), and where each of its elements is in
// it, relative to a.
func readItems(dec *jsontext.Decoder) (a, e int, spans []span, err error) {
	if _, err := dec.ReadToken(); err != nil { // '['
		return 0, 0, nil, err
	}
	a = int(dec.InputOffset()) - 1
	spans = []span{}
	for dec.PeekKind() != ']' {
		v, err := dec.ReadValue()
		if err != nil {
			return 0, 0, nil, err
		}
		end := int(dec.InputOffset())
		spans = append(spans, span{end - len(v) - a, end - a})
	}
	if _, err := dec.ReadToken(); err != nil { // ']'
		return 0, 0, nil, err
	}
	return a, int(dec.InputOffset()), spans, nil
}

// responsesBuilder turns input items into messages and their units.
type responsesBuilder struct {
	in    *Input
	input []byte
	spans []span
	items []rItem
	units []span // items [a, e) of each message of the input
}

func (b *responsesBuilder) build() error {
	// Which call items an output answers later in the input: the latest
	// call of its id not answered yet, so that agents whose every turn
	// names its calls call_0, call_1, … pair each output with its own
	// turn's call, and a call left unanswered stays so though an earlier
	// turn's output has its id.
	answered := map[int]bool{}
	latest := map[string]int{} // call id → its latest call item not answered yet
	for k := range b.items {
		switch kd, id := b.items[k].kind(); {
		case id == "":
		case kd == kCall:
			latest[id] = k
		case kd == kOutput:
			if j, ok := latest[id]; ok {
				answered[j] = true
				delete(latest, id)
			}
		}
	}
	open := map[string]int{} // calls made, not answered yet → item index
	pending := -1            // first item waiting for the next message (reasoning)
	last := -1               // the message of the item before
	for k := range b.items {
		it := &b.items[k]
		kd, id := it.kind()
		first := k
		if pending >= 0 {
			first = pending
		}
		where := "input[" + strconv.Itoa(k) + "]"
		switch kd {
		case kForward:
			if pending < 0 {
				pending = k
			}
			continue
		case kBack:
			if pending < 0 && last >= 0 {
				b.extend(last, k)
			} else if pending < 0 {
				pending = k // nothing before: goes with the next one
			}
			continue
		case kOutput:
			if _, ok := open[id]; id == "" || !ok {
				// An output nothing here calls: with the item before.
				if pending < 0 && last >= 0 {
					b.extend(last, k)
				} else if pending < 0 {
					pending = k
				}
				continue
			}
			delete(open, id)
			m := swc.Message{Role: swc.RoleTool, ToolCallID: id, ID: it.ID}
			m.Content, m.MediaTokens = outputText(it)
			m.LoadsTools = it.Type == "tool_search_output"
			last = b.emit(m, where, first, k)
		case kCall:
			if id == "" || !answered[k] {
				if len(open) > 0 {
					return b.unanswered(open, k)
				}
				last = b.emit(swc.Message{Role: swc.RoleAssistant, ID: it.ID, Content: callText(it)}, where, first, k)
				break
			}
			if len(open) > 0 {
				if j := b.openCallMessage(last); j >= 0 && b.unitEnd(j) == first {
					// A call after calls not answered yet: one assistant
					// message, as chat completions writes parallel calls.
					b.in.Messages[j].ToolCalls = append(b.in.Messages[j].ToolCalls, toolCall(it, id))
					b.extend(j, k)
					open[id] = k
					break
				}
				return b.unanswered(open, k)
			}
			if j := b.textTurn(last); j >= 0 && b.unitEnd(j) == first {
				// The calls right after an assistant's message item (its
				// preamble): one turn, text and calls, as chat completions
				// writes them, so that the reasoning item before the
				// message is kept or dropped with the calls too.
				b.in.Messages[j].ToolCalls = append(b.in.Messages[j].ToolCalls, toolCall(it, id))
				b.extend(j, k)
				open[id] = k
				break
			}
			open[id] = k
			last = b.emit(swc.Message{Role: swc.RoleAssistant, ID: it.ID, ToolCalls: []swc.ToolCall{toolCall(it, id)}}, where, first, k)
		default:
			if len(open) > 0 {
				return b.unanswered(open, k)
			}
			var m swc.Message
			switch kd {
			case kHosted:
				m = swc.Message{Role: swc.RoleAssistant, ID: it.ID, Content: callText(it)}
			case kPinned:
				m = swc.Message{Role: swc.RoleDeveloper, ID: it.ID, Content: placeholder(it.Type)}
				if it.Type == "additional_tools" {
					m.Content = "[additional_tools]"
				}
			case kMessage:
				var err error
				if m, err = messageItem(it, where); err != nil {
					return err
				}
			}
			last = b.emit(m, where, first, k)
		}
		pending = -1
	}
	if pending >= 0 {
		if last < 0 {
			return swc.Errorf(swc.EINVALID, "input: no message, only %s items", b.items[pending].Type)
		}
		b.extend(last, len(b.items)-1)
	}
	if len(open) > 0 {
		return b.unanswered(open, len(b.items))
	}
	if len(b.in.Messages) == 0 || (len(b.units) == 0) {
		return swc.Errorf(swc.EINVALID, "input: no items")
	}
	// Raw: each message's items as they came.
	for _, u := range b.units {
		b.in.Raw = append(b.in.Raw, json.RawMessage(b.input[b.spans[u.a].a:b.spans[u.e-1].e:b.spans[u.e-1].e]))
	}
	b.markLoaders()
	b.countReasoning()
	return nil
}

// countReasoning adds to each message the tokens of the reasoning items
// among its items that come after the input's last user message item
// (reasoningTokens): the API puts the reasoning of the turn being
// answered in the model's context and drops an earlier turn's.
func (b *responsesBuilder) countReasoning() {
	last := -1
	for k := range b.items {
		if it := &b.items[k]; it.Role != nil && *it.Role == string(swc.RoleUser) && (it.Type == "message" || it.Type == "") {
			last = k
		}
	}
	for i, o := range b.in.Origin {
		if o < 0 {
			continue
		}
		u := b.units[o]
		for k := max(u.a, last+1); k < u.e; k++ {
			if b.items[k].Type == "reasoning" {
				b.in.Messages[i].ReasoningTokens += reasoningTokens(&b.items[k])
			}
		}
	}
}

// reasoningTokens estimates what a reasoning item counts in the model's
// context: its encrypted_content's bytes over EncryptedBytesPerToken, and
// the tokens of the texts of its content parts (reasoning_text, sent back
// in the clear by providers that do). Its summary counts nothing.
func reasoningTokens(it *rItem) int {
	n := 0
	if enc := bytes.TrimSpace(it.EncryptedContent); len(enc) > 2 && enc[0] == '"' {
		n += (len(enc) - 2) / EncryptedBytesPerToken
	}
	if c := bytes.TrimSpace(it.Content); len(c) > 0 && c[0] == '[' {
		parts, _ := rawjson.Array(c)
		for _, p := range parts {
			if t, _ := partText(p); !IsPlaceholder(t) {
				n += tokens.CountCached(t)
			}
		}
	}
	return n
}

// EncryptedBytesPerToken is how many bytes of a Responses reasoning item's
// encrypted_content count as one token of the model's context: fitted on
// Codex CLI sessions' reported input tokens, where the current turn's
// encrypted reasoning counted 0.107 tokens a byte (0.075 to 0.16 a
// session; docs/chat.md).
const EncryptedBytesPerToken = 10

// markLoaders marks LoadsTools the assistant messages whose items hold a
// tool search the API ran: a tool_search_call and its tool_search_output
// (no call id: the output goes with the item before, the call). The
// output of a search the client ran is its own message, marked as it is
// read; an output no call goes before marks nothing.
func (b *responsesBuilder) markLoaders() {
	for i, o := range b.in.Origin {
		if o < 0 || b.in.Messages[i].Role != swc.RoleAssistant { // the instructions; results
			continue
		}
		u := b.units[o]
		call, output := false, false
		for k := u.a; k < u.e; k++ {
			call = call || b.items[k].Type == "tool_search_call"
			output = output || call && b.items[k].Type == "tool_search_output"
		}
		b.in.Messages[i].LoadsTools = output
	}
}

// addMessage appends m, from source Raw[origin], named by where.
func addMessage(in *Input, m swc.Message, where string, origin int) {
	in.Messages = append(in.Messages, m)
	in.Where = append(in.Where, where)
	in.Origin = append(in.Origin, origin)
}

// emit adds message m made of items [first, k] and returns its index.
func (b *responsesBuilder) emit(m swc.Message, where string, first, k int) int {
	addMessage(b.in, m, where, len(b.units))
	b.units = append(b.units, span{first, k + 1})
	return len(b.in.Messages) - 1
}

// extend adds items up to k to message i's unit.
func (b *responsesBuilder) extend(i, k int) {
	u := &b.units[b.in.Origin[i]]
	u.e = max(u.e, k+1)
}

func (b *responsesBuilder) unitEnd(i int) int { return b.units[b.in.Origin[i]].e }

// openCallMessage returns i when message i is an assistant message of
// calls, else -1.
func (b *responsesBuilder) openCallMessage(i int) int {
	if i >= 0 && b.in.Messages[i].Role == swc.RoleAssistant && len(b.in.Messages[i].ToolCalls) > 0 {
		return i
	}
	return -1
}

// textTurn returns i when message i is an assistant's message item
// without calls yet (the last item of its unit), else -1.
func (b *responsesBuilder) textTurn(i int) int {
	if i < 0 || b.in.Messages[i].Role != swc.RoleAssistant || len(b.in.Messages[i].ToolCalls) > 0 {
		return -1
	}
	if kd, _ := b.items[b.unitEnd(i)-1].kind(); kd != kMessage {
		return -1
	}
	return i
}

// unanswered is the error for item k coming while calls wait for their
// outputs.
func (b *responsesBuilder) unanswered(open map[string]int, k int) error {
	id, j := oldestOpen(open)
	what := "the end of the input"
	if k < len(b.items) {
		what = fmt.Sprintf("input[%d] (%s)", k, b.itemName(k))
	}
	return swc.Errorf(swc.EINVALID, "input[%d]: %s %q is answered only after %s: a call's output must come before the next message", j, b.items[j].Type, id, what)
}

func (b *responsesBuilder) itemName(k int) string {
	if b.items[k].Type != "" {
		return b.items[k].Type
	}
	return "message"
}

// toolCall is a call item as a tool call: its name (the item type for
// calls without one) and its arguments as text.
func toolCall(it *rItem, id string) swc.ToolCall {
	tc := swc.ToolCall{ID: id, Name: it.Name}
	if tc.Name == "" {
		tc.Name = it.Type
	}
	switch {
	case len(it.Arguments) > 0 && it.Arguments[0] == '"':
		rawjson.Unquote(it.Arguments, &tc.Arguments)
	case len(it.Arguments) > 0:
		tc.Arguments = string(it.Arguments)
	case it.Input != "":
		tc.Arguments = it.Input
	case len(it.Action) > 0:
		tc.Arguments = string(it.Action)
	case len(it.Operation) > 0:
		tc.Arguments = string(it.Operation)
	case it.Code != "":
		tc.Arguments = it.Code
	}
	return tc
}

// callText is the text of a call with no output item here: its type, name
// and arguments, and the output a hosted call carries.
func callText(it *rItem) string {
	tc := toolCall(it, "")
	s := "[" + it.Type
	if tc.Name != it.Type {
		s += " " + tc.Name
	}
	s += "]"
	if tc.Arguments != "" {
		s += " " + tc.Arguments
	}
	if out, _ := outputText(it); out != "" {
		s += " → " + out
	}
	return s
}

// outputText is an output item's text and the tokens its images count.
func outputText(it *rItem) (string, int) {
	if it.read {
		return it.text, it.media
	}
	if it.Result != "" {
		return it.Result, 0
	}
	out := bytes.TrimSpace(it.Output)
	if it.Type == "tool_search_output" && (len(out) == 0 || string(out) == "null") {
		// The tools a search loaded (its "tools", no "output"): a
		// placeholder line (the reader marks it LoadsTools).
		return placeholder(it.Type), 0
	}
	if len(out) == 0 || string(out) == "null" {
		return "", 0
	}
	switch out[0] {
	case '"':
		var s string
		rawjson.Unquote(out, &s)
		return s, 0
	case '[':
		parts, err := rawjson.Array(out)
		if err != nil {
			return string(out), 0
		}
		var texts []string
		media := 0
		for _, p := range parts {
			t, n := partText(p)
			texts = append(texts, t)
			media += n
		}
		return strings.Join(texts, "\n"), media
	case '{':
		return partText(out)
	}
	return string(out), 0
}

// part is the part of a content part swc reads.
type part struct {
	Type     string          `json:"type"`
	Text     *string         `json:"text"`
	Refusal  string          `json:"refusal"`
	Detail   string          `json:"detail"`
	ImageURL json.RawMessage `json:"image_url"`
	Filename string          `json:"filename"`
	FileData string          `json:"file_data"`
	Stdout   string          `json:"stdout"`
	Stderr   string          `json:"stderr"`
}

// partText is a content part's text, or its placeholder, and the tokens
// it counts as an image or a file (fileTokens).
func partText(raw json.RawMessage) (string, int) {
	var p part
	if decodePart(raw, &p) != nil {
		return placeholder(""), 0
	}
	switch {
	case p.Text != nil:
		return *p.Text, 0
	case p.Type == "refusal":
		return p.Refusal, 0
	case p.Stdout != "" || p.Stderr != "":
		return strings.TrimSpace(p.Stdout + "\n" + p.Stderr), 0
	case p.Type == "input_image" || p.Type == "computer_screenshot":
		var url string
		rawjson.Unquote(p.ImageURL, &url)
		return placeholder(p.Type), ImageTokens(url, p.Detail)
	case p.Type == "input_file" && p.Filename != "":
		return "[input_file: " + p.Filename + "]", fileTokens([]byte(p.FileData))
	case p.Type == "input_file":
		return placeholder(p.Type), fileTokens([]byte(p.FileData))
	}
	return placeholder(p.Type), 0
}

// messageItem reads a message item.
func messageItem(it *rItem, where string) (swc.Message, error) {
	if it.Role == nil {
		return swc.Message{}, swc.Errorf(swc.EINVALID, "%s.role: missing", where)
	}
	m := swc.Message{Role: swc.Role(*it.Role), ID: it.ID}
	c := bytes.TrimSpace(it.Content)
	switch {
	case len(c) == 0 || string(c) == "null":
	case c[0] == '"':
		rawjson.Unquote(c, &m.Content)
	case c[0] == '[':
		parts, err := rawjson.Array(c)
		if err != nil {
			return m, swc.Errorf(swc.EINVALID, "%s.content: %s", where, jsonErr(err))
		}
		texts := make([]string, 0, len(parts))
		for j, p := range parts {
			if len(bytes.TrimSpace(p)) == 0 || bytes.TrimSpace(p)[0] != '{' {
				return m, swc.Errorf(swc.EINVALID, "%s.content[%d]: want a part object, got %s", where, j, kind(p))
			}
			t, n := partText(p)
			texts = append(texts, t)
			m.MediaTokens += n
		}
		m.Content = strings.Join(texts, "\n")
	default:
		return m, swc.Errorf(swc.EINVALID, "%s.content: want a string or a list of parts, got %s", where, kind(c))
	}
	return m, nil
}

// ResponsesInput returns msgs in the Responses API's wire form: the
// system and developer messages' text joined as instructions, and the
// other messages as input items — a user message with input_text, an
// assistant message with output_text (an id "msg_N"), each tool call a
// function_call item and each tool result a function_call_output.
func ResponsesInput(msgs []swc.Message) (instructions string, items []json.RawMessage) {
	var sys []string
	type text struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	for i, m := range msgs {
		var v any
		switch {
		case IsInstruction(m):
			sys = append(sys, m.Content)
			continue
		case m.Role == swc.RoleTool:
			v = map[string]string{"type": "function_call_output", "call_id": m.ToolCallID, "output": m.Content}
		case m.Role == swc.RoleAssistant:
			if m.Content != "" {
				b, _ := json.Marshal(map[string]any{"type": "message", "id": fmt.Sprintf("msg_%d", i), "role": "assistant",
					"status": "completed", "content": []text{{"output_text", m.Content}}})
				items = append(items, b)
			}
			for _, tc := range m.ToolCalls {
				args := tc.Arguments
				if args == "" {
					args = "{}"
				}
				b, _ := json.Marshal(map[string]string{"type": "function_call", "call_id": tc.ID, "name": tc.Name, "arguments": args})
				items = append(items, b)
			}
			continue
		default:
			v = map[string]any{"type": "message", "role": string(m.Role), "content": []text{{"input_text", m.Content}}}
		}
		b, _ := json.Marshal(v)
		items = append(items, b)
	}
	return strings.Join(sys, "\n\n"), items
}
