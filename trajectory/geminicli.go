package trajectory

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Gemini CLI records a session (~/.gemini/tmp/PROJECT/chats/session-….jsonl)
// as JSON lines: a metadata line ({"sessionId", "projectHash", …}),
// message records ({"id", "type": "user" | "gemini" | "info" | "error" |
// "warning", "content", "toolCalls", "thoughts", "model"}; a record
// written again under its id replaces the first, in its place),
// {"$set": {…}} updates (a "messages" member replaces every record) and
// {"$rewindTo": id} (the records from id on are gone). Older releases
// wrote the whole record as one JSON object ({"sessionId",
// "projectHash", "messages": […]}, session-….json). The bench reads
// either as the Gemini API body of the session's last request
// (geminiCLIBody), as the CLI rebuilds its history on resume: a user
// record is a user content of its parts (consecutive ones one content,
// as the CLI sends its session context and the task); a gemini record a
// model content of its text and a functionCall part per tool call, then
// a user content of the calls' results (a call without one, answered
// by a later record, gets "(no output)"); a user record of function
// responses alone, which repeats those results, and info, error and
// warning records are left out, and so are thoughts, which the CLI does
// not send back. The record holds neither the system instruction, the
// tool declarations nor the calls' thought signatures, so the body has
// none of them.

// isGeminiCLI reports whether data is a Gemini CLI session record, and
// whether it is an older release's one JSON object: JSON lines whose
// first is its metadata ({"sessionId", "projectHash"}), or one object
// with those and its "messages".
func isGeminiCLI(data []byte) (ok, whole bool) {
	type meta struct {
		SessionID   string           `json:"sessionId"`
		ProjectHash string           `json:"projectHash"`
		Messages    *json.RawMessage `json:"messages"`
	}
	var m meta
	if json.Unmarshal(data, &m) == nil && m.Messages != nil {
		return m.SessionID != "" && m.ProjectHash != "", true
	}
	line, _, _ := bytes.Cut(bytes.TrimSpace(data), []byte("\n"))
	m = meta{}
	return json.Unmarshal(line, &m) == nil && m.SessionID != "" && m.ProjectHash != "", false
}

// gcRecord is a message record of a Gemini CLI session.
type gcRecord struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	Model     string          `json:"model"`
	ToolCalls []struct {
		ID     string          `json:"id"`
		Name   string          `json:"name"`
		Args   json.RawMessage `json:"args"`
		Result json.RawMessage `json:"result"`
	} `json:"toolCalls"`
}

// gcSession holds a session's records in order, by id.
type gcSession struct {
	ids  []string
	byID map[string]gcRecord
}

func (s *gcSession) set(r gcRecord) {
	if _, ok := s.byID[r.ID]; !ok {
		s.ids = append(s.ids, r.ID)
	}
	s.byID[r.ID] = r
}

func (s *gcSession) reset() { s.ids, s.byID = nil, map[string]gcRecord{} }

// rewind drops the records from id on (all of them for an unknown id).
func (s *gcSession) rewind(id string) {
	for i, x := range s.ids {
		if x == id {
			for _, gone := range s.ids[i:] {
				delete(s.byID, gone)
			}
			s.ids = s.ids[:i]
			return
		}
	}
	s.reset()
}

// geminiCLIBody returns the generateContent body of a Gemini CLI
// session's last request (see above), from its JSON lines or, with
// whole, its one JSON object.
func geminiCLIBody(data []byte, whole bool) ([]byte, error) {
	s := &gcSession{}
	s.reset()
	if whole {
		var o struct {
			Messages []gcRecord `json:"messages"`
		}
		if err := json.Unmarshal(data, &o); err != nil {
			return nil, err
		}
		for i, r := range o.Messages {
			if r.ID == "" {
				r.ID = fmt.Sprint("#", i)
			}
			s.set(r)
		}
		return geminiCLIContents(s)
	}
	err := eachLine(data, func(n int, b []byte) error {
		var l map[string]json.RawMessage
		if err := json.Unmarshal(b, &l); err != nil {
			return fmt.Errorf("line %d: %v", n, err)
		}
		var id string
		switch {
		case l["$rewindTo"] != nil:
			if err := json.Unmarshal(l["$rewindTo"], &id); err != nil {
				return fmt.Errorf("line %d: $rewindTo: %v", n, err)
			}
			s.rewind(id)
		case l["$set"] != nil:
			var set struct {
				Messages *[]gcRecord `json:"messages"`
			}
			if err := json.Unmarshal(l["$set"], &set); err != nil {
				return fmt.Errorf("line %d: $set: %v", n, err)
			}
			if set.Messages != nil {
				s.reset()
				for _, r := range *set.Messages {
					if r.ID != "" {
						s.set(r)
					}
				}
			}
		case l["id"] != nil:
			var r gcRecord
			if err := json.Unmarshal(b, &r); err != nil {
				return fmt.Errorf("line %d: %v", n, err)
			}
			if r.ID != "" {
				s.set(r)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return geminiCLIContents(s)
}

// geminiCLIContents writes the body of a session's records.
func geminiCLIContents(s *gcSession) ([]byte, error) {
	type content struct {
		Role  string            `json:"role"`
		Parts []json.RawMessage `json:"parts"`
	}
	var out []content
	add := func(role string, parts []json.RawMessage) {
		if len(parts) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Parts = append(out[n-1].Parts, parts...)
			return
		}
		out = append(out, content{role, parts})
	}
	model := "gemini"
	lastModel := -1
	for i, id := range s.ids {
		if s.byID[id].Type == "gemini" {
			lastModel = i
		}
	}
	for i, id := range s.ids {
		r := s.byID[id]
		switch r.Type {
		case "user":
			parts, err := gcParts(r.Content)
			if err != nil {
				return nil, fmt.Errorf("record %s: %v", id, err)
			}
			if !gcResponsesOnly(parts) {
				add("user", parts)
			}
		case "gemini":
			if r.Model != "" {
				model = r.Model
			}
			parts, err := gcParts(r.Content)
			if err != nil {
				return nil, fmt.Errorf("record %s: %v", id, err)
			}
			var modelParts, results []json.RawMessage
			for _, p := range parts {
				if !gcThought(p) {
					modelParts = append(modelParts, p)
				}
			}
			for _, c := range r.ToolCalls {
				call, err := marshal(map[string]any{"functionCall": gcCall(c.ID, c.Name, c.Args)})
				if err != nil {
					return nil, err
				}
				modelParts = append(modelParts, call)
				res, err := gcResult(c.ID, c.Name, c.Result, i < lastModel)
				if err != nil {
					return nil, fmt.Errorf("record %s: call %s: %v", id, c.Name, err)
				}
				results = append(results, res...)
			}
			add("model", modelParts)
			add("user", results)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no user or gemini records: nothing the model saw")
	}
	return json.Marshal(struct {
		Model    string    `json:"model"`
		Contents []content `json:"contents"`
	}{model, out})
}

// gcParts returns a record's content as parts: a string one text part
// (none when empty), a part alone one, a list its parts.
func gcParts(raw json.RawMessage) ([]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		if s == "" {
			return nil, nil
		}
		p, err := marshal(map[string]string{"text": s})
		return []json.RawMessage{p}, err
	case '[':
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, err
		}
		out := list[:0]
		for _, p := range list {
			if bytes.HasPrefix(bytes.TrimSpace(p), []byte(`"`)) { // a bare string is a text part
				var s string
				if err := json.Unmarshal(p, &s); err != nil {
					return nil, err
				}
				t, err := marshal(map[string]string{"text": s})
				if err != nil {
					return nil, err
				}
				p = t
			}
			out = append(out, p)
		}
		return out, nil
	case '{':
		return []json.RawMessage{raw}, nil
	}
	return nil, fmt.Errorf("content neither text nor parts")
}

// gcResponsesOnly reports whether parts are all function responses.
func gcResponsesOnly(parts []json.RawMessage) bool {
	for _, p := range parts {
		var o map[string]json.RawMessage
		if json.Unmarshal(p, &o) != nil {
			return false
		}
		if _, ok := o["functionResponse"]; !ok {
			return false
		}
	}
	return len(parts) > 0
}

// gcThought reports whether part p is a thought (the CLI does not send
// them back).
func gcThought(p json.RawMessage) bool {
	var o struct{ Thought bool }
	return json.Unmarshal(p, &o) == nil && o.Thought
}

// gcCall is a functionCall part's value.
func gcCall(id, name string, args json.RawMessage) map[string]any {
	call := map[string]any{"name": name}
	if id != "" {
		call["id"] = id
	}
	if len(bytes.TrimSpace(args)) > 0 {
		call["args"] = args
	} else {
		call["args"] = map[string]any{}
	}
	return call
}

// gcResult returns a tool call's result as parts, as the CLI sends them:
// a string the output of a functionResponse, a list its parts, an object
// the part itself; none, when answered reports that a later record
// follows, a functionResponse of "(no output)".
func gcResult(id, name string, result json.RawMessage, answered bool) ([]json.RawMessage, error) {
	result = bytes.TrimSpace(result)
	if len(result) == 0 || string(result) == "null" {
		if !answered {
			return nil, nil
		}
		result = json.RawMessage(`"(no output)"`)
	}
	if result[0] == '"' {
		var s string
		if err := json.Unmarshal(result, &s); err != nil {
			return nil, err
		}
		resp := map[string]any{"name": name, "response": map[string]string{"output": s}}
		if id != "" {
			resp["id"] = id
		}
		p, err := marshal(map[string]any{"functionResponse": resp})
		return []json.RawMessage{p}, err
	}
	return gcParts(result)
}
