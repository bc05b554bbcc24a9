package http

import (
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
