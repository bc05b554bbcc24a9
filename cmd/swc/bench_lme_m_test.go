//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/swcmem/swc/internal/skipnote"
)

// mRSSLimit is the peak RSS a LongMemEval _M question may take through
// every offline condition: the 2 GiB the full _S run is held to.
const mRSSLimit = 2 << 30

// TestHelperBenchM is not a test: TestBenchLongMemEvalM runs the test
// binary with it, so that the bench's peak RSS is a process of its own.
func TestHelperBenchM(t *testing.T) {
	data, out := os.Getenv("SWC_TEST_M_DATA"), os.Getenv("SWC_TEST_M_OUT")
	if data == "" {
		t.Skip("helper process only")
	}
	if _, stderr, err := run(t, nil, "bench", "--data", data, "--out", out, "--no-cache", "--resamples", "200"); err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
}

// TestBenchLongMemEvalM runs every offline condition at 4,000 tokens over
// a LongMemEval _M-shaped file — one question over a haystack of about
// 1.5M tokens — built here from the shared sample (its first question
// asked over the sessions of all 14 haystacks, ~680 sessions, the other
// questions' evidence marks removed), in a process of its own, and holds
// its peak RSS under mRSSLimit: memory is bounded by the conversation,
// not by a haystack's share of it.
func TestBenchLongMemEvalM(t *testing.T) {
	if _, err := os.Stat(lmeSample); err != nil {
		abs, _ := filepath.Abs(lmeSample)
		skipnote.Skip(t, "LongMemEval sample", "not found at "+abs+", so the _M-shaped run is not checked")
	}
	if testing.Short() {
		t.Skip("a 1.5M-token haystack through every condition")
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "longmemeval_m_shaped.json")
	sessions := writeMShaped(t, lmeSample, data)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperBenchM$")
	cmd.Env = append(os.Environ(), "SWC_TEST_M_DATA="+data, "SWC_TEST_M_OUT="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bench over the _M-shaped file: %v\n%s", err, b)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // Linux: KiB
	sum := readSummary(t, out)
	full := sum.Conditions["full"]
	if full == nil || full.TokPerQ < 1_300_000 {
		t.Fatalf("the _M-shaped question is not ~1.5M tokens: %+v", full)
	}
	for name, cs := range sum.Conditions {
		if name != "full" && cs.MaxContextTokens > 4000 {
			t.Errorf("%s: a context of %d tokens at a budget of 4,000", name, cs.MaxContextTokens)
		}
	}
	if len(sum.Conditions) != len(sum.Order) || len(sum.Order) < 11 {
		t.Errorf("%d conditions in the summary", len(sum.Order))
	}
	t.Logf("%d sessions, %.0f tokens: peak RSS %d MiB", sessions, full.TokPerQ, rss>>20)
	if rss > mRSSLimit {
		t.Errorf("peak RSS %d MiB over %d MiB", rss>>20, mRSSLimit>>20)
	}
}

// mQuestion is a LongMemEval question as its files hold it, the fields
// an _M-shaped file is made of.
type mQuestion struct {
	QuestionID         string    `json:"question_id"`
	QuestionType       string    `json:"question_type"`
	Question           string    `json:"question"`
	Answer             any       `json:"answer"`
	QuestionDate       string    `json:"question_date"`
	HaystackDates      []string  `json:"haystack_dates"`
	HaystackSessionIDs []string  `json:"haystack_session_ids"`
	HaystackSessions   [][]mTurn `json:"haystack_sessions"`
	AnswerSessionIDs   []string  `json:"answer_session_ids"`
}

type mTurn struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	HasAnswer bool   `json:"has_answer,omitempty"`
}

// writeMShaped writes to path one question of the LongMemEval file src
// (its first) over the haystack sessions of every question of src, their
// ids made unique and the evidence marks of the others removed, and
// returns the number of sessions.
func writeMShaped(t *testing.T, src, path string) int {
	t.Helper()
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var qs []mQuestion
	if err := json.Unmarshal(raw, &qs); err != nil {
		t.Fatal(err)
	}
	m := qs[0]
	m.QuestionID += "_m"
	for i, q := range qs[1:] {
		for k, ses := range q.HaystackSessions {
			for j := range ses {
				ses[j].HasAnswer = false
			}
			m.HaystackSessions = append(m.HaystackSessions, ses)
			m.HaystackDates = append(m.HaystackDates, q.HaystackDates[k])
			m.HaystackSessionIDs = append(m.HaystackSessionIDs, fmt.Sprintf("%s_q%d", q.HaystackSessionIDs[k], i+1))
		}
	}
	b, err := json.Marshal([]mQuestion{m})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return len(m.HaystackSessions)
}
