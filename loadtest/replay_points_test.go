package loadtest

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// TestTurnPoints: an agent calls the model after the task and after each
// batch of tool results, and at the end after a last user message;
// RequestPoints only after user messages. ToolNames lists the tools
// called, once each, and ToolDefinitions declares them in each form.
func TestTurnPoints(t *testing.T) {
	call := func(ids ...string) swc.Message {
		m := swc.Message{Role: swc.RoleAssistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, swc.ToolCall{ID: id, Name: "tool_" + id[:1], Arguments: "{}"})
		}
		return m
	}
	msgs := []swc.Message{
		{Role: swc.RoleSystem, Content: "sys"},
		{Role: swc.RoleUser, Content: "task"},
		call("a1", "b1"), // 2
		{Role: swc.RoleTool, ToolCallID: "a1"},
		{Role: swc.RoleTool, ToolCallID: "b1"},
		call("a2"), // 5
		{Role: swc.RoleTool, ToolCallID: "a2"},
		{Role: swc.RoleAssistant, Content: "done"}, // 7
		{Role: swc.RoleUser, Content: "thanks"},
	}
	if got, want := TurnPoints(msgs), []int{2, 5, 7, 9}; !slices.Equal(got, want) {
		t.Errorf("TurnPoints %v, want %v", got, want)
	}
	if got, want := RequestPoints(msgs), []int{2, 9}; !slices.Equal(got, want) {
		t.Errorf("RequestPoints %v, want %v", got, want)
	}
	names := ToolNames(msgs)
	if !slices.Equal(names, []string{"tool_a", "tool_b"}) {
		t.Errorf("ToolNames %v", names)
	}
	for _, tt := range []struct {
		format chat.Format
		want   string
	}{
		{chat.OpenAI, `[{"function":{"description":"the agent's tool_a tool","name":"tool_a","parameters":{"type":"object"}},"type":"function"},{"function":{"description":"the agent's tool_b tool","name":"tool_b","parameters":{"type":"object"}},"type":"function"}]`},
		{chat.Anthropic, `[{"description":"the agent's tool_a tool","input_schema":{"type":"object"},"name":"tool_a"},{"description":"the agent's tool_b tool","input_schema":{"type":"object"},"name":"tool_b"}]`},
	} {
		got := ToolDefinitions(tt.format, names)
		if string(got) != tt.want || !json.Valid(got) {
			t.Errorf("%s: %s", tt.format, got)
		}
	}
}
