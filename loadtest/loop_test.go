package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
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

	for _, tc := range []struct {
		bodies string
		body   func([]swc.Message) ([]byte, error)
		format chat.Format
	}{{BodiesLoop, LoopBody, chat.OpenAI}, {BodiesLoopResponses, LoopResponsesBody, chat.Responses}} {
		p := &proxyRun{cfg: ProxyConfig{History: 30, Bodies: tc.bodies}, agents: map[int][]byte{}, steps: map[int]int{}}
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
			want, err := tc.body(msgs)
			if err != nil {
				t.Fatal(err)
			}
			in, err := chat.Parse(got, tc.format)
			if err != nil || len(in.Messages) != len(msgs) {
				t.Fatalf("%s: request %d: %v, %d messages; want %d", tc.bodies, k, err, len(in.Messages), len(msgs))
			}
			if tc.format == chat.OpenAI && !bytes.Equal(got, want) {
				t.Fatalf("%s: request %d of agent 7:\n%s\nwant\n%s", tc.bodies, k, got, want)
			}
			// In Responses form a step's assistant message is named by
			// its step: the messages are the loop's all the same.
			w, err := chat.Parse(want, tc.format)
			if err != nil {
				t.Fatal(err)
			}
			ids := map[string]bool{}
			for i := range in.Messages {
				if id := in.Messages[i].ID; id != "" && ids[id] {
					t.Fatalf("%s: request %d: message id %q twice", tc.bodies, k, id)
				} else {
					ids[id] = true
				}
				in.Messages[i].ID, w.Messages[i].ID = "", ""
			}
			if !reflect.DeepEqual(in.Messages, w.Messages) {
				t.Fatalf("%s: request %d of agent 7: messages differ from the loop's", tc.bodies, k)
			}
			var req struct {
				Tools []json.RawMessage `json:"tools"`
			}
			if err := json.Unmarshal(got, &req); err != nil || len(req.Tools) != 1 {
				t.Fatalf("%s: request %d: %v, %d tools; want 1", tc.bodies, k, err, len(req.Tools))
			}
		}
	}
}
