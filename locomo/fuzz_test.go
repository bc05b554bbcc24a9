package locomo

import (
	"os"
	"testing"

	"github.com/swcmem/swc"
)

// FuzzParse checks that no input makes the loader panic, and that whatever
// it accepts is internally consistent.
func FuzzParse(f *testing.F) {
	if data, err := os.ReadFile("testdata/mini.json"); err == nil {
		f.Add(data)
		f.Add(data[:len(data)/3])
	}
	for _, s := range []string{
		``, `[]`, `{}`, `[{}]`, `[null]`, `[{"conversation": null}]`,
		`[{"sample_id": 7, "conversation": {"speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1:00 am on 1 Jan, 2020", "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]}, "qa": [{"question": "q", "answer": 1.5e3, "evidence": ["D:1:01"], "category": 2}]}]`,
		`[{"conversation": {"speaker_a": "A", "speaker_b": "B", "session_0_date_time": "x", "session_0": []}}]`,
		`[{"conversation": {"speaker_a": "A", "speaker_b": "B", "session_1_date_time": "99:99 pm on 1 Jan, 2020", "session_1": [{}]}}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		convs, _, err := Parse(data, "fuzz.json")
		if err != nil {
			if swc.ErrorCode(err) != swc.EINVALID {
				t.Fatalf("error without the invalid code: %v", err)
			}
			return
		}
		for _, c := range convs {
			if len(c.Sessions) == 0 {
				t.Fatal("accepted a conversation without sessions")
			}
			for i, s := range c.Sessions {
				if s.Index != i || len(s.Turns) == 0 || s.Start.IsZero() {
					t.Fatalf("bad session %d: %+v", i, s)
				}
			}
			for _, q := range c.Questions {
				if !q.Category.Valid() {
					t.Fatalf("accepted category %d", q.Category)
				}
				for _, e := range q.Evidence {
					if _, ok := c.Turn(e); !ok {
						t.Fatalf("kept dangling evidence %q", e)
					}
				}
			}
		}
	})
}
