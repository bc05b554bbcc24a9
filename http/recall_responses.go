package http

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// swc_recall on OpenAI's Responses API: the tool is a function tool of
// the request, its calls function_call output items, swc's answers
// function_call_output input items.

const recallToolResponses = `{"type":"function","name":"swc_recall","description":` + `"` + recallDescription + `"` + `,"parameters":` + recallSchema + `,"strict":false}`

// clientCalls are the Responses output items the client runs (a server
// tool's, such as web_search_call, the provider ran).
var clientCalls = map[string]bool{"function_call": true, "custom_tool_call": true, "local_shell_call": true,
	"computer_call": true, "shell_call": true, "apply_patch_call": true}

// responsesTurn is the turn of a Responses answer's output items.
func responsesTurn(output []any, usage map[string]any) (recallTurn, bool) {
	t := recallTurn{swcIdx: map[int]bool{}, usage: usage, items: output}
	for i, it := range output {
		item := obj(it)
		typ := str(item["type"])
		if !clientCalls[typ] {
			continue
		}
		if typ != "function_call" || str(item["name"]) != recallTool {
			t.others++
			continue
		}
		t.calls = append(t.calls, recallCall{str(item["call_id"]), str(item["arguments"])})
		t.swcIdx[i] = true
	}
	return t, true
}

// parseResponsesStream reads a Responses stream by its response.completed
// event, which holds the whole response.
func parseResponsesStream(data []byte) (recallTurn, bool) {
	for _, e := range splitEvents(data) {
		v, err := decodeJSON([]byte(e.data))
		if err != nil {
			continue
		}
		if m := obj(v); str(m["type"]) == "response.completed" {
			r := obj(m["response"])
			return responsesTurn(arr(r["output"]), obj(r["usage"]))
		}
	}
	return recallTurn{}, false
}

// responsesInput returns send with its "input" a list of items (a string
// input becomes one user message).
func responsesInput(send []byte) ([]byte, error) {
	start, end, err := topLevelSpan(send, "input")
	if err != nil {
		return nil, err
	}
	in := bytes.TrimSpace(send[start:end])
	if len(in) == 0 || in[0] != '"' {
		return send, nil
	}
	item := append(append([]byte(`[{"role":"user","content":`), in...), "}]"...)
	out := make([]byte, 0, len(send)+len(item))
	out = append(append(append(out, send[:start]...), item...), send[end:]...)
	return out, nil
}

// responsesRound returns the input items of a round: the answer's output
// items as they came (reasoning, messages, swc's calls), then swc's
// function_call_output items.
func responsesRound(t recallTurn, answers []string) ([]string, error) {
	var vals []string
	for _, it := range t.items {
		b, err := marshalNoEscape(it)
		if err != nil {
			return nil, err
		}
		vals = append(vals, string(b))
	}
	for i, c := range t.calls {
		b, err := marshalNoEscape(map[string]any{"type": "function_call_output", "call_id": c.id, "output": answers[i]})
		if err != nil {
			return nil, err
		}
		vals = append(vals, string(b))
	}
	return vals, nil
}

// rewriteResponsesEvent rewrites one event of a Responses stream: it
// reports false for an event of swc's call (dropped); others get their
// output_index renumbered, their sequence_number made consecutive
// (*seq), the response they carry its output filtered and, when
// completed, prior's usage added.
func rewriteResponsesEvent(m map[string]any, t *recallTurn, prior map[string]any, shift func(int) int, seq *int) bool {
	if idx, ok := m["output_index"].(json.Number); ok {
		i, _ := idx.Int64()
		if t.swcIdx[int(i)] {
			return false
		}
		m["output_index"] = json.Number(strconv.Itoa(shift(int(i))))
	}
	if r := obj(m["response"]); r != nil {
		rewriteResponse(r, t, prior, str(m["type"]) == "response.completed")
	}
	if _, ok := m["sequence_number"]; ok {
		m["sequence_number"] = json.Number(strconv.Itoa(*seq))
		*seq++
	}
	return true
}

// rewriteResponse filters a response's output of swc's calls and, when
// withUsage, adds prior to its usage.
func rewriteResponse(r map[string]any, t *recallTurn, prior map[string]any, withUsage bool) {
	if out := arr(r["output"]); len(out) > 0 {
		r["output"] = dropIndexes(out, t.swcIdx)
	}
	if u := obj(r["usage"]); u != nil && withUsage {
		addUsage(u, prior)
	}
}
