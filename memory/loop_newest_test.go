package memory

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/observe"
)

// longOutput returns an output of n lines with one error line in its
// middle, which a cut must keep.
func longOutput(n int) string {
	var b strings.Builder
	for i := range n {
		if i == n/2 {
			b.WriteString("ERROR: ParseHeaderError in src/app/parser.py:1234: empty header line\n")
			continue
		}
		fmt.Fprintf(&b, "row %d of the listing: value %d, state ok\n", i, i*37)
	}
	return b.String()
}

// parallelLoop is a loop whose last turn made three calls, their outputs
// of about small, mid and big lines.
func parallelLoop(small, mid, big int) []swc.Message {
	msgs := []swc.Message{
		{Role: swc.RoleSystem, Content: "You are a coding agent."},
		{Role: swc.RoleUser, Content: "Fix the crash in src/app/parser.py."},
		{Role: swc.RoleAssistant, Content: "Reading the files.", ToolCalls: []swc.ToolCall{
			{ID: "call_a", Name: "read", Arguments: `{"path":"a.txt"}`},
			{ID: "call_b", Name: "read", Arguments: `{"path":"b.txt"}`},
			{ID: "call_c", Name: "read", Arguments: `{"path":"c.txt"}`},
		}},
	}
	for _, k := range []struct {
		id string
		n  int
	}{{"call_a", small}, {"call_b", mid}, {"call_c", big}} {
		msgs = append(msgs, swc.Message{Role: swc.RoleTool, ToolCallID: k.id, Content: longOutput(k.n)})
	}
	return msgs
}

// TestLoopHoldBudget: with HoldBudget, a loop whose newest outputs alone
// overflow the budget has them cut, by water-filling, to stubs that keep
// their handle and error line, and fits; without it they go whole and the
// request goes over; when nothing cut down to a stub's least fits, nothing
// is cut.
func TestLoopHoldBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	huge := func(text bool) []swc.Message {
		msgs := genLoop(rng, 10, text, 30)
		msgs[len(msgs)-1].Content = longOutput(3000)
		if text {
			msgs[len(msgs)-1].Content = "<returncode>1</returncode>\n<output>\n" + longOutput(3000) + "</output>"
		}
		return msgs
	}
	longTask := parallelLoop(20, 400, 900)
	longTask[1].Content += "\n" + strings.Repeat("The task's own long context, which no compression removes. ", 600)
	cases := []struct {
		name   string
		msgs   []swc.Message
		budget int
		cut    int  // outputs cut with HoldBudget
		fits   bool // with HoldBudget
	}{
		{"huge last output", huge(false), 2000, 1, true},
		{"text agent's huge last output", huge(true), 2000, 1, true},
		{"parallel outputs", parallelLoop(20, 400, 900), 6000, 2, true},
		{"parallel outputs, a tight budget", parallelLoop(20, 400, 900), 700, 3, true},
		{"a task over the budget", longTask, 2000, 0, false},
	}
	for _, tc := range cases {
		for _, align := range []bool{false, true} {
			name := fmt.Sprintf("%s (align %v)", tc.name, align)
			o := DefaultOptions()
			o.Budget, o.AlignUser = tc.budget, align
			res, err := mustNew(t, o).Compress(context.Background(), tc.msgs)
			if err != nil {
				t.Fatal(err)
			}
			if res.OverBudget == 0 || len(res.Truncated) > 0 {
				t.Fatalf("%s: without HoldBudget %d tokens, cut %v: the test needs the newest outputs over the budget, whole", name, res.Tokens, res.Truncated)
			}
			o.HoldBudget = true
			c := mustNew(t, o)
			res, err = c.Compress(context.Background(), tc.msgs)
			if err != nil {
				t.Fatal(err)
			}
			checkLoop(t, name, c, tc.msgs, res)
			if len(res.Truncated) != tc.cut || (res.OverBudget == 0) != tc.fits || res.Tokens > o.Budget && tc.fits {
				t.Errorf("%s: cut %v, %d tokens, over by %d; want %d cut, fits %v", name, res.Truncated, res.Tokens, res.OverBudget, tc.cut, tc.fits)
			}
			checkHeld(t, name, c, tc.msgs, res)
		}
	}
}

// checkHeld checks the outputs res cut: each a stub of the output's
// handle holding its error line, smaller than the output, in place, its
// call id as it was; and water-filling: every newest output left whole is
// smaller than every one cut.
func checkHeld(t *testing.T, name string, c *Compressor, msgs []swc.Message, res *Result) {
	t.Helper()
	leastCut := -1 // the smallest output cut
	for _, i := range res.Truncated {
		m := msgs[i]
		p := slices.Index(res.Source, i)
		if p < 0 {
			t.Errorf("%s: cut output %d is not sent", name, i)
			continue
		}
		st := res.Messages[p]
		h := observe.Handle(m.ToolCallID, m.Content)
		if st.Content != res.Rewritten[i] || !strings.Contains(st.Content, "[swc:"+h) || st.ToolCallID != m.ToolCallID || st.Role != m.Role {
			t.Errorf("%s: output %d cut to %.120q (handle %s)", name, i, st.Content, h)
		}
		if !strings.Contains(st.Content, "ParseHeaderError in src/app/parser.py:1234") {
			t.Errorf("%s: output %d cut without its error line", name, i)
		}
		if n := c.Cost(st); n >= c.Cost(m) {
			t.Errorf("%s: output %d cut to %d tokens of %d", name, i, n, c.Cost(m))
		}
		if n := c.Cost(m); leastCut < 0 || n < leastCut {
			leastCut = n
		}
	}
	l := asLoop(msgs)
	for _, i := range l.units[len(l.units)-1].obs {
		if !slices.Contains(res.Truncated, i) && leastCut >= 0 && c.Cost(msgs[i]) >= leastCut {
			t.Errorf("%s: output %d of %d tokens left whole, one of %d cut", name, i, c.Cost(msgs[i]), leastCut)
		}
	}
}
