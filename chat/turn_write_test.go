package chat

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/swcmem/swc"
)

// TestSpliceRewrittenTurn: a rewritten assistant turn (memory's
// TurnTokens) is written in each format with the new text as its whole
// text, its tool calls and every block or part that is not text as they
// came, and every other message byte for byte; the body sent parses back
// to the new text.
func TestSpliceRewrittenTurn(t *testing.T) {
	cases := []struct {
		name   string
		format Format
		body   string
		at     int    // the index, in the parsed messages, of the turn rewritten
		want   string // its source (Raw) sent
		text   string // its Content read back ("short" when empty)
	}{
		{
			name:   "openai content string",
			format: OpenAI,
			body: `{"model":"m","messages":[{"role":"user","content":"task"},` +
				`{"role":"assistant","content":"First I look. Then I edit.","tool_calls":[{"id":"c1","type":"function","function":{"name":"sh","arguments":"{\"cmd\": \"ls\"}"}},{"id":"c2","type":"function","function":{"name":"sh","arguments":"{}"}}]},` +
				`{"role":"tool","tool_call_id":"c1","content":"a b"},{"role":"tool","tool_call_id":"c2","content":"c"}]}`,
			at:   1,
			want: `{"role":"assistant","content":"short","tool_calls":[{"id":"c1","type":"function","function":{"name":"sh","arguments":"{\"cmd\": \"ls\"}"}},{"id":"c2","type":"function","function":{"name":"sh","arguments":"{}"}}]}`,
		},
		{
			// A string is a valid content for an assistant message.
			name:   "openai content text parts",
			format: OpenAI,
			body: `{"model":"m","messages":[{"role":"user","content":"task"},` +
				`{"role":"assistant","content":[{"type":"text","text":"First I look."},{"type":"text","text":"Then I edit."}],"tool_calls":[{"id":"c1","type":"function","function":{"name":"sh","arguments":"{}"}}]},` +
				`{"role":"tool","tool_call_id":"c1","content":"a b"}]}`,
			at:   1,
			want: `{"role":"assistant","content":"short","tool_calls":[{"id":"c1","type":"function","function":{"name":"sh","arguments":"{}"}}]}`,
		},
		{
			name:   "anthropic text blocks and tool_use",
			format: Anthropic,
			body: `{"model":"c","max_tokens":9,"messages":[{"role":"user","content":"task"},` +
				`{"role":"assistant","content":[{"type":"text","text":"First I look.","cache_control":{"type":"ephemeral"}},{"type":"text","text":"Then I edit."},` +
				`{"type":"tool_use","id":"t1","name":"sh","input":{"cmd": "ls"}},{"type":"tool_use","id":"t2","name":"sh","input":{}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a b"},{"type":"tool_result","tool_use_id":"t2","content":"c"}]}]}`,
			at: 1,
			want: `{"role":"assistant","content":[{"type":"text","text":"short","cache_control":{"type":"ephemeral"}},` +
				`{"type":"tool_use","id":"t1","name":"sh","input":{"cmd": "ls"}},{"type":"tool_use","id":"t2","name":"sh","input":{}}]}`,
		},
		{
			name:   "anthropic tool_use before its text",
			format: Anthropic,
			body: `{"model":"c","max_tokens":9,"messages":[{"role":"user","content":"task"},` +
				`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"sh","input":{}},{"type":"text","text":"First I look."},{"type":"text","text":"Then I edit."}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a b"}]}]}`,
			at:   1,
			want: `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"sh","input":{}},{"type":"text","text":"short"}]}`,
		},
		{
			name:   "anthropic content string",
			format: Anthropic,
			body: `{"model":"c","max_tokens":9,"messages":[{"role":"user","content":"task"},` +
				`{"role":"assistant","content":"First I look. Then I edit."},{"role":"user","content":"go on"}]}`,
			at:   1,
			want: `{"role":"assistant","content":"short"}`,
		},
		{
			// Memory never rewrites a turn whose text holds a placeholder;
			// were it to, the thinking block would stay, with its signature.
			name:   "anthropic thinking block goes with its placeholder",
			format: Anthropic,
			body: `{"model":"c","max_tokens":9,"messages":[{"role":"user","content":"task"},` +
				`{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"sig=="},{"type":"text","text":"First I look."},{"type":"tool_use","id":"t1","name":"sh","input":{}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a b"}]}]}`,
			at:   1,
			want: `{"role":"assistant","content":[{"type":"text","text":"short"},{"type":"tool_use","id":"t1","name":"sh","input":{}}]}`,
		},
		{
			name:   "responses output_text parts after reasoning",
			format: Responses,
			body: `{"model":"m","input":[{"type":"message","role":"user","content":"task"},` +
				`{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"enc=="},` +
				`{"type":"message","role":"assistant","id":"msg_1","status":"completed","content":[{"type":"output_text","text":"First I look.","annotations":[{"type":"url_citation","start_index":0,"end_index":5,"url":"u","title":"t"}],"logprobs":[]},{"type":"output_text","text":"Then I edit.","annotations":[]}]},` +
				`{"type":"function_call","call_id":"c1","name":"sh","arguments":"{\"cmd\": \"ls\"}"},{"type":"function_call","call_id":"c2","name":"sh","arguments":"{}"},` +
				`{"type":"function_call_output","call_id":"c1","output":"a b"},{"type":"function_call_output","call_id":"c2","output":"c"}],"store":false}`,
			at: 1,
			want: `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"enc=="},` +
				`{"type":"message","role":"assistant","id":"msg_1","status":"completed","content":[{"type":"output_text","text":"short","annotations":[],"logprobs":[]}]},` +
				`{"type":"function_call","call_id":"c1","name":"sh","arguments":"{\"cmd\": \"ls\"}"},{"type":"function_call","call_id":"c2","name":"sh","arguments":"{}"}`,
		},
		{
			name:   "responses output_text part without annotations",
			format: Responses,
			body: `{"model":"m","input":[{"role":"user","content":"task"},` +
				`{"role":"assistant","content":[{"type":"output_text","text":"First I look."}]},{"role":"user","content":"go on"}]}`,
			at:   1,
			want: `{"role":"assistant","content":[{"annotations":[],"type":"output_text","text":"short"}]}`,
		},
		{
			name:   "responses content string",
			format: Responses,
			body: `{"model":"m","input":[{"role":"user","content":"task"},` +
				`{"type":"message","role":"assistant","content":"First I look."},{"role":"user","content":"go on"}]}`,
			at:   1,
			want: `{"type":"message","role":"assistant","content":"short"}`,
		},
		{
			name:   "gemini text parts and function calls",
			format: Gemini,
			body: `{"contents":[{"role":"user","parts":[{"text":"task"}]},` +
				`{"role":"model","parts":[{"text":"First I look.","thoughtSignature":"c2ln"},{"text":"Then I edit."},` +
				`{"functionCall":{"name":"sh","args":{"cmd": "ls"},"id":"f1"},"thoughtSignature":"ZmM="},{"functionCall":{"name":"sh","args":{},"id":"f2"}}]},` +
				`{"role":"user","parts":[{"functionResponse":{"name":"sh","id":"f1","response":{"output":"a b"}}},{"functionResponse":{"name":"sh","id":"f2","response":{"output":"c"}}}]}]}`,
			at: 1,
			want: `{"parts":[{"text":"short"},{"functionCall":{"name":"sh","args":{"cmd": "ls"},"id":"f1"},"thoughtSignature":"ZmM="},{"functionCall":{"name":"sh","args":{},"id":"f2"}}],` +
				`"role":"model"}`,
		},
		{
			name:   "gemini thought part without a signature goes",
			format: Gemini,
			body: `{"contents":[{"role":"user","parts":[{"text":"task"}]},` +
				`{"role":"model","parts":[{"text":"hm","thought":true},{"text":"First I look."},{"functionCall":{"name":"sh","args":{},"id":"f1"},"thoughtSignature":"c2ln"}]},` +
				`{"role":"user","parts":[{"functionResponse":{"name":"sh","id":"f1","response":{"output":"a b"}}}]}]}`,
			at:   1,
			want: `{"parts":[{"text":"short"},{"functionCall":{"name":"sh","args":{},"id":"f1"},"thoughtSignature":"c2ln"}],"role":"model"}`,
		},
		{
			name:   "gemini thought part stays",
			format: Gemini,
			body: `{"contents":[{"role":"user","parts":[{"text":"task"}]},` +
				`{"role":"model","parts":[{"text":"hm","thought":true,"thoughtSignature":"c2ln"},{"functionCall":{"name":"sh","args":{},"id":"f1"}},{"text":"First I look."},{"text":"Then I edit."}]},` +
				`{"role":"user","parts":[{"functionResponse":{"name":"sh","id":"f1","response":{"output":"a b"}}}]}]}`,
			at:   1,
			want: `{"parts":[{"text":"hm","thought":true,"thoughtSignature":"c2ln"},{"functionCall":{"name":"sh","args":{},"id":"f1"}},{"text":"short"}],"role":"model"}`,
			text: "[thought]\nshort",
		},
	}
	for _, tc := range cases {
		in, err := Parse([]byte(tc.body), tc.format)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if in.Messages[tc.at].Role != swc.RoleAssistant {
			t.Fatalf("%s: message %d is a %s message", tc.name, tc.at, in.Messages[tc.at].Role)
		}
		out := Output{Rewritten: map[int]string{tc.at: "short"}, NoCacheMark: true}
		for i, m := range in.Messages {
			if i == tc.at {
				m.Content = "short"
			}
			out.Messages = append(out.Messages, m)
			out.Source = append(out.Source, i)
		}
		back, o := spliceTurn(t, tc.name, in, out, tc.at, tc.want)
		if len(back.Messages) != len(in.Messages) || len(back.Raw) != len(in.Raw) {
			t.Fatalf("%s: %d messages (%d sources) read back, want %d (%d)", tc.name, len(back.Messages), len(back.Raw), len(in.Messages), len(in.Raw))
		}
		want := tc.text
		if want == "" {
			want = "short"
		}
		for i, m := range back.Messages {
			w := in.Messages[i]
			if i == tc.at {
				w.Content = want
			}
			if m.Content != w.Content || m.Role != w.Role || m.ToolCallID != w.ToolCallID {
				t.Errorf("%s: message %d reads %s %q, want %s %q", tc.name, i, m.Role, m.Content, w.Role, w.Content)
			}
			if !reflect.DeepEqual(m.ToolCalls, w.ToolCalls) {
				t.Errorf("%s: message %d's calls are %+v, want %+v", tc.name, i, m.ToolCalls, w.ToolCalls)
			}
		}
		for k := range in.Raw {
			if k != o && !bytes.Equal(back.Raw[k], in.Raw[k]) {
				t.Errorf("%s: source %d sent as\n%s\nwant\n%s", tc.name, k, back.Raw[k], in.Raw[k])
			}
		}
	}
}

// spliceTurn splices out into in, reads the body sent back and checks
// that message at's source went out as want; it returns what it read and
// that source.
func spliceTurn(t *testing.T, name string, in *Input, out Output, at int, want string) (*Input, int) {
	t.Helper()
	body, err := Splice(in, out)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	back, err := Parse(body, in.Format)
	if err != nil {
		t.Fatalf("%s: the body sent does not parse: %v\n%s", name, err, body)
	}
	o := in.Origin[at]
	if got := string(back.Raw[o]); got != want {
		t.Errorf("%s: the turn sent\n got %s\nwant %s", name, got, want)
	}
	return back, o
}

// TestRewriteItemsCallText: the text of a Responses assistant message made
// of a call item (a hosted call) has no place to go: the item is sent as
// it came.
func TestRewriteItemsCallText(t *testing.T) {
	body := `{"model":"m","input":[{"role":"user","content":"task"},` +
		`{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"q"}},{"role":"user","content":"go on"}]}`
	in, err := Parse([]byte(body), Responses)
	if err != nil {
		t.Fatal(err)
	}
	if in.Messages[1].Role != swc.RoleAssistant {
		t.Fatalf("message 1 is a %s message", in.Messages[1].Role)
	}
	out := Output{Rewritten: map[int]string{1: "short"}, Messages: in.Messages, Source: []int{0, 1, 2}}
	got, err := Splice(in, out)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != body {
		t.Errorf("got  %s\nwant %s", got, body)
	}
}

// TestAnthropicTurnReasoning: a rewritten Anthropic turn keeps its
// thinking and redacted_thinking blocks, in place, only when its new text
// still holds their placeholder; without it they go, and a turn of
// reasoning and calls alone keeps its calls.
func TestAnthropicTurnReasoning(t *testing.T) {
	list := `[{"type":"thinking","thinking":"hm","signature":"sig=="},{"type":"redacted_thinking","data":"xx"},{"type":"text","text":"First."},{"type":"tool_use","id":"t1","name":"sh","input":{}}]`
	cases := []struct{ name, text, want string }{
		{"placeholder kept: blocks kept", "[thinking]\nshort", `[{"type":"thinking","thinking":"hm","signature":"sig=="},{"type":"redacted_thinking","data":"xx"},{"type":"text","text":"[thinking]\nshort"},{"type":"tool_use","id":"t1","name":"sh","input":{}}]`},
		{"no placeholder: blocks dropped", "short", `[{"type":"text","text":"short"},{"type":"tool_use","id":"t1","name":"sh","input":{}}]`},
		{"no text: the calls alone", "", `[{"type":"tool_use","id":"t1","name":"sh","input":{}}]`},
	}
	for _, tc := range cases {
		got, err := anthropicTurn([]byte(list), tc.text)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if string(got) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
