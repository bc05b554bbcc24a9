package retry

import (
	"net/http"
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	tests := []struct {
		n      int
		jitter float64
		want   time.Duration
	}{
		{1, 0, 500 * time.Millisecond},
		{1, 0.999999, 999999500 * time.Nanosecond},
		{2, 0, time.Second},
		{3, 0.5, 3 * time.Second},
		{6, 0, 15 * time.Second}, // 32s capped at 30s, lower half
		{60, 0, 15 * time.Second},
	}
	for _, tt := range tests {
		if got := Backoff(tt.n, time.Second, 30*time.Second, tt.jitter); got != tt.want {
			t.Errorf("Backoff(%d, jitter %v) = %v, want %v", tt.n, tt.jitter, got, tt.want)
		}
	}
}

func TestAfter(t *testing.T) {
	now := time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		{"none", nil, 0, false},
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second, true},
		{"fractional seconds", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond, true},
		{"ms wins", map[string]string{"Retry-After": "7", "retry-after-ms": "250"}, 250 * time.Millisecond, true},
		{"http date", map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second, true},
		{"date in the past", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0, false},
		{"negative", map[string]string{"Retry-After": "-3"}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			got, ok := After(h, now)
			if got != tt.want || ok != tt.ok {
				t.Errorf("After = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
