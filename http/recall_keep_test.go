package http

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/internal/memo"
	"github.com/swcmem/swc/memory"
)

// keepLoop returns a tool loop of n exchanges (one call each, outputs of
// 30 lines) and, every fifth exchange, a text-acting agent's observation
// as a user message; a person's user message now and then.
func keepLoop(n int) []swc.Message {
	msgs := []swc.Message{
		{Role: swc.RoleSystem, Content: "You are a coding agent."},
		{Role: swc.RoleUser, Content: "<returncode>0</returncode> is how outputs look; fix pkg/x."},
	}
	for i := range n {
		id := fmt.Sprintf("call_%d", i)
		var b strings.Builder
		for l := range 30 {
			fmt.Fprintf(&b, "pkg/x/file%d.go:%d: value_%d_%d := compute(%d)\n", i, l, i, l, l*i)
		}
		if i%5 == 4 {
			msgs = append(msgs, swc.Message{Role: swc.RoleAssistant, Content: "```bash\ncat pkg/x/f" + strconv.Itoa(i) + ".go\n```"},
				swc.Message{Role: swc.RoleUser, Content: "<returncode>0</returncode>\n<output>\n" + b.String() + "</output>"})
			continue
		}
		if i%7 == 6 {
			msgs = append(msgs, swc.Message{Role: swc.RoleUser, Content: "Keep it small, please."})
		}
		msgs = append(msgs, swc.Message{Role: swc.RoleAssistant, Content: fmt.Sprintf("Step %d.", i),
			ToolCalls: []swc.ToolCall{{ID: id, Name: "bash", Arguments: `{"command":"cat pkg/x/file` + strconv.Itoa(i) + `.go"}`}}},
			swc.Message{Role: swc.RoleTool, ToolCallID: id, Content: b.String()})
	}
	return msgs
}

// TestHandleOfRemembered: the remembered handles are observationHandle's,
// asked again or not, and a text's answer at one place does not leak to
// a place where the answer differs (the first user message).
func TestHandleOfRemembered(t *testing.T) {
	s := &Server{}
	s.proxy = &proxyState{handles: newHandleMemo()}
	msgs := keepLoop(20)
	// The task again as a later user message: an observation there, not
	// as the task.
	msgs = append(msgs, swc.Message{Role: swc.RoleAssistant, Content: "Again."}, msgs[1])
	for round := range 2 {
		for i := range msgs {
			wh, wok := observationHandle(msgs, i)
			h, ok := s.handleOf(msgs, i)
			if h != wh || ok != wok {
				t.Errorf("round %d, message %d (%s): handleOf = %q, %v; observationHandle = %q, %v", round, i, msgs[i].Role, h, ok, wh, wok)
			}
		}
	}
	if h, ok := s.handleOf(msgs, 1); ok || h != "" {
		t.Errorf("the task has handle %q", h)
	}
	if _, ok := s.handleOf(msgs, len(msgs)-1); !ok {
		t.Error("the task's text as a later user message has no handle")
	}
}

// TestKeepOriginalsAgain: an agent's next request keeps the same
// originals (seen again: their time is the later request's) and the new
// ones; the summary header counts every message as a full count does.
func TestKeepOriginalsAgain(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := &Server{Now: func() time.Time { return clock }}
	s.proxy = &proxyState{handles: newHandleMemo(), originals: memo.NewCache[recallKey, original](1<<30, 1)}
	o := memory.DefaultOptions()
	o.Budget = 3000
	c, err := memory.New(o)
	if err != nil {
		t.Fatal(err)
	}
	all := keepLoop(60)
	var prev map[string]bool
	droppedAny := false
	for _, n := range []int{len(all) - 8, len(all) - 4, len(all)} {
		raw, err := json.Marshal(chat.OpenAIMessages(all[:n]))
		if err != nil {
			t.Fatal(err)
		}
		in, err := chat.Parse(fmt.Appendf(nil, `{"model":"gpt","messages":%s}`, raw), chat.OpenAI)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Compress(context.Background(), in.Messages)
		if err != nil {
			t.Fatal(err)
		}
		if res.Fits || len(res.Rewritten) == 0 {
			t.Fatalf("%d messages: fits %v, %d stubbed; want a compressed loop", n, res.Fits, len(res.Rewritten))
		}
		droppedAny = droppedAny || !strings.Contains(compressionSummary(c, in, res), "; dropped=0;")
		if held := s.keepOriginals("acme", in, res, []byte("{}")); held != nil {
			t.Errorf("%d messages: %d originals kept for a request showing no handle", n, len(held))
		}
		send, err := memory.SpliceRequestWith(in, res, memory.SpliceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		held := s.keepOriginals("acme", in, res, send)
		for h := range prev {
			if !held[h] {
				continue
			}
			o, ok := s.proxy.originals.Get(recallKey{"acme", h})
			if !ok || !o.at.Equal(clock) {
				t.Errorf("%d messages: original %s held %v, seen %v; want seen %v", n, h, ok, o.at, clock)
			}
		}
		for i, m := range in.Messages {
			if h, ok := observationHandle(in.Messages, i); ok && held[h] {
				if o, _ := s.proxy.originals.Get(recallKey{"acme", h}); o.text != m.Content {
					t.Errorf("%d messages: original %s is not message %d's text", n, h, i)
				}
			}
		}
		if got, want := compressionSummary(c, in, res), fullSummary(c, in, res); got != want {
			t.Errorf("%d messages: summary\n%s\nwant\n%s", n, got, want)
		}
		prev = held
		clock = clock.Add(time.Minute)
	}
	if len(prev) == 0 || !droppedAny {
		t.Fatalf("%d originals kept, messages dropped %v; want some of both", len(prev), droppedAny)
	}
}

// fullSummary is compressionSummary counting every message.
func fullSummary(c *memory.Compressor, in *chat.Input, res *memory.Result) string {
	sent := sentMessages(len(in.Messages), res)
	var kept, keptT, masked, maskedT, stubT, clipped, clippedT, clipT, dropped, droppedT int
	for i, m := range in.Messages {
		if chat.IsInstruction(m) {
			continue
		}
		cost := c.Cost(m)
		switch stub, ok := res.Rewritten[i]; {
		case !sent[i]:
			dropped, droppedT = dropped+1, droppedT+cost
		case ok && m.Role == swc.RoleAssistant:
			s := m
			s.Content = stub
			clipped, clippedT, clipT = clipped+1, clippedT+cost, clipT+c.Cost(s)
		case ok:
			s := m
			s.Content, s.MediaTokens = stub, 0
			masked, maskedT, stubT = masked+1, maskedT+cost, stubT+c.Cost(s)
		default:
			kept, keptT = kept+1, keptT+cost
		}
	}
	return fmt.Sprintf("kept=%d; kept_tokens=%d; masked=%d; masked_tokens=%d; stub_tokens=%d; dropped=%d; dropped_tokens=%d; clipped=%d; clipped_tokens=%d; clip_tokens=%d", kept, keptT, masked, maskedT, stubT, dropped, droppedT, clipped, clippedT, clipT)
}
