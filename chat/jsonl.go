package chat

import (
	"encoding/json"

	"github.com/swcmem/swc"
)

type jsonlLine struct {
	Time    json.RawMessage `json:"time"`
	Speaker *string         `json:"speaker"`
	Text    *string         `json:"text"`
	Role    string          `json:"role"`
	meta
}

// parseJSONL reads lines of {"time","speaker","text","session"?} (a JSON
// array of such objects is accepted too). A line may say its "role";
// otherwise the first speaker is the user and every other speaker the
// assistant. Speakers are kept as message names.
func parseJSONL(data []byte) (*Input, error) {
	elems, where, isLines, err := splitTop(data, "messages")
	if err != nil {
		return nil, err
	}
	in := &Input{Raw: elems}
	first := ""
	for i, raw := range elems {
		var l jsonlLine
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, swc.Errorf(swc.EINVALID, "%s: %s", where[i], jsonErr(err))
		}
		if l.Speaker == nil {
			var probe map[string]json.RawMessage
			_ = json.Unmarshal(raw, &probe)
			if _, ok := probe["role"]; ok && isLines {
				return nil, swc.Errorf(swc.EINVALID, "%s: an openai {role,content} message among jsonl {speaker,text} lines (one file holds one format)", where[i])
			}
			return nil, swc.Errorf(swc.EINVALID, "%s.speaker: missing", where[i])
		}
		if l.Text == nil {
			return nil, swc.Errorf(swc.EINVALID, "%s.text: missing", where[i])
		}
		m := swc.Message{Name: *l.Speaker, Content: *l.Text, Role: swc.Role(l.Role)}
		if err := l.meta.apply(&m, where[i]); err != nil {
			return nil, err
		}
		if len(l.Time) > 0 && string(l.Time) != "null" {
			if m.Time, err = parseTime(l.Time, true); err != nil {
				return nil, swc.Errorf(swc.EINVALID, "%s.time: %v", where[i], err)
			}
		}
		if m.Role == "" {
			if first == "" {
				first = m.Name
			}
			m.Role = swc.RoleAssistant
			if m.Name == first {
				m.Role = swc.RoleUser
			}
		}
		in.Messages = append(in.Messages, m)
		in.Where = append(in.Where, where[i])
		in.Origin = append(in.Origin, i)
	}
	return in, nil
}
