package trajectory

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/swcmem/swc/internal/skipnote"
	"github.com/swcmem/swc/memory"
)

// devDir is the shared developer set of real trajectories.
const devDir = "../../shared/data/trajectories"

// TestDevSet replays two dev-set runs (a text-acting mini-swe-agent run,
// and an OpenHands run with native tool calls in both formats) at 2,000
// and 8,000 tokens: every request replays, the baselines send valid bodies within
// the budget or keep only the latest turn, and observation masking keeps
// no more than truncation's tokens' worth of old outputs; swc's stubs show
// handles recover.go resolves (some targets hidden behind them), the
// baselines' placeholders none.
func TestDevSet(t *testing.T) {
	files := []string{"mini_django__django-16255.json", "openhands_llama-4-maverick_ponylang__ponyc-4595.json"}
	var trajs []Trajectory
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(devDir, f))
		if err != nil {
			abs, _ := filepath.Abs(devDir)
			skipnote.Skip(t, "trajectories", "the developer set is not at "+abs+", so the trajectory bench's test over it skips")
		}
		tr, err := parseFile(f, data)
		if err != nil {
			t.Fatal(err)
		}
		trajs = append(trajs, tr)
	}
	base, err := memory.New(memory.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var rows []Row
	r := &Runner{Trajectories: trajs, Budgets: []int{2000, 8000},
		Conditions: []Condition{Truncation{}, Mask{K: 5}, TrimHalf{}, NewSWC("swc", base)},
		Write:      func(row Row) error { rows = append(rows, row); return nil }}
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	// 17 requests of the mini run; 23 of the OpenHands run in each format
	if want := (17 + 23 + 23) * 4 * 2; len(rows) != want {
		t.Fatalf("%d rows, want %d", len(rows), want)
	}
	targets, behindHandle := 0, 0
	for _, row := range rows {
		if row.Recoverable < row.Retained || row.Recoverable+len(row.Unrecoverable) != row.Targets {
			t.Errorf("%s: %d targets, %d retained, %d recoverable, %d unrecoverable", row.Key(), row.Targets, row.Retained, row.Recoverable, len(row.Unrecoverable))
		}
		if row.Condition != "swc" && row.Recoverable != row.Retained {
			t.Errorf("%s: a baseline recovered %d targets it did not send", row.Key(), row.Recoverable-row.Retained)
		}
		if row.Condition == "swc" {
			behindHandle += row.Recoverable - row.Retained
		}
		if len(row.Breaches) > 0 {
			t.Errorf("%s: breaches %v", row.Key(), row.Breaches)
		}
		if row.Condition != "swc" && row.Refused != "" {
			t.Errorf("%s: a baseline refused: %s", row.Key(), row.Refused)
		}
		if row.Refused == "" && row.SentTokens > row.RawTokens {
			t.Errorf("%s: sent %d tokens of %d", row.Key(), row.SentTokens, row.RawTokens)
		}
		if row.Retained > row.Targets {
			t.Errorf("%s: %d of %d targets retained", row.Key(), row.Retained, row.Targets)
		}
		targets += row.Targets
	}
	if behindHandle == 0 {
		t.Error("swc hid no target behind a handle its request shows: the stubs' handles and recover.go's differ")
	}
	if targets == 0 {
		t.Error("no request has a target: the identifier extraction or the observation check finds nothing")
	}
}
