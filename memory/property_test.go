package memory

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/internal/locomotest"
	"github.com/swcmem/swc/strategy"
)

// writeLoCoMoChat, when set, writes conv-26 as OpenAI messages with tool
// calls to the named file (the closing note's input):
// go test ./memory -run TestBudgetProperty -locomo-chat FILE
var writeLoCoMoChat = flag.String("locomo-chat", "", "write LoCoMo conv-26 as OpenAI messages with tool calls to this file")

// loadLoCoMo returns the LoCoMo conversations (see locomotest.Load).
func loadLoCoMo(tb testing.TB) []*swc.Conversation { return locomotest.Load(tb) }

var toolNames = []string{"calendar_lookup", "web_search", "weather_forecast", "send_email", "notes_append"}

// withToolCalls inserts, after about a fraction p of the assistant
// messages, an assistant message making one to three tool calls and the
// tool results answering them, timed like the message before; a system
// prompt goes first.
func withToolCalls(msgs []swc.Message, rng *rand.Rand, p float64) []swc.Message {
	out := []swc.Message{{Role: swc.RoleSystem, Content: "You are a helpful assistant with a long memory of this conversation."}}
	n := 0
	for _, m := range msgs {
		out = append(out, m)
		if m.Role != swc.RoleAssistant || rng.Float64() >= p {
			continue
		}
		call := swc.Message{Role: swc.RoleAssistant, Name: m.Name, Time: m.Time, Session: m.Session}
		if rng.IntN(2) == 0 {
			call.Content = "Let me check that."
		}
		k := 1 + rng.IntN(3)
		var results []swc.Message
		for range k {
			n++
			id := fmt.Sprintf("call_%d", n)
			name := toolNames[rng.IntN(len(toolNames))]
			args, _ := json.Marshal(map[string]any{"query": m.Content[:min(len(m.Content), 40)], "limit": rng.IntN(10)})
			call.ToolCalls = append(call.ToolCalls, swc.ToolCall{ID: id, Name: name, Arguments: string(args)})
			body := fmt.Sprintf(`{"ok":true,"items":%d,"summary":%q}`, rng.IntN(50), m.Content)
			if rng.IntN(10) == 0 { // now and then a large result
				for range 5 + rng.IntN(40) {
					body += " " + m.Content
				}
			}
			results = append(results, swc.Message{Role: swc.RoleTool, ToolCallID: id, Content: body, Time: m.Time, Session: m.Session})
		}
		out = append(out, call)
		out = append(out, results...)
	}
	return out
}

// TestBudgetProperty: over LoCoMo conversations as chat messages with
// random tool calls, random budgets, keep-recent values, strategies,
// tokenizers and compactions, the output never exceeds the budget, keeps
// system messages first and the recent messages unchanged (under Replan at
// least KeepRecent of them), never splits a tool call from its results,
// and is valid for both providers; when the protected messages alone
// exceed the budget, the tail is the shortest one and OverBudget says by
// how much.
func TestBudgetProperty(t *testing.T) {
	convs := loadLoCoMo(t)
	rng := rand.New(rand.NewPCG(42, 7))
	strategies := strategy.Names(strategy.ForCompressor)
	if *writeLoCoMoChat != "" {
		msgs := withToolCalls(chat.FromConversation(convs[0]), rand.New(rand.NewPCG(1, 2)), 0.15)
		type timed struct {
			chat.OpenAIMessage
			Timestamp string `json:"timestamp,omitempty"`
		}
		var out []timed
		for i, m := range chat.OpenAIMessages(msgs) {
			ts := ""
			if !msgs[i].Time.IsZero() {
				ts = msgs[i].Time.Format(time.RFC3339)
			}
			out = append(out, timed{m, ts})
		}
		b, _ := json.MarshalIndent(out, "", " ")
		if err := os.WriteFile(*writeLoCoMoChat, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	trials := 60
	if testing.Short() {
		trials = 12
	}
	over, compressed := 0, 0
	for trial := range trials {
		conv := convs[rng.IntN(len(convs))]
		msgs := withToolCalls(chat.FromConversation(conv), rng, 0.1+rng.Float64()*0.3)
		if rng.IntN(3) == 0 { // no timestamps or ids: sessions by message count
			for i := range msgs {
				msgs[i].Time, msgs[i].Session = time.Time{}, ""
			}
		}
		o := DefaultOptions()
		o.Budget = 200 + rng.IntN(8000)
		o.KeepRecent = rng.IntN(25)
		o.Strategy = strategies[rng.IntN(len(strategies))]
		o.Tokenizer = []string{"cl100k_base", "o200k_base"}[rng.IntN(2)]
		o.AlignUser = rng.IntN(2) == 0
		o.Compaction = []string{Epoch, Replan}[rng.IntN(2)]
		c := mustNew(t, o)
		name := fmt.Sprintf("trial %d (%s, budget %d, keep %d, %s, %s, align %v, %s)", trial, conv.ID, o.Budget, o.KeepRecent, o.Strategy, o.Tokenizer, o.AlignUser, o.Compaction)
		res, err := c.Compress(context.Background(), msgs)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if res.OverBudget > 0 {
			over++
		}
		compressed++
		checkResult(t, name, c, msgs, res)
	}
	t.Logf("%d trials: %d compressed, %d of them over budget (protected messages over budget)", trials, compressed, over)
	if compressed < trials/2 {
		t.Errorf("only %d of %d trials compressed: the property is barely exercised", compressed, trials)
	}
}

// checkResult asserts the invariants of a compression of msgs.
func checkResult(t *testing.T, name string, c *Compressor, msgs []swc.Message, res *Result) {
	t.Helper()
	o := c.Options()
	if res.OverBudget != max(res.Tokens-o.Budget, 0) {
		t.Errorf("%s: %d tokens, budget %d, OverBudget %d", name, res.Tokens, o.Budget, res.OverBudget)
	}
	if n := c.CountMessages(res.Messages); n != res.Tokens {
		t.Errorf("%s: reported %d tokens, counted %d", name, res.Tokens, n)
	}
	if err := chat.Validate(res.Messages, nil); err != nil {
		t.Errorf("%s: output invalid: %v", name, err)
	}
	if err := chat.CheckOpenAI(chat.OpenAIMessages(res.Messages)); err != nil {
		t.Errorf("%s: OpenAI would reject: %v", name, err)
	}
	if o.AlignUser {
		if err := chat.CheckAnthropic(chat.ToAnthropic(res.Messages)); err != nil {
			t.Errorf("%s: Anthropic would reject: %v", name, err)
		}
	}
	if res.Fits {
		return
	}
	if res.Messages[0].Role != swc.RoleSystem || res.Messages[0].Content != msgs[0].Content || res.Source[0] != 0 {
		t.Errorf("%s: the system prompt is not first and verbatim", name)
	}
	recent := 0
	for k, src := range res.Source {
		if src < 0 {
			if res.Messages[k].Content != res.Memory {
				t.Errorf("%s: memory message differs from Result.Memory", name)
			}
			continue
		}
		want, ok := res.Rewritten[src]
		if !ok {
			want = msgs[src].Content
		}
		if res.Messages[k].Content != want || len(res.Messages[k].ToolCalls) != len(msgs[src].ToolCalls) {
			t.Errorf("%s: message %d changed", name, src)
		}
		if src >= res.Recent {
			recent++
		}
	}
	if want := len(msgs) - res.Recent; recent != want {
		t.Errorf("%s: %d recent messages kept, want %d", name, recent, want)
	}
	if o.Compaction == Replan && recent < min(o.KeepRecent, len(msgs)-1) && asLoop(msgs) == nil {
		// Fewer only when the last KeepRecent did not fit.
		if c.CountMessages(append([]swc.Message{msgs[0]}, msgs[len(msgs)-o.KeepRecent:]...)) <= o.Budget {
			t.Errorf("%s: kept %d recent messages, fewer than %d", name, recent, o.KeepRecent)
		}
	}
}
