package memory

import (
	"context"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

func TestOriginal(t *testing.T) {
	at := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	tests := []struct {
		name string
		msgs []swc.Message
		want string
	}{
		{"one", []swc.Message{{Role: swc.RoleUser, Content: "Hi  there\n\nsecond line"}}, "[user]\nHi  there\n\nsecond line"},
		{"named and dated", []swc.Message{
			{Role: swc.RoleUser, Name: "Caroline", Time: at, Content: "Hey Mel!"},
			{Role: swc.RoleAssistant, Name: "Melanie", Content: "Hey!"},
		}, "[user Caroline, 2023-05-08T13:56:00Z]\nHey Mel!\n\n[assistant Melanie]\nHey!"},
		{"tool call", []swc.Message{
			{Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: "c1", Name: "date", Arguments: `{}`}}},
			{Role: swc.RoleTool, ToolCallID: "c1", Content: "Monday"},
		}, "[assistant]\n\n[calls date({}) c1]\n\n[tool, result of c1]\nMonday"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Original(tt.msgs); got != tt.want {
				t.Errorf("Original:\n%q\nwant\n%q", got, tt.want)
			}
			if h := HistoryHandle(tt.msgs); !regexp.MustCompile(`^h[0-9a-f]{10}$`).MatchString(h) || h != handleOfText(tt.want) {
				t.Errorf("HistoryHandle %q", h)
			}
		})
	}
	a := []swc.Message{{Role: swc.RoleUser, Content: "x"}}
	b := []swc.Message{{Role: swc.RoleUser, Content: "y"}}
	if HistoryHandle(a) == HistoryHandle(b) {
		t.Error("two histories, one handle")
	}
}

var memHandle = regexp.MustCompile(`\[swc:(h[0-9a-f]{10})\]`)

// headHandle matches a memory block's header line that ends with a
// handle: the sessions it stands for and the handle.
var headHandle = regexp.MustCompile(`(?m)^\[(?:Session (\d+) —[^\n]*?|Summary of sessions (\d+)–(\d+)\]|Sessions? (\d+)(?:–(\d+))? omitted\]) \[swc:(h[0-9a-f]{10})\]$`)

// TestMemoryHandles: over LoCoMo as chat messages (the built-in sample
// under -short), at several budgets and strategies, every handle the
// memory message shows is listed in Result.Recall, names the messages of
// the sessions its header names, and is HistoryHandle of them; every
// session of the history is either under a handle or kept whole in the
// memory; the memory is the same bytes from a new Compressor; the budget
// holds.
func TestMemoryHandles(t *testing.T) {
	convs := loadLoCoMo(t)
	budgets := []int{1500, 4000, 8000}
	strategies := []string{"swc-anchored", "swc-select", "sliding", "truncation"}
	if testing.Short() {
		convs, budgets = convs[:1], []int{4000}
	}
	ctx := context.Background()
	shown := 0
	for _, conv := range convs {
		msgs := chat.FromConversation(conv)
		for _, budget := range budgets {
			for _, strat := range strategies {
				name := conv.ID + "/" + strat + "/" + strconv.Itoa(budget)
				o := DefaultOptions()
				o.Budget, o.Strategy, o.HistoryHandles = budget, strat, true
				res, err := mustNew(t, o).Compress(ctx, msgs)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if res.Fits {
					continue
				}
				if res.OverBudget > 0 || res.Tokens > budget {
					t.Errorf("%s: %d tokens over a budget of %d", name, res.Tokens, budget)
				}
				again, _ := mustNew(t, o).Compress(ctx, msgs)
				if again.Memory != res.Memory {
					t.Errorf("%s: two Compressors, two memories", name)
				}
				checkMemoryHandles(t, name, msgs, res)
				shown += len(res.Recall)
			}
		}
	}
	if shown == 0 {
		t.Error("no memory showed a handle")
	}
	t.Logf("%d handles checked", shown)
}

// checkMemoryHandles checks res's memory handles against msgs (see
// TestMemoryHandles).
func checkMemoryHandles(t *testing.T, name string, msgs []swc.Message, res *Result) {
	t.Helper()
	heads := headHandle.FindAllStringSubmatch(res.Memory, -1)
	if all := memHandle.FindAllString(res.Memory, -1); len(all) != len(heads) || len(heads) != len(res.Recall) {
		t.Fatalf("%s: %d handles shown, %d on header lines, %d in Result.Recall", name, len(all), len(heads), len(res.Recall))
	}
	covered := map[int]bool{}
	for k, m := range heads {
		r := res.Recall[k]
		first, last := m[1], m[1]
		if m[2] != "" {
			first, last = m[2], m[3]
		}
		if m[4] != "" {
			first, last = m[4], m[4]
			if m[5] != "" {
				last = m[5]
			}
		}
		a, _ := strconv.Atoi(first)
		b, _ := strconv.Atoi(last)
		if m[6] != r.Handle || r.First != a-1 || r.Last != b-1 {
			t.Errorf("%s: header %q; Recall[%d] = %s sessions %d–%d", name, m[0], k, r.Handle, r.First, r.Last)
			continue
		}
		var want []int
		for s := a - 1; s <= b-1; s++ {
			sp := res.Sessions[s]
			for i := sp.First; i <= sp.Last; i++ {
				if !chat.IsInstruction(msgs[i]) {
					want = append(want, i)
				}
			}
			covered[s] = true
		}
		if !equalInts(r.Messages, want) {
			t.Errorf("%s: %s stands for messages %v; its sessions hold %v", name, r.Handle, r.Messages, want)
		}
		pick := make([]swc.Message, len(r.Messages))
		for j, i := range r.Messages {
			pick[j] = msgs[i]
		}
		if HistoryHandle(pick) != r.Handle {
			t.Errorf("%s: %s is not the handle of its messages", name, r.Handle)
		}
	}
	for _, sp := range res.Sessions {
		if covered[sp.Session] {
			continue
		}
		whole := false
		for _, ch := range res.Context.Chunks {
			whole = whole || (ch.Session == sp.Session && ch.Action == swc.ActionVerbatim)
		}
		if !whole {
			t.Errorf("%s: session %d is neither under a handle nor whole in the memory", name, sp.Session+1)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
