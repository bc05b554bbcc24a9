package http

import (
	"strings"
	"testing"

	"github.com/swcmem/swc/observe"
)

// TestProxyStubTokens: ProxyConfig.StubTokens sets the size of the proxy's
// tool-loop stubs; 0 keeps memory's default.
func TestProxyStubTokens(t *testing.T) {
	for _, tc := range []struct{ set, want int }{{0, observe.DefaultStubTokens}, {80, 80}} {
		s := New(nil, nil, nil)
		s.Proxy.StubTokens = tc.set
		s.Handler() // sets up the proxy's state
		c, err := s.baseCompressor()
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Options().StubTokens; got != tc.want {
			t.Errorf("StubTokens %d: the compressor's %d, want %d", tc.set, got, tc.want)
		}
	}
}

// TestProxyHoldBudget: ProxyConfig.HoldBudget reaches the proxy's
// compressor (memory.Options.HoldBudget); off by default.
func TestProxyHoldBudget(t *testing.T) {
	for _, set := range []bool{false, true} {
		s := New(nil, nil, nil)
		s.Proxy.HoldBudget = set
		s.Handler()
		c, err := s.baseCompressor()
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Options().HoldBudget; got != set {
			t.Errorf("HoldBudget %v: the compressor's %v", set, got)
		}
	}
}

// TestFitRoom: a recall answer goes whole while the room holds it, cut to
// its beginning and a line saying how much was left out when not, and
// each answer takes its tokens off the room; no room bound, whole.
func TestFitRoom(t *testing.T) {
	count := func(s string) int { return len(strings.Fields(s)) }
	long := strings.Repeat("word ", 2000)
	rc := &recaller{room: -1, count: count}
	if got := rc.fitRoom(long); got != long {
		t.Errorf("no bound: %d bytes of %d", len(got), len(long))
	}
	rc = &recaller{room: 1000, count: count}
	if got := rc.fitRoom("a short original"); got != "a short original" || rc.room != 1000-3-recallMargin {
		t.Errorf("a short original: %q, room left %d", got, rc.room)
	}
	got := rc.fitRoom(long)
	cut, _, ok := strings.Cut(got, "\n[swc_recall: ")
	if !ok || !strings.HasPrefix(long, cut) || count(got) > 1000-3-2*recallMargin || !strings.Contains(got, "tokens of this original left out to keep the request within its budget]") {
		t.Errorf("a long original: %d words, %.80q", count(got), got)
	}
	if again := rc.fitRoom(long); strings.Contains(again, "word") || rc.room != 0 {
		t.Errorf("no room left: %.80q, room %d", again, rc.room)
	}
}
