// Package jobs runs consolidation jobs on River (riverqueue/river): durable
// (a job survives a restart; one killed midway is rescued and run again),
// unique per conversation (never two at once), on a bounded worker pool,
// retried with backoff when the gister fails. The SQLite driver is used
// here; a Postgres driver fits the same Queue.
package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"

	"github.com/swcmem/swc"
)

// Kind is the River job kind of a consolidation.
const Kind = "swc_consolidate"

// Args are a consolidation job's arguments; they make it unique.
type Args struct {
	Tenant       string `json:"tenant" river:"unique"`
	Conversation string `json:"conversation" river:"unique"`
}

// Kind implements river.JobArgs.
func (Args) Kind() string { return Kind }

// uniqueStates are the states in which a second job for the same
// conversation is refused: waiting, retrying or running.
var uniqueStates = []rivertype.JobState{
	rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
	rivertype.JobStateRetryable, rivertype.JobStateScheduled,
}

// InsertOpts implements river.JobArgsWithInsertOpts.
func (Args) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: uniqueStates}}
}

// Consolidator is what a job calls: Due says how long until the
// conversation is due (ok=false: nothing new), Consolidate does the work.
type Consolidator interface {
	Due(ctx context.Context, tenant, conv string) (wait time.Duration, ok bool, err error)
	Consolidate(ctx context.Context, tenant, conv string) (gists int, err error)
}

// Config holds the queue's settings; zero fields take the defaults shown.
type Config struct {
	Workers     int           // concurrent jobs (4)
	MaxAttempts int           // attempts before a job is discarded (10)
	JobTimeout  time.Duration // one attempt's limit (5m)
	// RescueAfter is how long a job may stay running before it is taken
	// for dead (its process killed) and run again (JobTimeout + 1m).
	RescueAfter time.Duration
	// PollInterval is how often the queue looks for due jobs (1s).
	PollInterval time.Duration
	Logger       *slog.Logger
	// OnResult, when set, is called after each attempt: err is nil on
	// success, snoozed when the job was put back to wait.
	OnResult func(err error, snoozed bool, gists int)
}

// Queue is the consolidation queue.
type Queue struct {
	client riverClient // *river.Client of the SQLite or the pgx driver
	// argsWhere selects one conversation's jobs in JobList (SQL of the
	// driver's dialect).
	argsWhere func(tenant, conv string) (string, river.NamedArgs)
	// schema checks that River's tables are at this River's version.
	schema func(ctx context.Context) error

	// A request absorbed by a running job may come after that job's last
	// look at the conversation (River completes jobs asynchronously), so
	// it is inserted again once the running job is done.
	followCtx    context.Context
	stopFollow   context.CancelFunc
	followMu     sync.Mutex
	following    map[Args]time.Time
	followWG     sync.WaitGroup
	followPeriod time.Duration
}

var _ swc.Queue = (*Queue)(nil)

type worker struct {
	river.WorkerDefaults[Args]
	c        Consolidator
	timeout  time.Duration
	onResult func(error, bool, int)
}

func (w *worker) Timeout(*river.Job[Args]) time.Duration { return w.timeout }

// Work runs one attempt: it waits (snoozes) while the conversation is not
// yet due, consolidates, and snoozes again when messages arrived meanwhile.
func (w *worker) Work(ctx context.Context, job *river.Job[Args]) error {
	a := job.Args
	report := func(err error, snoozed bool, gists int) {
		if w.onResult != nil {
			w.onResult(err, snoozed, gists)
		}
	}
	wait, ok, err := w.c.Due(ctx, a.Tenant, a.Conversation)
	if swc.ErrorCode(err) == swc.ENOTFOUND {
		report(nil, false, 0)
		return nil // deleted meanwhile
	}
	if err != nil {
		report(err, false, 0)
		return err
	}
	if !ok {
		report(nil, false, 0)
		return nil
	}
	if wait > 0 {
		report(nil, true, 0)
		return river.JobSnooze(wait)
	}
	gists, err := w.c.Consolidate(ctx, a.Tenant, a.Conversation)
	if swc.ErrorCode(err) == swc.ENOTFOUND {
		report(nil, false, 0)
		return nil
	}
	if err != nil {
		report(err, false, 0)
		return err // River retries with backoff
	}
	// Messages that arrived while this job ran could not enqueue a job
	// (this one was running): wait for them here.
	wait, ok, err = w.c.Due(ctx, a.Tenant, a.Conversation)
	if err == nil && ok {
		report(nil, true, gists)
		return river.JobSnooze(max(wait, time.Second))
	}
	report(nil, false, gists)
	return nil
}

// Open migrates River's tables in the SQLite database pool (which should
// allow one open connection) and starts a queue whose workers call c.
// The caller must Stop it.
func Open(ctx context.Context, pool *sql.DB, c Consolidator, cfg Config) (*Queue, error) {
	q, err := start(ctx, riversqlite.New(pool), c, cfg)
	if err != nil {
		return nil, err
	}
	// Filtered in SQL: the jobs of many conversations may wait.
	q.argsWhere = func(tenant, conv string) (string, river.NamedArgs) {
		return "args ->> '$.tenant' = @swc_tenant AND args ->> '$.conversation' = @swc_conv",
			river.NamedArgs{"swc_tenant": tenant, "swc_conv": conv}
	}
	return q, nil
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// quiet passes River's warnings and errors to l, not its info chatter.
func quiet(l *slog.Logger) *slog.Logger {
	if l == nil {
		l = slog.Default()
	}
	return slog.New(levelHandler{l.Handler(), slog.LevelWarn})
}

type levelHandler struct {
	slog.Handler
	min slog.Level
}

func (h levelHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

// Enqueue asks for a consolidation of the conversation at (or after) at.
// A job already waiting or running for it absorbs the request (it checks
// the schedule again when it runs).
func (q *Queue) Enqueue(ctx context.Context, tenant, conv string, at time.Time) error {
	a := Args{Tenant: tenant, Conversation: conv}
	res, err := q.client.Insert(ctx, a, when(at))
	if err != nil {
		return fmt.Errorf("jobs: enqueue: %w", err)
	}
	if res.UniqueSkippedAsDuplicate && res.Job.State == rivertype.JobStateRunning {
		q.follow(a, at)
	}
	return nil
}

// follow inserts a's job at at once the running one is finished. When the
// process dies first, the startup sweep (Store.Unconsolidated) covers it.
func (q *Queue) follow(a Args, at time.Time) {
	q.followMu.Lock()
	defer q.followMu.Unlock()
	if prev, ok := q.following[a]; ok {
		if at.Before(prev) {
			q.following[a] = at
		}
		return
	}
	q.following[a] = at
	q.followWG.Add(1)
	go func() {
		defer q.followWG.Done()
		t := time.NewTicker(q.followPeriod)
		defer t.Stop()
		for {
			select {
			case <-q.followCtx.Done():
				return
			case <-t.C:
			}
			q.followMu.Lock()
			at := q.following[a]
			q.followMu.Unlock()
			res, err := q.client.Insert(q.followCtx, a, when(at))
			if err == nil && res.UniqueSkippedAsDuplicate && res.Job.State == rivertype.JobStateRunning {
				continue
			}
			if err == nil && res.UniqueSkippedAsDuplicate && waiting(res.Job.State) && res.Job.ScheduledAt.After(at) {
				// The running job snoozed (or failed) while this request
				// waited: it stands for the request now, and must not
				// wait past it (it checks the schedule again when it runs).
				if _, err := q.client.JobRetry(q.followCtx, res.Job.ID); err != nil && !errors.Is(err, river.ErrNotFound) {
					continue // tried again on the next tick
				}
			}
			q.followMu.Lock()
			delete(q.following, a)
			q.followMu.Unlock()
			return
		}
	}()
}

// ConsolidateNow makes the conversation's job run now: a new one, or the
// one waiting for the schedule or a retry, moved to now. A running job is
// left to finish; it checks again when done. The caller records the
// request in the Store first (Store.RequestConsolidation), so the job does
// not wait for the schedule. It returns the job's id.
func (q *Queue) ConsolidateNow(ctx context.Context, tenant, conv string) (int64, error) {
	res, err := q.client.Insert(ctx, Args{Tenant: tenant, Conversation: conv}, nil)
	if err != nil {
		return 0, fmt.Errorf("jobs: enqueue: %w", err)
	}
	j := res.Job
	if res.UniqueSkippedAsDuplicate && j.State == rivertype.JobStateRunning {
		q.follow(Args{Tenant: tenant, Conversation: conv}, time.Now())
	}
	if res.UniqueSkippedAsDuplicate && waiting(j.State) {
		if _, err := q.client.JobRetry(ctx, j.ID); err != nil && !errors.Is(err, river.ErrNotFound) {
			return 0, fmt.Errorf("jobs: run waiting job now: %w", err)
		}
	}
	return j.ID, nil
}

// waiting reports whether a job in state s waits for its time: scheduled
// (snoozed or due later) or retryable.
func waiting(s rivertype.JobState) bool {
	return s == rivertype.JobStateScheduled || s == rivertype.JobStateRetryable
}

// Pending lists the conversation's jobs that are waiting, retrying or running.
func (q *Queue) Pending(ctx context.Context, tenant, conv string) ([]swc.Job, error) {
	params := river.NewJobListParams().Kinds(Kind).States(uniqueStates...).First(1000)
	w, named := q.argsWhere(tenant, conv) // in the database: many conversations' jobs may wait
	params = params.Where(w, named)
	res, err := q.client.JobList(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("jobs: list: %w", err)
	}
	out := []swc.Job{}
	for _, j := range res.Jobs {
		var a Args
		if decodeArgs(j, &a) != nil || a.Tenant != tenant || a.Conversation != conv {
			continue
		}
		job := swc.Job{ID: j.ID, State: string(j.State), Attempt: j.Attempt, ScheduledAt: j.ScheduledAt.UTC()}
		if n := len(j.Errors); n > 0 {
			job.LastError = j.Errors[n-1].Error
		}
		out = append(out, job)
	}
	return out, nil
}

// Ready returns nil while the queue runs (started, not stopped) and
// River's schema is at the version this build's River wants: the queue's
// part of a replica's readiness. It returns an error saying which is not.
func (q *Queue) Ready(ctx context.Context) error {
	select {
	case <-q.client.Stopped():
		return errors.New("jobs: the queue has stopped")
	default:
	}
	return q.schema(ctx)
}

// Stop stops fetching jobs and waits for running ones until ctx ends; then
// they are cancelled (and rescued after a restart).
func (q *Queue) Stop(ctx context.Context) error {
	q.stopFollow()
	q.followWG.Wait()
	err := q.client.Stop(ctx)
	if err != nil {
		err = errors.Join(err, q.client.StopAndCancel(context.Background()))
	}
	return err
}

func decodeArgs(j *rivertype.JobRow, a *Args) error {
	return json.Unmarshal(j.EncodedArgs, a)
}

// when returns insert options for a job due at at: none when at is not in
// the future, so the job is available at once rather than scheduled (River
// moves scheduled jobs only on its scheduler's next round).
func when(at time.Time) *river.InsertOpts {
	if !at.After(time.Now()) {
		return nil
	}
	return &river.InsertOpts{ScheduledAt: at}
}
