package mention

import (
	"encoding/json"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc/internal/locomotest"
)

// locomoPath is where the LoCoMo file lives relative to this package.
var locomoPath = locomotest.Path()

type ltTurn struct{ id, speaker, text string }

type ltSession struct {
	date  time.Time
	turns []ltTurn
}

type ltConv struct {
	id       string
	speakers []string
	sessions []ltSession
}

// loadLocomoTest reads locomo10.json with encoding/json (no dependency on
// package locomo); it skips the test when the file is absent.
func loadLocomoTest(tb testing.TB) []ltConv {
	tb.Helper()
	b, err := os.ReadFile(locomotest.Need(tb))
	if err != nil {
		tb.Fatal(err)
	}
	var raw []struct {
		SampleID     string                     `json:"sample_id"`
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		tb.Fatal(err)
	}
	var out []ltConv
	for _, r := range raw {
		c := ltConv{id: r.SampleID}
		var a, bs string
		json.Unmarshal(r.Conversation["speaker_a"], &a)
		json.Unmarshal(r.Conversation["speaker_b"], &bs)
		c.speakers = []string{a, bs}
		var idx []int
		for k := range r.Conversation {
			if strings.HasPrefix(k, "session_") && !strings.HasSuffix(k, "date_time") {
				n, err := strconv.Atoi(strings.TrimPrefix(k, "session_"))
				if err == nil {
					idx = append(idx, n)
				}
			}
		}
		sort.Ints(idx)
		for _, n := range idx {
			var ds string
			json.Unmarshal(r.Conversation["session_"+strconv.Itoa(n)+"_date_time"], &ds)
			d, _ := time.Parse("3:04 pm on 2 January, 2006", ds)
			var turns []struct {
				Speaker string `json:"speaker"`
				DiaID   string `json:"dia_id"`
				Text    string `json:"text"`
			}
			json.Unmarshal(r.Conversation["session_"+strconv.Itoa(n)], &turns)
			s := ltSession{date: d}
			for _, t := range turns {
				s.turns = append(s.turns, ltTurn{t.DiaID, t.Speaker, t.Text})
			}
			c.sessions = append(c.sessions, s)
		}
		out = append(out, c)
	}
	return out
}
