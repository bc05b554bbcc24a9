package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// hesitantJudge speaks the Messages API: the QA model answers "7 May
// 2023"; the judge answers Reply (an unparseable "Maybe" at first).
type hesitantJudge struct {
	reply  atomic.Value // string
	judged atomic.Int64
	noGold atomic.Int64 // judge prompts with the gold "No"
}

func (h *hesitantJudge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	reply := "7 May 2023"
	if strings.Contains(string(body), "Gold answer:") {
		h.judged.Add(1)
		if strings.Contains(string(body), "Gold answer: No.") {
			h.noGold.Add(1)
		}
		reply = h.reply.Load().(string)
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":%q}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":2}}`, reply)
}

func newHesitantJudge(t *testing.T) (*hesitantJudge, map[string]string) {
	providerSleepHook = func(ctx context.Context, d time.Duration) error { return ctx.Err() }
	t.Cleanup(func() { providerSleepHook = nil })
	h := &hesitantJudge{}
	h.reply.Store("Maybe")
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return h, map[string]string{"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.URL}
}

// TestBenchRetriesUnparseableVerdict: a judge reply that is neither YES
// nor NO fails the row and is not cached, so the rerun the message
// promises asks the judge again.
func TestBenchRetriesUnparseableVerdict(t *testing.T) {
	h, vars := newHesitantJudge(t)
	dir := t.TempDir()
	args := []string{"bench", "--out", filepath.Join(dir, "out"), "--conditions", "truncation",
		"--qa", "anthropic:claude-sonnet-4-6", "--judge", "anthropic:claude-haiku-4-5-20251001",
		"--cache", filepath.Join(dir, "cache.db"), "--resamples", "50"}
	_, _, err := run(t, vars, args...)
	if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "neither YES nor NO") {
		t.Fatalf("first run: %v, want exit 1 naming the unparseable verdict", err)
	}
	h.reply.Store("YES")
	before := h.judged.Load()
	if _, stderr, err := run(t, vars, args...); err != nil {
		t.Fatalf("rerun: %v\n%s", err, stderr)
	}
	if h.judged.Load() == before {
		t.Fatal("the rerun replayed the cached unparseable verdict instead of asking the judge")
	}
	for _, r := range readRows(t, filepath.Join(dir, "out")) {
		if r.Error != "" || r.Verdict != "YES" {
			t.Errorf("%s: verdict %q error %q", r.QuestionID, r.Verdict, r.Error)
		}
	}
}

// TestScoreJudgeFailures: swc score exits 1 when rows could not be judged
// (with and without --json), and a rerun asks the judge again.
func TestScoreJudgeFailures(t *testing.T) {
	h, vars := newHesitantJudge(t)
	dir := t.TempDir()
	pred := filepath.Join(dir, "pred.jsonl")
	rows := `{"question":"When did Ana swim?","answer":"7 May 2023","prediction":"7 May 2023","category":2}
{"question":"Is Oscar Melanie's pet?","answer":"No","prediction":"Not mentioned in the conversation","category":5}
`
	if err := os.WriteFile(pred, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"score", "--pred", pred, "--judge", "anthropic:claude-haiku-4-5-20251001", "--cache", filepath.Join(dir, "cache.db"), "--resamples", "50"}
	for _, extra := range [][]string{nil, {"--json"}} {
		_, stderr, err := run(t, vars, append(args, extra...)...)
		if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error()+stderr, "2 rows could not be judged") {
			t.Errorf("score %v with a judge that cannot answer: %v (stderr %q), want exit 1", extra, err, stderr)
		}
	}
	h.reply.Store("YES")
	out, _, err := run(t, vars, append(args, "--json")...)
	if err != nil {
		t.Fatalf("rerun: %v", err)
	}
	var got struct {
		Rows []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	for i, r := range got.Rows {
		if r["judge"] != 1.0 {
			t.Errorf("row %d after the rerun: %v", i, r)
		}
	}
	if n := h.noGold.Load(); n > 0 {
		t.Errorf("the category-5 row was judged against its dataset answer \"No\" %d times, not the decline", n)
	}
}
