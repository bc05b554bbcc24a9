package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/tokens"
)

// Interactions is a request body of the Gemini Interactions API
// (POST /v1beta/interactions: {"model":…,"input":…,"system_instruction":…,
// "tools":…,…}). Its "input" takes four shapes, all read:
//
//   - a string, or one content object ({"type":"text","text":…}): one user
//     message;
//   - an array of content objects (text, image, audio, document, video):
//     one user turn;
//   - an array of turns ({"role":"user"|"model","content":…}, the shape
//     of the API's first revision): each turn is a source element
//     (Origin), its content a string or content objects, among them a
//     model turn's function_call and thought objects and a user turn's
//     function_result ones;
//   - an array of steps (the revision of May 2026: "user_input" and
//     "model_output" steps holding content, "thought", "function_call",
//     "function_result" and the server tools' call and result steps):
//     each run of steps of one side (the user's: user_input and
//     function_result; the model's: the others) is a source element, its
//     Raw the JSON array of those steps.
//
// A user element is a user message of its texts (media as placeholders,
// "[image image/png]", counted as Gemini 3 counts them), preceded by a tool
// message for each function_result (its result's text; "[error] " first
// when is_error), answering the model element before it by call_id, else
// by name. A model element is an assistant message of its texts, its
// function calls its ToolCalls (id, name, the arguments' JSON), its
// thoughts "[thought]" (their summaries' tokens counted) and the server
// tools' steps a placeholder line with their JSON. "system_instruction"
// (a string) is the system message, Origin -1.
const Interactions Format = "interactions"

// interactionsSyntheticID is the id swc gives a function_call without one.
func interactionsSyntheticID(o, j int) string { return fmt.Sprintf("interactions:%d:%d", o, j) }

// interactionsItem is what swc reads of one content object or step.
type interactionsItem struct {
	Type     string          `json:"type"`
	Text     *string         `json:"text"`
	Content  json.RawMessage `json:"content"`
	ID       string          `json:"id"`
	CallID   string          `json:"call_id"`
	Name     string          `json:"name"`
	Args     json.RawMessage `json:"arguments"`
	Result   json.RawMessage `json:"result"`
	IsError  bool            `json:"is_error"`
	Summary  json.RawMessage `json:"summary"`
	Data     string          `json:"data"`
	URI      string          `json:"uri"`
	MIMEType string          `json:"mime_type"`
	Res      string          `json:"resolution"`
}

// interactionsSide returns the side of a top-level step or content type:
// "user" (user_input, function_result, a content object), "model" (model
// output, thoughts, calls, the server tools' steps), "" for a type swc
// does not know.
func interactionsSide(typ string) string {
	switch typ {
	case "user_input", "function_result", "text", "image", "audio", "document", "video":
		return "user"
	case "model_output", "thought", "function_call":
		return "model"
	}
	if strings.HasSuffix(typ, "_call") || strings.HasSuffix(typ, "_result") {
		return "model" // google_search_call, code_execution_result, mcp_server_tool_call, …
	}
	return ""
}

// parseInteractions reads an Interactions request body.
func parseInteractions(data []byte, files FileLengths) (*Input, error) {
	in := &Input{}
	if len(data) == 0 || data[0] != '{' {
		return nil, swc.Errorf(swc.EINVALID, "interactions input is a request body (a JSON object with \"input\"), got %s", kind(data))
	}
	if err := json.Unmarshal(data, &in.Body); err != nil || in.Body == nil {
		return nil, swc.Errorf(swc.EINVALID, "not one JSON object (%s): interactions input is a request body", errText(err))
	}
	if sys := bytes.TrimSpace(in.Body["system_instruction"]); len(sys) > 0 && string(sys) != "null" {
		var s string
		if err := json.Unmarshal(sys, &s); err != nil {
			return nil, swc.Errorf(swc.EINVALID, "system_instruction: want a string, got %s", kind(sys))
		}
		if s != "" {
			in.Messages = append(in.Messages, swc.Message{Role: swc.RoleSystem, Content: s})
			in.Where = append(in.Where, "system_instruction")
			in.Origin = append(in.Origin, -1)
		}
	}
	groups, where, turns, err := interactionsGroups(bytes.TrimSpace(in.Body["input"]))
	if err != nil {
		return nil, err
	}
	var model string
	json.Unmarshal(in.Body["model"], &model)
	res := geminiMedia{legacy: geminiLegacy(model), files: files}
	var open []geminiCall
	for o, g := range groups {
		in.Raw = append(in.Raw, g.raw)
		if turns {
			err = parseInteractionsTurn(in, g.raw, o, where[o], res, &open)
		} else {
			err = parseInteractionsItems(in, g.items, g.where, g.model, o, where[o], res, &open)
		}
		if err != nil {
			return nil, err
		}
	}
	return in, nil
}

// interactionsGroup is one source element: a turn (raw), or a run of
// top-level items of one side (items; raw their JSON array).
type interactionsGroup struct {
	raw   json.RawMessage
	items []json.RawMessage
	where []string
	model bool
}

// interactionsGroups splits input into source elements, with where each
// starts; turns reports an array of turns.
func interactionsGroups(input json.RawMessage) (groups []interactionsGroup, where []string, turns bool, err error) {
	switch {
	case len(input) == 0 || string(input) == "null":
		return nil, nil, false, swc.Errorf(swc.EINVALID, "input: missing (want a string, a content object, or an array of contents, turns or steps)")
	case input[0] == '"':
		var s string
		if err := json.Unmarshal(input, &s); err != nil {
			return nil, nil, false, swc.Errorf(swc.EINVALID, "input: %s", jsonErr(err))
		}
		b, _ := json.Marshal(map[string]string{"type": "text", "text": s})
		return []interactionsGroup{{raw: joinArray([]json.RawMessage{b}), items: []json.RawMessage{b}, where: []string{"input"}}}, []string{"input"}, false, nil
	case input[0] == '{':
		input = joinArray([]json.RawMessage{input}) // one content: read as a list of it
	case input[0] != '[':
		return nil, nil, false, swc.Errorf(swc.EINVALID, "input: want a string, a content object, or an array of contents, turns or steps, got %s", kind(input))
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(input, &elems); err != nil {
		return nil, nil, false, swc.Errorf(swc.EINVALID, "input: not a JSON array: %s", jsonErr(err))
	}
	if len(elems) == 0 {
		return nil, nil, false, swc.Errorf(swc.EINVALID, "input: an empty array")
	}
	for i, e := range elems {
		w := fmt.Sprintf("input[%d]", i)
		var head struct {
			Type string          `json:"type"`
			Role json.RawMessage `json:"role"`
		}
		if err := json.Unmarshal(e, &head); err != nil || !bytes.HasPrefix(bytes.TrimSpace(e), []byte("{")) {
			return nil, nil, false, swc.Errorf(swc.EINVALID, "%s: want an object (a content, a turn or a step), got %s", w, kind(e))
		}
		isTurn := head.Type == "" && head.Role != nil
		if i == 0 {
			turns = isTurn
		} else if isTurn != turns {
			return nil, nil, false, swc.Errorf(swc.EINVALID, "%s: turns mixed with contents or steps in one input", w)
		}
		if turns {
			groups = append(groups, interactionsGroup{raw: e})
			where = append(where, w)
			continue
		}
		side := interactionsSide(head.Type)
		if side == "" {
			return nil, nil, false, swc.Errorf(swc.EINVALID, "%s.type: %q is not a content or step type swc knows", w, head.Type)
		}
		model := side == "model"
		if n := len(groups); n == 0 || groups[n-1].model != model {
			groups = append(groups, interactionsGroup{model: model})
			where = append(where, w)
		}
		g := &groups[len(groups)-1]
		g.items = append(g.items, e)
		g.where = append(g.where, w)
	}
	if !turns {
		for k := range groups {
			groups[k].raw = joinArray(groups[k].items)
		}
	}
	return groups, where, turns, nil
}

// parseInteractionsTurn reads turn o ({"role","content"}).
func parseInteractionsTurn(in *Input, raw json.RawMessage, o int, where string, res geminiMedia, open *[]geminiCall) error {
	var t struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return swc.Errorf(swc.EINVALID, "%s: want a turn {\"role\",\"content\"}: %s", where, jsonErr(err))
	}
	if t.Role != "user" && t.Role != "model" {
		return swc.Errorf(swc.EINVALID, "%s.role: %q is not a turn's role (want user or model; the system prompt goes in \"system_instruction\")", where, t.Role)
	}
	items, wheres, err := interactionsContent(t.Content, where+".content")
	if err != nil {
		return err
	}
	return parseInteractionsItems(in, items, wheres, t.Role == "model", o, where, res, open)
}

// interactionsContent returns a content field's objects (a string as one
// text object) and where each is.
func interactionsContent(c json.RawMessage, where string) ([]json.RawMessage, []string, error) {
	c = bytes.TrimSpace(c)
	if len(c) == 0 || string(c) == "null" {
		return nil, nil, nil
	}
	if c[0] == '"' {
		var s string
		if err := json.Unmarshal(c, &s); err != nil {
			return nil, nil, swc.Errorf(swc.EINVALID, "%s: %s", where, jsonErr(err))
		}
		b, _ := json.Marshal(map[string]string{"type": "text", "text": s})
		return []json.RawMessage{b}, []string{where}, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(c, &items); err != nil {
		return nil, nil, swc.Errorf(swc.EINVALID, "%s: want a string or an array of contents, got %s", where, kind(c))
	}
	wheres := make([]string, len(items))
	for j := range items {
		wheres[j] = fmt.Sprintf("%s[%d]", where, j)
	}
	return items, wheres, nil
}

// parseInteractionsItems reads the items of source element o (a model
// element's or a user element's), where[j] naming item j: messages as
// Interactions describes.
func parseInteractionsItems(in *Input, items []json.RawMessage, wheres []string, model bool, o int, where string, res geminiMedia, open *[]geminiCall) error {
	add := func(m swc.Message, w string) {
		in.Messages = append(in.Messages, m)
		in.Where = append(in.Where, w)
		in.Origin = append(in.Origin, o)
	}
	main := swc.Message{Role: swc.RoleUser}
	if model {
		main.Role = swc.RoleAssistant
		*open = (*open)[:0]
	}
	var texts []string
	hasMain := false
	for j, raw := range items {
		w := wheres[j]
		var it interactionsItem
		if err := json.Unmarshal(raw, &it); err != nil {
			return swc.Errorf(swc.EINVALID, "%s: want a content or step object, got %s", w, kind(raw))
		}
		switch it.Type {
		case "function_call":
			if !model {
				return swc.Errorf(swc.EINVALID, "%s: a function_call in a user turn (only the model calls functions)", w)
			}
			if it.Name == "" {
				return swc.Errorf(swc.EINVALID, "%s.name: missing", w)
			}
			id := it.ID
			if id == "" {
				id = interactionsSyntheticID(o, j)
			}
			args := interactionsJSON(it.Args)
			main.ToolCalls = append(main.ToolCalls, swc.ToolCall{ID: id, Name: it.Name, Arguments: args})
			*open = append(*open, geminiCall{id: id, name: it.Name})
			hasMain = true
			continue
		case "function_result":
			if model {
				return swc.Errorf(swc.EINVALID, "%s: a function_result in a model turn (results come from the user's side)", w)
			}
			id, ok := answer(*open, it.CallID, it.Name)
			if !ok {
				return swc.Errorf(swc.EINVALID, "%s: answers no function_call of the model turn before it (name %q, call_id %q)", w, it.Name, it.CallID)
			}
			m := swc.Message{Role: swc.RoleTool, ToolCallID: id, Name: it.Name}
			text, media, err := interactionsResult(it.Result, w+".result", res)
			if err != nil {
				return err
			}
			if it.IsError {
				text = "[error] " + text
			}
			m.Content, m.MediaTokens = text, media
			add(m, w)
			continue
		case "user_input", "model_output":
			if (it.Type == "model_output") != model {
				return swc.Errorf(swc.EINVALID, "%s: a %s step on the other side's turn", w, it.Type)
			}
			parts, pw, err := interactionsContent(it.Content, w+".content")
			if err != nil {
				return err
			}
			for k, p := range parts {
				t, media, err := interactionsContentText(p, pw[k], res)
				if err != nil {
					return err
				}
				texts = append(texts, t)
				main.MediaTokens += media
			}
			hasMain = true
			continue
		}
		t, media, err := interactionsContentText(raw, w, res)
		if err != nil {
			return err
		}
		texts = append(texts, t)
		main.MediaTokens += media
		hasMain = true
	}
	main.Content = strings.Join(texts, "\n")
	if hasMain || len(items) == 0 {
		add(main, where)
	}
	return nil
}

// interactionsContentText returns the text a content object (or a thought
// or server tool step) stands for in its message, and the tokens of what
// its placeholder stands for.
func interactionsContentText(raw json.RawMessage, where string, res geminiMedia) (string, int, error) {
	var it interactionsItem
	if err := json.Unmarshal(raw, &it); err != nil {
		return "", 0, swc.Errorf(swc.EINVALID, "%s: want a content object, got %s", where, kind(raw))
	}
	switch it.Type {
	case "text":
		if it.Text == nil {
			return "", 0, swc.Errorf(swc.EINVALID, "%s.text: missing", where)
		}
		return *it.Text, 0, nil
	case "image", "audio", "document", "video":
		return interactionsMedia(it), interactionsMediaTokens(it, res), nil
	case "thought":
		n := 0
		var summary []interactionsItem
		if json.Unmarshal(it.Summary, &summary) == nil {
			for _, s := range summary {
				if s.Text != nil {
					n += tokens.CountCached(*s.Text)
				} else {
					n += interactionsMediaTokens(s, res)
				}
			}
		}
		return placeholder("thought"), n, nil
	case "":
		return "", 0, swc.Errorf(swc.EINVALID, "%s.type: missing", where)
	}
	// A server tool's call or result (google_search_call, …) or a type
	// swc does not know: its placeholder, then its JSON, counted as text,
	// but for the media and signatures it holds (interactionsBlobs).
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", 0, swc.Errorf(swc.EINVALID, "%s: %s", where, jsonErr(err))
	}
	media := interactionsBlobs(v, res)
	b, _ := json.Marshal(v)
	return placeholder(it.Type) + "\n" + string(b), media, nil
}

// interactionsBlobs replaces, inside a server tool's step v, every
// "data" and "signature" string with its size ("[N bytes]": base64 and
// signatures are no text the model reads as such) and returns what the
// media objects among them count (interactionsMediaTokens).
func interactionsBlobs(v any, res geminiMedia) int {
	n := 0
	switch x := v.(type) {
	case map[string]any:
		if typ, _ := x["type"].(string); typ == "image" || typ == "audio" || typ == "video" || typ == "document" {
			b, _ := json.Marshal(x)
			var it interactionsItem
			if json.Unmarshal(b, &it) == nil {
				n += interactionsMediaTokens(it, res)
			}
		}
		for k, e := range x {
			if str, ok := e.(string); ok && (k == "data" || k == "signature") {
				x[k] = fmt.Sprintf("[%d bytes]", len(str))
				continue
			}
			n += interactionsBlobs(e, res)
		}
	case []any:
		for _, e := range x {
			n += interactionsBlobs(e, res)
		}
	}
	return n
}

// interactionsMedia returns a media object's placeholder, as Gemini's
// reader writes a part's: "[inlineData image/png]" for bytes in the
// request, "[fileData video/mp4]" for a URI.
func interactionsMedia(it interactionsItem) string {
	key := "fileData"
	if it.Data != "" {
		key = "inlineData"
	}
	if it.MIMEType == "" {
		return "[" + key + " " + it.Type + "]"
	}
	return "[" + key + " " + it.MIMEType + "]"
}

// interactionsMediaTokens counts a media object as geminiMediaTokens
// counts the part it would be in generateContent (its "resolution" the
// part's level).
func interactionsMediaTokens(it interactionsItem, res geminiMedia) int {
	mt := it.MIMEType
	switch {
	case mt == "" && it.Type == "document":
		mt = "application/pdf"
	case mt == "":
		mt = it.Type + "/*"
	case it.Type == "document" && mt != "application/pdf" && it.Data != "":
		// A text document (CSV, HTML, plain text, …): read as its text,
		// about a token a 4 bytes.
		return (newB64(it.Data).n + 3) / 4
	}
	blob := map[string]string{"mimeType": mt, "fileUri": it.URI}
	key := "fileData"
	if it.Data != "" {
		key, blob["data"] = "inlineData", it.Data
	}
	b, _ := json.Marshal(blob)
	p := map[string]json.RawMessage{key: b}
	if it.Res != "" {
		lv, _ := json.Marshal(map[string]string{"level": "MEDIA_RESOLUTION_" + strings.ToUpper(it.Res)})
		p["mediaResolution"] = lv
	}
	return geminiMediaTokens(p, geminiMedia{legacy: res.legacy, files: res.files})
}

// interactionsResult returns a function_result's result as text (a string
// as it is, contents as their texts and placeholders, anything else its
// JSON) and the tokens of its media.
func interactionsResult(raw json.RawMessage, where string, res geminiMedia) (string, int, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return "", 0, nil
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", 0, swc.Errorf(swc.EINVALID, "%s: %s", where, jsonErr(err))
		}
		return s, 0, nil
	case raw[0] == '[':
		parts, pw, err := interactionsContent(raw, where)
		if err != nil {
			return "", 0, err
		}
		var texts []string
		n := 0
		for k, p := range parts {
			t, media, err := interactionsContentText(p, pw[k], res)
			if err != nil {
				return "", 0, err
			}
			texts, n = append(texts, t), n+media
		}
		return strings.Join(texts, "\n"), n, nil
	}
	return interactionsJSON(raw), 0, nil
}

// interactionsJSON returns raw's compact JSON ("{}" for nothing or null).
func interactionsJSON(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
