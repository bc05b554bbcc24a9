package preserve

import (
	"testing"
	"time"

	"github.com/swcmem/swc/internal/locomotest"
	"github.com/swcmem/swc/locomo"
)

var locomoPath = locomotest.Path()

// TestLoCoMo runs the whole offline analysis on the ten LoCoMo
// conversations: compression under the five conditions and the audit. The
// time is logged, not asserted (a shared machine makes wall-clock bars
// flaky); BenchmarkCompressAll in cmd/swc measures it.
func TestLoCoMo(t *testing.T) {
	locomotest.Wide(t)
	start := time.Now()
	convs, _, err := locomo.LoadFile(locomoPath)
	if err != nil {
		t.Fatal(err)
	}
	contexts := compressAll(t, convs)
	compressed := time.Since(start)
	r := Analyze(convs, contexts)
	total := time.Since(start)
	t.Logf("load+compress %v, analysis %v, total %v", compressed, total-compressed, total)
	if len(r.PerConversation) != 10 {
		t.Errorf("%d conversations", len(r.PerConversation))
	}
	checkOffline(t, r)
	for _, v := range r.Conditions {
		c := r.Counts(Temporal, v)
		t.Logf("%-17s temporal %d/%d value %d  entity %d/%d  event %d/%d", v, c.Preserved, c.Found, *c.ValuePreserved,
			r.Counts(Entity, v).Preserved, r.Counts(Entity, v).Found, r.Counts(Event, v).Preserved, r.Counts(Event, v).Found)
	}
}
