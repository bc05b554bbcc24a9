package http

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// Event streams read whole for recall: what an answer streamed, and the
// stream given to the client without swc_recall's events.

// sseEvent is one event of a stream: its name, its data and its bytes.
type sseEvent struct {
	name, data string
	raw        []byte
}

// splitEvents splits an event stream at its blank lines.
func splitEvents(data []byte) []sseEvent {
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	var out []sseEvent
	for _, chunk := range bytes.SplitAfter(data, []byte("\n\n")) {
		if len(bytes.TrimSpace(chunk)) == 0 {
			continue
		}
		e := sseEvent{raw: chunk}
		var datas []string
		for _, line := range strings.Split(strings.TrimRight(string(chunk), "\n"), "\n") {
			switch {
			case strings.HasPrefix(line, "event:"):
				e.name = strings.TrimSpace(line[len("event:"):])
			case strings.HasPrefix(line, "data:"):
				datas = append(datas, strings.TrimPrefix(line[len("data:"):], " "))
			}
		}
		e.data = strings.Join(datas, "\n")
		out = append(out, e)
	}
	return out
}

// parseAnthropicStream reads a Messages stream: its content blocks as the
// message would hold them (thinking with its signature, tool inputs
// parsed), its calls and its usage (message_delta's over message_start's).
func parseAnthropicStream(data []byte) (recallTurn, bool) {
	blocks := map[int]map[string]any{}
	partial := map[int]*strings.Builder{}
	usage := map[string]any{}
	for _, e := range splitEvents(data) {
		v, err := decodeJSON([]byte(e.data))
		if err != nil {
			continue
		}
		m := obj(v)
		idx, _ := m["index"].(json.Number)
		i64, _ := idx.Int64()
		i := int(i64)
		switch str(m["type"]) {
		case "message_start":
			for k, u := range obj(obj(m["message"])["usage"]) {
				usage[k] = u
			}
		case "message_delta":
			for k, u := range obj(m["usage"]) {
				usage[k] = u
			}
		case "content_block_start":
			blocks[i] = obj(m["content_block"])
		case "content_block_delta":
			b, d := blocks[i], obj(m["delta"])
			if b == nil {
				continue
			}
			switch str(d["type"]) {
			case "text_delta":
				b["text"] = str(b["text"]) + str(d["text"])
			case "thinking_delta":
				b["thinking"] = str(b["thinking"]) + str(d["thinking"])
			case "signature_delta":
				b["signature"] = str(b["signature"]) + str(d["signature"])
			case "input_json_delta":
				if partial[i] == nil {
					partial[i] = &strings.Builder{}
				}
				partial[i].WriteString(str(d["partial_json"]))
			}
		}
	}
	idxs := make([]int, 0, len(blocks))
	for i, b := range blocks {
		if pj := partial[i]; pj != nil && pj.Len() > 0 {
			in, err := decodeJSON([]byte(pj.String()))
			if err != nil {
				return recallTurn{}, false
			}
			b["input"] = in
		}
		idxs = append(idxs, i)
	}
	sort.Ints(idxs)
	content := make([]any, len(idxs))
	for k, i := range idxs {
		if i != k {
			return recallTurn{}, false // a block missing: not a stream swc can read
		}
		content[k] = blocks[i]
	}
	return anthropicTurn(content, usage)
}

// parseOpenAIStream reads a Chat Completions stream: the message's
// content, its tool calls (arguments put together) and the usage chunk's.
func parseOpenAIStream(data []byte) (recallTurn, bool) {
	var content strings.Builder
	hasContent := false
	type call struct {
		id, name string
		args     strings.Builder
	}
	calls := map[int]*call{}
	var usage map[string]any
	for _, e := range splitEvents(data) {
		if e.data == "[DONE]" {
			continue
		}
		v, err := decodeJSON([]byte(e.data))
		if err != nil {
			continue
		}
		m := obj(v)
		if u := obj(m["usage"]); u != nil {
			usage = u
		}
		choices := arr(m["choices"])
		if len(choices) > 1 {
			return recallTurn{}, false
		}
		if len(choices) == 0 {
			continue
		}
		d := obj(obj(choices[0])["delta"])
		if c, ok := d["content"].(string); ok {
			content.WriteString(c)
			hasContent = true
		}
		for _, tc := range arr(d["tool_calls"]) {
			t := obj(tc)
			n, _ := t["index"].(json.Number)
			i, _ := n.Int64()
			c := calls[int(i)]
			if c == nil {
				c = &call{}
				calls[int(i)] = c
			}
			if id := str(t["id"]); id != "" {
				c.id = id
			}
			fn := obj(t["function"])
			if name := str(fn["name"]); name != "" {
				c.name = name
			}
			c.args.WriteString(str(fn["arguments"]))
		}
	}
	list := make([]any, len(calls))
	for i, c := range calls {
		if i < 0 || i >= len(calls) {
			return recallTurn{}, false
		}
		list[i] = map[string]any{"id": c.id, "type": "function", "function": map[string]any{"name": c.name, "arguments": c.args.String()}}
	}
	var text any
	if hasContent {
		text = content.String()
	}
	return openAITurn(text, list, usage)
}

// rewriteStream returns the stream data without swc's calls (their
// events dropped, the indexes after them renumbered; a stop for tool use
// becomes the end of the turn when no call is left) and with prior's
// usage added: to every count of message_start's usage and to those
// message_delta's holds (the SDKs take message_delta's counts over
// message_start's), to the usage chunk of a Chat Completions stream, to
// response.completed's response.
func rewriteStream(p protocol, data []byte, t *recallTurn, prior map[string]any) []byte {
	var out bytes.Buffer
	seq := 0
	for _, e := range splitEvents(data) {
		out.Write(rewriteEvent(p, e, t, prior, &seq))
	}
	return out.Bytes()
}

// rewriteEvent is rewriteStream of one event (nil: dropped); seq numbers
// the events of a Responses stream.
func rewriteEvent(p protocol, e sseEvent, t *recallTurn, prior map[string]any, seq *int) []byte {
	shift := func(i int) int {
		n := i
		for k := range t.swcIdx {
			if k < i {
				n--
			}
		}
		return n
	}
	v, err := decodeJSON([]byte(e.data))
	m := obj(v)
	if err != nil || m == nil {
		return e.raw
	}
	if p == protoGemini {
		if !rewriteGemini(m, t, prior, true) {
			return nil
		}
	} else if p == protoResponses {
		if !rewriteResponsesEvent(m, t, prior, shift, seq) {
			return nil
		}
	} else if p == protoAnthropic {
		if idx, ok := m["index"].(json.Number); ok {
			i, _ := idx.Int64()
			if t.swcIdx[int(i)] {
				return nil
			}
			m["index"] = json.Number(strconv.Itoa(shift(int(i))))
		}
		switch str(m["type"]) {
		case "message_start":
			if u := obj(obj(m["message"])["usage"]); u != nil {
				addUsage(u, prior)
			}
		case "message_delta":
			if d := obj(m["delta"]); t.others == 0 && str(d["stop_reason"]) == "tool_use" {
				d["stop_reason"] = "end_turn"
			}
			if u := obj(m["usage"]); u != nil {
				present := map[string]any{}
				for k := range u {
					if pv, ok := prior[k]; ok {
						present[k] = pv
					}
				}
				addUsage(u, present)
			}
		}
	} else {
		for _, ch := range arr(m["choices"]) {
			c := obj(ch)
			d := obj(c["delta"])
			if tcs := arr(d["tool_calls"]); tcs != nil {
				var kept []any
				for _, tc := range tcs {
					n, _ := obj(tc)["index"].(json.Number)
					i, _ := n.Int64()
					if t.swcIdx[int(i)] {
						continue
					}
					obj(tc)["index"] = json.Number(strconv.Itoa(shift(int(i))))
					kept = append(kept, tc)
				}
				if len(kept) > 0 {
					d["tool_calls"] = kept
				} else {
					delete(d, "tool_calls")
				}
			}
			if t.others == 0 && str(c["finish_reason"]) == "tool_calls" {
				c["finish_reason"] = "stop"
			}
		}
		if u := obj(m["usage"]); u != nil {
			addUsage(u, prior)
		}
	}
	b, err := marshalNoEscape(m)
	if err != nil {
		return e.raw
	}
	var out bytes.Buffer
	if e.name != "" {
		out.WriteString("event: " + e.name + "\n")
	}
	out.WriteString("data: ")
	out.Write(b)
	out.WriteString("\n\n")
	return out.Bytes()
}

// noteCalls records in t the calls event m begins: swc_recall's index,
// or one more client call. It reports whether m begins a client's call.
func noteCalls(p protocol, m map[string]any, t *recallTurn) bool {
	client := false
	note := func(i int64, name string, clientKind bool) {
		switch {
		case name == recallTool:
			t.swcIdx[int(i)] = true
		case clientKind:
			t.others++
			client = true
		}
	}
	switch p {
	case protoGemini:
		return noteGeminiCalls(m, t)
	case protoAnthropic:
		if str(m["type"]) == "content_block_start" {
			b := obj(m["content_block"])
			n, _ := m["index"].(json.Number)
			i, _ := n.Int64()
			note(i, str(b["name"]), str(b["type"]) == "tool_use")
		}
	case protoResponses:
		if str(m["type"]) == "response.output_item.added" {
			it := obj(m["item"])
			n, _ := m["output_index"].(json.Number)
			i, _ := n.Int64()
			name := str(it["name"])
			if str(it["type"]) != "function_call" {
				name = ""
			}
			note(i, name, clientCalls[str(it["type"])])
		}
	default:
		for _, ch := range arr(m["choices"]) {
			for _, tc := range arr(obj(obj(ch)["delta"])["tool_calls"]) {
				name := str(obj(obj(tc)["function"])["name"])
				if name == "" {
					continue // a later piece of a call already seen
				}
				n, _ := obj(tc)["index"].(json.Number)
				i, _ := n.Int64()
				note(i, name, true)
			}
		}
	}
	return client
}
