package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/mock"
)

// sampleMessages is the built-in LoCoMo sample as chat messages, with a
// system prompt.
func sampleMessages(t testing.TB) []swc.Message {
	convs, err := locomo.Sample()
	if err != nil {
		t.Fatal(err)
	}
	return append([]swc.Message{{Role: swc.RoleSystem, Content: "You are Jonas's assistant."}}, chat.FromConversation(convs[0])...)
}

func mustNew(t testing.TB, o Options) *Compressor {
	t.Helper()
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCompressShape(t *testing.T) {
	msgs := sampleMessages(t)
	o := DefaultOptions()
	o.Budget = 1500
	o.Compaction, o.Strategy = Replan, "swc-anchored"
	res, err := mustNew(t, o).Compress(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Tokens > o.Budget || res.Tokens != mustNew(t, o).CountMessages(res.Messages) {
		t.Errorf("tokens %d (budget %d)", res.Tokens, o.Budget)
	}
	if len(res.Messages) != 1+1+8 || res.Messages[0].Content != msgs[0].Content || res.Source[1] != -1 || res.Messages[1].Role != swc.RoleSystem {
		t.Fatalf("shape: %d messages, sources %v", len(res.Messages), res.Source)
	}
	for k := 2; k < len(res.Messages); k++ {
		if i := res.Source[k]; i != len(msgs)-10+k {
			t.Errorf("recent message %d comes from %d", k, i)
		}
	}
	if !strings.HasPrefix(res.Memory, Preamble+"[Session 1 — ") {
		t.Errorf("memory starts %q", res.Memory[:min(200, len(res.Memory))])
	}
	if !strings.Contains(res.Memory, "omitted]") && len(res.Context.Dropped) > 0 {
		t.Errorf("dropped sessions without a marker:\n%s", res.Memory)
	}
	if len(res.Sessions) == 0 || res.Rule != "session ids" || res.Context == nil || len(res.Context.Chunks) != len(res.Sessions) {
		t.Errorf("report: %d sessions (%s), context %v", len(res.Sessions), res.Rule, res.Context != nil)
	}
	if res.TokensBefore <= res.Tokens {
		t.Errorf("before %d, after %d", res.TokensBefore, res.Tokens)
	}
	// Valid at both providers.
	if err := chat.CheckOpenAI(chat.OpenAIMessages(res.Messages)); err != nil {
		t.Error(err)
	}
}

// TestCompressNeverRefuses: when the instructions and the kept tail
// exceed the budget, the tail shrinks to one that fits, else to the
// shortest one, sent over budget with OverBudget saying by how much.
func TestCompressNeverRefuses(t *testing.T) {
	o := DefaultOptions()
	big := append(sampleMessages(t), swc.Message{Role: swc.RoleUser, Content: strings.Repeat("word ", 300)})
	cases := []struct {
		name       string
		msgs       []swc.Message
		budget     int
		compaction string
		align      bool
		over       bool
	}{
		{"tail shrinks to fit", sampleMessages(t), 100, Replan, false, false},
		{"tail shrinks to fit, anthropic", sampleMessages(t), 100, Replan, true, false},
		{"one message over budget, replan", big, 200, Replan, false, true},
		{"one message over budget, epoch", big, 200, Epoch, true, true},
	}
	for _, tc := range cases {
		o.Budget, o.Compaction, o.AlignUser = tc.budget, tc.compaction, tc.align
		c := mustNew(t, o)
		res, err := c.Compress(context.Background(), tc.msgs)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := res.OverBudget > 0; got != tc.over || res.OverBudget != max(res.Tokens-tc.budget, 0) {
			t.Errorf("%s: %d tokens, over budget by %d", tc.name, res.Tokens, res.OverBudget)
		}
		last := len(tc.msgs) - 1
		if res.Source[len(res.Source)-1] != last || res.Messages[len(res.Messages)-1].Content != tc.msgs[last].Content {
			t.Errorf("%s: the last message is not kept verbatim", tc.name)
		}
		if n := len(tc.msgs) - res.Recent; n >= 8 {
			t.Errorf("%s: the tail kept %d messages; it should have shrunk", tc.name, n)
		}
		checkResult(t, tc.name, c, tc.msgs, res)
	}
}

// TestCompressNeverRefusesSmallRoom: whatever room the kept messages
// leave the memory, however little (below what the strategy's emptiest
// context, its omission marker, costs), the history is compressed, never
// refused: the memory goes as a marker or not at all.
func TestCompressNeverRefusesSmallRoom(t *testing.T) {
	msgs := sampleMessages(t)[:12]
	for _, strat := range []string{"swc-select", "swc-anchored", "truncation"} {
		for _, compaction := range []string{Epoch, Replan} {
			o := DefaultOptions()
			o.Strategy, o.Compaction, o.KeepRecent = strat, compaction, 2
			for budget := 40; budget <= 200; budget++ {
				o.Budget = budget
				c := mustNew(t, o)
				res, err := c.Compress(context.Background(), msgs)
				if err != nil {
					t.Fatalf("%s, %s, budget %d: %v", strat, compaction, budget, err)
				}
				if res.OverBudget == 0 && res.Tokens > budget {
					t.Errorf("%s, %s, budget %d: %d tokens", strat, compaction, budget, res.Tokens)
				}
			}
		}
	}
}

// TestCompressReturnsEngineInvalid: only a budget below the strategy's
// emptiest context (swc.ErrBudgetTooSmall) sends the request without the
// memory; an engine's EINVALID (a provider's 400 to the gister) is the
// caller's to see, not a history silently left out.
func TestCompressReturnsEngineInvalid(t *testing.T) {
	o := DefaultOptions()
	o.Budget, o.Strategy = 1500, "swc-anchored" // a strategy that gists
	o.Gister = &mock.Gister{GistFn: func(context.Context, swc.GistRequest) (string, error) {
		return "", swc.Errorf(swc.EINVALID, "provider: 400 invalid request")
	}}
	_, err := mustNew(t, o).Compress(context.Background(), sampleMessages(t))
	if swc.ErrorCode(err) != swc.EINVALID || !strings.Contains(swc.ErrorMessage(err), "400") {
		t.Errorf("a gister's EINVALID: err %v, want it returned", err)
	}
}

func TestCompressTruncatesHugeHistoryMessage(t *testing.T) {
	msgs := sampleMessages(t)
	huge := len(msgs) - 9 // the newest history message
	msgs[huge].Content = strings.Repeat("The quarterly report mentions Berlin and 42 widgets. ", 800)
	o := DefaultOptions()
	o.Compaction = Replan
	o.Strategy = "truncation" // keeps the newest history turns
	res, err := mustNew(t, o).Compress(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Truncated) != 1 || res.Truncated[0] != huge || res.Tokens > o.Budget {
		t.Fatalf("truncated %v, tokens %d", res.Truncated, res.Tokens)
	}
	if !strings.Contains(res.Memory, "tokens omitted]") {
		t.Errorf("no visible truncation marker in the memory:\n%s", res.Memory)
	}
}

func TestCompressToolPairsNeverSplit(t *testing.T) {
	msgs := []swc.Message{
		{Role: swc.RoleUser, Content: "Book me a table for Friday."},
		{Role: swc.RoleAssistant, Content: "Let me look.", ToolCalls: []swc.ToolCall{{ID: "a", Name: "search", Arguments: `{"q":"table"}`}, {ID: "b", Name: "calendar", Arguments: `{}`}}},
		{Role: swc.RoleTool, ToolCallID: "a", Content: "Luigi's, 8pm"},
		{Role: swc.RoleTool, ToolCallID: "b", Content: "Friday free"},
		{Role: swc.RoleAssistant, Content: "Booked Luigi's at 8pm."},
	}
	for keep := 0; keep <= len(msgs); keep++ {
		o := DefaultOptions()
		o.KeepRecent = keep
		res, err := mustNew(t, o).Compress(context.Background(), msgs)
		if err != nil {
			t.Fatal(err)
		}
		if err := chat.CheckOpenAI(chat.OpenAIMessages(res.Messages)); err != nil {
			t.Errorf("keep %d: %v", keep, err)
		}
		o.AlignUser = true
		res, err = mustNew(t, o).Compress(context.Background(), msgs)
		if err != nil {
			t.Fatal(err)
		}
		if err := chat.CheckAnthropic(chat.ToAnthropic(res.Messages)); err != nil {
			t.Errorf("keep %d, anthropic: %v", keep, err)
		}
	}
}

func TestNewBadOptions(t *testing.T) {
	for _, o := range []Options{{Strategy: "full"}, {Tokenizer: "p50k"}, {Budget: -1}, {KeepRecent: -2}} {
		if _, err := New(o); swc.ErrorCode(err) != swc.EINVALID {
			t.Errorf("New(%+v) = %v, want an invalid error", o, err)
		}
	}
}

// TestLLMGistCache: with Options.LLM and Cache, a gist is asked of the
// model once: a new Compressor over the same cache (a restart) makes no
// call and compresses to the same messages.
func TestLLMGistCache(t *testing.T) {
	msgs := sampleMessages(t)
	cache := mock.NewGistCache()
	run := func() (int64, *Result) {
		llm := &mock.LLM{CompleteFn: func(_ context.Context, r swc.LLMRequest) (swc.LLMResponse, error) {
			return swc.LLMResponse{Text: "Gist: " + strings.Fields(r.Messages[0].Content)[2], Usage: swc.Usage{Calls: 1}}, nil
		}}
		o := DefaultOptions()
		o.Budget, o.LLM, o.Cache, o.Strategy = 1500, llm, cache, "swc-anchored" // a strategy that gists
		res, err := mustNew(t, o).Compress(context.Background(), msgs)
		if err != nil || res.Fallback != "" {
			t.Fatalf("compress: %v (fallback %q)", err, res.Fallback)
		}
		return llm.Calls.Load(), res
	}
	cold, first := run()
	warm, second := run()
	if cold == 0 || warm != 0 {
		t.Fatalf("model calls: %d cold, %d warm; want some, then none", cold, warm)
	}
	if first.Memory != second.Memory {
		t.Fatalf("the memory messages differ:\n%s\n---\n%s", first.Memory, second.Memory)
	}
}

// TestDeadlineFallback: past the deadline the offline engines finish the
// job, within the budget and before the deadline.
func TestDeadlineFallback(t *testing.T) {
	msgs := sampleMessages(t)
	o := DefaultOptions()
	o.Budget, o.Strategy = 1500, "swc-anchored" // a strategy that gists
	// A gister blocking until its context ends, like an LLM that is too slow.
	g := &mock.Gister{GistFn: func(ctx context.Context, _ swc.GistRequest) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}}
	o.Gister = g
	// The attempt gets 1 s, the offline fallback the last 2 s (generous:
	// it takes milliseconds, but the machine may be loaded or -race on).
	o.FallbackReserve = 2 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	start := time.Now()
	res, err := mustNew(t, o).Compress(ctx, msgs)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Fallback, "deadline") || g.Calls.Load() == 0 || res.Tokens > o.Budget {
		t.Errorf("fallback %q after %d calls, tokens %d", res.Fallback, g.Calls.Load(), res.Tokens)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v, past the deadline", d)
	}

	o.Gister = &mock.Gister{GistFn: func(context.Context, swc.GistRequest) (string, error) {
		return "", errors.New("provider: 529 overloaded")
	}}
	res, err = mustNew(t, o).Compress(context.Background(), msgs)
	if err != nil || !strings.Contains(res.Fallback, "529 overloaded") {
		t.Errorf("engine failure: %v, fallback %q", err, res.Fallback)
	}
	// Already past the deadline: still an answer.
	done, cancel2 := context.WithCancel(context.Background())
	cancel2()
	o.Gister = nil
	if res, err := mustNew(t, o).Compress(done, msgs); err != nil || res.Tokens > o.Budget {
		t.Errorf("cancelled context, offline engines: %v", err)
	}
}

func TestOmissionMarkers(t *testing.T) {
	text := "[Session 1 — a]\nA: x\n\n[Session 4 — d] (summary)\ngist\n\n[Session 5 — e]\nB: y\n"
	got := withOmissions(text, 7)
	want := "[Session 1 — a]\nA: x\n\n[Sessions 2–3 omitted]\n\n[Session 4 — d] (summary)\ngist\n\n[Session 5 — e]\nB: y\n\n[Sessions 6–7 omitted]\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if again := withOmissions(got, 7); again != got {
		t.Errorf("markers doubled:\n%s", again)
	}
	if got := withOmissions("", 2); got != "[Sessions 1–2 omitted]\n" {
		t.Errorf("empty: %q", got)
	}
}

func TestResultJSON(t *testing.T) {
	res, err := mustNew(t, DefaultOptions()).Compress(context.Background(), sampleMessages(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := json.Marshal(res); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentCompress: one Compressor serves concurrent calls (run with
// -race where cgo is available).
func TestConcurrentCompress(t *testing.T) {
	msgs := sampleMessages(t)
	o := DefaultOptions()
	o.Budget = 1500
	c := mustNew(t, o)
	want, err := c.Compress(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			res, err := c.Compress(context.Background(), msgs)
			if err == nil && res.Memory != want.Memory {
				err = errors.New("concurrent calls disagree")
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestSharedMemosSameResults: concurrent callers growing their own
// histories through one Compressor (its memos and plan cache shared, as
// the proxy's are) get exactly what a new Compressor gives each time.
func TestSharedMemosSameResults(t *testing.T) {
	msgs := sampleMessages(t)
	o := DefaultOptions()
	o.Budget = 1200
	shared := mustNew(t, o)
	step := 3
	if testing.Short() {
		step = 24
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for n := 30 + g; n <= len(msgs); n += step {
				h := msgs[:n]
				if h[n-1].Role == swc.RoleAssistant && len(h[n-1].ToolCalls) > 0 {
					continue // an unanswered call is invalid input
				}
				got, err := shared.Compress(context.Background(), h)
				if err != nil {
					t.Error(err)
					return
				}
				fresh, _ := New(o)
				want, err := fresh.Compress(context.Background(), h)
				if err != nil {
					t.Error(err)
					return
				}
				gj, _ := json.Marshal(got)
				wj, _ := json.Marshal(want)
				if string(gj) != string(wj) {
					t.Errorf("caller %d, %d messages: shared memos gave another result", g, n)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestCompressAlignUserPinsTask: with AlignUser and no user message but
// the task, the tail starts at an assistant turn and the task is kept
// before it (Anthropic needs a user message first).
func TestCompressAlignUserPinsTask(t *testing.T) {
	msgs := []swc.Message{{Role: swc.RoleSystem, Content: "You help."}, {Role: swc.RoleUser, Content: "Plan the trip to Lisbon in May."}}
	for i := range 6 {
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs,
			swc.Message{Role: swc.RoleAssistant, Content: strings.Repeat("Looking at the options again. ", 20), ToolCalls: []swc.ToolCall{{ID: id, Name: "search", Arguments: `{"q":"lisbon"}`}}},
			swc.Message{Role: swc.RoleTool, ToolCallID: id, Content: strings.Repeat("Hotel Avenida, 120 euros a night. ", 15)})
	}
	for _, compaction := range []string{Epoch, Replan} {
		o := DefaultOptions()
		o.Budget, o.AlignUser, o.Compaction = 900, true, compaction
		c := mustNew(t, o)
		res, err := c.Compress(context.Background(), msgs)
		if err != nil {
			t.Fatalf("%s: %v", compaction, err)
		}
		k := firstConv(res.Messages)
		next := k + 1 // the message after the task, the memory aside
		if next < len(res.Source) && res.Source[next] < 0 {
			next++
		}
		if res.Source[k] != 1 || next >= len(res.Messages) || res.Messages[next].Role != swc.RoleAssistant || res.OverBudget != 0 {
			t.Errorf("%s: sources %v, over budget by %d", compaction, res.Source, res.OverBudget)
		}
		checkResult(t, compaction, c, msgs, res)
	}
}
