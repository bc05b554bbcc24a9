package retry

import (
	"net/http"
	"strconv"
	"time"
)

// Backoff returns the delay after failed attempt n (1-based): base·2^(n-1)
// capped at limit, of which the upper half is scaled by jitter ∈ [0,1).
func Backoff(n int, base, limit time.Duration, jitter float64) time.Duration {
	d := base
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	return d/2 + time.Duration(jitter*float64(d/2))
}

// After returns the wait a response asks for in its retry-after-ms or
// Retry-After header (delta seconds or an HTTP date relative to now), and
// false when there is none or it cannot be parsed.
func After(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if s := h.Get("Retry-After-Ms"); s != "" {
		if ms, err := strconv.ParseFloat(s, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	s := h.Get("Retry-After")
	if s == "" {
		return 0, false
	}
	if sec, err := strconv.ParseFloat(s, 64); err == nil && sec >= 0 {
		return time.Duration(sec * float64(time.Second)), true
	}
	if t, err := http.ParseTime(s); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
