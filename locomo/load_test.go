package locomo

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/internal/skipnote"
	"github.com/swcmem/swc/tokens"
)

// locomoPath is where the shared LoCoMo file lives relative to this package.
var locomoPath = filepath.Join("..", "..", "shared", "data", "locomo", "locomo10.json")

func needLoCoMo(tb testing.TB) string {
	tb.Helper()
	if _, err := os.Stat(locomoPath); err != nil {
		// Not locomotest.Need: it imports this package.
		if os.Getenv("CI") == "true" {
			tb.Fatalf("LoCoMo data: %v", err)
		}
		abs, _ := filepath.Abs(locomoPath)
		skipnote.Skip(tb, "LoCoMo", "not found at "+abs+", so the tests that need it skip; get data/locomo10.json from https://github.com/snap-research/locomo")
	}
	return locomoPath
}

func TestLoadMini(t *testing.T) {
	convs, warns, err := LoadFile("testdata/mini.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 1 {
		t.Fatalf("got %d conversations", len(convs))
	}
	c := convs[0]
	if c.ID != "mini-1" || c.SpeakerA != "Ana" || c.SpeakerB != "Ben" {
		t.Errorf("header = %q %q %q", c.ID, c.SpeakerA, c.SpeakerB)
	}
	// Sessions ordered by N (1, 2, 10), not by key order; the dangling
	// session_11_date_time is ignored.
	var got []string
	for i, s := range c.Sessions {
		if s.Index != i {
			t.Errorf("session %d has Index %d", i, s.Index)
		}
		got = append(got, s.Turns[0].ID)
	}
	if strings.Join(got, ",") != "D1:1,D2:1,D10:1" {
		t.Errorf("session order = %v", got)
	}
	if want := time.Date(2024, 3, 3, 19, 10, 0, 0, time.UTC); !c.Sessions[1].Start.Equal(want) {
		t.Errorf("session 2 start = %v, want %v", c.Sessions[1].Start, want)
	}
	img := c.Sessions[1].Turns[1]
	if img.Text != "Wow!" || img.Image == nil || img.Image.Caption != "a photo of a medal" || img.Image.URLs[0] != "https://example.com/x.jpg" {
		t.Errorf("image turn = %+v %+v", img, img.Image)
	}
	q := c.Questions
	if len(q) != 4 {
		t.Fatalf("got %d questions", len(q))
	}
	if q[1].Answer != "2023" {
		t.Errorf("numeric answer = %q, want \"2023\"", q[1].Answer)
	}
	if strings.Join(q[1].Evidence, ",") != "D1:1,D1:2" {
		t.Errorf("split evidence = %v", q[1].Evidence)
	}
	if q[3].Category != swc.Adversarial || q[3].AdversarialAnswer != "Lisbon" || q[3].Answer != "" {
		t.Errorf("adversarial question = %+v", q[3])
	}
	// Two warnings: session numbers 1, 2, 10 skip some, and D9:9 dangles.
	if len(q[3].Evidence) != 1 || len(warns) != 2 || !strings.Contains(warns[0].Msg, "not 1, 2, 3") || !strings.Contains(warns[1].String(), `"D9:9"`) {
		t.Errorf("dangling evidence: evidence %v, warnings %v", q[3].Evidence, warns)
	}
	if TextOnly(q[2]) || !TextOnly(q[0]) {
		t.Errorf("TextOnly wrong on %q / %q", q[2].Question, q[0].Question)
	}
	if q[0].ID != "mini-1:q0" {
		t.Errorf("question id = %q", q[0].ID)
	}
}

func TestLoadBadInput(t *testing.T) {
	valid, err := os.ReadFile("testdata/mini.json")
	if err != nil {
		t.Fatal(err)
	}
	v := string(valid)
	tests := []struct {
		name string
		data string
		want []string // substrings of the error
	}{
		{"empty", "", []string{"file is empty"}},
		{"whitespace", "  \n", []string{"file is empty"}},
		{"truncated", v[:len(v)/2], []string{"ends early"}},
		{"garbage", "[{]", []string{"invalid JSON at line 1, column"}},
		{"object", `{"sample_id": "x"}`, []string{"top level must be a JSON list", "an object"}},
		{"empty list", `[]`, []string{"list of samples is empty"}},
		{"no conversation", `[{"sample_id": "s1", "qa": []}]`, []string{"sample 0 (s1)", `missing field "conversation"`}},
		{"no speaker", `[{"sample_id": "s1", "conversation": {"speaker_b": "B"}}]`, []string{"conversation.speaker_a"}},
		{"no sessions", `[{"sample_id": "s1", "conversation": {"speaker_a": "A", "speaker_b": "B"}}]`, []string{"no session_N"}},
		{"bad date", strings.Replace(v, "1:56 pm on 8 May, 2023", "sometime in May", 1), []string{"mini-1", "session_1_date_time", `cannot parse date "sometime in May"`}},
		{"impossible date", strings.Replace(v, "8 May, 2023", "31 February, 2023", 1), []string{"does not exist"}},
		{"missing date", strings.Replace(v, `"session_10_date_time"`, `"session_99_date_time"`, 1), []string{"session_10_date_time: missing"}},
		{"empty session", strings.Replace(v, `"session_10": [
        {"speaker": "Ana", "dia_id": "D10:1", "text": "Back from Lisbon."}
      ]`, `"session_10": []`, 1), []string{"session_10", "no turns"}},
		{"session not a list", strings.Replace(v, `"session_10": [
        {"speaker": "Ana", "dia_id": "D10:1", "text": "Back from Lisbon."}
      ]`, `"session_10": "hello"`, 1), []string{"session_10", "want a list of turns"}},
		{"turn without text", strings.Replace(v, `"text": "Back from Lisbon."`, `"txt": "x"`, 1), []string{"session_10[0]", "D10:1", "missing text"}},
		{"turn with empty text", strings.Replace(v, `"text": "Back from Lisbon."`, `"text": "  "`, 1), []string{"D10:1", "empty text"}},
		{"turn without id", strings.Replace(v, `"dia_id": "D10:1", `, ``, 1), []string{"session_10[0]", "missing dia_id"}},
		{"duplicate turn id", strings.Replace(v, `"D10:1"`, `"D2:1"`, 1), []string{"duplicate dia_id \"D2:1\""}},
		{"bad category", strings.Replace(v, `"category": 4`, `"category": 7`, 1), []string{"qa[2].category", "want 1–5"}},
		{"no question", strings.Replace(v, `"question": "When did Ben run a race?", `, ``, 1), []string{"qa[0]", "missing question"}},
		{"no answer", strings.Replace(v, `"answer": "a medal", `, ``, 1), []string{"qa[2].answer: missing"}},
		{"evidence not a list", strings.Replace(v, `"evidence": ["D2:1"]`, `"evidence": 3`, 1), []string{"qa[0].evidence"}},
		{"duplicate sample", "[" + strings.TrimSpace(v)[1:len(strings.TrimSpace(v))-1] + "," + strings.TrimSpace(v)[1:len(strings.TrimSpace(v))-1] + "]", []string{`sample_id "mini-1" repeats`}},
		{"not utf8", "[\xff]", []string{"not valid UTF-8"}},
		{"huge turn", strings.Replace(v, "Back from Lisbon.", strings.Repeat("x", MaxTurnBytes+1), 1), []string{"D10:1", "more than the"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Parse([]byte(tt.data), "bad.json")
			if err == nil {
				t.Fatal("no error")
			}
			if swc.ErrorCode(err) != swc.EINVALID {
				t.Errorf("code = %q, want invalid", swc.ErrorCode(err))
			}
			for _, w := range append(tt.want, "bad.json") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestSessionGapWarning(t *testing.T) {
	data := `[{"sample_id": "g", "conversation": {"speaker_a": "A", "speaker_b": "B",
	  "session_1_date_time": "1:00 pm on 1 May, 2023", "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}],
	  "session_3_date_time": "1:00 pm on 9 May, 2023", "session_3": [{"speaker": "B", "dia_id": "D3:1", "text": "yo"}]}}]`
	convs, warns, err := Parse([]byte(data), "gap.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(convs[0].Sessions) != 2 || len(warns) != 1 || !strings.Contains(warns[0].Msg, `turn D3:1 is in the 2nd session, shown as "Session 2"`) {
		t.Errorf("warnings %v", warns)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, _, err := LoadFile("testdata/nope.json")
	if swc.ErrorCode(err) != swc.ENOTFOUND || !strings.Contains(err.Error(), "nope.json") {
		t.Fatalf("err = %v", err)
	}
	var e *swc.Error
	if !errors.As(err, &e) {
		t.Fatal("not an *swc.Error")
	}
}

func TestParseDate(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
	}{
		{"1:56 pm on 8 May, 2023", time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)},
		{"1:56 PM on 8 May, 2023", time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)},
		{"12:09 am on 13 September, 2023", time.Date(2023, 9, 13, 0, 9, 0, 0, time.UTC)},
		{"12:30 pm on 1 Jan 2024", time.Date(2024, 1, 1, 12, 30, 0, 0, time.UTC)},
		{"10:37 am on 27 June 2023", time.Date(2023, 6, 27, 10, 37, 0, 0, time.UTC)},
		{"  7:10 p.m. on 3 March,2024 ", time.Date(2024, 3, 3, 19, 10, 0, 0, time.UTC)},
		{"8 May, 2023", time.Date(2023, 5, 8, 0, 0, 0, 0, time.UTC)},
		{"9:00 am on May 8th, 2023", time.Date(2023, 5, 8, 9, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		got, err := ParseDate(tt.in)
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("ParseDate(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "yesterday", "13:00 pm on 1 May, 2023", "1:5 pm on 1 May, 2023", "1:56 pm on 8 Mayo, 2023", "1:56 pm on 32 May, 2023", "1:56 pm on 8 May"} {
		if _, err := ParseDate(bad); err == nil {
			t.Errorf("ParseDate(%q) accepted", bad)
		}
	}
}

// TestLoCoMoCounts checks the counts the paper and the issue give for
// locomo10.json.
func TestLoCoMoCounts(t *testing.T) {
	convs, warns, err := LoadFile(needLoCoMo(t))
	if err != nil {
		t.Fatal(err)
	}
	var sessions, turns, questions, textOnly, textOnly14, textOnly5 int
	for _, c := range convs {
		sessions += len(c.Sessions)
		turns += c.TurnCount()
		for _, q := range c.Questions {
			questions++
			if TextOnly(q) {
				textOnly++
				if q.Category == swc.Adversarial {
					textOnly5++
				} else {
					textOnly14++
				}
			}
		}
	}
	got := []int{len(convs), sessions, turns, questions, textOnly, textOnly14, textOnly5}
	want := []int{10, 272, 5882, 1986, 1935, 1501, 434}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("counts (conversations, sessions, turns, questions, text-only, 1-4, 5) = %v, want %v", got, want)
			break
		}
	}
	// LoCoMo's known evidence typos are repaired; what cannot be is warned.
	for _, w := range warns {
		t.Logf("warning: %s", w)
	}
	if len(warns) > 5 {
		t.Errorf("%d warnings; expected only a few dangling evidence ids", len(warns))
	}
}

func BenchmarkLoadLoCoMo(b *testing.B) {
	path := needLoCoMo(b)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, err := Parse(data, "locomo10.json"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadAndCount loads locomo10.json and counts the cl100k_base
// tokens of every rendered transcript: what swc stats does.
func BenchmarkLoadAndCount(b *testing.B) {
	path := needLoCoMo(b)
	for b.Loop() {
		convs, _, err := LoadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, c := range convs {
			n += tokens.Count(swc.RenderConversation(c))
		}
		if n < 200000 {
			b.Fatalf("only %d tokens", n)
		}
	}
}
