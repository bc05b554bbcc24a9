package memory

import (
	"fmt"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// TestLoopReminders: Claude Code writes <system-reminder> blocks beside
// some tool results, in the same user message ("the file was modified",
// "the todo list is empty"). They are the agent's, not a person's text:
// a loop with one beside every result is still a loop, its task verbatim
// and its old outputs stubbed, and each reminder is kept as it came.
func TestLoopReminders(t *testing.T) {
	in := reminderLoop(t, 8, 1)
	for _, steps := range []int{2, 8} {
		// The request after steps results.
		n := 0
		for i, m := range in.Messages {
			if m.Role == swc.RoleTool {
				n++
			}
			if n == steps {
				n = i + 2 // the result and its reminder
				break
			}
		}
		l := asLoop(in.Messages[:n])
		if l == nil {
			t.Fatalf("%d steps: not a tool loop", steps)
		}
		if l.users != 0 {
			t.Errorf("%d steps: %d person's texts counted, want 0", steps, l.users)
		}
	}
	o := DefaultOptions()
	o.Budget = 4000
	res, err := mustNew(t, o).WithAlignUser().Compress(t.Context(), in.Messages)
	if err != nil {
		t.Fatal(err)
	}
	if res.Tokens > 4000 {
		t.Errorf("sent %d tokens, budget 4000", res.Tokens)
	}
	sent := map[string]bool{}
	for _, m := range res.Messages {
		sent[m.Content] = true
	}
	for _, m := range in.Messages {
		if m.Role == swc.RoleUser && !sent[m.Content] {
			t.Errorf("user text not sent as it came: %.80q", m.Content)
		}
	}
	if len(res.Rewritten) == 0 {
		t.Error("no observation stubbed")
	}
}

func TestRemindersOnly(t *testing.T) {
	cases := []struct {
		text string
		want bool
	}{
		{"<system-reminder>The task list is empty.</system-reminder>", true},
		{"\n<system-reminder>\na\n</system-reminder>\n\n<system-reminder>b</system-reminder>\n", true},
		{"<system-reminder>The user sent the following message: stop</system-reminder>", true},
		{"<system-reminder>a</system-reminder> and also fix the tests", false},
		{"please also fix the tests <system-reminder>a</system-reminder>", false},
		{"<system-reminder>never closed", false},
		{"", false},
		{"   ", false},
	}
	for _, tc := range cases {
		if got := remindersOnly(tc.text); got != tc.want {
			t.Errorf("remindersOnly(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestLoopRemindersOverBudget: reminders are kept verbatim and never
// dropped, and under the alternating-roles rule each pins the exchange
// before it; when 60 of them leave a 240-step loop over the budget, the
// history is consolidated as a conversation, as with a person's texts,
// rather than sent over it.
func TestLoopRemindersOverBudget(t *testing.T) {
	in := reminderLoop(t, 240, 4)
	if l := asLoop(in.Messages); l == nil || l.users != 0 {
		t.Fatalf("not a tool loop without a person's text: %+v", l)
	}
	o := DefaultOptions()
	o.Budget = 8000
	res, err := mustNew(t, o).WithAlignUser().Compress(t.Context(), in.Messages)
	if err != nil {
		t.Fatal(err)
	}
	if res.OverBudget > 0 || res.Tokens > o.Budget {
		t.Errorf("sent %d tokens, over the budget of %d by %d", res.Tokens, o.Budget, res.OverBudget)
	}
}

// reminderLoop is a Claude Code request in Anthropic form: a task after a
// reminder, then steps reads of codec.go (150 lines each), a reminder
// beside the result of every every-th read, from the first.
func reminderLoop(t *testing.T, steps, every int) *chat.Input {
	t.Helper()
	msgs := []string{`{"role":"user","content":[{"type":"text","text":"<system-reminder>\nAs you answer the user's questions, you can use the following context: CLAUDE.md says run go test.\n</system-reminder>"},{"type":"text","text":"Fix the decoder in codec.go."}]}`}
	out := strings.Repeat(`  12\tfunc decode(r *Reader) (Value, error) { return r.next() }\n`, 150)
	for k := range steps {
		msgs = append(msgs, fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"Reading part %d of codec.go."},{"type":"tool_use","id":"toolu_%d","name":"Read","input":{"file_path":"codec.go","offset":%d}}]}`, k, k, 100*k))
		reminder := ""
		if k%every == 0 {
			reminder = fmt.Sprintf(`,{"type":"text","text":"<system-reminder>\nThe file codec.go was modified by the user or a linter (step %d): line 12 now reads func decode(r *Reader) (Value, error).\n</system-reminder>"}`, k)
		}
		msgs = append(msgs, fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":"%s"}%s]}`, k, out, reminder))
	}
	body := `{"model":"claude-sonnet-4-6","max_tokens":1024,"system":"You are Claude Code.","messages":[` + strings.Join(msgs, ",") + `]}`
	in, err := chat.Parse([]byte(body), chat.Anthropic)
	if err != nil {
		t.Fatal(err)
	}
	return in
}
