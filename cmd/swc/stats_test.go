package main

import (
	"encoding/json"
	"testing"
)

func decodeStats(t *testing.T, s string) statsReport {
	t.Helper()
	var r statsReport
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("stats --json is not JSON: %v", err)
	}
	return r
}
