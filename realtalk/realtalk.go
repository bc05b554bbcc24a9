// Package realtalk reads REALTALK (Lee et al., "REALTALK: A 21-Day
// Real-World Dataset for Long-Term Conversation", 2025) as its authors
// ship it: one file a conversation (data/Chat_N_A_B.json), two people
// texting on a messaging app over 21 days, with memory-probing questions.
// A file is {"name": {"speaker_1", "speaker_2"}, "session_N": [message…],
// "session_N_date_time": "29.12.2023, 22:42:04", "events_session_N", "qa":
// [{"question", "answer", "evidence", "category"}]}, a message
// {"clean_text", "speaker", "date_time", "img_file", "img_url", "dia_id"}.
//
// LoCoMo returns a file as a sample in LoCoMo's format, which the locomo
// package reads: the speakers, each session with its date (as LoCoMo
// writes dates), each message a turn of its clean_text (a message with
// no text but a shared image "[shares an image]"), the questions as they
// are. REALTALK's categories are 1 (multi-hop), 2 (temporal) and 3
// (commonsense), LoCoMo's numbers for the same kinds.
package realtalk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Detect reports whether data is a REALTALK conversation: a JSON object
// with "name" naming speaker_1, "qa" and "session_1".
func Detect(data []byte) bool {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return false
	}
	var o struct {
		Name *struct {
			Speaker1 string `json:"speaker_1"`
		} `json:"name"`
		QA       json.RawMessage `json:"qa"`
		Session1 json.RawMessage `json:"session_1"`
	}
	return json.Unmarshal(data, &o) == nil && o.Name != nil && o.Name.Speaker1 != "" && o.QA != nil && o.Session1 != nil
}

type message struct {
	Text    string          `json:"clean_text"`
	Speaker string          `json:"speaker"`
	Date    string          `json:"date_time"`
	Images  json.RawMessage `json:"img_file"`
	DiaID   string          `json:"dia_id"`
}

type turn struct {
	Speaker string `json:"speaker"`
	DiaID   string `json:"dia_id"`
	Text    string `json:"text"`
}

// DateLayout is how REALTALK writes a time ("29.12.2023, 22:42:04").
const DateLayout = "02.01.2006, 15:04:05"

// LoCoMo returns the REALTALK conversation data as a LoCoMo sample (see
// the package doc) whose sample_id is id. It returns an error naming the
// field for data that is not one, a session without a date or a message
// without a speaker.
func LoCoMo(data []byte, id string) (json.RawMessage, error) {
	var o map[string]json.RawMessage
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, fmt.Errorf("realtalk: %s: %v", id, err)
	}
	var name struct {
		A string `json:"speaker_1"`
		B string `json:"speaker_2"`
	}
	if err := json.Unmarshal(o["name"], &name); err != nil || name.A == "" || name.B == "" {
		return nil, fmt.Errorf("realtalk: %s: \"name\" must hold speaker_1 and speaker_2", id)
	}
	var sessions []int
	for k := range o {
		if n, ok := strings.CutPrefix(k, "session_"); ok {
			if i, err := strconv.Atoi(n); err == nil && i > 0 {
				sessions = append(sessions, i)
			}
		}
	}
	if len(sessions) == 0 {
		return nil, fmt.Errorf("realtalk: %s: no session_N", id)
	}
	sort.Ints(sessions)
	conv := map[string]any{"speaker_a": name.A, "speaker_b": name.B}
	for _, i := range sessions {
		key := "session_" + strconv.Itoa(i)
		var msgs []message
		if err := json.Unmarshal(o[key], &msgs); err != nil {
			return nil, fmt.Errorf("realtalk: %s: %s: %v", id, key, err)
		}
		var turns []turn
		for k, m := range msgs {
			text := strings.TrimSpace(m.Text)
			if text == "" {
				if len(bytes.TrimSpace(m.Images)) <= 2 { // absent, null or []
					continue
				}
				text = "[shares an image]"
			}
			if m.Speaker == "" {
				return nil, fmt.Errorf("realtalk: %s: %s[%d]: a message without a speaker", id, key, k)
			}
			turns = append(turns, turn{Speaker: m.Speaker, DiaID: m.DiaID, Text: text})
		}
		if len(turns) == 0 {
			continue
		}
		date := ""
		_ = json.Unmarshal(o[key+"_date_time"], &date)
		if date == "" && len(msgs) > 0 {
			date = msgs[0].Date
		}
		t, err := time.Parse(DateLayout, date)
		if err != nil {
			return nil, fmt.Errorf("realtalk: %s: %s_date_time %q: want a time like 29.12.2023, 22:42:04", id, key, date)
		}
		conv[key+"_date_time"] = locomoDate(t)
		conv[key] = turns
	}
	qa := o["qa"]
	if len(qa) == 0 {
		qa = json.RawMessage("[]")
	}
	return json.Marshal(struct {
		ID           string          `json:"sample_id"`
		Conversation map[string]any  `json:"conversation"`
		QA           json.RawMessage `json:"qa"`
	}{id, conv, qa})
}

// locomoDate writes t as LoCoMo does: "10:42 pm on 29 December, 2023".
func locomoDate(t time.Time) string {
	return strings.ToLower(t.Format("3:04 PM")) + t.Format(" on 2 January, 2006")
}
