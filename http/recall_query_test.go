package http_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/observe"
)

// TestRecallQuery: a query ranks the request's messages as swc-recall
// ranks turns — the reply to a matching question comes back although it
// shares no word with the query, relative dates anchored to the session's
// date, the instructions never — and a long tool output comes back by
// the piece holding the words, headed by its handle and lines.
func TestRecallQuery(t *testing.T) {
	day := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	var out []string
	for i := range 60 {
		out = append(out, fmt.Sprintf("line %d: value_%d := compute(%d)", i, i, i))
	}
	out[41] = "line 41: the zanzibar constant is 4242"
	output := strings.Join(out, "\n")
	msgs := []swc.Message{
		{Role: swc.RoleSystem, Content: "You answer questions about holidays and zanzibar."},
		{Role: swc.RoleUser, Name: "Ana", Content: "Where did you go on holiday?", Time: day},
		{Role: swc.RoleAssistant, Name: "Ben", Content: "We flew to Lisbon yesterday and stayed by the sea.", Time: day.Add(time.Minute)},
		{Role: swc.RoleUser, Name: "Ana", Content: "Nice. I baked bread.", Time: day.Add(2 * time.Minute)},
		{Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: "call_1", Name: "bash", Arguments: `{"command":"cat consts.go"}`}}, Time: day.Add(3 * time.Minute)},
		{Role: swc.RoleTool, ToolCallID: "call_1", Content: output, Time: day.Add(3 * time.Minute)},
	}
	got := swchttp.RecallQuery(msgs, "holiday")
	blocks := strings.Split(got, "\n\n")
	if len(blocks) != 2 || blocks[0] != "[message 1, 1:56 pm on 8 May, 2023]\nAna: Where did you go on holiday?" ||
		!strings.HasPrefix(blocks[1], "[message 2, 1:56 pm on 8 May, 2023]\nBen: We flew to Lisbon yesterday [7 May 2023]") {
		t.Errorf("holiday: want the question, then its reply with yesterday anchored; got\n%s", got)
	}
	got = swchttp.RecallQuery(msgs, "zanzibar constant")
	want := "[swc:" + observe.Handle("call_1", output) + " lines 25-48, 1:56 pm on 8 May, 2023]\n" + strings.Join(out[24:48], "\n")
	if got != want {
		t.Errorf("zanzibar: got\n%s\nwant\n%s", got, want)
	}
	if got := swchttp.RecallQuery(msgs, "quantum"); !strings.HasPrefix(got, "swc_recall: no output matches") {
		t.Errorf("quantum: %q", got)
	}
}
