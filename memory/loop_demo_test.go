package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/swcmem/swc"
)

// sweAgentShaped is a text-acting loop shaped like an SWE-agent run
// (hand-written): instructions, a long demonstration as the first user
// message, the task (ending with the prompt SWE-agent appends to every
// output), then steps whose observations are user messages ending with
// that prompt.
func sweAgentShaped(steps int) []swc.Message {
	prompt := "\n(Open file: /repo/src/main/java/org/acme/Codec.java)\n(Current directory: /repo)\nbash-$"
	var demo strings.Builder
	demo.WriteString("Here is a demonstration of how to correctly accomplish this task.\n--- DEMONSTRATION ---\n")
	for i := range 40 {
		fmt.Fprintf(&demo, "%d:    def _serialize(self, value, attr, obj, **kwargs): # demo line %d of fields.py\n", i+400, i)
	}
	demo.WriteString("--- END OF DEMONSTRATION ---\n")
	msgs := []swc.Message{
		{Role: swc.RoleSystem, Content: "SETTING: You are an autonomous programmer working in a command line with a special interface."},
		{Role: swc.RoleUser, Content: demo.String()},
		{Role: swc.RoleUser, Content: "We're currently solving the following issue within our repository.\nISSUE:\nCodec#decodeLocalTime drops the nanoseconds of a LocalTime.\n" + prompt},
	}
	for i := range steps {
		var out strings.Builder
		fmt.Fprintf(&out, "[File: /repo/src/main/java/org/acme/Codec.java (900 lines total)]\n(%d more lines above)\n", i*50)
		for j := range 50 {
			fmt.Fprintf(&out, "%d:        value = decodeField%d(reader, fieldType%d);\n", i*50+j+1, i*50+j, j)
		}
		msgs = append(msgs,
			swc.Message{Role: swc.RoleAssistant, Content: fmt.Sprintf("DISCUSSION\nLet's read on.\n```\ngoto %d\n```", i*50+1)},
			swc.Message{Role: swc.RoleUser, Content: out.String() + prompt})
	}
	return msgs
}

// TestLoopDemonstrationThenTask: the user messages before the agent's
// first turn are the head, the task the last of them (SWE-agent's task
// follows its demonstration), not a person's later text; so a loop whose
// head leaves little room stays a loop (over budget, the task kept) and
// is not consolidated as a conversation, which dropped the task and the
// demonstration both.
func TestLoopDemonstrationThenTask(t *testing.T) {
	msgs := sweAgentShaped(12)
	l := asLoop(msgs)
	if l == nil {
		t.Fatal("not a tool loop")
	}
	if !slices.Equal(l.head, []int{1, 2}) || l.users != 0 {
		t.Errorf("head %v, %d user texts; want the demonstration and the task, none", l.head, l.users)
	}
	o := DefaultOptions()
	c := mustNew(t, o)
	head := c.CountMessages(msgs[:3])
	o.Budget = head + 300 // the head and a little: the last exchange does not fit
	c = mustNew(t, o)
	res, err := c.Compress(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Memory, LoopPreamble) {
		t.Errorf("consolidated as a conversation: memory %.80q", res.Memory)
	}
	for _, i := range []int{1, 2} {
		if !slices.Contains(res.Source, i) {
			t.Errorf("message %d (the demonstration, the task) left out: sources %v", i, res.Source)
		}
	}
	checkLoop(t, "demonstration then task", c, msgs, res)
}

// TestLoopMemoryAfterTask: when a loop's oldest exchanges are dropped,
// the memory message listing them comes right after the task (the
// demonstration and the task before it stay a cached prefix as the list
// grows), where roles alternate too (AlignUser: the codec writes it into
// the task's message or the system field).
func TestLoopMemoryAfterTask(t *testing.T) {
	msgs := sweAgentShaped(40)
	for _, align := range []bool{false, true} {
		o := DefaultOptions()
		o.Budget = 4000
		c := mustNew(t, o)
		if align {
			c = c.WithAlignUser()
		}
		res, err := c.Compress(context.Background(), msgs)
		if err != nil {
			t.Fatal(err)
		}
		m := slices.Index(res.Source, -1)
		if m < 0 || res.Memory == "" {
			t.Fatalf("align %v: no memory message: sources %v", align, res.Source)
		}
		want := []int{0, 1, 2, -1}
		if got := res.Source[:4]; !slices.Equal(got, want) {
			t.Errorf("align %v: the request opens with sources %v, want %v", align, got, want)
		}
		if res.Messages[m].Role != swc.RoleSystem || !strings.HasPrefix(res.Messages[m].Content, LoopPreamble) {
			t.Errorf("align %v: message %d is %s %.60q, want the loop's memory", align, m, res.Messages[m].Role, res.Messages[m].Content)
		}
	}
}
