package chat

import (
	"bytes"
	"cmp"
	"reflect"
	"testing"

	"github.com/swcmem/swc"
)

// TestSpliceClippedCalls: an old turn's clipped call arguments
// (Output.Calls) are written in each format where it keeps them — Chat
// Completions' function.arguments and Responses' arguments as JSON
// strings, Anthropic's input and Gemini's args as objects — the call's
// id, name, signature and every other byte of the turn as it came (with
// its text rewritten too when Rewritten says so), every other message
// byte for byte; the body sent parses back to the new arguments.
func TestSpliceClippedCalls(t *testing.T) {
	const short = `{"path":"a.py","content":"def f(): [swc:h0123456789 … 40 more lines, 600 tokens left out]"}`
	cases := []struct {
		name   string
		format Format
		body   string
		at     int    // the index, in the parsed messages, of the turn
		id     string // the call clipped
		text   string // its new text ("" for none)
		args   string // the call's new arguments ("" for short)
		want   string // its source (Raw) sent
	}{
		{
			name:   "openai",
			format: OpenAI,
			body: `{"model":"m","messages":[{"role":"user","content":"task"},` +
				`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"write","arguments":"{\"path\":\"a.py\",\"content\":\"def f():\\n    return 1\\n\"}"}},{"id":"c2","type":"function","function":{"name":"sh","arguments":"{}"}}]},` +
				`{"role":"tool","tool_call_id":"c1","content":"ok"},{"role":"tool","tool_call_id":"c2","content":"c"}]}`,
			at: 1, id: "c1",
			want: `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"write","arguments":"{\"path\":\"a.py\",\"content\":\"def f(): [swc:h0123456789 … 40 more lines, 600 tokens left out]\"}"}},{"id":"c2","type":"function","function":{"name":"sh","arguments":"{}"}}]}`,
		},
		{
			name:   "anthropic, text clipped too, thinking dropped",
			format: Anthropic,
			body: `{"model":"c","max_tokens":9,"messages":[{"role":"user","content":"task"},` +
				`{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"sig=="},{"type":"text","text":"Writing it."},` +
				`{"type":"tool_use","id":"t1","name":"write","input":{"path": "a.py", "content": "def f():\n    return 1\n"},"cache_control":{"type":"ephemeral"}},{"type":"tool_use","id":"t2","name":"sh","input":{}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"},{"type":"tool_result","tool_use_id":"t2","content":"c"}]}]}`,
			at: 1, id: "t1", text: "Writing.",
			want: `{"role":"assistant","content":[{"type":"text","text":"Writing."},` +
				`{"type":"tool_use","id":"t1","name":"write","input":` + short + `,"cache_control":{"type":"ephemeral"}},{"type":"tool_use","id":"t2","name":"sh","input":{}}]}`,
		},
		{
			name:   "responses",
			format: Responses,
			body: `{"model":"m","input":[{"type":"message","role":"user","content":"task"},` +
				`{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"enc=="},` +
				`{"type":"function_call","call_id":"c1","name":"write","arguments":"{\"path\":\"a.py\",\"content\":\"def f():\\n    return 1\\n\"}"},{"type":"function_call","call_id":"c2","name":"sh","arguments":"{}"},` +
				`{"type":"function_call_output","call_id":"c1","output":"ok"},{"type":"function_call_output","call_id":"c2","output":"c"}],"store":false}`,
			at: 1, id: "c1",
			want: `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"enc=="},` +
				`{"type":"function_call","call_id":"c1","name":"write","arguments":"{\"path\":\"a.py\",\"content\":\"def f(): [swc:h0123456789 … 40 more lines, 600 tokens left out]\"}"},{"type":"function_call","call_id":"c2","name":"sh","arguments":"{}"}`,
		},
		{
			name:   "responses custom tool (free text)",
			format: Responses,
			body: `{"model":"m","input":[{"type":"message","role":"user","content":"task"},` +
				`{"type":"custom_tool_call","call_id":"c1","name":"apply_patch","input":"*** Begin Patch\n*** Update File: a.py\n+x\n*** End Patch"},` +
				`{"type":"custom_tool_call_output","call_id":"c1","output":"ok"}]}`,
			at: 1, id: "c1", args: "*** Begin Patch\n[swc:h0123456789 … 3 more lines, 20 tokens left out]",
			want: `{"type":"custom_tool_call","call_id":"c1","name":"apply_patch","input":"*** Begin Patch\n[swc:h0123456789 … 3 more lines, 20 tokens left out]"}`,
		},
		{
			name:   "gemini, synthetic ids, thought part dropped with the text",
			format: Gemini,
			body: `{"contents":[{"role":"user","parts":[{"text":"task"}]},` +
				`{"role":"model","parts":[{"text":"hm","thought":true},{"text":"Writing it."},{"functionCall":{"name":"sh","args":{}}},` +
				`{"functionCall":{"name":"write","args":{"path": "a.py", "content": "def f():\n    return 1\n"}},"thoughtSignature":"c2ln"}]},` +
				`{"role":"user","parts":[{"functionResponse":{"name":"sh","response":{"output":"c"}}},{"functionResponse":{"name":"write","response":{"output":"ok"}}}]}]}`,
			at: 1, id: geminiSyntheticID(1, 3), text: "Writing.",
			want: `{"parts":[{"text":"Writing."},{"functionCall":{"name":"sh","args":{}}},{"functionCall":{"name":"write","args":` + short + `},"thoughtSignature":"c2ln"}],"role":"model"}`,
		},
	}
	for _, tc := range cases {
		in, err := Parse([]byte(tc.body), tc.format)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		m := in.Messages[tc.at]
		if m.Role != swc.RoleAssistant {
			t.Fatalf("%s: message %d is a %s message", tc.name, tc.at, m.Role)
		}
		calls := append([]swc.ToolCall(nil), m.ToolCalls...)
		found := false
		for k := range calls {
			if calls[k].ID == tc.id {
				calls[k].Arguments, found = cmp.Or(tc.args, short), true
			}
		}
		if !found {
			t.Fatalf("%s: no call %s in %+v", tc.name, tc.id, calls)
		}
		out := Output{Calls: map[int][]swc.ToolCall{tc.at: calls}, NoCacheMark: true}
		if tc.text != "" {
			out.Rewritten = map[int]string{tc.at: tc.text}
		}
		for i, m := range in.Messages {
			if i == tc.at {
				m.ToolCalls = calls
				if tc.text != "" {
					m.Content = tc.text
				}
			}
			out.Messages = append(out.Messages, m)
			out.Source = append(out.Source, i)
		}
		back, o := spliceTurn(t, tc.name, in, out, tc.at, tc.want)
		if len(back.Messages) != len(in.Messages) {
			t.Fatalf("%s: %d messages read back, want %d", tc.name, len(back.Messages), len(in.Messages))
		}
		got := back.Messages[tc.at].ToolCalls
		for k := range got {
			if tc.format == Gemini && k < len(calls) { // synthetic ids count the parts sent
				got[k].ID = calls[k].ID
			}
		}
		if !reflect.DeepEqual(got, calls) {
			t.Errorf("%s: calls read back %+v, want %+v", tc.name, got, calls)
		}
		for k := range in.Raw {
			if k != o && !bytes.Equal(back.Raw[k], in.Raw[k]) {
				t.Errorf("%s: source %d sent as\n%s\nwant\n%s", tc.name, k, back.Raw[k], in.Raw[k])
			}
		}
	}
}
