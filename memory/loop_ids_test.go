package memory

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// TestLoopReusedIDs: tool loops whose turns reuse their calls' ids
// (every turn's call "call_0", or "call_0".."call_2" for parallel calls),
// with results in another order than the calls, in the OpenAI, Anthropic
// and Responses forms and as Gemini contents without ids, at several
// budgets, replayed request by request:
// never an error, the providers' rules hold, every result sent right
// after its own turn's call, the budget holds unless OverBudget says,
// and every handle a stub or the memory shows resolves (as swc_recall
// resolves it: ObservationHandle over the request) to the output it
// stands for — never to another turn's output under the same call id.
func TestLoopReusedIDs(t *testing.T) {
	cases := []struct {
		name string
		ids  loopIDs
	}{
		{"one call a turn, always call_0", loopIDs{reuse: true, calls: 1}},
		{"parallel calls, ids reused, results reordered", loopIDs{reuse: true, shuffle: true}},
		{"three calls, ids reused, results reordered", loopIDs{reuse: true, calls: 3, shuffle: true}},
		{"parallel calls, ids unique, results reordered", loopIDs{shuffle: true}},
	}
	budgets := []int{1500, 4000, 12000, 40000}
	forms := []struct {
		name string
		f    chat.Format
		body func([]swc.Message) []byte
	}{
		{"openai", chat.OpenAI, nil},
		{"anthropic", chat.Anthropic, nil},
		{"responses", chat.Responses, nil},
		// No ids at all: chat names each call by its place.
		{"gemini without ids", chat.Gemini, func(msgs []swc.Message) []byte { return geminiLoopBody(msgs, false) }},
	}
	steps, every := 100, 7
	if testing.Short() {
		steps, every = 60, 13
	}
	rng := rand.New(rand.NewPCG(21, 22))
	stubbed, dropped := 0, 0
	for _, tc := range cases {
		msgs := genLoopIDs(rng, steps, false, 60, tc.ids)
		repeatOutputs(rng, msgs)
		for _, fm := range forms {
			f := fm.f
			for _, budget := range budgets {
				o := DefaultOptions()
				o.Budget = budget
				c := mustNew(t, o)
				if f == chat.Anthropic {
					c = c.WithAlignUser()
				}
				points := requestPrefixes(msgs)
				for k, n := range points {
					if k%every != 0 && k != len(points)-1 {
						continue
					}
					name := fmt.Sprintf("%s, %s, budget %d [:%d]", tc.name, fm.name, budget, n)
					body := loopBody(msgs[:n], f)
					if fm.body != nil {
						body = fm.body(msgs[:n])
					}
					res, _, sent := sendBodyIn(t, c, body, f)
					if asLoop(sent) == nil {
						checkResult(t, name, c, sent, res)
						continue
					}
					checkLoop(t, name, c, sent, res)
					checkOwnTurn(t, name, sent, res)
					s, d := checkOwnHandles(t, name, sent, res)
					stubbed, dropped = stubbed+s, dropped+d
				}
			}
		}
	}
	t.Logf("%d stubs' and %d memory lines' handles resolved to their own outputs", stubbed, dropped)
	if stubbed == 0 || dropped == 0 {
		t.Errorf("%d stubs, %d dropped calls' handles: the budgets exercise too little", stubbed, dropped)
	}
}

// repeatOutputs gives a few results the text of an earlier result with
// the same call id (a command run twice with the same answer): the two
// share a handle, and the handle's bytes are both's.
func repeatOutputs(rng *rand.Rand, msgs []swc.Message) {
	last := map[string]string{}
	for i := range msgs {
		m := &msgs[i]
		if m.Role != swc.RoleTool {
			continue
		}
		if prev, ok := last[m.ToolCallID]; ok && rng.IntN(8) == 0 {
			m.Content = prev
		}
		last[m.ToolCallID] = m.Content
	}
}

// checkOwnTurn asserts that every tool result res sends follows, after
// only tool results, the assistant turn that made its call in msgs: a
// result is never sent after another turn's call that has its id.
func checkOwnTurn(t *testing.T, name string, msgs []swc.Message, res *Result) {
	t.Helper()
	owner := make([]int, len(msgs)) // the assistant turn a result answers
	a := -1
	for i, m := range msgs {
		owner[i] = a
		if m.Role == swc.RoleAssistant {
			a = i
		}
	}
	for k, src := range res.Source {
		if src < 0 || msgs[src].Role != swc.RoleTool {
			continue
		}
		j := k - 1
		for j >= 0 && res.Messages[j].Role == swc.RoleTool {
			j--
		}
		if j < 0 || res.Source[j] != owner[src] {
			t.Errorf("%s: result %d (call %q) is sent after message %d, not after its own turn %d", name, src, msgs[src].ToolCallID, sourceAt(res, j), owner[src])
		}
	}
}

func sourceAt(res *Result, k int) int {
	if k < 0 {
		return -1
	}
	return res.Source[k]
}

// handleShown matches a handle where a stub's first line or a memory
// line shows it, and the handles of the memory's count line.
var (
	handleShown = regexp.MustCompile(`\[swc:(h[0-9a-f]{10})[ \]]`)
	countHandle = regexp.MustCompile(`handles: ((?:h[0-9a-f]{10} ?)+)\]`)
)

// checkOwnHandles asserts that the handles of msgs' observations name one
// text each (two outputs, one handle: only when the texts are equal),
// that each stub shows its own observation's handle, and that each
// handle of the memory message is that of an observation res left out.
// It returns how many stubs and memory handles it checked.
func checkOwnHandles(t *testing.T, name string, msgs []swc.Message, res *Result) (stubs, memory int) {
	t.Helper()
	originals := map[string]string{} // what swc_recall returns for a handle
	for i := range msgs {
		h, ok := ObservationHandle(msgs, i)
		if !ok {
			continue
		}
		if prev, dup := originals[h]; dup && prev != msgs[i].Content {
			t.Errorf("%s: handle %s names two outputs (message %d's and another)", name, h, i)
		}
		originals[h] = msgs[i].Content
	}
	sent := make([]bool, len(msgs))
	for _, src := range res.Source {
		if src >= 0 {
			sent[src] = true
		}
	}
	for i, stub := range res.Rewritten {
		if msgs[i].Role == swc.RoleAssistant { // a clipped turn (checkLoop)
			continue
		}
		m := handleShown.FindStringSubmatch(stub)
		own, ok := ObservationHandle(msgs, i)
		if m == nil || !ok || m[1] != own {
			t.Errorf("%s: stub of message %d (call %q) shows %v, its own handle is %s", name, i, msgs[i].ToolCallID, m, own)
			continue
		}
		if originals[m[1]] != msgs[i].Content {
			t.Errorf("%s: the stub of message %d resolves to another output", name, i)
		}
		stubs++
	}
	left := map[string]bool{} // handles of the observations left out
	for i := range msgs {
		if h, ok := ObservationHandle(msgs, i); ok && !sent[i] {
			left[h] = true
		}
	}
	var shown []string
	for _, m := range handleShown.FindAllStringSubmatch(res.Memory, -1) {
		shown = append(shown, m[1])
	}
	for _, m := range countHandle.FindAllStringSubmatch(res.Memory, -1) {
		shown = append(shown, strings.Fields(m[1])...)
	}
	for _, h := range shown {
		if !left[h] {
			t.Errorf("%s: the memory shows %s, the handle of no observation left out", name, h)
		}
		memory++
	}
	return stubs, memory
}
