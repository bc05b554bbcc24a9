package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/swcmem/swc/loadtest"
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
	var r loadtest.ProxyResult
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

// TestLoadtestProxyLoop runs swc loadtest-proxy --bodies loop and
// --bodies loop-responses with small numbers: the agents' tool loops are
// compressed within the budget, in Chat Completions and Responses form.
func TestLoadtestProxyLoop(t *testing.T) {
	for _, bodies := range []string{"loop", "loop-responses"} {
		out, stderr, err := run(t, nil, "loadtest-proxy", "--bodies", bodies, "--requests", "12", "--clients", "2", "--history", "60",
			"--budget", "2000", "--agent-requests", "3", "--json")
		if err != nil {
			t.Fatalf("%s: %v\n%s", bodies, err, stderr)
		}
		var r loadtest.ProxyResult
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if r.Bodies != bodies || r.ProxyLarge1.N != 12 || r.ProxyLarge.N != 12 || r.ColdLarge.N != 4 {
			t.Errorf("%s: result %+v", bodies, r)
		}
		before, _ := strconv.Atoi(r.TokensBefore)
		after, err := strconv.Atoi(r.TokensAfter)
		if err != nil || after > 2000 || before <= 2000 {
			t.Errorf("%s: tokens %q → %q, budget 2000", bodies, r.TokensBefore, r.TokensAfter)
		}
	}
}

func TestLoadtestProxyBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--agent-requests", "0"}, {"--clients", "-1"}, {"--nope"}, {"--bodies", "nope"}} {
		_, _, err := run(t, nil, append([]string{"loadtest-proxy"}, args...)...)
		if err == nil || !strings.Contains(err.Error(), strings.TrimLeft(args[0], "-")) {
			t.Errorf("%v: err = %v, want one naming the flag", args, err)
		}
	}
}

// TestLoadtestSmall runs swc loadtest with small numbers: every tenant's
// messages ingested, each sample conversation consolidated and read once
// uncached, then read without errors.
func TestLoadtestSmall(t *testing.T) {
	out, stderr, err := run(t, nil, "loadtest", "--tenants", "3", "--clients", "2", "--batch", "40", "--readers", "2", "--duration", "200ms", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var r loadtest.ServiceResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.Tenants != 3 || r.Messages == 0 || r.Messages%3 != 0 || len(r.ConsolidateMS) != 1 || len(r.ColdContextMS) != 1 || r.Reads == 0 || r.ReadErrors != 0 {
		t.Errorf("result %+v", r)
	}
	if !strings.Contains(stderr, "loadtest: ingesting") {
		t.Errorf("stderr %q", stderr)
	}
	if _, _, err := run(t, nil, "loadtest", "--readers", "0"); err == nil || exitCode(err) != 2 {
		t.Errorf("--readers 0: %v", err)
	}
}
