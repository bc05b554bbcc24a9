package retry

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// sleeps records the backoff waits instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

var (
	errTransient = errors.New("transient")
	errFatal     = errors.New("fatal")
)

// classifyTest retries errTransient (with the wait in after, if any) and
// context.DeadlineExceeded, and nothing else.
func classifyTest(after time.Duration) func(error, time.Time) Verdict {
	return func(err error, _ time.Time) Verdict {
		switch {
		case errors.Is(err, errTransient):
			return Verdict{Retry: true, After: after, Status: 503, Kind: "overloaded", Msg: "busy"}
		case errors.Is(err, context.DeadlineExceeded):
			return Verdict{Retry: true, Kind: KindTimeout, Msg: err.Error()}
		}
		return Verdict{Status: 400, Kind: "invalid", Msg: err.Error()}
	}
}

// failing returns a call that fails with errs in order and then succeeds,
// counting its calls in n.
func failing(n *atomic.Int32, errs ...error) func(context.Context) error {
	return func(context.Context) error {
		i := int(n.Add(1)) - 1
		if i < len(errs) {
			return errs[i]
		}
		return nil
	}
}

func TestDo(t *testing.T) {
	tests := []struct {
		name         string
		cfg          Config
		after        time.Duration
		errs         []error
		wantAttempts int
		wantErr      error
		wantKind     string
		wantSleep    []time.Duration // nil: not checked
	}{
		{name: "ok first time", errs: nil, wantAttempts: 1, wantSleep: []time.Duration{}},
		{name: "transient then ok", errs: []error{errTransient, errTransient}, wantAttempts: 3},
		{name: "fatal is not retried", errs: []error{errFatal}, wantAttempts: 1, wantErr: errFatal, wantKind: "invalid", wantSleep: []time.Duration{}},
		{
			name: "attempts run out", cfg: Config{MaxAttempts: 2},
			errs:         []error{errTransient, errTransient, errTransient},
			wantAttempts: 2, wantErr: errTransient, wantKind: "overloaded",
		},
		{
			name: "Retry-After honoured", after: 7 * time.Second,
			errs: []error{errTransient}, wantAttempts: 2, wantSleep: []time.Duration{7 * time.Second},
		},
		{
			name: "Retry-After capped", cfg: Config{MaxRetryAfter: 3 * time.Second}, after: time.Hour,
			errs: []error{errTransient}, wantAttempts: 2, wantSleep: []time.Duration{3 * time.Second},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &sleeps{}
			cfg := tt.cfg
			cfg.Sleep, cfg.Seed = s.sleep, 1
			var calls atomic.Int32
			n, v, err := New(cfg, classifyTest(tt.after)).Do(context.Background(), failing(&calls, tt.errs...))
			if n != tt.wantAttempts || int(calls.Load()) != n {
				t.Errorf("attempts = %d (%d calls), want %d", n, calls.Load(), tt.wantAttempts)
			}
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) || v.Kind != tt.wantKind {
				t.Errorf("err = %v, kind %q; want %v, kind %q", err, v.Kind, tt.wantErr, tt.wantKind)
			}
			if len(s.d) != n-1 {
				t.Errorf("%d sleeps for %d attempts", len(s.d), n)
			}
			if tt.wantSleep != nil && fmt.Sprint(s.d) != fmt.Sprint(tt.wantSleep) {
				t.Errorf("sleeps = %v, want %v", s.d, tt.wantSleep)
			}
		})
	}
}

func TestBackoffGrowsWithJitter(t *testing.T) {
	s := &sleeps{}
	var calls atomic.Int32
	r := New(Config{MaxAttempts: 5, Sleep: s.sleep, Seed: 1}, classifyTest(0))
	_, _, err := r.Do(context.Background(), failing(&calls, errTransient, errTransient, errTransient, errTransient, errTransient))
	if !errors.Is(err, errTransient) {
		t.Fatalf("err = %v", err)
	}
	if len(s.d) != 4 {
		t.Fatalf("sleeps = %v", s.d)
	}
	distinct := map[time.Duration]bool{}
	for i, d := range s.d {
		lo := time.Second << i / 2
		if d < lo || d >= 2*lo {
			t.Errorf("sleep %d = %v, want in [%v, %v)", i, d, lo, 2*lo)
		}
		distinct[d-lo] = true
	}
	if len(distinct) < 2 {
		t.Errorf("sleeps %v have no jitter", s.d)
	}
}

func TestTimeout(t *testing.T) {
	s := &sleeps{}
	r := New(Config{Timeout: 20 * time.Millisecond, MaxAttempts: 3, Sleep: s.sleep}, classifyTest(0))
	var calls atomic.Int32
	n, v, err := r.Do(context.Background(), func(ctx context.Context) error {
		calls.Add(1)
		<-ctx.Done()
		return ctx.Err()
	})
	if n != 3 || calls.Load() != 3 || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("attempts %d, calls %d, err %v", n, calls.Load(), err)
	}
	if v.Kind != KindTimeout || v.Msg != "no response within 20ms" {
		t.Errorf("verdict = %+v", v)
	}
}

func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	r := New(Config{Timeout: 5 * time.Second}, classifyTest(0))
	start := time.Now()
	n, v, err := r.Do(ctx, func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	})
	if n != 1 || !errors.Is(err, context.DeadlineExceeded) || v.Kind != KindInterrupted {
		t.Fatalf("attempts %d, verdict %+v, err %v", n, v, err)
	}
	if el := time.Since(start); el > time.Second {
		t.Errorf("took %v", el)
	}
	// A ctx that ends during the backoff sleep (the real timer) interrupts too.
	ctx, cancel = context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	var calls atomic.Int32
	n, v, err = New(Config{BaseDelay: time.Hour, MaxDelay: time.Hour}, classifyTest(0)).Do(ctx, failing(&calls, errTransient, errTransient))
	if n != 1 || !errors.Is(err, context.DeadlineExceeded) || v.Kind != KindInterrupted {
		t.Fatalf("during sleep: attempts %d, verdict %+v, err %v", n, v, err)
	}
}

func TestConcurrencyBound(t *testing.T) {
	var inflight, peak atomic.Int32
	r := New(Config{Concurrency: 3}, classifyTest(0))
	call := func(context.Context) error {
		n := inflight.Add(1)
		defer inflight.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(10 * time.Millisecond)
		return nil
	}
	var wg sync.WaitGroup
	for range 24 {
		wg.Go(func() {
			if _, _, err := r.Do(context.Background(), call); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if p := peak.Load(); p != 3 {
		t.Errorf("peak in flight = %d, want 3", p)
	}
}

func TestRPM(t *testing.T) {
	r := New(Config{RPM: 6000}, classifyTest(0)) // one per 10ms
	start := time.Now()
	for range 11 {
		if _, _, err := r.Do(context.Background(), func(context.Context) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if el := time.Since(start); el < 95*time.Millisecond {
		t.Errorf("11 calls at 6000 rpm took %v, want ≥ 100ms", el)
	}
}

func TestWithDefaults(t *testing.T) {
	got := Config{MaxAttempts: 2, RPM: 30, Seed: 9, Timeout: -1}.WithDefaults()
	d := DefaultConfig()
	if got.MaxAttempts != 2 || got.RPM != 30 || got.Seed != 9 || got.Timeout != d.Timeout ||
		got.Concurrency != d.Concurrency || got.BaseDelay != d.BaseDelay || got.MaxDelay != d.MaxDelay ||
		got.MaxRetryAfter != d.MaxRetryAfter || got.Sleep == nil || got.Now == nil {
		t.Errorf("WithDefaults = %+v", got)
	}
}

// TestSharedLimits: two Runners given the same Limits never exceed its
// concurrency together.
func TestSharedLimits(t *testing.T) {
	lim := NewLimits(1, 0)
	a := New(Config{Limits: lim}, func(error, time.Time) Verdict { return Verdict{} })
	b := New(Config{Limits: lim, Concurrency: 50}, func(error, time.Time) Verdict { return Verdict{} })
	var inFlight, peak atomic.Int64
	call := func(ctx context.Context) error {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(time.Millisecond)
		inFlight.Add(-1)
		return nil
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func(r *Runner) {
			defer wg.Done()
			if _, _, err := r.Do(context.Background(), call); err != nil {
				t.Error(err)
			}
		}([]*Runner{a, b}[i%2])
	}
	wg.Wait()
	if peak.Load() != 1 {
		t.Errorf("peak concurrency %d across runners sharing a limit of 1", peak.Load())
	}
}
