package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/swcmem/swc/memory"
	"github.com/swcmem/swc/strategy"
)

// TestDefaultStrategy: swc-anchored (strategy.Default) is what compress
// and inspect use without --strategy, on LoCoMo data and on chat messages,
// and what swc serve consolidates with; the library's epochs and the proxy
// default to swc-select (memory.DefaultStrategy); the help says so.
func TestDefaultStrategy(t *testing.T) {
	if strategy.Default != "swc-anchored" || memory.DefaultOptions().Strategy != "swc-select" || memory.DefaultStrategy != "swc-select" {
		t.Fatalf("defaults: strategy %s, memory %s", strategy.Default, memory.DefaultOptions().Strategy)
	}
	_, stderr, err := run(t, nil, "compress", "--budget", "2000")
	if err != nil || !strings.HasPrefix(stderr, "swc: swc-anchored: ") {
		t.Errorf("compress: %v\n%s", err, stderr)
	}
	out, _, err := run(t, nil, "inspect", "--budget", "2000")
	if err != nil || !strings.HasPrefix(out, "swc-anchored: ") {
		t.Errorf("inspect: %v\n%s", err, out)
	}
	out, _, err = run(t, nil, "compress", "--budget", "2000", "--output-format", "json")
	var res memory.Result
	if err != nil || json.Unmarshal([]byte(out), &res) != nil || res.Strategy != "swc-anchored" {
		t.Errorf("compress chat: %v, strategy %q", err, res.Strategy)
	}
	for _, cmd := range []string{"compress", "serve"} {
		_, help, _ := run(t, nil, cmd, "-h")
		if !strings.Contains(help, `(default "swc-anchored")`) {
			t.Errorf("%s -h does not give swc-anchored as --strategy's default:\n%s", cmd, help)
		}
	}
	if _, help, _ := run(t, nil, "serve", "-h"); !strings.Contains(help, "-proxy-strategy string") || !strings.Contains(help, `(default "swc-select")`) {
		t.Errorf("serve -h does not give swc-select as --proxy-strategy's default")
	}
}
