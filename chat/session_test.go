package chat

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
)

func at(h, m int) time.Time { return time.Date(2024, 5, 7, h, m, 0, 0, time.UTC) }

func TestSessionize(t *testing.T) {
	call := swc.Message{Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: "c1", Name: "weather", Arguments: `{"city":"Berlin"}`}}, Time: at(9, 1)}
	result := swc.Message{Role: swc.RoleTool, ToolCallID: "c1", Content: "12°C", Time: at(10, 0)} // an hour later: still one unit
	timed := []swc.Message{
		{Role: swc.RoleUser, Content: "weather?", Time: at(9, 0)},
		call, result,
		{Role: swc.RoleUser, Content: "thanks", Time: at(10, 1)},
		{Role: swc.RoleUser, Content: "back again", Time: at(12, 0)},
	}
	g := Sessionize(timed, SessionOptions{})
	if g.Rule != "gaps of 30m0s" || len(g.Conversation.Sessions) != 2 || len(g.Warnings) != 0 {
		t.Fatalf("rule %q, %d sessions, warnings %v", g.Rule, len(g.Conversation.Sessions), g.Warnings)
	}
	s0 := g.Conversation.Sessions[0]
	if len(s0.Turns) != 3 || s0.Turns[1].Text != `[tool weather({"city":"Berlin"}) → 12°C]` || s0.Turns[1].Speaker != "Assistant" {
		t.Errorf("session 0 turns: %+v", s0.Turns)
	}
	if s0.DateText != "9:00 am on 7 May, 2024" || g.Conversation.Sessions[1].DateText != "12:00 pm on 7 May, 2024" {
		t.Errorf("dates %q, %q", s0.DateText, g.Conversation.Sessions[1].DateText)
	}
	if g.Spans[0] != (Span{0, 4}) || g.Spans[1] != (Span{4, 5}) {
		t.Errorf("spans %v", g.Spans)
	}

	// Explicit ids win over gaps.
	ids := []swc.Message{{Role: swc.RoleUser, Content: "a", Session: "x", Time: at(9, 0)}, {Role: swc.RoleUser, Content: "b", Time: at(15, 0)}, {Role: swc.RoleUser, Content: "c", Session: "y", Time: at(15, 1)}}
	if g := Sessionize(ids, SessionOptions{}); g.Rule != "session ids" || len(g.Spans) != 2 || g.Spans[0] != (Span{0, 2}) {
		t.Errorf("explicit: %q %v", g.Rule, g.Spans)
	}

	// No timestamps: every N messages, one warning, units kept whole.
	var plain []swc.Message
	for i := range 7 {
		plain = append(plain, swc.Message{Role: swc.RoleUser, Content: strings.Repeat("x", i+1)})
	}
	plain = append(plain[:2], append([]swc.Message{{Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: "c", Name: "f"}}}, {Role: swc.RoleTool, ToolCallID: "c", Content: "r"}}, plain[2:]...)...)
	g = Sessionize(plain, SessionOptions{Turns: 3})
	if len(g.Warnings) != 1 || !strings.Contains(g.Warnings[0], "relative dates cannot be anchored") {
		t.Errorf("warnings %v", g.Warnings)
	}
	if g.Spans[0] != (Span{0, 4}) || g.Conversation.Sessions[0].DateText != "date unknown" {
		t.Errorf("a unit straddling the session boundary must stay whole: %v", g.Spans)
	}
	if len(g.Spans) != 3 {
		t.Errorf("9 messages every 3 (unit of 2 whole): %v", g.Spans)
	}
}

// TestOutputWire: messages written for OpenAI keep tool pairing; written
// for Anthropic they alternate, start with the user and put each result in
// a tool_result block right after its tool_use.
func TestOutputWire(t *testing.T) {
	in, err := Parse([]byte(openaiArray), OpenAI)
	if err != nil {
		t.Fatal(err)
	}
	oa := OpenAIMessages(in.Messages)
	b, _ := json.Marshal(oa)
	back, err := Parse(b, OpenAI)
	if err != nil {
		t.Fatalf("OpenAI output does not parse back: %v\n%s", err, b)
	}
	if len(back.Messages) != len(in.Messages) || oa[2].Content != nil || oa[1].Name != "maya" {
		t.Errorf("round trip: %s", b)
	}
	req := ToAnthropic(in.Messages)
	if req.System != "You are helpful." {
		t.Errorf("system %q", req.System)
	}
	if err := CheckAnthropic(req); err != nil {
		t.Error(err)
	}
	b, _ = json.Marshal(req)
	if _, err := Parse(b, Anthropic); err != nil {
		t.Errorf("Anthropic output does not parse back: %v\n%s", err, b)
	}
}
