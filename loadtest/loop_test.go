package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/memory"
)

// TestAgentLoop: a valid tool loop of about the asked length, every call
// answered, every agent's its own, compressed by stubbing; an agent's
// requests in loop mode are its loop growing by one exchange each, the
// tool declared.
func TestAgentLoop(t *testing.T) {
	for _, n := range []int{2, 10, 60} {
		h := AgentLoop(n, 3)
		if len(h) < n || len(h) > n+3 {
			t.Errorf("AgentLoop(%d) has %d messages", n, len(h))
		}
		if err := chat.Validate(h, nil); err != nil {
			t.Errorf("AgentLoop(%d): %v", n, err)
		}
		if last := h[len(h)-1]; last.Role != swc.RoleTool {
			t.Errorf("AgentLoop(%d) ends on a %s message", n, last.Role)
		}
	}
	if a, b := AgentLoop(10, 1), AgentLoop(10, 2); a[3].Content == b[3].Content {
		t.Error("two agents have the same loop")
	}
	o := memory.DefaultOptions()
	o.Budget = 4000
	c, err := memory.New(o)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Compress(context.Background(), AgentLoop(120, 0))
	if err != nil || len(res.Rewritten) == 0 || res.OverBudget > 0 {
		t.Fatalf("compressed loop: %v, %d stubbed, %d over", err, len(res.Rewritten), res.OverBudget)
	}

	p := &proxyRun{cfg: ProxyConfig{History: 30, Bodies: BodiesLoop}, agents: map[int][]byte{}, steps: map[int]int{}}
	msgs := AgentLoop(30, 7)
	steps := 0
	for _, m := range msgs {
		if m.Role == swc.RoleAssistant {
			steps++
		}
	}
	for k := range 3 {
		got, err := p.agentBody(7)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, LoopStep(7, steps+k)...)
		want, err := LoopBody(msgs)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("request %d of agent 7:\n%s\nwant\n%s", k, got, want)
		}
		var req struct {
			Tools    []json.RawMessage `json:"tools"`
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(got, &req); err != nil || len(req.Tools) != 1 || len(req.Messages) != len(msgs) {
			t.Fatalf("request %d: %v, %d tools, %d messages; want 1, %d", k, err, len(req.Tools), len(req.Messages), len(msgs))
		}
	}
}
