package chat

import (
	"slices"
	"strings"
	"testing"

	"github.com/swcmem/swc"
)

func TestAnswered(t *testing.T) {
	u := func(s string) swc.Message { return swc.Message{Role: swc.RoleUser, Content: s} }
	call := func(text string, ids ...string) swc.Message {
		m := swc.Message{Role: swc.RoleAssistant, Content: text}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, swc.ToolCall{ID: id, Name: "f", Arguments: "{}"})
		}
		return m
	}
	res := func(id string) swc.Message { return swc.Message{Role: swc.RoleTool, ToolCallID: id, Content: "r" + id} }
	// show writes messages as "u:q a:text[ids] t:id".
	show := func(msgs []swc.Message) string {
		var parts []string
		for _, m := range msgs {
			s := string(m.Role[:1]) + ":" + m.Content
			if len(m.ToolCalls) > 0 {
				var ids []string
				for _, tc := range m.ToolCalls {
					ids = append(ids, tc.ID)
				}
				s += "[" + strings.Join(ids, ",") + "]"
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, " ")
	}
	for _, tc := range []struct {
		name string
		in   []swc.Message
		want string
	}{
		{"all answered", []swc.Message{u("q"), call("", "a"), res("a"), u("w")}, "u:q a:[a] t:ra u:w"},
		{"a trailing call", []swc.Message{u("q"), call("", "a")}, "u:q"},
		{"a trailing call half answered", []swc.Message{u("q"), call("let me see", "a", "b"), res("a")}, "u:q"},
		{"trailing, answered", []swc.Message{u("q"), call("", "a", "b"), res("b"), res("a")}, "u:q a:[a,b] t:rb t:ra"},
		{"a call never answered, text kept", []swc.Message{u("q"), call("hm", "a", "b"), res("a"), u("w")}, "u:q a:hm[a] t:ra u:w"},
		{"a call never answered, nothing else", []swc.Message{u("q"), call("", "a"), u("w")}, "u:q u:w"},
		{"call_0 every turn", []swc.Message{u("q"), call("", "call_0"), res("call_0"), u("w"), call("", "call_0")}, "u:q a:[call_0] t:rcall_0 u:w"},
		{"an orphan result", []swc.Message{u("q"), res("x"), u("w")}, "u:q u:w"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.in)
			got := Answered(tc.in)
			if s := show(got); s != tc.want {
				t.Errorf("got %s, want %s", s, tc.want)
			}
			if show(in) != show(tc.in) || len(in[1].ToolCalls) != len(tc.in[1].ToolCalls) {
				t.Errorf("input modified")
			}
			if err := CheckOpenAI(OpenAIMessages(got)); err != nil {
				t.Errorf("openai rejects it: %v", err)
			}
		})
	}
}
