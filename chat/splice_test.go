package chat

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/swcmem/swc"
)

// TestSpliceRewritten: a rewritten message has its content replaced and
// every other byte as it came, in each format; the other messages go out
// byte for byte.
func TestSpliceRewritten(t *testing.T) {
	cases := []struct {
		name   string
		format Format
		body   string
		target string // the message Rewritten names: its content in the input
		want   string // the body sent
	}{
		{
			name:   "openai tool message",
			format: OpenAI,
			body: `{"model":"m","messages":[{"role":"system","content":"sys"},{"role":"user","content":"task"},` +
				`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"sh","arguments":"{}"}}]},` +
				`{"role":"tool",  "tool_call_id":"c1", "content" : "long output <b>&</b>", "x_extra":[1, 2]}]}`,
			target: "long output <b>&</b>",
			want: `{"model":"m","messages":[{"role":"system","content":"sys"},{"role":"user","content":"task"},` +
				`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"sh","arguments":"{}"}}]},` +
				`{"role":"tool",  "tool_call_id":"c1", "content" : "[swc:h0 stub <b>]", "x_extra":[1, 2]}]}`,
		},
		{
			name:   "openai text observation",
			format: OpenAI,
			body: `{"model":"m","messages":[{"role":"user","content":"task"},{"role":"assistant","content":"run"},` +
				`{"role":"user","content":[{"type":"text","text":"<returncode>0</returncode>"}],"name":"env"}]}`,
			target: "<returncode>0</returncode>",
			want: `{"model":"m","messages":[{"role":"user","content":"task"},{"role":"assistant","content":"run"},` +
				`{"role":"user","content":"[swc:h0 stub <b>]","name":"env"}]}`,
		},
		{
			name:   "anthropic tool_result block",
			format: Anthropic,
			body: `{"max_tokens":9,"messages":[{"role":"user","content":"task"},` +
				`{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"sig=="},{"type":"tool_use","id":"t1","name":"sh","input":{}},{"type":"tool_use","id":"t2","name":"sh","input":{}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"first"},` +
				`{"type":"tool_result", "tool_use_id":"t2","is_error":true,"content":[{"type":"text","text":"second"}],"cache_control":{"type":"ephemeral"}}]}],"model":"c"}`,
			target: "[error] second",
			want: `{"max_tokens":9,"model":"c","messages":[{"role":"user","content":"task"},` +
				`{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"sig=="},{"type":"tool_use","id":"t1","name":"sh","input":{}},{"type":"tool_use","id":"t2","name":"sh","input":{}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"first"},` +
				`{"type":"tool_result", "tool_use_id":"t2","is_error":true,"content":"[swc:h0 stub <b>]","cache_control":{"type":"ephemeral"}}]}]}`,
		},
		{
			// Claude Code's Read of a PDF: the result names the file, the
			// document is a block beside it; the stub of what is beside
			// the result leaves the result where it was (TestClaudeCodeReadsPDFs).
			name:   "anthropic blocks beside a tool_result",
			format: Anthropic,
			body: `{"max_tokens":9,"model":"c","messages":[{"role":"user","content":"task"},` +
				`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a.pdf"}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"PDF file read: a.pdf (1.2KB)"},` +
				`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="},"cache_control":{"type":"ephemeral"}}]}]}`,
			target: "[document]",
			want: `{"max_tokens":9,"model":"c","messages":[{"role":"user","content":"task"},` +
				`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a.pdf"}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"PDF file read: a.pdf (1.2KB)"},{"type":"text","text":"[swc:h0 stub <b>]","cache_control":{"type":"ephemeral"}}]}]}`,
		},
		{
			name:   "responses function_call_output",
			format: Responses,
			body: `{"model":"m","input":[{"type":"message","role":"user","content":"task"},` +
				`{"type":"function_call","call_id":"c1","name":"sh","arguments":"{}"},` +
				`{"type":"function_call_output","call_id":"c1","output":"out put"}],"store":false}`,
			target: "out put",
			want: `{"model":"m","input":[{"type":"message","role":"user","content":"task"},` +
				`{"type":"function_call","call_id":"c1","name":"sh","arguments":"{}"},` +
				`{"type":"function_call_output","call_id":"c1","output":"[swc:h0 stub <b>]"}],"store":false}`,
		},
	}
	const stub = "[swc:h0 stub <b>]"
	for _, tc := range cases {
		in, err := Parse([]byte(tc.body), tc.format)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		res := Output{Rewritten: map[int]string{}, NoCacheMark: true}
		for i, m := range in.Messages {
			if m.Content == tc.target {
				res.Rewritten[i] = stub
				m.Content = stub
			}
			res.Messages = append(res.Messages, m)
			res.Source = append(res.Source, i)
		}
		if len(res.Rewritten) != 1 {
			t.Fatalf("%s: %d messages hold %q", tc.name, len(res.Rewritten), tc.target)
		}
		got, err := Splice(in, res)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if string(got) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
		if out, err := Parse(got, tc.format); err != nil || !strings.Contains(string(got), stub) {
			t.Errorf("%s: the body sent does not parse: %v", tc.name, err)
		} else {
			for i, m := range out.Messages {
				if want := res.Messages[i].Content; m.Content != want && !strings.HasSuffix(m.Content, want) {
					t.Errorf("%s: message %d reads %q, want %q", tc.name, i, m.Content, want)
				}
			}
		}
	}
}

func TestValueSpan(t *testing.T) {
	raw := []byte(` {"a": [1, {"b" : "x\"y"}, 3], "c":{}} `)
	cases := []struct {
		path []any
		want string
		ok   bool
	}{
		{[]any{"a", 1, "b"}, `"x\"y"`, true},
		{[]any{"a", 2}, `3`, true},
		{[]any{"c"}, `{}`, true},
		{[]any{"a", 3}, "", false},
		{[]any{"d"}, "", false},
		{[]any{"c", 0}, "", false},
	}
	for _, tc := range cases {
		s, e, err := valueSpan(raw, tc.path...)
		if (err == nil) != tc.ok || tc.ok && string(raw[s:e]) != tc.want {
			t.Errorf("%v: %q, %v", tc.path, raw[s:e], err)
		}
	}
}

// TestOpenAIMemoryInTask: in Chat Completions form no system message
// comes after another message (strict chat templates refuse one), and no
// string content becomes a list of parts (some servers take only
// strings): a memory that follows the task (a tool loop's) goes at the
// end of the task's message (after a blank line, or as a text part of a
// list of parts); one after the instructions (a
// conversation's) or after a task swc rewrote goes at the end of the
// client's system (or developer) message; with none, at the start of the
// first message kept when it is a user's, else a user message of its
// own, the first: swc adds no system message (Gemma 2's template refuses
// any).
func TestOpenAIMemoryInTask(t *testing.T) {
	const exchange = `{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"sh","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":"one"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"b","type":"function","function":{"name":"sh","arguments":"{}"}}]},{"role":"tool","tool_call_id":"b","content":"two"}]}`
	withSystem := func(sys string) func(task string) []byte {
		return func(task string) []byte {
			return []byte(`{"model":"m","messages":[` + sys + `{"role":"user","content":` + task + `},` + exchange)
		}
	}
	body := withSystem(`{"role":"system","content":"sys"},`)
	mem := swc.Message{Role: swc.RoleSystem, Content: "MEM h0123456789"}
	for _, tc := range []struct {
		name, task string
		body       func(string) []byte
		source     []int
		rewritten  map[int]string
		want       string // the messages before the kept exchange
	}{
		{"a string task", `"do it"`, body, []int{0, 1, -1, 4, 5}, nil,
			`[{"role":"system","content":"sys"},{"role":"user","content":"do it\n\nMEM h0123456789"},`},
		{"a task of parts", `[{"type":"text","text":"do it"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]`, body, []int{0, 1, -1, 4, 5}, nil,
			`[{"role":"system","content":"sys"},{"role":"user","content":[{"type":"text","text":"do it"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}},{"type":"text","text":"MEM h0123456789"}]},`},
		{"the task rewritten", `"do it"`, body, []int{0, 1, -1, 4, 5}, map[int]string{1: "short"},
			`[{"role":"system","content":"sys\n\nMEM h0123456789"},{"role":"user","content":"short"},{"role":"assistant"`},
		{"a conversation's memory", `"do it"`, body, []int{0, -1, 4, 5}, nil,
			`[{"role":"system","content":"sys\n\nMEM h0123456789"},{"role":"assistant"`},
		{"a system of parts", `"do it"`, withSystem(`{"role":"system","content":[{"type":"text","text":"sys"}],"name":"x"},`), []int{0, -1, 4, 5}, nil,
			`[{"role":"system","content":[{"type":"text","text":"sys"},{"type":"text","text":"MEM h0123456789"}],"name":"x"},{"role":"assistant"`},
		{"a developer message", `"do it"`, withSystem(`{"role":"developer","content":"dev"},`), []int{0, -1, 4, 5}, nil,
			`[{"role":"developer","content":"dev\n\nMEM h0123456789"},{"role":"assistant"`},
		{"the system rewritten", `"do it"`, body, []int{0, -1, 4, 5}, map[int]string{0: "s"},
			`[{"role":"system","content":"s\n\nMEM h0123456789"},{"role":"assistant"`},
		{"no system", `"do it"`, withSystem(""), []int{-1, 3, 4}, nil,
			`[{"role":"user","content":"MEM h0123456789"},{"role":"assistant"`},
		{"no system, the task rewritten", `"do it"`, withSystem(""), []int{0, -1, 3, 4}, map[int]string{0: "short"},
			`[{"role":"user","content":"MEM h0123456789\n\nshort"},{"role":"assistant"`},
		{"no system, a conversation's memory before a user's message", `"do it"`, withSystem(""), []int{-1, 0, 1, 2}, nil,
			`[{"role":"user","content":"MEM h0123456789\n\ndo it"},{"role":"assistant"`},
		{"no system, before a user's parts", `[{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}},{"type":"text","text":"do it"}]`, withSystem(""), []int{-1, 0, 1, 2}, nil,
			`[{"role":"user","content":[{"type":"text","text":"MEM h0123456789"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}},{"type":"text","text":"do it"}]},{"role":"assistant"`},
		{"no system, before an empty user's text", `""`, withSystem(""), []int{-1, 0, 1, 2}, nil,
			`[{"role":"user","content":"MEM h0123456789"},{"role":"assistant"`},
	} {
		in, err := Parse(tc.body(tc.task), OpenAI)
		if err != nil {
			t.Fatal(err)
		}
		out := Output{Memory: mem.Content, Source: tc.source, Rewritten: tc.rewritten}
		for _, s := range tc.source {
			if s < 0 {
				out.Messages = append(out.Messages, mem)
			} else {
				out.Messages = append(out.Messages, in.Messages[s])
			}
		}
		got, err := Splice(in, out)
		if err != nil {
			t.Fatal(err)
		}
		var b struct {
			Messages json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(got, &b); err != nil || !strings.HasPrefix(string(b.Messages), tc.want) {
			t.Errorf("%s: messages %s\nwant them to start %s", tc.name, b.Messages, tc.want)
		}
		if _, err := Parse(got, OpenAI); err != nil {
			t.Errorf("%s: the body written does not parse: %v", tc.name, err)
		}
		if !strings.Contains(string(tc.body(tc.task)), `"role":"system"`) && strings.Contains(string(b.Messages), `"role":"system"`) {
			t.Errorf("%s: a system message where the client sent none: %s", tc.name, b.Messages)
		}
	}
}

// TestOpenAIRequestMessages: a compression's messages as a Chat
// Completions request holds them: the memory where Splice writes it, so
// no system message follows another message.
func TestOpenAIRequestMessages(t *testing.T) {
	sys := swc.Message{Role: swc.RoleSystem, Content: "sys"}
	mem := swc.Message{Role: swc.RoleSystem, Content: "MEM"}
	task := swc.Message{Role: swc.RoleUser, Content: "do it"}
	call := swc.Message{Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: "a", Name: "sh", Arguments: "{}"}}}
	result := swc.Message{Role: swc.RoleTool, ToolCallID: "a", Content: "out & more"}
	reply := swc.Message{Role: swc.RoleAssistant, Content: "ok"}
	for _, tc := range []struct {
		name   string
		msgs   []swc.Message
		memory int
		want   string
	}{
		{"a conversation after the instructions", []swc.Message{sys, mem, reply}, 1,
			`[{"role":"system","content":"sys\n\nMEM"},{"role":"assistant","content":"ok"}]`},
		{"no instructions", []swc.Message{mem, reply}, 0,
			`[{"role":"user","content":"MEM"},{"role":"assistant","content":"ok"}]`},
		{"no instructions, a user's message first", []swc.Message{mem, task, reply}, 0,
			`[{"role":"user","content":"MEM\n\ndo it"},{"role":"assistant","content":"ok"}]`},
		{"a tool loop's, after its task", []swc.Message{sys, task, mem, call, result}, 2,
			`[{"role":"system","content":"sys"},{"role":"user","content":"do it\n\nMEM"},{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"sh","arguments":"{}"}}]},{"role":"tool","content":"out \u0026 more","tool_call_id":"a"}]`},
		{"no memory", []swc.Message{sys, reply}, -1,
			`[{"role":"system","content":"sys"},{"role":"assistant","content":"ok"}]`},
		{"the memory alone", []swc.Message{mem}, 0,
			`[{"role":"user","content":"MEM"}]`},
	} {
		raw, err := OpenAIRequestMessages(tc.msgs, tc.memory)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got, _ := json.Marshal(raw)
		if string(got) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
