package memory

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/observe"
)

func TestAsLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	chatWithDates := sampleMessages(t)
	chatWithDates = append(chatWithDates,
		swc.Message{Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: "d1", Name: "get_date", Arguments: "{}"}}},
		swc.Message{Role: swc.RoleTool, ToolCallID: "d1", Content: "2023-05-08"},
		swc.Message{Role: swc.RoleAssistant, Content: "It is the 8th."},
		swc.Message{Role: swc.RoleUser, Content: "Thanks!"})
	cases := []struct {
		name  string
		msgs  []swc.Message
		loop  bool
		units int
	}{
		{"chat history", sampleMessages(t), false, 0},
		{"chat with a get_date call", chatWithDates, false, 0},
		{"tool calls", genLoop(rng, 12, false, 20), true, 12},
		{"text-acting agent", genLoop(rng, 12, true, 20), true, 12},
		{"task only", []swc.Message{{Role: swc.RoleUser, Content: "hi"}}, false, 0},
		{"two observations, no person's text after the task", []swc.Message{
			{Role: swc.RoleSystem, Content: "You are a coding agent."},
			{Role: swc.RoleUser, Content: "Fix src/app.py."},
			{Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: "c1", Name: "bash", Arguments: `{"command":"ls"}`}}},
			{Role: swc.RoleTool, ToolCallID: "c1", Content: "src"},
			{Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: "c2", Name: "bash", Arguments: `{"command":"ls src"}`}}},
			{Role: swc.RoleTool, ToolCallID: "c2", Content: "app.py"},
		}, true, 2},
		{"a chat whose person pasted a command's output once", []swc.Message{
			{Role: swc.RoleSystem, Content: "You are a helpful assistant."},
			{Role: swc.RoleUser, Content: "My Go program crashes on start. Why?"},
			{Role: swc.RoleAssistant, Content: "Please run it with go run . and paste the whole output."},
			{Role: swc.RoleUser, Content: "panic: runtime error: index out of range [3] with length 3\n\nmain.main()\n\t/home/me/app/main.go:12 +0x1d\nexit status 2"},
		}, false, 0},
		{"two observations after a person's text", []swc.Message{
			{Role: swc.RoleSystem, Content: "You are a coding agent."},
			{Role: swc.RoleUser, Content: "Fix src/app.py."},
			{Role: swc.RoleAssistant, Content: "Which bug?"},
			{Role: swc.RoleUser, Content: "The crash on start."},
			{Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: "c1", Name: "bash", Arguments: `{"command":"ls"}`}}},
			{Role: swc.RoleTool, ToolCallID: "c1", Content: "src"},
			{Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: "c2", Name: "bash", Arguments: `{"command":"ls src"}`}}},
			{Role: swc.RoleTool, ToolCallID: "c2", Content: "app.py"},
		}, false, 0},
		{"three observations", genLoop(rng, 3, false, 20), true, 3},
	}
	for _, tc := range cases {
		l := asLoop(tc.msgs)
		if (l != nil) != tc.loop {
			t.Errorf("%s: loop %v, want %v", tc.name, l != nil, tc.loop)
			continue
		}
		if l == nil {
			continue
		}
		exchanges := 0
		for _, u := range l.units {
			if !u.user {
				exchanges++
			}
		}
		if exchanges != tc.units || len(l.instr) != 1 || len(l.head) != 1 {
			t.Errorf("%s: %d exchanges, %d instructions, head %v", tc.name, exchanges, len(l.instr), l.head)
		}
	}
}

// TestLoopEarlyLongHead: a history that is a tool loop only for having
// no person's text after its head (a tool call or two) whose head alone
// is over the budget — a document pasted with a question — is
// consolidated as a conversation, which cuts it to fit, not sent over the
// budget with its head verbatim. A head within the budget stays a loop's
// task, verbatim, whatever its instructions cost.
func TestLoopEarlyLongHead(t *testing.T) {
	doc := strings.Repeat("The committee reviewed the quarterly figures and noted that revenue grew in every region. ", 1200)
	call := swc.Message{Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: "c1", Name: "fx", Arguments: "{}"}}}
	result := swc.Message{Role: swc.RoleTool, ToolCallID: "c1", Content: "1 EUR = 1.08 USD"}
	task := "Summarize the report and check today's exchange rate."
	for _, tc := range []struct {
		name         string
		system, head string
		taskVerbatim bool
	}{
		{"a pasted report", "You are a helpful assistant.", task + "\n" + doc, false},
		{"long instructions", "You are a coding agent.\n" + doc, task, true},
	} {
		msgs := []swc.Message{{Role: swc.RoleSystem, Content: tc.system}, {Role: swc.RoleUser, Content: tc.head}, call, result}
		o := DefaultOptions()
		o.Budget = 8000
		res, err := mustNew(t, o).Compress(t.Context(), msgs)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		verbatim := slices.ContainsFunc(res.Messages, func(m swc.Message) bool { return m.Role == swc.RoleUser && m.Content == tc.head })
		switch {
		case tc.taskVerbatim && !verbatim:
			t.Errorf("%s: the task is not sent verbatim", tc.name)
		case !tc.taskVerbatim && res.OverBudget > 0:
			t.Errorf("%s: sent %d tokens over the budget of %d (head verbatim %v)", tc.name, res.OverBudget, o.Budget, verbatim)
		}
	}
}

// loopState returns the boundaries the walk puts msgs at.
func loopState(c *Compressor, msgs []swc.Message) (b, d int) {
	l := asLoop(msgs)
	c.pin(msgs, l)
	o := c.Options()
	lc := &loopCosts{msgs: msgs, cost: make([]int, len(msgs)), stubCap: o.StubTokens + MessageOverhead, share: max(o.StubShare, 0)}
	fixed := 0
	for i := range msgs {
		lc.cost[i] = c.Cost(msgs[i])
	}
	for _, i := range slices.Concat(l.instr, l.head) {
		fixed += lc.cost[i]
	}
	b, d, _ = c.loopWalk(l, lc, fixed)
	return b, d
}

// checkLoop asserts what a compressed loop keeps and the providers' rules.
func checkLoop(t *testing.T, name string, c *Compressor, msgs []swc.Message, res *Result) {
	t.Helper()
	o := c.Options()
	if !res.Fits && !strings.HasPrefix(res.Memory, LoopPreamble) && len(res.Rewritten) == 0 {
		// Consolidated as a conversation (its memory empty when the
		// budget holds none): only when the loop, which keeps every
		// user text, is over budget and this is not.
		costs := make([]int, len(msgs))
		for i := range msgs {
			costs[i] = c.Cost(msgs[i])
		}
		lr := c.compressLoop(msgs, costs, asLoop(msgs), c.newResult(0))
		if res.Memory != "" || !slices.Equal(lr.Source, res.Source) {
			if lr.OverBudget == 0 || res.OverBudget > 0 || asLoop(msgs).users == 0 {
				t.Errorf("%s: consolidated as a conversation though the loop is over by %d (this by %d)", name, lr.OverBudget, res.OverBudget)
			}
			checkResult(t, name, c, msgs, res)
			return
		}
	}
	if res.OverBudget != max(res.Tokens-o.Budget, 0) || res.Tokens != c.CountMessages(res.Messages) {
		t.Errorf("%s: %d tokens (counted %d), budget %d, OverBudget %d", name, res.Tokens, c.CountMessages(res.Messages), o.Budget, res.OverBudget)
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
	if res.Source[0] != 0 || res.Messages[0].Content != msgs[0].Content {
		t.Errorf("%s: the instructions are not first", name)
	}
	kept := map[int]bool{}
	for k, src := range res.Source {
		if src < 0 {
			if !strings.HasPrefix(res.Messages[k].Content, LoopPreamble) || res.Messages[k].Content != res.Memory {
				t.Errorf("%s: memory message %q", name, res.Messages[k].Content)
			}
			continue
		}
		kept[src] = true
		m := msgs[src]
		if text, ok := res.Rewritten[src]; ok {
			switch {
			case m.Role == swc.RoleAssistant: // a clipped turn: its handle, its command
				h := HistoryHandle(msgs[src : src+1])
				if !strings.Contains(text, "[swc:"+h+" …]") || len(text) >= len(m.Content) || c.Cost(swc.Message{Role: m.Role, Content: text, ToolCalls: m.ToolCalls}) > c.Cost(m) {
					t.Errorf("%s: turn %d clipped to %q", name, src, text)
				}
				if cmd := c.commandOf(m.Content); cmd != "" && !strings.Contains(text, cmd) {
					t.Errorf("%s: turn %d clipped without its command %q", name, src, cmd)
				}
				if !slices.ContainsFunc(res.Recall, func(r Recallable) bool { return r.Handle == h }) {
					t.Errorf("%s: clipped turn %d is not in Recall", name, src)
				}
			case m.Role != swc.RoleTool && !observe.IsObservation(m.Content):
				t.Errorf("%s: message %d (%s) rewritten but is no observation", name, src, m.Role)
			case res.Messages[k].Content != text || !strings.Contains(text, "swc:h"):
				t.Errorf("%s: message %d: stub %q", name, src, text)
			}
			m.Content = text
		}
		if !reflect.DeepEqual(res.Messages[k], m) {
			t.Errorf("%s: message %d changed", name, src)
		}
	}
	l := asLoop(msgs)
	for i, m := range msgs {
		if m.Role == swc.RoleUser && (i == l.head[len(l.head)-1] || !observe.IsObservation(m.Content)) && !kept[i] {
			t.Errorf("%s: user text %d left out", name, i)
		}
	}
	last := l.units[len(l.units)-1]
	for _, i := range last.msgs {
		if o.HoldBudget && slices.Contains(res.Truncated, i) {
			continue // cut to hold the budget: checked by checkHeld
		}
		if _, ok := res.Rewritten[i]; ok || !kept[i] {
			t.Errorf("%s: the last exchange's message %d is not verbatim", name, i)
		}
	}
	if len(res.Truncated) > 0 && !o.HoldBudget {
		t.Errorf("%s: outputs %v cut without HoldBudget", name, res.Truncated)
	}
	if res.OverBudget > 0 {
		// Over only when what cannot go (instructions, head, user texts,
		// the last unit and the memory) exceeds the budget alone.
		var least []swc.Message
		for k, src := range res.Source {
			if src < 0 || src < len(msgs) && (chat.IsInstruction(msgs[src]) || msgs[src].Role == swc.RoleUser && !observe.IsObservation(msgs[src].Content)) {
				least = append(least, res.Messages[k])
			}
		}
		floor := 0 // under HoldBudget the last outputs count as their least stubs
		for _, i := range last.msgs {
			if !o.HoldBudget || !slices.Contains(last.obs, i) {
				least = append(least, msgs[i])
			} else {
				floor += min(c.Cost(msgs[i]), o.StubTokens+MessageOverhead)
			}
		}
		if n := c.CountMessages(least) + floor; n <= o.Budget {
			t.Errorf("%s: over budget by %d though what cannot go holds %d of %d", name, res.OverBudget, n, o.Budget)
		}
	}
}

// TestLoopKeepsTurnsStubsObservations: over budget, a loop keeps its
// instructions, task and assistant turns verbatim, stubs old observations
// in place and keeps the latest ones.
func TestLoopKeepsTurnsStubsObservations(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, text := range []bool{false, true} {
		msgs := genLoop(rng, 40, text, 60)
		o := DefaultOptions()
		o.Budget = 24000
		c := mustNew(t, o)
		res, err := c.Compress(context.Background(), msgs)
		if err != nil {
			t.Fatal(err)
		}
		if res.TokensBefore <= o.Budget || res.OverBudget > 0 || len(res.Rewritten) == 0 || res.Memory != "" {
			t.Fatalf("text %v: %d → %d tokens, %d stubs, memory %q", text, res.TokensBefore, res.Tokens, len(res.Rewritten), res.Memory)
		}
		checkLoop(t, "loop", c, msgs, res)
		if len(res.Messages) != len(msgs) {
			t.Errorf("text %v: %d messages of %d: none should be dropped", text, len(res.Messages), len(msgs))
		}
	}
}

// TestLoopDegrade: the fixed order when stubs are not enough — the oldest
// exchanges dropped and listed in the memory; then over budget.
func TestLoopDegrade(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	huge := genLoop(rng, 10, false, 30)
	huge[len(huge)-1].Content = strings.Repeat("line of a very long output 12345\n", 2000)
	cases := []struct {
		name    string
		msgs    []swc.Message
		budget  int
		dropped bool
		over    bool
	}{
		{"stubs suffice", genLoop(rng, 30, false, 80), 32000, false, false},
		{"drops the oldest exchanges", genLoop(rng, 200, false, 80), 4000, true, false},
		{"text agent drops", genLoop(rng, 200, true, 80), 4000, true, false},
		{"huge last output: over budget", huge, 2000, true, true},
	}
	for _, tc := range cases {
		for _, align := range []bool{false, true} {
			o := DefaultOptions()
			o.Budget, o.AlignUser = tc.budget, align
			c := mustNew(t, o)
			res, err := c.Compress(context.Background(), tc.msgs)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if (res.Memory != "") != tc.dropped || (res.OverBudget > 0) != tc.over {
				t.Errorf("%s: memory %d bytes, over budget by %d", tc.name, len(res.Memory), res.OverBudget)
			}
			checkLoop(t, tc.name, c, tc.msgs, res)
		}
	}
}

// TestLoopEpochPrefix: replaying a loop's requests, the requests between
// two jumps share their messages and their spliced bytes, prefix for
// prefix; a jump of the masking boundary keeps the messages before the
// old one; the drop point jumps seldom; a compressor that saw none of the
// earlier requests sends the same bytes.
func TestLoopEpochPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, f := range []chat.Format{chat.OpenAI, chat.Anthropic} {
		msgs := genLoop(rng, 150, false, 30)
		o := DefaultOptions()
		o.Budget = 16000
		c := mustNew(t, o)
		if f == chat.Anthropic {
			c = c.WithAlignUser()
		}
		var prev *Result
		var prevBody []byte
		pb, pd := -1, -1
		drops, masks, over := 0, 0, 0
		for _, n := range requestPrefixes(msgs) {
			res, body := sendLoop(t, c, msgs[:n], f)
			checkLoop(t, "prefix", c, msgs[:n], res)
			if res.Fits {
				continue
			}
			over++
			if n%10 == 0 { // the same bytes from a compressor that saw nothing before
				fresh := mustNew(t, o)
				if f == chat.Anthropic {
					fresh = fresh.WithAlignUser()
				}
				if _, again := sendLoop(t, fresh, msgs[:n], f); !bytes.Equal(again, body) {
					t.Fatalf("%s: %d messages: a fresh compressor sends other bytes", f, n)
				}
			}
			b, d := loopState(c, msgs[:n])
			switch {
			case b == pb && d == pd:
				if !reflect.DeepEqual(prev.Messages, res.Messages[:len(prev.Messages)]) {
					t.Fatalf("%s: %d messages: within an epoch the messages changed", f, n)
				}
				if p := prevBody[:len(prevBody)-2]; !bytes.HasPrefix(body, p) { // less "]}"
					t.Fatalf("%s: %d messages: within an epoch the body is no longer a prefix", f, n)
				}
			case d == pd:
				// The masking boundary jumped: the messages before the
				// old one stay as they were.
				masks++
				k := 0
				for k < len(prev.Source) && prev.Source[k] < prev.Recent {
					k++
				}
				if !reflect.DeepEqual(prev.Messages[:k], res.Messages[:k]) {
					t.Fatalf("%s: %d messages: a jump of the masking boundary changed the messages before it", f, n)
				}
			default:
				drops++
			}
			prev, prevBody, pb, pd = res, body, b, d
		}
		t.Logf("%s: %d requests over budget: %d jumps of the masking boundary, %d of the drop point", f, over, masks, drops)
		if drops == 0 || drops*4 > over {
			t.Errorf("%s: %d drop-point jumps over %d requests", f, drops, over)
		}
	}
}

// sendLoop sends msgs as a request body of format f through c's
// middleware and returns the result and the body sent.
func sendLoop(t *testing.T, c *Compressor, msgs []swc.Message, f chat.Format) (*Result, []byte) {
	res, body, _ := sendLoopIn(t, c, msgs, f)
	return res, body
}

// sendLoopIn is sendLoop, also returning the messages of the request as
// the middleware read them (an Anthropic body merges consecutive user
// messages).
func sendLoopIn(t *testing.T, c *Compressor, msgs []swc.Message, f chat.Format) (*Result, []byte, []swc.Message) {
	t.Helper()
	return sendBodyIn(t, c, loopBody(msgs, f), f)
}

// sendBodyIn is sendLoopIn of a body of format f.
func sendBodyIn(t *testing.T, c *Compressor, body []byte, f chat.Format) (*Result, []byte, []swc.Message) {
	t.Helper()
	var res *Result
	report := func(r *Result, err error) {
		if err != nil {
			t.Fatal(err)
		}
		res = r
	}
	mw, url := OpenAIMiddleware(c, report), "https://x.invalid/v1/chat/completions"
	switch f {
	case chat.Anthropic:
		mw, url = AnthropicMiddleware(c, report), "https://x.invalid/v1/messages"
	case chat.Responses:
		mw, url = ResponsesMiddleware(c, report), "https://x.invalid/v1/responses"
	case chat.Gemini:
		mw, url = GeminiMiddleware(c, report), "https://x.invalid/v1beta/models/m:generateContent"
	case chat.Interactions:
		mw, url = InteractionsMiddleware(c, report), "https://x.invalid/v1beta/interactions"
	}
	var cp capture
	in, err := chat.Parse(body, f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mw(post(t, url, body), cp.next); err != nil {
		t.Fatal(err)
	}
	if _, err := chat.Parse(cp.body, f); err != nil {
		t.Fatalf("the body sent does not parse: %v", err)
	}
	return res, cp.body, in.Messages
}

// TestLoopProperty: over generated tool loops (1–500 steps, tool calls or
// text actions, call ids unique or reused by every turn, results in the
// calls' order or another, OpenAI, Anthropic, Responses, Gemini and
// Interactions forms,
// budgets 500–64,000), replaying consecutive requests: never an error,
// the providers' rules hold, every result follows its own turn's call,
// every handle shown resolves to its own output, the budget holds unless
// OverBudget says by how much (and only when what cannot go exceeds it),
// and two requests with the same boundaries share their messages prefix
// for prefix.
func TestLoopProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	trials := 40
	if testing.Short() {
		trials = 10
	}
	for trial := range trials {
		steps := 1 + rng.IntN(500)
		text := rng.IntN(2) == 0
		ids := loopIDs{reuse: rng.IntN(2) == 0, shuffle: rng.IntN(2) == 0, prose: rng.IntN(2) == 0}
		msgs := genLoopIDs(rng, steps, text, 5+rng.IntN(120), ids)
		f := []chat.Format{chat.OpenAI, chat.Anthropic, chat.Responses, chat.Gemini, chat.Interactions}[rng.IntN(5)]
		o := DefaultOptions()
		o.Budget = 500 + rng.IntN(63500)
		c := mustNew(t, o)
		if f == chat.Anthropic {
			c = c.WithAlignUser()
		}
		points := requestPrefixes(msgs)
		from := rng.IntN(len(points))
		var prev *Result
		pb, pd := -1, -1
		for _, n := range points[from:min(from+6, len(points))] {
			name := fmt.Sprintf("trial %d (%d steps, text %v, ids %+v, %s, budget %d) [:%d]", trial, steps, text, ids, f, o.Budget, n)
			res, _, sent := sendLoopIn(t, c, msgs[:n], f)
			if asLoop(sent) == nil {
				checkResult(t, name, c, sent, res)
				continue
			}
			checkLoop(t, name, c, sent, res)
			checkOwnTurn(t, name, sent, res)
			checkOwnHandles(t, name, sent, res)
			if res.Fits {
				continue
			}
			b, d := loopState(c, sent)
			if b == pb && d == pd && !reflect.DeepEqual(prev.Messages, res.Messages[:len(prev.Messages)]) {
				t.Errorf("%s: within an epoch the messages changed", name)
			}
			prev, pb, pd = res, b, d
		}
	}
}

// TestLoopUserTextsOverBudget: a tool loop whose user texts (kept
// verbatim by the loop) leave it over budget is consolidated as a
// conversation when that fits: Compress never reports OverBudget while
// something could still go.
func TestLoopUserTextsOverBudget(t *testing.T) {
	msgs := []swc.Message{
		{Role: swc.RoleSystem, Content: "You are a coding agent."},
		{Role: swc.RoleUser, Content: "Fix the crash in src/app/parser.py."},
	}
	for i := range 24 {
		if i > 0 {
			msgs = append(msgs, swc.Message{Role: swc.RoleUser, Content: filler(i)})
		}
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			swc.Message{Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: id, Name: "execute_bash", Arguments: `{"command":"ls"}`}}},
			swc.Message{Role: swc.RoleTool, ToolCallID: id, Content: filler(i + 100)})
	}
	if asLoop(msgs) == nil {
		t.Fatal("not a tool loop")
	}
	o := DefaultOptions()
	o.Budget = 1200
	c := mustNew(t, o)
	costs := make([]int, len(msgs))
	for i := range msgs {
		costs[i] = c.Cost(msgs[i])
	}
	if lr := c.compressLoop(msgs, costs, asLoop(msgs), c.newResult(0)); lr.OverBudget == 0 {
		t.Fatalf("the loop fits (%d tokens): the test needs user texts over the budget", lr.Tokens)
	}
	res, err := c.Compress(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if res.OverBudget != 0 || res.Tokens > o.Budget || !strings.HasPrefix(res.Memory, Preamble) {
		t.Errorf("%d tokens, OverBudget %d, memory %.80q", res.Tokens, res.OverBudget, res.Memory)
	}
	checkLoop(t, "user texts", c, msgs, res)
}

// TestLoopPinsTurnBeforeUserText: under AlignUser, an exchange a user
// text follows is never dropped, so that two user messages never end up
// side by side (Anthropic's roles alternate); without AlignUser it goes.
func TestLoopPinsTurnBeforeUserText(t *testing.T) {
	msgs := []swc.Message{
		{Role: swc.RoleSystem, Content: "You are a coding agent."},
		{Role: swc.RoleUser, Content: "Fix the crash in src/app/parser.py."},
		{Role: swc.RoleAssistant, Content: "I will edit the file with a bad call."},
		{Role: swc.RoleUser, Content: "Parameter 'command' is expected to be one of ['view', 'create']."},
	}
	for i := range 30 {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			swc.Message{Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: id, Name: "execute_bash", Arguments: fmt.Sprintf(`{"command":"cat -n src/app/mod_%d.py"}`, i)}}},
			swc.Message{Role: swc.RoleTool, ToolCallID: id, Content: filler(i + 100)})
	}
	for _, align := range []bool{false, true} {
		o := DefaultOptions()
		o.Budget, o.AlignUser = 1500, align
		c := mustNew(t, o)
		res, err := c.Compress(context.Background(), msgs)
		if err != nil {
			t.Fatal(err)
		}
		kept := slices.Contains(res.Source, 2)
		if kept != align {
			t.Errorf("AlignUser %v: the turn before the user text kept: %v (sources %v)", align, kept, res.Source)
		}
		if !slices.Contains(res.Source, 3) {
			t.Errorf("AlignUser %v: the user text was dropped", align)
		}
		if align {
			for k := 1; k < len(res.Messages); k++ {
				if res.Messages[k].Role == swc.RoleUser && res.Messages[k-1].Role == swc.RoleUser {
					t.Errorf("user messages %d and %d side by side (sources %d, %d)", k-1, k, res.Source[k-1], res.Source[k])
				}
			}
		}
		checkLoop(t, fmt.Sprintf("align %v", align), c, msgs, res)
	}
}

// TestLoopWindow: within the budget, a tool loop's observations older
// than the window are stubbed, the window jumps every LoopEvery exchanges
// (between jumps each request extends the one before byte for byte), and
// LoopKeep -1 sends the loop as it came.
func TestLoopWindow(t *testing.T) {
	msgs := genLoop(rand.New(rand.NewPCG(7, 7)), 30, false, 60)
	o := DefaultOptions()
	o.Budget = 1 << 20
	c := mustNew(t, o)
	var prev *Result
	jumps := 0
	for _, n := range requestPrefixes(msgs) {
		res, err := c.Compress(context.Background(), msgs[:n])
		if err != nil {
			t.Fatal(err)
		}
		l := asLoop(msgs[:n])
		if l == nil {
			if !res.Fits {
				t.Fatalf("%d messages: no loop yet, yet compressed", n)
			}
			continue
		}
		checkLoop(t, fmt.Sprintf("%d messages", n), c, msgs[:n], res)
		// The observations of the last LoopKeep exchanges stay whole.
		exchanges := 0
		for u := len(l.units) - 1; u >= 0 && exchanges < o.LoopKeep; u-- {
			if len(l.units[u].obs) == 0 {
				continue
			}
			exchanges++
			for _, i := range l.units[u].obs {
				if _, ok := res.Rewritten[i]; ok {
					t.Errorf("%d messages: observation %d of the last %d exchanges stubbed", n, i, o.LoopKeep)
				}
			}
		}
		if prev != nil && !prev.Fits {
			extends := len(prev.Messages) <= len(res.Messages)
			for k := 0; extends && k < len(prev.Messages); k++ {
				extends = prev.Messages[k].Content == res.Messages[k].Content
			}
			if !extends {
				jumps++
			}
		}
		prev = res
	}
	if prev == nil || prev.Fits || len(prev.Rewritten) == 0 {
		t.Fatal("the whole loop, far within the budget, has no stub")
	}
	steps := len(asLoop(msgs).units)
	if max := steps/DefaultLoopEvery + 1; jumps == 0 || jumps > max {
		t.Errorf("%d jumps over %d exchanges; want 1 to %d", jumps, steps, max)
	}
	o.LoopKeep = -1
	off := mustNew(t, o)
	if res, err := off.Compress(context.Background(), msgs); err != nil || !res.Fits {
		t.Errorf("LoopKeep -1: fits %v, err %v", res != nil && res.Fits, err)
	}
}

// TestLoopLongTaskRoom: a loop whose task takes most of the budget (a
// pasted log, a long spec, Claude Code's summary of a session it
// continues) keeps the room after the task for its recent exchanges: the
// memory of dropped calls and the room a drop frees are shares of what
// the instructions and the task leave, not of the whole budget, so a
// drop never throws away more than that and the memory never takes a
// quarter of the loop's room.
func TestLoopLongTaskRoom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	msgs := genLoop(rng, 120, false, 12)
	msgs[1].Content += "\n\nThe log of the failing run:\n" + strings.Repeat("2025-03-04 10:12:01 WARN parser: header line read before its encoding was known\n", 200)
	o := DefaultOptions()
	o.Budget = 8000
	c := mustNew(t, o)
	fixed := c.Cost(msgs[0]) + c.Cost(msgs[1])
	if fixed < 4500 || fixed > 6000 {
		t.Fatalf("the system and task cost %d tokens; the test wants most of the budget", fixed)
	}
	loopRoom := o.Budget - fixed
	limit := int(o.RestartShare * float64(loopRoom))
	drops, freeSum := 0, 0
	prevMemory := ""
	for _, n := range requestPrefixes(msgs) {
		res, err := c.Compress(t.Context(), msgs[:n])
		if err != nil {
			t.Fatal(err)
		}
		if res.Memory == "" {
			continue
		}
		if mem := c.Cost(swc.Message{Role: swc.RoleSystem, Content: res.Memory}); mem > loopRoom/4 {
			t.Errorf("request of %d messages: the memory costs %d tokens of the %d the task leaves", n, mem, loopRoom)
		}
		dropped := res.Memory != prevMemory
		prevMemory = res.Memory
		if !dropped {
			continue
		}
		drops++
		freeSum += o.Budget - res.Tokens
		checkLoop(t, "long task", c, msgs[:n], res)
	}
	if drops == 0 {
		t.Fatal("no request dropped an exchange: the test is not testing")
	}
	// The walk counts stubs and the memory at their caps, so a drop
	// frees more than the restart room; by the whole budget's share it
	// frees more than three times as much.
	if mean := freeSum / drops; mean > 3*limit {
		t.Errorf("%d tokens free after a drop on average over %d drops (the restart room is %d)", mean, drops, limit)
	}
}
