package memory

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/swcmem/swc/chat"
)

// TestLoopReasoningCounted: a Codex-like Responses tool loop whose every
// turn carries an encrypted reasoning item: the reasoning of the turn
// being answered (after the last user message) counts against the budget,
// the request swc sends holds the tokens it reports, and the budget holds
// with it — as it would not with the reasoning counted as nothing.
func TestLoopReasoningCounted(t *testing.T) {
	const steps, encBytes = 40, 3000
	items := []any{map[string]any{"type": "message", "role": "user", "content": "Make the failing test in store_test.go pass."}}
	for s := range steps {
		id := fmt.Sprintf("call_%d", s)
		items = append(items,
			map[string]any{"type": "reasoning", "summary": []any{}, "encrypted_content": strings.Repeat("Q", encBytes)},
			map[string]any{"type": "function_call", "call_id": id, "name": "shell", "arguments": fmt.Sprintf(`{"command":["cat","store_%d.go"]}`, s)},
			map[string]any{"type": "function_call_output", "call_id": id, "output": strings.Repeat(fmt.Sprintf("func Store%d(k string) error { return nil }\n", s), 40)})
	}
	body, _ := json.Marshal(map[string]any{"model": "gpt-5", "instructions": "You are a coding agent.", "input": items})
	in, err := chat.Parse(body, chat.Responses)
	if err != nil {
		t.Fatal(err)
	}
	reasoning := 0
	for _, m := range in.Messages {
		reasoning += m.ReasoningTokens
	}
	if want := steps * encBytes / chat.EncryptedBytesPerToken; reasoning != want {
		t.Fatalf("the request's reasoning counts %d tokens, want %d", reasoning, want)
	}
	o := DefaultOptions()
	o.Budget = 20000
	c := mustNew(t, o)
	res, sent, msgs := sendBodyIn(t, c, body, chat.Responses)
	if res.TokensBefore != c.CountMessages(msgs) || res.TokensBefore-reasoning <= o.Budget-reasoning/2 {
		t.Fatalf("tokens before %d (counted %d, of which reasoning %d)", res.TokensBefore, c.CountMessages(msgs), reasoning)
	}
	out, err := chat.Parse(sent, chat.Responses)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.CountMessages(out.Messages); got != res.Tokens {
		t.Errorf("the request sent counts %d tokens, the result says %d", got, res.Tokens)
	}
	total, kept := 0, 0 // counted apart from Cost: the text's and the reasoning's
	for _, m := range out.Messages {
		kept += m.ReasoningTokens
		m.ReasoningTokens = 0
		total += c.Cost(m)
	}
	if total += kept; total > o.Budget || kept == 0 {
		t.Errorf("%d tokens sent (%d of them reasoning), over the budget of %d", total, kept, o.Budget)
	}
	checkLoop(t, "reasoning", c, msgs, res)
}
