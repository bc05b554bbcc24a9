package trajectory

import (
	"context"
	"maps"
	"testing"
)

// stubCond rewrites the request's observations, all but the last keep of
// them, to text(handle) (handle: the observation's own): a compressor
// that hides outputs behind stubs, with a handle or without one.
type stubCond struct {
	name string
	keep int
	text func(handle string) string
}

func (s stubCond) Name() string { return s.name }

func (s stubCond) Compress(_ context.Context, q *Request, _ int) ([]byte, error) {
	p := newPlan(q)
	obs := p.observations()
	for _, i := range obs[:max(0, len(obs)-s.keep)] {
		p.rewrite(i, s.text(q.handles()[i]))
	}
	return p.body()
}

// TestTinyRecoverable counts recoverable FRR by hand on the tiny run (see
// tinyTargets): req1's targets are in t1, req2's in t2, req3's in t1.
//
//   - every observation stubbed with its handle: nothing in the text (FRR
//     0), everything behind a handle shown: recoverable 1.
//   - mask-1: "[output omitted]" names no handle: recoverable = FRR = 2/3;
//     req3's 3 targets missed, dropped without a handle line.
//   - all but the last observation written as the loop memory's count
//     line: req1 and req2 keep their last output (2/2, 2/2), req3's t1 is
//     in the count line: 3 misses "count line"; FRR = recoverable = 2/3.
//   - all but the last stubbed with another output's handle: req3's 3
//     targets are behind a handle that does not return them.
func TestTinyRecoverable(t *testing.T) {
	for _, tt := range []struct {
		cond     Condition
		frr, rec float64
		misses   map[string]int
	}{
		{stubCond{"stub-handle", 0, func(h string) string { return "[swc:" + h + " bash(…) → ok]" }}, 0, 1, nil},
		{Mask{K: 1}, 2.0 / 3, 2.0 / 3, map[string]int{MissNoHandleLine: 3}},
		{stubCond{"count-line", 1, func(string) string { return "[… 1 earlier calls left out]" }}, 2.0 / 3, 2.0 / 3, map[string]int{MissCountLine: 3}},
		{stubCond{"wrong-handle", 1, func(string) string { return "[swc:h0123456789 bash(…) → ok]" }}, 2.0 / 3, 2.0 / 3, map[string]int{MissNoHandleLine: 3}},
	} {
		var rows []Row
		r := &Runner{Trajectories: loadTiny(t), Conditions: []Condition{tt.cond}, Budgets: []int{100000},
			Write: func(row Row) error { rows = append(rows, row); return nil }}
		if err := r.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		s := Summarize(Settings{Budgets: []int{100000}, Conditions: []string{tt.cond.Name()}}, rows)
		if len(s.Cells) != 4 {
			t.Fatalf("%d cells, want openai, anthropic, responses and gemini", len(s.Cells))
		}
		for _, c := range s.Cells {
			name := c.Format + " " + c.Condition
			if c.FRRN != 3 || !near(c.FRR, tt.frr) || !near(c.RecFRR, tt.rec) {
				t.Errorf("%s: FRR %v recoverable %v over %d requests, want %v and %v over 3", name, c.FRR, c.RecFRR, c.FRRN, tt.frr, tt.rec)
			}
			if !maps.Equal(c.Misses, tt.misses) {
				t.Errorf("%s: misses %v, want %v", name, c.Misses, tt.misses)
			}
		}
		for _, row := range rows {
			if row.Recoverable < row.Retained || row.Recoverable+len(row.Unrecoverable) != row.Targets {
				t.Errorf("%s: %d targets, %d retained, %d recoverable, %d unrecoverable", row.Key(), row.Targets, row.Retained, row.Recoverable, len(row.Unrecoverable))
			}
		}
	}
}
