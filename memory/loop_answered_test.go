package memory

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// TestLoopAnsweredTurnKeepsReasoning: the assistant turn whose calls the
// request's last tool results answer keeps its reasoning (the providers
// want Anthropic's thinking blocks in that turn), even when the request
// ends with a user text after those results (Claude Code adds a
// system-reminder beside its tool_result blocks) and the walk stubs the
// answered exchange's output to fit the budget.
func TestLoopAnsweredTurnKeepsReasoning(t *testing.T) {
	msgs := readLoop("[thinking]\n", "<system-reminder>The task list is empty.</system-reminder>")
	last := len(msgs) - 3 // the turn the last tool result answers
	for _, keep := range []int{DefaultLoopKeep, -1} {
		for _, budget := range []int{1500, 2500, 4000} {
			o := DefaultOptions()
			o.Budget, o.LoopKeep = budget, keep
			c := mustNew(t, o)
			res, err := c.Compress(t.Context(), msgs)
			if err != nil {
				t.Fatal(err)
			}
			if text, ok := res.Rewritten[last]; ok && !strings.Contains(text, "[thinking]") {
				t.Errorf("keep %d, budget %d: the answered turn went without its thinking: %q (stubbed output: %v)", keep, budget, text, res.Rewritten[last+1] != "")
			}
		}
	}
}

// TestLoopAnsweredTurnKeepsThinkingBlock: the same through an Anthropic
// body: the written final assistant message opens with the thinking block
// the agent sent, as the Messages API wants when thinking is on.
func TestLoopAnsweredTurnKeepsThinkingBlock(t *testing.T) {
	out := strings.Repeat("  12\tfunc decode(r *Reader) (Value, error) { return r.next() }\n", 120)
	var ms []string
	ms = append(ms, `{"role":"user","content":"Fix the decoder in codec.go."}`)
	for k := range 8 {
		ms = append(ms,
			fmt.Sprintf(`{"role":"assistant","content":[{"type":"thinking","thinking":"Next part %d.","signature":"c2ln%d"},{"type":"text","text":"I read the next part of codec.go."},{"type":"tool_use","id":"t%d","name":"Read","input":{"offset":%d}}]}`, k, k, k, 100*k),
			fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":%q}`, k, out))
		if k == 7 {
			ms[len(ms)-1] += `,{"type":"text","text":"<system-reminder>The task list is empty.</system-reminder>"}`
		}
		ms[len(ms)-1] += `]}`
	}
	body := []byte(`{"model":"m","max_tokens":64,"thinking":{"type":"enabled","budget_tokens":1024},"system":"You are a coding agent.","messages":[` + strings.Join(ms, ",") + `]}`)
	in, err := chat.Parse(body, chat.Anthropic)
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Budget = 2500
	res, err := mustNew(t, o).WithAlignUser().Compress(t.Context(), in.Messages)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rewritten) == 0 {
		t.Fatal("nothing stubbed: the budget does not test the walk")
	}
	sent, err := SpliceRequest(in, res)
	if err != nil {
		t.Fatal(err)
	}
	var req struct {
		Messages []struct {
			Role    string
			Content json.RawMessage
		}
	}
	if err := json.Unmarshal(sent, &req); err != nil {
		t.Fatal(err)
	}
	n := len(req.Messages)
	if n < 2 || req.Messages[n-2].Role != "assistant" {
		t.Fatalf("no final assistant message: %s", sent)
	}
	if !strings.HasPrefix(string(req.Messages[n-2].Content), `[{"type":"thinking","thinking":"Next part 7.","signature":"c2ln7"}`) {
		t.Errorf("the final assistant message does not open with its thinking block: %s", req.Messages[n-2].Content)
	}
}

// TestLoopKeepsNewestExchange: a request that ends with a user text after
// its last tool results (a reminder, a "continue") keeps the exchange
// those results belong to, whatever it must drop to fit the budget: the
// newest observation is what the next step reads. Without AlignUser no
// pin keeps it (an Anthropic loop pins an exchange a user text follows).
func TestLoopKeepsNewestExchange(t *testing.T) {
	msgs := readLoop("", "Continue.")
	last := len(msgs) - 3 // the newest exchange's assistant turn
	for _, keep := range []int{DefaultLoopKeep, -1} {
		for _, budget := range []int{600, 1500, 2500} {
			o := DefaultOptions()
			o.Budget, o.LoopKeep = budget, keep
			res, err := mustNew(t, o).Compress(t.Context(), msgs)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(res.Source, last) || !slices.Contains(res.Source, last+1) {
				t.Errorf("keep %d, budget %d: the newest exchange (messages %d, %d) was dropped: sources %v", keep, budget, last, last+1, res.Source)
			}
		}
	}
}

// readLoop is an agent reading codec.go in 8 calls, each turn's text
// opening with head, then a user text after the last result.
func readLoop(head, trailer string) []swc.Message {
	out := strings.Repeat("  12\tfunc decode(r *Reader) (Value, error) { return r.next() }\n", 120)
	msgs := []swc.Message{
		{Role: swc.RoleSystem, Content: "You are a coding agent."},
		{Role: swc.RoleUser, Content: "Fix the decoder in codec.go."},
	}
	for k := range 8 {
		id := fmt.Sprintf("t%d", k)
		msgs = append(msgs,
			swc.Message{Role: swc.RoleAssistant, Content: head + "I read the next part of codec.go.", ToolCalls: []swc.ToolCall{{ID: id, Name: "Read", Arguments: fmt.Sprintf(`{"file_path":"codec.go","offset":%d}`, 100*k)}}},
			swc.Message{Role: swc.RoleTool, ToolCallID: id, Content: out})
	}
	return append(msgs, swc.Message{Role: swc.RoleUser, Content: trailer})
}
