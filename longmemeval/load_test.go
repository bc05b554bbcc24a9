package longmemeval

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/internal/skipnote"
)

func TestLoadTiny(t *testing.T) {
	convs, err := LoadFile("testdata/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 3 {
		t.Fatalf("got %d conversations, want 3", len(convs))
	}
	tests := []struct {
		id, typ, answer string
		abstention      bool
		sessions        int
		evidence        []string
		asked           time.Time
		firstDate       string
	}{
		{"q-user-1", "single-session-user", "a border collie", false, 2, []string{"S2:1"},
			time.Date(2023, 5, 30, 23, 40, 0, 0, time.UTC), "2023/05/20 (Sat) 02:21"},
		// Sessions sorted by date: answer_a (06/02) first; the answer is a
		// number in the file.
		{"q-temporal-2", "temporal-reasoning", "3", false, 3, []string{"S1:1", "S2:1"},
			time.Date(2023, 6, 10, 9, 0, 0, 0, time.UTC), "2023/06/02 (Fri) 07:15"},
		// No turn marked: every turn of the answer session.
		{"q-update-3_abs", "knowledge-update", "The information provided is not enough. You mentioned buying a guitar but not a piano.", true, 2, []string{"S1:1", "S1:2"},
			time.Date(2023, 7, 1, 20, 0, 0, 0, time.UTC), "2023/06/20 (Tue) 08:00"},
	}
	for i, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			c := convs[i]
			if c.ID != tt.id || c.SpeakerA != User || c.SpeakerB != Assistant {
				t.Errorf("conversation = %q %q %q", c.ID, c.SpeakerA, c.SpeakerB)
			}
			if len(c.Sessions) != tt.sessions {
				t.Fatalf("%d sessions, want %d", len(c.Sessions), tt.sessions)
			}
			if c.Sessions[0].DateText != tt.firstDate {
				t.Errorf("first session date %q, want %q", c.Sessions[0].DateText, tt.firstDate)
			}
			for si, s := range c.Sessions {
				if s.Index != si {
					t.Errorf("session %d has Index %d", si, s.Index)
				}
				if si > 0 && s.Start.Before(c.Sessions[si-1].Start) {
					t.Errorf("session %d starts before session %d", si, si-1)
				}
				for ti, turn := range s.Turns {
					if turn.ID != TurnID(si, ti) {
						t.Errorf("turn id %q, want %q", turn.ID, TurnID(si, ti))
					}
					if turn.Speaker != User && turn.Speaker != Assistant {
						t.Errorf("speaker %q", turn.Speaker)
					}
				}
			}
			if len(c.Questions) != 1 {
				t.Fatalf("%d questions, want 1", len(c.Questions))
			}
			q := c.Questions[0]
			if q.ID != tt.id || q.Type != tt.typ || q.Answer != tt.answer || q.Abstention != tt.abstention || !q.Date.Equal(tt.asked) {
				t.Errorf("question = %+v", q)
			}
			if !slices.Equal(q.Evidence, tt.evidence) {
				t.Errorf("evidence = %v, want %v", q.Evidence, tt.evidence)
			}
			for _, id := range q.Evidence {
				if _, ok := c.Turn(id); !ok {
					t.Errorf("evidence %q names no turn", id)
				}
			}
		})
	}
	// The marked turn is the one about the dog.
	if turn, _ := convs[0].Turn("S2:1"); !strings.Contains(turn.Text, "border collie") {
		t.Errorf("S2:1 = %q", turn.Text)
	}
}

func TestScanErrors(t *testing.T) {
	const ok = `{"question_id":"a","question_type":"multi-session","question":"q?","answer":"x","question_date":"2023/05/30 (Tue) 23:40",
"haystack_dates":["2023/05/20 (Sat) 02:21"],"haystack_session_ids":["s1"],"haystack_sessions":[[{"role":"user","content":"hi"}]],"answer_session_ids":["s1"]}`
	tests := []struct {
		name, data, want string
	}{
		{"empty", ``, "file is empty"},
		{"object", `{}`, "top level must be a JSON list of questions"},
		{"no questions", `[]`, "the list of questions is empty"},
		{"bad json", `[` + ok + `,`, "question 1"},
		{"duplicate id", `[` + ok + `,` + ok + `]`, `question_id "a" repeats question 0`},
		{"missing id", `[` + strings.Replace(ok, `"question_id":"a",`, ``, 1) + `]`, "question_id is missing"},
		{"unknown type", `[` + strings.Replace(ok, `multi-session`, `trivia`, 1) + `]`, `question_type "trivia" is none of`},
		{"bad date", `[` + strings.Replace(ok, `"2023/05/30 (Tue) 23:40"`, `"May 30"`, 1) + `]`, `question_date "May 30"`},
		{"bad session date", `[` + strings.Replace(ok, `["2023/05/20 (Sat) 02:21"]`, `["2023-05-20"]`, 1) + `]`, `haystack_dates[0] "2023-05-20"`},
		{"dates count", `[` + strings.Replace(ok, `["2023/05/20 (Sat) 02:21"]`, `[]`, 1) + `]`, "haystack_dates has 0 dates for 1 sessions"},
		{"bad role", `[` + strings.Replace(ok, `"role":"user"`, `"role":"system"`, 1) + `]`, `role "system" is neither`},
		{"no content", `[` + strings.Replace(ok, `,"content":"hi"`, ``, 1) + `]`, "content is missing"},
		{"list answer", `[` + strings.Replace(ok, `"answer":"x"`, `"answer":["x"]`, 1) + `]`, "answer: is neither a string nor a number"},
		{"unknown answer session", `[` + strings.Replace(ok, `"answer_session_ids":["s1"]`, `"answer_session_ids":["s9"]`, 1) + `]`, `"s9" is not a haystack session`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.data), "x.json")
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			var se *swc.Error
			if !errors.As(err, &se) || se.Code != swc.EINVALID {
				t.Errorf("error %v is not EINVALID", err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "x.json") {
				t.Errorf("error %q, want it to name x.json and say %q", err, tt.want)
			}
		})
	}
	if _, err := LoadFile("testdata/nope.json"); swc.ErrorCode(err) != swc.ENOTFOUND {
		t.Errorf("missing file: %v", err)
	}
}

func TestScanStopsOnCallbackError(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := ScanFile("testdata/tiny.json", func(*swc.Conversation) error { n++; return stop })
	if err != stop || n != 1 {
		t.Errorf("err %v after %d conversations, want stop after 1", err, n)
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		data string
		want bool
	}{
		{`[{"question_id":"a","haystack_sessions":[]}]`, true},
		{`[{"sample_id":"conv-1","conversation":{}}]`, false},
		{`{"haystack_sessions":[]}`, false},
		{`[]`, false},
		{`not json`, false},
	}
	for _, tt := range tests {
		if got := Detect(strings.NewReader(tt.data)); got != tt.want {
			t.Errorf("Detect(%s) = %v, want %v", tt.data, got, tt.want)
		}
	}
	if !DetectFile("testdata/tiny.json") || DetectFile("testdata/nope.json") {
		t.Error("DetectFile")
	}
}

// samplePath is the shared LongMemEval sample, beside the repository.
var samplePath = filepath.Join("..", "..", "shared", "data", "longmemeval", "longmemeval_s_sample14.json")

func TestSharedSample(t *testing.T) {
	if _, err := os.Stat(samplePath); err != nil {
		abs, _ := filepath.Abs(samplePath)
		skipnote.Skip(t, "LongMemEval sample", "not found at "+abs+", so the test over it skips")
	}
	convs, err := LoadFile(samplePath)
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 14 {
		t.Fatalf("%d questions, want 14", len(convs))
	}
	types := map[string]int{}
	abstention := 0
	for _, c := range convs {
		q := c.Questions[0]
		if q.Abstention {
			abstention++
		} else {
			types[q.Type]++
			if len(q.Evidence) == 0 {
				t.Errorf("%s: no evidence", q.ID)
			}
		}
		for _, id := range q.Evidence {
			if _, ok := c.Turn(id); !ok {
				t.Errorf("%s: evidence %q names no turn", q.ID, id)
			}
		}
		if len(c.Sessions) < 30 || q.Date.IsZero() {
			t.Errorf("%s: %d sessions, asked %v", q.ID, len(c.Sessions), q.Date)
		}
	}
	for _, typ := range Types {
		if types[typ] == 0 {
			t.Errorf("no question of type %s", typ)
		}
	}
	if abstention == 0 {
		t.Error("no abstention question")
	}
}

// TestSessionListedTwice: LongMemEval_S lists a few sessions twice under
// one id at two dates (13 of the 498 questions read here); both are
// sessions of the history, and an answer session listed twice is
// evidence at both.
func TestSessionListedTwice(t *testing.T) {
	const data = `[{"question_id":"a","question_type":"multi-session","question":"q?","answer":"x","question_date":"2023/06/30 (Fri) 23:40",
"haystack_dates":["2023/05/20 (Sat) 02:21","2023/06/01 (Thu) 10:00","2023/06/20 (Tue) 08:00"],
"haystack_session_ids":["s1","s2","s1"],
"haystack_sessions":[[{"role":"user","content":"hi"}],[{"role":"user","content":"other"}],[{"role":"user","content":"hi"}]],
"answer_session_ids":["s1"]}]`
	var c *swc.Conversation
	err := Scan(strings.NewReader(data), "twice.json", func(got *swc.Conversation) error { c = got; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Sessions) != 3 {
		t.Fatalf("%d sessions, want 3", len(c.Sessions))
	}
	if got, want := c.Questions[0].Evidence, []string{"S1:1", "S3:1"}; !slices.Equal(got, want) {
		t.Errorf("evidence = %v, want %v", got, want)
	}
}
