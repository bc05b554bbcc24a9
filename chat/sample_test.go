package chat

import (
	"strings"
	"testing"

	"github.com/swcmem/swc"
)

func TestSample(t *testing.T) {
	msgs, err := Sample()
	if err != nil {
		t.Fatal(err)
	}
	var calls, results, timed int
	for _, m := range msgs {
		calls += len(m.ToolCalls)
		if m.Role == swc.RoleTool {
			results++
		}
		if !m.Time.IsZero() {
			timed++
		}
	}
	if msgs[0].Role != swc.RoleSystem || calls < 10 || calls != results || timed != len(msgs)-1 {
		t.Errorf("sample: first %s, %d calls, %d results, %d of %d timed", msgs[0].Role, calls, results, timed, len(msgs))
	}
	g := Sessionize(msgs[1:], SessionOptions{})
	if len(g.Conversation.Sessions) != 9 || len(g.Warnings) != 0 {
		t.Errorf("%d sessions (%s), warnings %v", len(g.Conversation.Sessions), g.Rule, g.Warnings)
	}
	if !strings.Contains(g.Conversation.Sessions[1].Turns[0].Text, "yesterday") || g.Conversation.Sessions[1].DateText != "6:40 pm on 5 March, 2025" {
		t.Errorf("session 2 should open with a relative date on 5 March: %q %q", g.Conversation.Sessions[1].DateText, g.Conversation.Sessions[1].Turns[0].Text)
	}
}
