package memory

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/internal/transcript"
)

// agentRequests returns the requests an agent sends of msgs: the history
// up to each user message.
func agentRequests(msgs []swc.Message) [][]swc.Message {
	var out [][]swc.Message
	for i, m := range msgs {
		if m.Role == swc.RoleUser {
			out = append(out, msgs[:i+1])
		}
	}
	return out
}

// TestEpochProperty: every LoCoMo conversation as an agent's transcript
// (system prompt, tool calls, no timestamps), sent a request at each user
// message at three budgets, OpenAI and Anthropic alignment: no request
// exceeds the budget or splits a tool call from its results, the
// boundary never moves back, between two jumps each request is the one
// before plus the new messages (instructions and memory byte for byte),
// and a Compressor that never saw the history gives the same last request.
func TestEpochProperty(t *testing.T) {
	convs := loadLoCoMo(t)
	if testing.Short() {
		convs = convs[:min(3, len(convs))]
	}
	for ci, conv := range convs {
		tr, err := transcript.Agent(conv, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		reqs := agentRequests(tr.Messages)
		for _, budget := range []int{2000, 4000, 8000} {
			align := (ci+budget/2000)%2 == 1
			name := fmt.Sprintf("%s/%d/align=%v", conv.ID, budget, align)
			o := DefaultOptions()
			o.Budget, o.AlignUser = budget, align
			c := mustNew(t, o)
			var prev *Result
			jumps := 0
			for k, req := range reqs {
				res, err := c.Compress(context.Background(), req)
				if err != nil {
					t.Fatalf("%s: request %d: %v", name, k, err)
				}
				where := fmt.Sprintf("%s: request %d (%d messages)", name, k, len(req))
				checkEpochRequest(t, where, c, req, res)
				if prev != nil {
					switch {
					case res.Compacted < prev.Compacted:
						t.Fatalf("%s: boundary moved back from %d to %d", where, prev.Compacted, res.Compacted)
					case res.Compacted > prev.Compacted:
						jumps++
					case res.Compacted > 0 && !extends(prev.Messages, res.Messages):
						t.Fatalf("%s: same boundary (%d) but the request does not extend the one before", where, res.Compacted)
					}
				}
				prev = res
			}
			cold, err := mustNew(t, o).Compress(context.Background(), reqs[len(reqs)-1])
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cold.Messages, prev.Messages) {
				t.Errorf("%s: a new Compressor sends other bytes for the last request", name)
			}
			if prev.TokensBefore > 3*budget && jumps == 0 {
				t.Errorf("%s: %d tokens at budget %d and no compaction", name, prev.TokensBefore, budget)
			}
			t.Logf("%s: %d requests, %d compactions, last %d → %d tokens, memory holds %d messages", name, len(reqs), jumps, prev.TokensBefore, prev.Tokens, prev.Compacted)
		}
	}
}

// extends reports whether b is a followed by more messages, a's bytes
// unchanged.
func extends(a, b []swc.Message) bool {
	if len(b) < len(a) {
		return false
	}
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// checkEpochRequest asserts what every compressed request must hold.
func checkEpochRequest(t *testing.T, where string, c *Compressor, req []swc.Message, res *Result) {
	t.Helper()
	o := c.Options()
	if res.Tokens > o.Budget || c.CountMessages(res.Messages) != res.Tokens {
		t.Fatalf("%s: %d tokens (counted %d), budget %d", where, res.Tokens, c.CountMessages(res.Messages), o.Budget)
	}
	if err := chat.CheckOpenAI(chat.OpenAIMessages(res.Messages)); err != nil {
		t.Fatalf("%s: OpenAI would reject: %v", where, err)
	}
	if o.AlignUser && !res.Fits { // (the client's own request goes as it came)
		if err := chat.CheckAnthropic(chat.ToAnthropic(res.Messages)); err != nil {
			t.Fatalf("%s: Anthropic would reject: %v", where, err)
		}
	}
	// Tool pairs whole: a kept call has all its results kept, and a kept
	// result its call.
	kept := map[int]bool{}
	for _, src := range res.Source {
		if src >= 0 {
			kept[src] = true
		}
	}
	for i, m := range req {
		if !kept[i] || len(m.ToolCalls) == 0 {
			continue
		}
		for j := i + 1; j < len(req) && req[j].Role == swc.RoleTool; j++ {
			if !kept[j] {
				t.Fatalf("%s: call messages[%d] kept without its result messages[%d]", where, i, j)
			}
		}
	}
	for i, m := range req {
		if kept[i] && m.Role == swc.RoleTool {
			j := i - 1
			for j >= 0 && req[j].Role == swc.RoleTool {
				j--
			}
			if j < 0 || !kept[j] {
				t.Fatalf("%s: result messages[%d] kept without its call", where, i)
			}
		}
	}
	if res.Fits {
		return
	}
	if res.Compacted == 0 || !strings.HasPrefix(res.Memory, Preamble) {
		t.Fatalf("%s: compressed without a memory (compacted %d)", where, res.Compacted)
	}
	if res.Messages[len(res.Messages)-1].Content != req[len(req)-1].Content {
		t.Fatalf("%s: the last message is not the request's", where)
	}
}

// words returns n tokens of text.
func words(n int) string { return strings.Repeat(" word", n) }

// TestEpochBoundaryCases: where the tail starts in the cases a walk must
// get right — a tool call and its results kept together, an Anthropic
// tail starting at a user message, a tail too big for the memory's room
// (the memory shrinks for that request, the budget holds).
func TestEpochBoundaryCases(t *testing.T) {
	sys := swc.Message{Role: swc.RoleSystem, Content: "Be brief."}
	var hist []swc.Message
	for i := range 40 {
		hist = append(hist, swc.Message{Role: swc.RoleUser, Content: fmt.Sprintf("fact %d:%s", i, words(40))},
			swc.Message{Role: swc.RoleAssistant, Content: fmt.Sprintf("noted %d.", i)})
	}
	call := swc.Message{Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: "c1", Name: "search", Arguments: `{"q":"x"}`}}}
	result := swc.Message{Role: swc.RoleTool, ToolCallID: "c1", Content: "result:" + words(60)}
	cases := []struct {
		name  string
		msgs  []swc.Message
		align bool
		check func(t *testing.T, msgs []swc.Message, res *Result)
	}{
		{"tool pair at the boundary", append(append([]swc.Message{sys}, hist...), call, result, swc.Message{Role: swc.RoleUser, Content: "and?"}), false,
			func(t *testing.T, msgs []swc.Message, res *Result) {
				if m := msgs[res.Recent]; m.Role == swc.RoleTool {
					t.Errorf("tail starts at a tool result (messages[%d])", res.Recent)
				}
			}},
		{"anthropic tail", append(append([]swc.Message{sys}, hist...), call, result, swc.Message{Role: swc.RoleAssistant, Content: "found it"}, swc.Message{Role: swc.RoleUser, Content: "thanks"}), true,
			func(t *testing.T, msgs []swc.Message, res *Result) {
				if m := msgs[res.Recent]; m.Role != swc.RoleUser {
					t.Errorf("tail starts at a %s message", m.Role)
				}
			}},
		{"tail over its room", append(append([]swc.Message{sys}, hist...), swc.Message{Role: swc.RoleUser, Content: "big:" + words(700)}), false,
			func(t *testing.T, msgs []swc.Message, res *Result) {
				if res.Recent != len(msgs)-1 || res.Memory == "" {
					t.Errorf("recent %d of %d, memory %q", res.Recent, len(msgs), res.Memory)
				}
			}},
	}
	for _, c := range cases {
		o := DefaultOptions()
		o.Budget, o.AlignUser = 1000, c.align
		comp := mustNew(t, o)
		res, err := comp.Compress(context.Background(), c.msgs)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if res.Fits || res.Tokens > o.Budget {
			t.Fatalf("%s: fits %v, %d tokens", c.name, res.Fits, res.Tokens)
		}
		c.check(t, c.msgs, res)
		if res.Compacted != res.Recent-1 { // the system prompt is messages[0]
			t.Errorf("%s: compacted %d, tail from messages[%d]", c.name, res.Compacted, res.Recent)
		}
	}
}

// TestAfter: a Compressor from After treats the messages given as the
// continuation of a history: even messages that fit the budget get the
// source's memory (asked with n = 0 and the room), the tail's walk
// reserves the room from the first message, and without a memory from
// the source and nothing given before the boundary no memory is sent.
func TestAfter(t *testing.T) {
	ctx := context.Background()
	o := DefaultOptions()
	o.Budget = 1000
	c := mustNew(t, o)
	msgs := []swc.Message{{Role: swc.RoleSystem, Content: "Be brief."}, {Role: swc.RoleUser, Content: "Where is Ana?"}, {Role: swc.RoleAssistant, Content: "In Lisbon."}}
	var asked []int
	src := func(_ context.Context, n, room int) (string, bool) {
		asked = append(asked, n, room)
		return Preamble + "[Session 1 — Ana moved to Lisbon.]", true
	}
	res, err := c.After(src).Compress(ctx, msgs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Fits || len(res.Messages) != 4 || res.Source[1] != -1 || !strings.HasSuffix(res.Memory, "Ana moved to Lisbon.]") || res.Recent != 1 {
		t.Fatalf("After: fits %v, %d messages, memory %q, recent %d; want the memory between the instructions and both messages", res.Fits, len(res.Messages), res.Memory, res.Recent)
	}
	if len(asked) != 2 || asked[0] != 0 || asked[1] != c.room(c.Cost(msgs[0])) {
		t.Errorf("source asked %v; want n 0 and room %d", asked, c.room(c.Cost(msgs[0])))
	}
	if plain, _ := c.Compress(ctx, msgs); !plain.Fits {
		t.Errorf("without After the messages fit")
	}
	none := func(context.Context, int, int) (string, bool) { return "", false }
	res, err = c.After(none).Compress(ctx, msgs)
	if err != nil || res.Memory != "" || len(res.Messages) != 3 {
		t.Fatalf("After with no memory: %v, memory %q, %d messages", err, res.Memory, len(res.Messages))
	}
	// The room is reserved from the first message: a tail that fits the
	// budget but not beside the room jumps.
	long := []swc.Message{{Role: swc.RoleSystem, Content: "Be brief."}}
	for i := range 40 {
		long = append(long, swc.Message{Role: []swc.Role{swc.RoleUser, swc.RoleAssistant}[i%2], Content: strings.Repeat(fmt.Sprintf("word%d ", i), 8)})
	}
	if c.CountMessages(long) > o.Budget {
		t.Fatalf("the long history (%d tokens) should fit the budget", c.CountMessages(long))
	}
	asked = nil
	res, err = c.After(src).Compress(ctx, long)
	if err != nil {
		t.Fatal(err)
	}
	if res.Compacted == 0 || len(asked) != 2 || asked[0] != res.Compacted || res.Tokens > o.Budget {
		t.Errorf("long: compacted %d, source asked %v, %d tokens; want a jump past the first message, the source asked for those before it", res.Compacted, asked, res.Tokens)
	}
}
