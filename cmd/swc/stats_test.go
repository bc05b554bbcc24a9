package main

import (
	"encoding/json"
	"testing"

	"github.com/swcmem/swc/bench"
)

func decodeStats(t *testing.T, s string) bench.DataStats {
	t.Helper()
	var r bench.DataStats
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("stats --json is not JSON: %v", err)
	}
	return r
}
