package agents

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/trajectory"
)

// TestCodexRollout: the session rollout the real Codex writes
// (CODEX_HOME/sessions/…/rollout-*.jsonl) is read by swc bench
// --trajectories as the Responses body of its last request, and its
// replay holds every request the upstream got, each within the API's
// rules.
func TestCodexRollout(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real agent program; not with -short")
	}
	npmBin(t, codex.bin)
	const steps = 12
	rn := prepare(t, codex, 0, steps, "")
	r := rn.start(t, rn.up.URL, "sk-direct")()
	rn.measure(&r, nil, nil)
	if !r.Finished {
		t.Fatalf("codex did not finish: %+v", r)
	}
	files, err := filepath.Glob(filepath.Join(rn.home, ".codex", "sessions", "*", "*", "*", "rollout-*.jsonl"))
	if err != nil || len(files) != 1 {
		t.Fatalf("rollouts %v (%v): want one", files, err)
	}
	dir := t.TempDir()
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.Base(files[0])), data, 0o644); err != nil {
		t.Fatal(err)
	}
	trs, _, err := trajectory.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(trs) != 1 || trs[0].Agent != "Codex" || len(trs[0].Bodies) != 1 || trs[0].Bodies[0].Format != chat.Responses {
		t.Fatalf("loaded %+v", trs)
	}
	rp, err := trajectory.NewReplay(trs[0].Name, trs[0].Bodies[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := rp.Len(); got != r.Loop {
		t.Errorf("the rollout replays as %d requests; the upstream got %d", got, r.Loop)
	}
	for i := range rp.Len() {
		q, err := rp.Request(i)
		if err != nil {
			t.Fatal(err)
		}
		if b := rp.Breaches(q.Body); len(b) > 0 {
			t.Errorf("request %d: breaches %q", i, b)
		}
	}
}
