package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// TestLoadtestProxySmall runs swc loadtest-proxy with small numbers: every
// phase runs, the agents' first requests are counted apart from the timed
// ones, and the compressed history fits the budget.
func TestLoadtestProxySmall(t *testing.T) {
	out, stderr, err := run(t, nil, "loadtest-proxy", "--requests", "24", "--clients", "4", "--history", "60",
		"--budget", "600", "--agent-requests", "5", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var r loadtestProxyResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.ProxySmall.N != 24 || r.ProxyLarge1.N != 24 || r.ProxyLarge.N != 24 || r.ProxyTTFE.N != 24 || r.Stored.N != 24 {
		t.Errorf("request counts: %+v", r)
	}
	// 24 requests from 4 clients: 6 each, a new agent every 5: 2 agents a client.
	if r.ColdLarge.N != 8 {
		t.Errorf("first requests of agents = %d, want 8", r.ColdLarge.N)
	}
	after, err := strconv.Atoi(r.TokensAfter)
	if err != nil || after > 600 {
		t.Errorf("tokens after compression %q, budget 600", r.TokensAfter)
	}
	before, _ := strconv.Atoi(r.TokensBefore)
	if before <= 600 {
		t.Errorf("tokens before %d: the history should exceed the budget", before)
	}
	if n := r.StoredModes["prefix"] + r.StoredModes["stored"]; n != 24 {
		t.Errorf("stored modes %v, want 24 stored or prefix", r.StoredModes)
	}
	if r.CPUPerRequestMS <= 0 {
		t.Errorf("CPU per request %v", r.CPUPerRequestMS)
	}
}

func TestLoadtestProxyBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--agent-requests", "0"}, {"--clients", "-1"}, {"--nope"}} {
		_, _, err := run(t, nil, append([]string{"loadtest-proxy"}, args...)...)
		if err == nil || !strings.Contains(err.Error(), strings.TrimLeft(args[0], "-")) {
			t.Errorf("%v: err = %v, want one naming the flag", args, err)
		}
	}
}
