package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// sameLoop is a tool loop that reads src/parser.c three times: the second
// read gives the output of the first byte for byte, the third (after an
// edit) another. Every other call lists a directory of its own.
func sameLoop() []swc.Message {
	view := func(changed bool) string {
		var b strings.Builder
		for k := 1; k <= 200; k++ {
			body := fmt.Sprintf("return parse_%d(node_%d, depth + %d);", k, k*7, k%5)
			if changed && k == 120 {
				body = "return parse_fixed(node_840, depth);"
			}
			fmt.Fprintf(&b, "%6d\tstatic int rule_%d(ast_t* node_%d) { %s }\n", k, k, k, body)
		}
		return b.String()
	}
	msgs := []swc.Message{
		{Role: swc.RoleSystem, Content: "You are a coding agent. Use the tools to inspect and edit the repository."},
		{Role: swc.RoleUser, Content: "Fix the crash in src/parser.c when a pattern nests a tuple."},
	}
	for s := range 12 {
		args := fmt.Sprintf(`{"command":"ls -l src/dir_%d"}`, s)
		out := strings.Repeat(fmt.Sprintf("-rw-r--r-- 1 root root %d Apr 30 08:32 file_%d_%%d.c\n", 1000+s, s), 40)
		out = fmt.Sprintf(out, sequence(40)...)
		switch s {
		case 1, 4:
			args, out = `{"command":"cat -n src/parser.c"}`, view(false)
		case 7:
			args, out = `{"command":"cat -n src/parser.c"}`, view(true)
		}
		id := fmt.Sprintf("call_%d", s)
		msgs = append(msgs,
			swc.Message{Role: swc.RoleAssistant, Content: fmt.Sprintf("Step %d.", s), ToolCalls: []swc.ToolCall{{ID: id, Name: "bash", Arguments: args}}},
			swc.Message{Role: swc.RoleTool, ToolCallID: id, Content: out})
	}
	return msgs
}

func sequence(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// TestLoopSameOutput: an old call that gave the output an earlier stubbed
// call of the same tool and arguments gave, byte for byte, is stubbed as
// its first line and a line naming the earlier stub's handle; the first
// read keeps a whole stub, and a read whose output changed gets one of
// its own. Once the first read is dropped, the second's stub is whole.
func TestLoopSameOutput(t *testing.T) {
	msgs := sameLoop()
	o := DefaultOptions()
	o.Budget = 1 << 20
	c := mustNew(t, o)
	res, err := c.Compress(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	checkLoop(t, "window", c, msgs, res)
	first, second, third := 5, 11, 17 // the three reads' tool messages
	for _, i := range []int{first, second, third} {
		if msgs[i].Role != swc.RoleTool || !strings.Contains(msgs[i-1].ToolCalls[0].Arguments, "parser.c") {
			t.Fatalf("message %d is not a read of src/parser.c", i)
		}
		if _, ok := res.Rewritten[i]; !ok {
			t.Fatalf("read %d not stubbed", i)
		}
	}
	handle := func(stub string) string {
		h, _, _ := strings.Cut(strings.TrimPrefix(stub, "[swc:"), " ")
		return h
	}
	a, b, d := res.Rewritten[first], res.Rewritten[second], res.Rewritten[third]
	if strings.Contains(a, "the same output") || strings.Count(a, "\n") < 5 {
		t.Errorf("the first read's stub is not a whole stub:\n%s", a)
	}
	head, same, ok := strings.Cut(b, "\n")
	if want := "[the same output as swc:" + handle(a) + " above]"; !ok || same != want || handle(b) == handle(a) || !strings.HasPrefix(head, "[swc:") {
		t.Errorf("the second read's stub:\n%s\nwant its own first line, then %q", b, want)
	}
	if strings.Contains(d, "the same output") {
		t.Errorf("the changed read's stub names another:\n%s", d)
	}
	if c.CountMessages(res.Messages) != res.Tokens {
		t.Errorf("Tokens %d, counted %d", res.Tokens, c.CountMessages(res.Messages))
	}

	// A budget that drops the first read and stubs the second.
	found := false
	for budget := 1500; budget <= 8000 && !found; budget += 250 {
		o.Budget = budget
		c := mustNew(t, o)
		res, err := c.Compress(context.Background(), msgs[:third-1])
		if err != nil {
			t.Fatal(err)
		}
		stub, stubbed := res.Rewritten[second]
		if slices.Contains(res.Source, first) || !stubbed {
			continue
		}
		found = true
		checkLoop(t, fmt.Sprintf("budget %d", budget), c, msgs[:third-1], res)
		if strings.Contains(stub, "the same output") {
			t.Errorf("budget %d: the first read dropped, the second's stub still names it:\n%s", budget, stub)
		}
	}
	if !found {
		t.Fatal("no budget drops the first read and stubs the second")
	}
}

// TestLoopSameOutputNotMediaNorSelf: pictures are never "the same
// output" (their content is a placeholder, whatever the bytes), and a
// text-acting agent's identical outputs, which share a handle (no call
// id), each keep a whole stub rather than naming their own handle.
func TestLoopSameOutputNotMediaNorSelf(t *testing.T) {
	shot, out := screenshot(t), strings.Repeat("  12\tfunc decode(r *Reader) (Value, error) { return r.next() }\n", 20)
	ms := []string{`{"role":"user","content":"Make the login page match the mock-up."}`}
	for k := range 12 {
		ms = append(ms,
			fmt.Sprintf(`{"role":"assistant","content":[{"type":"tool_use","id":"s%d","name":"browser_take_screenshot","input":{}}]}`, k),
			fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"s%d","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"%s"}}]}]}`, k, shot),
			fmt.Sprintf(`{"role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Read","input":{"offset":%d}}]}`, k, 100*k),
			fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":%q}]}`, k, out+fmt.Sprint(k)))
	}
	body := []byte(`{"model":"m","max_tokens":64,"system":"You are a coding agent.","messages":[` + strings.Join(ms, ",") + `]}`)
	in, err := chat.Parse(body, chat.Anthropic)
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Budget = 1 << 20
	c := mustNew(t, o).WithAlignUser()
	res, err := c.Compress(context.Background(), in.Messages)
	if err != nil {
		t.Fatal(err)
	}
	shots := 0
	for i, st := range res.Rewritten {
		if in.Messages[i].MediaTokens > 0 {
			shots++
			if strings.Contains(st, "the same output") {
				t.Errorf("screenshot %d stubbed as the same output as another:\n%s", i, st)
			}
		}
	}
	if shots < 2 {
		t.Fatalf("%d screenshots stubbed; want 2 at least", shots)
	}

	view := "<returncode>0</returncode>\n<output>\n" + strings.Repeat("  41\tstatic int rule_41(ast_t* node) { return parse(node, depth + 1); }\n", 60) + "</output>"
	msgs := []swc.Message{
		{Role: swc.RoleSystem, Content: "You are a helpful assistant that can interact with a computer shell."},
		{Role: swc.RoleUser, Content: "Fix the crash in src/parser.c."},
	}
	for s := range 10 {
		cmd, obs := fmt.Sprintf("ls -l src/dir_%d", s), "<returncode>0</returncode>\n<output>\n"+strings.Repeat(fmt.Sprintf("-rw-r--r-- 1 root root 100 file_%d.c\n", s), 50)+"</output>"
		if s == 1 || s == 3 {
			cmd, obs = "cat -n src/parser.c", view
		}
		msgs = append(msgs,
			swc.Message{Role: swc.RoleAssistant, Content: fmt.Sprintf("THOUGHT: step %d.\n\n```bash\n%s\n```", s, cmd)},
			swc.Message{Role: swc.RoleUser, Content: obs})
	}
	res, err = mustNew(t, o).Compress(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{5, 9} {
		st, ok := res.Rewritten[i]
		if !ok || !strings.Contains(msgs[i-1].Content, "parser.c") {
			t.Fatalf("message %d: not a stubbed view of src/parser.c", i)
		}
		h, _, _ := strings.Cut(strings.TrimPrefix(st, "[swc:"), " ")
		if strings.Contains(st, "the same output as swc:"+h) {
			t.Errorf("message %d's stub names its own handle:\n%s", i, st)
		}
	}
}
