package memory

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/internal/skipnote"
	"github.com/swcmem/swc/observe"
)

// trajectoryDir holds the coding-agent trajectories beside the checkout.
const trajectoryDir = "../../shared/data/trajectories"

// TestTrajectories replays every request of the real agent runs (each
// prefix of a body that ends before an assistant turn) at 8k, 16k and 32k
// through the middleware: none fails, every body sent parses (the
// providers' rules hold), and the budget holds unless OverBudget says by
// how much; every handle a stub or the memory shows is the handle of an
// observation of the request (so the original resolves); and a request
// whose stubs and memory are those of the request before extends it
// message for message (the prefix holds between jumps).
func TestTrajectories(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(trajectoryDir, "*.json"))
	if len(files) == 0 {
		skipnote.Skip(t, "trajectories", "no coding-agent trajectories in "+trajectoryDir)
	}
	budgets := []int{8000, 16000, 32000}
	if testing.Short() {
		budgets = budgets[:1]
	}
	for _, budget := range budgets {
		requests, over, before, after := 0, 0, 0, 0
		for _, file := range files {
			var tr struct {
				OpenAI, Anthropic json.RawMessage
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &tr); err != nil {
				t.Fatal(err)
			}
			for _, f := range []chat.Format{chat.OpenAI, chat.Anthropic} {
				body := tr.OpenAI
				if f == chat.Anthropic {
					body = tr.Anthropic
				}
				if len(body) == 0 || string(body) == "null" {
					continue
				}
				var whole struct {
					Messages []json.RawMessage `json:"messages"`
				}
				if err := json.Unmarshal(body, &whole); err != nil {
					t.Fatal(err)
				}
				var fields map[string]json.RawMessage
				json.Unmarshal(body, &fields)
				o := DefaultOptions()
				o.Budget = budget
				c := mustNew(t, o)
				var prev *Result
				for k := 1; k < len(whole.Messages); k++ {
					var m struct{ Role string }
					json.Unmarshal(whole.Messages[k], &m)
					if m.Role != "assistant" {
						continue
					}
					fields["messages"], _ = json.Marshal(whole.Messages[:k])
					prefix, _ := json.Marshal(fields)
					in, err := chat.Parse(prefix, f)
					if err != nil {
						t.Fatalf("%s %s [:%d]: %v", filepath.Base(file), f, k, err)
					}
					res, _ := sendLoop(t, c, in.Messages, f)
					requests++
					before += res.TokensBefore
					after += res.Tokens
					if res.OverBudget > 0 {
						over++
						t.Logf("%s %s [:%d] at %d: over by %d", filepath.Base(file), f, k, budget, res.OverBudget)
					}
					if res.OverBudget != max(res.Tokens-budget, 0) {
						t.Errorf("%s %s [:%d]: %d tokens, OverBudget %d", filepath.Base(file), f, k, res.Tokens, res.OverBudget)
					}
					if err := chat.Validate(res.Messages, nil); err != nil {
						t.Errorf("%s %s [:%d]: %v", filepath.Base(file), f, k, err)
					}
					if f == chat.Anthropic && res.Messages[firstConv(res.Messages)].Role != swc.RoleUser {
						t.Errorf("%s [:%d]: the first message is no user message", filepath.Base(file), k)
					}
					checkHandles(t, fmt.Sprintf("%s %s [:%d] at %d", filepath.Base(file), f, k, budget), in.Messages, res)
					if prev != nil && !res.Fits && !prev.Fits && prev.Memory == res.Memory && sameStubs(prev.Rewritten, res.Rewritten) {
						if len(prev.Messages) > len(res.Messages) {
							t.Errorf("%s %s [:%d]: same stubs, fewer messages", filepath.Base(file), f, k)
						} else {
							for j := range prev.Messages {
								if prev.Messages[j].Content != res.Messages[j].Content || prev.Source[j] != res.Source[j] {
									t.Errorf("%s %s [:%d] at %d: same stubs and memory, yet message %d differs from the request before", filepath.Base(file), f, k, budget, j)
									break
								}
							}
						}
					}
					prev = res
				}
			}
		}
		t.Logf("budget %d: %d requests, %d → %d tokens in all, %d over budget", budget, requests, before, after, over)
	}
}

// firstConv returns the index of the first message that is not an
// instruction or the memory.
func firstConv(msgs []swc.Message) int {
	for k, m := range msgs {
		if m.Role != swc.RoleSystem && m.Role != swc.RoleDeveloper {
			return k
		}
	}
	return len(msgs)
}

// handleRe finds the handles a stub or the loop's memory shows.
var handleRe = regexp.MustCompile(`\[swc:(h[0-9a-f]{10})`)

// checkHandles fails t when a stub of res is not headed by the handle of
// the observation it stands for, or when the memory shows a handle that
// is no observation's of msgs nor a history handle of res.Recall.
func checkHandles(t *testing.T, name string, msgs []swc.Message, res *Result) {
	t.Helper()
	all := map[string]bool{}
	for i, m := range msgs {
		if m.Role == swc.RoleTool || (m.Role == swc.RoleUser && i > 0) {
			all[observe.Handle(m.ToolCallID, m.Content)] = true
		}
	}
	for i, stub := range res.Rewritten {
		if msgs[i].Role == swc.RoleAssistant { // a clipped turn: its history handle
			want := HistoryHandle(msgs[i : i+1])
			if !strings.Contains(stub, "[swc:"+want+" …]") || !slices.ContainsFunc(res.Recall, func(r Recallable) bool { return r.Handle == want && slices.Equal(r.Messages, []int{i}) }) {
				t.Errorf("%s: clipped turn %d does not show its handle %s, or Recall lacks it: %.80q", name, i, want, stub)
			}
			continue
		}
		want := observe.Handle(msgs[i].ToolCallID, msgs[i].Content)
		if m := handleRe.FindStringSubmatch(stub); m == nil || m[1] != want {
			t.Errorf("%s: the stub of message %d is not headed by its handle %s: %.80q", name, i, want, stub)
		}
	}
	for _, r := range res.Recall { // a loop consolidated as a conversation
		var ms []swc.Message
		for _, i := range r.Messages {
			ms = append(ms, msgs[i])
		}
		if HistoryHandle(ms) != r.Handle {
			t.Errorf("%s: history handle %s is not the handle of its messages", name, r.Handle)
		}
		all[r.Handle] = true
	}
	for _, m := range handleRe.FindAllStringSubmatch(res.Memory, -1) {
		if !all[m[1]] {
			t.Errorf("%s: the memory shows handle %s of no observation", name, m[1])
		}
	}
}

// sameStubs reports whether a and b stub the same messages alike.
func sameStubs(a, b map[int]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i, s := range a {
		if b[i] != s {
			return false
		}
	}
	return true
}
