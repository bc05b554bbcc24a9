package main

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/internal/locomotest"
	"github.com/swcmem/swc/locomo"
)

// TestDroppedMatchesActionsLoCoMo replays every LoCoMo conversation under
// six schedules with both SWC prompt variants and checks the account of
// what went: every chunk whose action is dropped or partial is listed
// exactly once in Dropped, nothing else is, and the count compress prints
// ("N sessions dropped or cut") agrees.
func TestDroppedMatchesActionsLoCoMo(t *testing.T) {
	path := locomotest.Wide(t)
	convs, _, err := locomo.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	schedules := []string{"end", "every-k", "every-k:2", "reactive", "reactive:2500", "idle"}
	bad := 0
	for _, sched := range schedules {
		e := offlineEngines(t, func(f *engineFlags) { f.schedule = sched })
		for _, name := range []string{"swc-full", "swc-temporal"} {
			s, err := e.strategy(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range convs {
				x, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: 4000})
				if err != nil {
					t.Fatal(err)
				}
				if msg := droppedMismatch(x); msg != "" {
					bad++
					t.Errorf("%s %s %s: %s", sched, name, c.ID, msg)
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d combinations disagree", bad, len(schedules)*2*len(convs))
	}
	// With --demote a verbatim chunk replaced by its gist is listed too
	// (its turns went), once, even when its gist is dropped later.
	for _, sched := range []string{"end", "every-k"} {
		e := offlineEngines(t, func(f *engineFlags) { f.schedule, f.demote, f.budget = sched, true, 3000 })
		s, err := e.strategy("swc-temporal")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range convs {
			for _, budget := range []int{1500, 3000} {
				x, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: budget})
				if err != nil {
					t.Fatal(err)
				}
				if msg := droppedMismatch(x); msg != "" {
					t.Errorf("demote %s %s budget %d: %s", sched, c.ID, budget, msg)
				}
			}
		}
	}
	// The printed count is the length of Dropped, so it agrees with the
	// chunk actions exactly when the account above does.
	_, stderr, err := run(t, nil, "compress", "--data", path, "--conversation", "0", "--strategy", "swc-full", "--schedule", "every-k", "--no-cache")
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, nil, "inspect", "--json", "--data", path, "--conversation", "0", "--strategy", "swc-full", "--schedule", "every-k", "--no-cache")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Count(out, `"action": "dropped"`) + strings.Count(out, `"action": "partial"`)
	m := regexp.MustCompile(`, (\d+) sessions? dropped or cut`).FindStringSubmatch(stderr)
	if m == nil || m[1] != strconv.Itoa(want) {
		t.Errorf("compress printed %q; the chunks say %d sessions dropped or cut", stderr, want)
	}
}

// droppedMismatch returns how x.Dropped disagrees with x.Chunks, or "".
func droppedMismatch(x *swc.Context) string {
	listed := map[int]int{}
	for _, d := range x.Dropped {
		listed[d.Session]++
	}
	var msgs []string
	for _, ch := range x.Chunks {
		gone := ch.Action == swc.ActionDropped || ch.Action == swc.ActionPartial ||
			(ch.Action == swc.ActionGist && ch.Tier == swc.TierHigh) // demoted
		switch n := listed[ch.Session]; {
		case gone && n != 1:
			msgs = append(msgs, fmt.Sprintf("session %d is %s but listed %d times", ch.Session, ch.Action, n))
		case !gone && n != 0:
			msgs = append(msgs, fmt.Sprintf("session %d is %s but listed as dropped", ch.Session, ch.Action))
		}
		delete(listed, ch.Session)
	}
	for s := range listed {
		msgs = append(msgs, fmt.Sprintf("dropped lists session %d, which has no chunk", s))
	}
	return strings.Join(msgs, "; ")
}
