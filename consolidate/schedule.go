package consolidate

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/swcmem/swc"
)

// ScheduleKind names when consolidation runs during replay.
type ScheduleKind string

// Schedules.
const (
	// End consolidates once, after the last session: the paper's offline
	// evaluation.
	End ScheduleKind = "end"
	// EveryK consolidates after every K sessions.
	EveryK ScheduleKind = "every-k"
	// Reactive consolidates when the context (the last consolidation plus
	// the sessions since) exceeds Threshold tokens.
	Reactive ScheduleKind = "reactive"
	// Idle consolidates when the gap before the next session's start is
	// longer than Window: offline, the gap between session start times is
	// the idle time. The end of the conversation is not an idle window.
	Idle ScheduleKind = "idle"
	// Through consolidates once, after the first At sessions (none when At
	// is 0); later sessions are pending. The service uses it to rebuild the
	// context its last consolidation job made.
	Through ScheduleKind = "through"
)

// Schedule configures replay.
type Schedule struct {
	Kind      ScheduleKind
	K         int           // every-k; default 3
	Threshold int           // reactive, tokens; default the budget
	Window    time.Duration // idle; default 6h
	At        int           // through: sessions consolidated
}

// ParseSchedule reads "end", "every-k", "every-3", "reactive",
// "reactive:5000", "idle", "idle:12h". It returns an EINVALID error naming
// the valid forms otherwise.
func ParseSchedule(s string) (Schedule, error) {
	kind, arg, hasArg := strings.Cut(strings.TrimSpace(s), ":")
	bad := swc.Errorf(swc.EINVALID, "unknown schedule %q (want end, every-k[:K], reactive[:TOKENS] or idle[:DURATION])", s)
	switch {
	case kind == "" || kind == string(End):
		if hasArg {
			return Schedule{}, bad
		}
		return Schedule{Kind: End}, nil
	case kind == string(EveryK) || strings.HasPrefix(kind, "every-"):
		k := 3
		num := strings.TrimPrefix(kind, "every-")
		if num != "k" {
			if hasArg { // every-3:9
				return Schedule{}, bad
			}
			arg, hasArg = num, true
		}
		if hasArg {
			n, err := strconv.Atoi(arg)
			if err != nil || n < 1 {
				return Schedule{}, bad
			}
			k = n
		}
		return Schedule{Kind: EveryK, K: k}, nil
	case kind == string(Reactive):
		sc := Schedule{Kind: Reactive}
		if hasArg {
			n, err := strconv.Atoi(arg)
			if err != nil || n < 1 {
				return Schedule{}, bad
			}
			sc.Threshold = n
		}
		return sc, nil
	case kind == string(Idle):
		sc := Schedule{Kind: Idle, Window: 6 * time.Hour}
		if hasArg {
			d, err := time.ParseDuration(arg)
			if err != nil || d <= 0 {
				return Schedule{}, bad
			}
			sc.Window = d
		}
		return sc, nil
	}
	return Schedule{}, bad
}

// String returns the schedule in the form ParseSchedule reads.
func (s Schedule) String() string {
	switch s.Kind {
	case EveryK:
		return fmt.Sprintf("every-%d", s.k())
	case Reactive:
		if s.Threshold > 0 {
			return fmt.Sprintf("reactive:%d", s.Threshold)
		}
		return "reactive"
	case Idle:
		return "idle:" + shortDuration(s.window())
	case Through:
		return fmt.Sprintf("through:%d", s.At)
	}
	return string(End)
}

func (s Schedule) k() int {
	if s.K <= 0 {
		return 3
	}
	return s.K
}

func (s Schedule) window() time.Duration {
	if s.Window <= 0 {
		return 6 * time.Hour
	}
	return s.Window
}

// run replays n sessions and calls consolidate(upto) at each point the
// schedule fires; cost(i) is session i's tokens (tokens.Session);
// consolidate returns the context's tokens after it (unused, and may be
// 0, after the last session). run
// returns the points (session counts) at which consolidation ran.
func (s Schedule) run(n, budget int, c *swc.Conversation, cost func(i int) int, consolidate func(upto int) (int, error)) ([]int, error) {
	var points []int
	state, pending := 0, 0
	threshold := s.Threshold
	if threshold <= 0 {
		threshold = budget
	}
	for i := 1; i <= n; i++ { // i sessions have arrived
		ses := &c.Sessions[i-1]
		pending += cost(i - 1)
		var fire bool
		switch s.Kind {
		case EveryK:
			fire = i%s.k() == 0
		case Reactive:
			fire = state+pending > threshold
		case Idle:
			fire = i < n && c.Sessions[i].Start.Sub(ses.Start) > s.window()
		case Through:
			fire = i == s.At
		default:
			fire = i == n
		}
		if !fire {
			continue
		}
		if s.Kind == End {
			points = append(points, i)
			break // the final plan is made by the caller
		}
		t, err := consolidate(i)
		if err != nil {
			return nil, err
		}
		points = append(points, i)
		state, pending = t, 0
	}
	return points, nil
}

// shortDuration formats 6h as "6h" rather than "6h0m0s".
func shortDuration(d time.Duration) string {
	out := d.String()
	if strings.HasSuffix(out, "m0s") {
		out = out[:len(out)-2]
	}
	if strings.HasSuffix(out, "h0m") {
		out = out[:len(out)-2]
	}
	return out
}
