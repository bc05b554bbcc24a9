package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestAnthropicAPIVersion: --anthropic-api-version 2023-06-01 sends that
// header and "temperature": 0; the default sends the SDK's version and no
// temperature; the response cache keeps the two apart (the second version
// is asked again, not served what the first answered).
func TestAnthropicAPIVersion(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{} // "version temperature" → requests
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		json.Unmarshal(b, &body)
		temp, ok := body["temperature"]
		mu.Lock()
		seen[fmt.Sprintf("%s %v %v", r.Header.Get("anthropic-version"), ok, temp)]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"m","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"YES"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":1}}`)
	}))
	defer srv.Close()
	vars := map[string]string{"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.URL}
	dir := t.TempDir()
	pred := filepath.Join(dir, "pred.jsonl")
	if err := os.WriteFile(pred, []byte(`{"question":"When?","answer":"7 May 2023","prediction":"7 May 2023","category":2}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache.db")
	for i, tt := range []struct {
		flags []string
		want  string
	}{
		{nil, "2026-10-21 false <nil>"},
		{[]string{"--anthropic-api-version", "2023-06-01"}, "2023-06-01 true 0"},
		{[]string{"--anthropic-api-version", "2023-06-01"}, "2023-06-01 true 0"}, // cached now
	} {
		args := append([]string{"score", "--pred", pred, "--judge", "anthropic:claude-haiku-4-5-20251001", "--cache", cache, "--resamples", "10"}, tt.flags...)
		if _, stderr, err := run(t, vars, args...); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr)
		}
		mu.Lock()
		n := seen[tt.want]
		mu.Unlock()
		if n != 1 {
			t.Errorf("run %d %v: the server saw %v, want one request %q in all", i, tt.flags, seen, tt.want)
		}
	}
	if _, _, err := run(t, vars, "score", "--pred", pred, "--judge", "anthropic:x", "--anthropic-api-version", "latest"); err == nil || !strings.Contains(err.Error(), "wants a date") {
		t.Errorf("bad version: %v", err)
	}
}
