package gist

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	swc "github.com/swcmem/swc"
	"github.com/swcmem/swc/internal/locomotest"
)

// locomoSessions returns every LoCoMo session rendered as a gister input:
// a date header, then "Speaker: text" lines.
func locomoSessions(t testing.TB) []string {
	data, err := os.ReadFile(locomotest.Need(t))
	if err != nil {
		t.Fatal(err)
	}
	var raw []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range raw {
		for s := 1; ; s++ {
			msg, ok := c.Conversation[fmt.Sprintf("session_%d", s)]
			if !ok {
				break
			}
			var date string
			_ = json.Unmarshal(c.Conversation[fmt.Sprintf("session_%d_date_time", s)], &date)
			var turns []struct{ Speaker, Text string }
			if err := json.Unmarshal(msg, &turns); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "Session %d — %s\n", s, date)
			for _, tu := range turns {
				fmt.Fprintf(&b, "%s: %s\n", tu.Speaker, tu.Text)
			}
			out = append(out, b.String())
		}
	}
	return out
}

// TestLoCoMoExtractive gists every LoCoMo session in both variants and
// checks the invariants: non-empty, bounded, extractive (every sentence is
// from the input), the temporal gist contains the full gist's sentences.
func TestLoCoMoExtractive(t *testing.T) {
	sessions := locomoSessions(t)
	g := NewExtractive()
	ctx := context.Background()
	var elapsed time.Duration
	var inWords, outWords [2]int
	for i, text := range sessions {
		start := time.Now()
		full, err := g.Gist(ctx, swc.GistRequest{Variant: swc.GistFull, Text: text})
		if err != nil {
			t.Fatal(err)
		}
		temp, err := g.Gist(ctx, swc.GistRequest{Variant: swc.GistTemporal, Text: text})
		if err != nil {
			t.Fatal(err)
		}
		elapsed += time.Since(start)
		fs, ts := gistSentences(full), gistSentences(temp)
		if len(fs) == 0 || len(fs) > DefaultMaxSentences {
			t.Errorf("session %d: full gist has %d sentences:\n%s", i, len(fs), full)
		}
		if len(ts) > DefaultMaxSentences+DefaultMaxTemporal {
			t.Errorf("session %d: temporal gist has %d sentences", i, len(ts))
		}
		for _, s := range fs {
			if !strings.Contains(text, s.text) {
				t.Errorf("session %d: gist sentence %q is not in the input", i, s.text)
			}
			if !containsSentence(ts, s) {
				t.Errorf("session %d: full-gist sentence %q missing from the temporal gist", i, s.text)
			}
		}
		if i < 3 && testing.Verbose() {
			t.Logf("session %d full:\n%s\ntemporal:\n%s", i, full, temp)
		}
		inWords[0] += len(strings.Fields(text))
		outWords[0] += len(strings.Fields(full))
		outWords[1] += len(strings.Fields(temp))
	}
	t.Logf("%d sessions, %v for both variants; words in %d, full gists %d (%.0f%%), temporal gists %d (%.0f%%)",
		len(sessions), elapsed, inWords[0], outWords[0], 100*float64(outWords[0])/float64(inWords[0]),
		outWords[1], 100*float64(outWords[1])/float64(inWords[0]))
}

func gistSentences(g string) []sentence {
	s, _ := parse(g)
	return s
}

func containsSentence(ss []sentence, x sentence) bool {
	for _, s := range ss {
		if s.speaker == x.speaker && s.text == x.text {
			return true
		}
	}
	return false
}
