package trajectory

import (
	"context"
	"maps"
	"regexp"
	"testing"

	"github.com/swcmem/swc/memory"
)

// tinyCallID matches the tiny run's call ids (call_1 … call_4).
var tinyCallID = regexp.MustCompile(`"call_[0-9]+"`)

// loadTinyReused returns the tiny run with every call named "call_0",
// as an agent whose SDK numbers each turn's calls sends it.
func loadTinyReused(t *testing.T) []Trajectory {
	t.Helper()
	var out []Trajectory
	for _, tr := range loadTiny(t) {
		for k := range tr.Bodies {
			b := &tr.Bodies[k]
			b.Data = tinyCallID.ReplaceAll(b.Data, []byte(`"call_0"`))
		}
		out = append(out, tr)
	}
	return out
}

// TestTinyReusedIDs: the tiny run with every call id "call_0" scores as
// the run with ids of their own, under every condition of
// TestTinyRecoverable, truncation and swc: no breach (the Responses
// check pairs an output with the latest call of its id), the same FRR
// and recoverable FRR (a handle is of the output, whatever its id).
func TestTinyReusedIDs(t *testing.T) {
	base, err := memory.New(memory.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	handle := func(h string) string { return "[swc:" + h + " bash(…) → ok]" }
	for _, tt := range []struct {
		cond   Condition
		budget int
	}{
		{stubCond{"stub-handle", 0, handle}, 100000},
		{stubCond{"stub-handle-1", 1, handle}, 100000},
		{Mask{K: 1}, 100000},
		{Truncation{}, 1},
		{NewSWC("swc", base), 100},
		{NewSWC("swc", base), 100000},
	} {
		run := func(trajs []Trajectory) map[string]Cell {
			var rows []Row
			r := &Runner{Trajectories: trajs, Conditions: []Condition{tt.cond}, Budgets: []int{tt.budget},
				Write: func(row Row) error { rows = append(rows, row); return nil }}
			if err := r.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			for _, row := range rows {
				if len(row.Breaches) > 0 || row.Refused != "" {
					t.Errorf("%s@%d: breaches %q, refused %q", row.Key(), tt.budget, row.Breaches, row.Refused)
				}
			}
			cells := map[string]Cell{}
			for _, c := range Summarize(Settings{Budgets: []int{tt.budget}, Conditions: []string{tt.cond.Name()}}, rows).Cells {
				cells[c.Format] = c
			}
			return cells
		}
		own, reused := run(loadTiny(t)), run(loadTinyReused(t))
		if len(reused) != 4 {
			t.Fatalf("%d cells, want openai, anthropic, responses and gemini", len(reused))
		}
		for f, c := range reused {
			o := own[f]
			name := f + " " + c.Condition
			if c.Requests != o.Requests || c.FRRN != o.FRRN || !near(c.FRR, o.FRR) || !near(c.RecFRR, o.RecFRR) || !maps.Equal(c.Misses, o.Misses) {
				t.Errorf("%s@%d: ids reused: FRR %v recoverable %v misses %v over %d; ids their own: %v %v %v over %d",
					name, tt.budget, c.FRR, c.RecFRR, c.Misses, c.FRRN, o.FRR, o.RecFRR, o.Misses, o.FRRN)
			}
			if c.Breaches != 0 || c.OverBudget != o.OverBudget {
				t.Errorf("%s@%d: %d breaches, %d over budget (ids their own: %d)", name, tt.budget, c.Breaches, c.OverBudget, o.OverBudget)
			}
		}
	}
}
