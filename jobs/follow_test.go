package jobs

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// fakeRiver answers Insert with the duplicates it is given in turn (the
// last one again past them) and records JobRetry.
type fakeRiver struct {
	riverClient
	mu      sync.Mutex
	inserts []*rivertype.JobInsertResult
	n       int
	retried []int64
}

func (f *fakeRiver) Insert(context.Context, river.JobArgs, *river.InsertOpts) (*rivertype.JobInsertResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.inserts[min(f.n, len(f.inserts)-1)]
	f.n++
	return r, nil
}

func (f *fakeRiver) JobRetry(_ context.Context, id int64) (*rivertype.JobRow, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.retried = append(f.retried, id)
	return &rivertype.JobRow{ID: id}, nil
}

func dup(state rivertype.JobState, at time.Time) *rivertype.JobInsertResult {
	return &rivertype.JobInsertResult{Job: &rivertype.JobRow{ID: 7, State: state, ScheduledAt: at}, UniqueSkippedAsDuplicate: true}
}

// TestConsolidateNowAfterSnooze: a consolidation asked for while the
// conversation's job runs waits for that job; when the job then snoozes
// (it looked before the request was recorded) or fails, the request
// moves it to now instead of waiting out the snooze (an hour under an
// idle schedule: the kill -9 test waited for it ~1 run in 5). A job
// waiting no later than asked is left as it is.
func TestConsolidateNowAfterSnooze(t *testing.T) {
	now := time.Date(2026, 12, 3, 15, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name  string
		then  *rivertype.JobInsertResult
		retry bool
	}{
		{"snoozed an hour", dup(rivertype.JobStateScheduled, now.Add(time.Hour)), true},
		{"failed, retried later", dup(rivertype.JobStateRetryable, now.Add(time.Minute)), true},
		{"scheduled no later than asked", dup(rivertype.JobStateScheduled, now), false},
		{"done: a new job", &rivertype.JobInsertResult{Job: &rivertype.JobRow{ID: 8, State: rivertype.JobStateAvailable}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeRiver{inserts: []*rivertype.JobInsertResult{dup(rivertype.JobStateRunning, now), dup(rivertype.JobStateRunning, now), c.then}}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			q := &Queue{client: f, followCtx: ctx, stopFollow: cancel, following: map[Args]time.Time{}, followPeriod: time.Millisecond}
			q.follow(Args{Tenant: "t", Conversation: "c"}, now)
			q.followWG.Wait()
			f.mu.Lock()
			defer f.mu.Unlock()
			if got := len(f.retried) > 0; got != c.retry {
				t.Errorf("JobRetry %v, want %v (inserts %d)", f.retried, c.retry, f.n)
			}
			if f.n != 3 {
				t.Errorf("%d inserts, want 3 (two while the job ran, one after)", f.n)
			}
		})
	}
}
