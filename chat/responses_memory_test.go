package chat

import (
	"strings"
	"testing"

	"github.com/swcmem/swc"
)

// TestResponsesMemoryInTask: a tool loop's memory in Responses form goes
// into the task's message item, after the client's text — a string stays
// a string (a blank line between), a list of parts gets an input_text
// part — never as a developer item after the first (strict chat templates
// refuse one); without a task kept whole it is a user message item of its
// own (swc adds no developer item).
func TestResponsesMemoryInTask(t *testing.T) {
	const mem = "Earlier steps of this tool loop, left out: [swc:h0123456789 sh(ls) → ok]"
	call := `{"type":"function_call","call_id":"c1","name":"sh","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"a"}`
	cases := []struct {
		name, task, want string
		inTask           bool
	}{
		{"string content", `{"role":"user","content":"Fix the parser."}`, `{"role":"user","content":"Fix the parser.\n\n` + mem + `"}`, true},
		{"input_text parts", `{"type":"message","role":"user","content":[{"type":"input_text","text":"Fix the parser."}]}`,
			`{"type":"message","role":"user","content":[{"type":"input_text","text":"Fix the parser."},{"type":"input_text","text":"` + mem + `"}]}`, true},
		{"no task kept: a user item", "", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			task := tc.task
			if task == "" {
				task = `{"role":"user","content":"Fix the parser."}`
			}
			body := `{"model":"m","instructions":"Be terse.","input":[` + task + `,` + call + `]}`
			in, err := Parse([]byte(body), Responses)
			if err != nil {
				t.Fatal(err)
			}
			out := Output{Memory: mem, NoCacheMark: true}
			for i, m := range in.Messages {
				if i == 1 && tc.inTask { // the task, then the memory
					out.Messages = append(out.Messages, m)
					out.Source = append(out.Source, i)
					out.Messages = append(out.Messages, swc.Message{Role: swc.RoleSystem, Content: mem})
					out.Source = append(out.Source, -1)
					continue
				}
				if i == 1 { // the task left out: the memory in its place
					out.Messages = append(out.Messages, swc.Message{Role: swc.RoleSystem, Content: mem})
					out.Source = append(out.Source, -1)
					continue
				}
				out.Messages = append(out.Messages, m)
				out.Source = append(out.Source, i)
			}
			got, err := Splice(in, out)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Parse(got, Responses); err != nil {
				t.Fatalf("the body sent does not parse: %v\n%s", err, got)
			}
			s := string(got)
			if tc.inTask {
				if !strings.Contains(s, tc.want) || strings.Contains(s, `"role":"developer"`) {
					t.Errorf("memory not in the task's item:\n%s", s)
				}
				return
			}
			if !strings.Contains(s, `{"type":"message","role":"user","content":"`+mem+`"}`) || strings.Contains(s, `"role":"developer"`) {
				t.Errorf("no user item of the memory's own, or a developer item:\n%s", s)
			}
		})
	}
}

// TestResponsesConversationMemory: a conversation's memory in Responses
// form goes at the end of the leading system or developer message item
// (the instructions field as it was), or, with none, at the start of the
// first item kept when it is a user's message (a string stays a string,
// parts get an input_text part first), else it is a user message item of
// its own, first; never a system or developer item of swc's, which a
// server rendering the request through a strict chat template refuses.
func TestResponsesConversationMemory(t *testing.T) {
	const mem = "Earlier conversation, consolidated:\n\n[Session 1] MEM"
	turns := `{"role":"user","content":"old question"},{"role":"assistant","content":"old answer"},`
	for _, tc := range []struct {
		name, lead, first, want string
		source                  []int // in.Messages indexes kept (0 the instructions), -1 the memory
	}{
		{"after a developer item", `{"role":"developer","content":"Be terse."},`, `{"role":"user","content":"Hi."}`,
			`[{"role":"developer","content":"Be terse.\n\nEarlier conversation, consolidated:\n\n[Session 1] MEM"},{"role":"user","content":"Hi."}]`, []int{0, 1, -1, 4}},
		{"after a system item of parts", `{"type":"message","role":"system","content":[{"type":"input_text","text":"Be terse."}]},`, `{"role":"user","content":"Hi."}`,
			`[{"type":"message","role":"system","content":[{"type":"input_text","text":"Be terse."},{"type":"input_text","text":"Earlier conversation, consolidated:\n\n[Session 1] MEM"}]},{"role":"user","content":"Hi."}]`, []int{0, 1, -1, 4}},
		{"before a user's text", "", `{"role":"user","content":"Hi."}`,
			`[{"role":"user","content":"Earlier conversation, consolidated:\n\n[Session 1] MEM\n\nHi."}]`, []int{0, -1, 3}},
		{"before a user's parts", "", `{"type":"message","role":"user","content":[{"type":"input_text","text":"Hi."}]}`,
			`[{"type":"message","role":"user","content":[{"type":"input_text","text":"Earlier conversation, consolidated:\n\n[Session 1] MEM"},{"type":"input_text","text":"Hi."}]}]`, []int{0, -1, 3}},
		{"before an assistant's message", "", `{"role":"user","content":"Hi."}`,
			`[{"type":"message","role":"user","content":"Earlier conversation, consolidated:\n\n[Session 1] MEM"},{"role":"assistant","content":"old answer"},{"role":"user","content":"Hi."}]`, []int{0, -1, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"model":"m","instructions":"Answer in English.","input":[` + tc.lead + turns + tc.first + `]}`
			in, err := Parse([]byte(body), Responses)
			if err != nil {
				t.Fatal(err)
			}
			out := Output{Memory: mem, NoCacheMark: true}
			for _, src := range tc.source {
				if src < 0 {
					out.Messages = append(out.Messages, swc.Message{Role: swc.RoleSystem, Content: mem})
					out.Source = append(out.Source, -1)
					continue
				}
				out.Messages = append(out.Messages, in.Messages[src])
				out.Source = append(out.Source, src)
			}
			got, err := Splice(in, out)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Parse(got, Responses); err != nil {
				t.Fatalf("the body sent does not parse: %v\n%s", err, got)
			}
			want := `{"model":"m","instructions":"Answer in English.","input":` + tc.want + `}`
			if string(got) != want {
				t.Errorf("body\n %s\nwant\n %s", got, want)
			}
		})
	}
}
