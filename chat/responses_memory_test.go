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
// refuse one); without a task kept whole it is a developer item.
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
		{"no task kept: a developer item", "", "", false},
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
			if !strings.Contains(s, `{"type":"message","role":"developer","content":"`+mem+`"}`) {
				t.Errorf("no developer item:\n%s", s)
			}
		})
	}
}
