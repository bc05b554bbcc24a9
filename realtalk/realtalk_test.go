package realtalk_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/swcmem/swc/realtalk"
)

// TestLoCoMo: a REALTALK conversation (testdata/Chat_1_Mara_Theo.json,
// written by us in the authors' shape) becomes a LoCoMo sample: the
// speakers, each session's date as LoCoMo writes it, a message a turn of
// its clean_text, an image without text "[shares an image]", a message
// with neither left out, the questions as they came.
func TestLoCoMo(t *testing.T) {
	data, err := os.ReadFile("testdata/Chat_1_Mara_Theo.json")
	if err != nil {
		t.Fatal(err)
	}
	if !realtalk.Detect(data) {
		t.Fatal("not detected")
	}
	raw, err := realtalk.LoCoMo(data, "Chat_1_Mara_Theo")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		ID   string                      `json:"sample_id"`
		Conv map[string]json.RawMessage  `json:"conversation"`
		QA   []struct{ Question string } `json:"qa"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	str := func(k string) string { var v string; _ = json.Unmarshal(s.Conv[k], &v); return v }
	if s.ID != "Chat_1_Mara_Theo" || str("speaker_a") != "Mara" || str("speaker_b") != "Theo" || len(s.QA) != 3 {
		t.Errorf("sample %s: speakers %q %q, %d questions", s.ID, str("speaker_a"), str("speaker_b"), len(s.QA))
	}
	for k, want := range map[string]string{"session_1_date_time": "7:05 pm on 3 February, 2024", "session_2_date_time": "8:15 am on 5 February, 2024"} {
		if got := str(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	var turns []struct {
		Speaker, Text string
		DiaID         string `json:"dia_id"`
	}
	if err := json.Unmarshal(s.Conv["session_1"], &turns); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tu := range turns {
		got = append(got, tu.DiaID+" "+tu.Speaker+": "+tu.Text)
	}
	want := "D1:1 Mara: hey! just got back from the climbing gym|D1:2 Mara: finally sent the green route|D1:3 Theo: nice!! which gym do you go to?|D1:4 Mara: [shares an image]|D1:5 Mara: Boulder Barn on 5th street"
	if strings.Join(got, "|") != want {
		t.Errorf("session 1:\n got %s\nwant %s", strings.Join(got, "|"), want)
	}
}

// TestDetectAndErrors: other JSON is not REALTALK; a file missing its
// speakers, with a bad date or a message without a speaker is an error
// naming the field.
func TestDetectAndErrors(t *testing.T) {
	for _, other := range []string{`[{"conversation": {}}]`, `{"haystack_sessions": []}`, `{"name": {"speaker_1": "A"}, "qa": []}`, `not json`} {
		if realtalk.Detect([]byte(other)) {
			t.Errorf("%s detected as REALTALK", other)
		}
	}
	msg := `{"clean_text": "hi", "speaker": "A", "date_time": "03.02.2024, 19:05:11", "dia_id": "D1:1"}`
	for _, c := range []struct{ data, want string }{
		{`{"name": {"speaker_1": "A"}, "session_1": [` + msg + `], "qa": []}`, `x: "name" must hold speaker_1 and speaker_2`},
		{`{"name": {"speaker_1": "A", "speaker_2": "B"}, "session_1": [` + msg + `], "session_1_date_time": "3 Feb 2024", "qa": []}`, `x: session_1_date_time "3 Feb 2024": want a time like 29.12.2023, 22:42:04`},
		{`{"name": {"speaker_1": "A", "speaker_2": "B"}, "session_1": [{"clean_text": "hi", "date_time": "03.02.2024, 19:05:11"}], "qa": []}`, `x: session_1[0]: a message without a speaker`},
		{`{"name": {"speaker_1": "A", "speaker_2": "B"}, "session_1": {}, "qa": []}`, `x: session_1: json: cannot unmarshal object`},
	} {
		if _, err := realtalk.LoCoMo([]byte(c.data), "x"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.data, err, c.want)
		}
	}
}
