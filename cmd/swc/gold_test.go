package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/swcmem/swc/bench"
)

// The hand-made LoCoMo file and audit: one conversation of three turns;
// q0 (cat 4) answer Max→Rex, evidence D1:2→D1:1; q1 (cat 4) evidence only,
// D1:1→D1:2; q2 (cat 1) untouched; q3 (cat 2) answer July→June; q4 cat 5.
var (
	goldData  = filepath.Join("..", "..", "bench", "testdata", "gold", "locomo.json")
	goldAudit = filepath.Join("..", "..", "bench", "testdata", "gold", "audit", "errors.json")
)

func readSummary(t *testing.T, dir string) *bench.Summary {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s bench.Summary
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestBenchGoldByHand checks the corrected-gold arithmetic against values
// worked out by hand. Truncation at 40 tokens keeps D1:2 and D1:3.
func TestBenchGoldByHand(t *testing.T) {
	type want struct {
		retention map[string]float64 // condition → answer retention, cats 1–4
		evidence  map[string]float64 // condition → evidence retention, cat 4
		ceiling   float64            // cats 1–4
		changed   bench.GoldCount    // cats 1–4
	}
	for gold, w := range map[string]want{
		// Original: q0 "Max" and q3 "July" are nowhere; q1, q2 are kept.
		// Evidence (cat 4): truncation keeps q0's D1:2, not q1's D1:1.
		"original": {map[string]float64{"full": 0.5, "truncation": 0.5}, map[string]float64{"full": 1, "truncation": 0.5}, 0.5, bench.GoldCount{}},
		// Corrected: "Rex" is in full only (D1:1), "June" in both;
		// evidence: q0's D1:1 dropped, q1's D1:2 kept.
		"corrected": {map[string]float64{"full": 1, "truncation": 0.75}, map[string]float64{"full": 1, "truncation": 0.5}, 1, bench.GoldCount{Answer: 2, Evidence: 3}},
	} {
		t.Run(gold, func(t *testing.T) {
			dir := t.TempDir()
			out, stderr, err := run(t, nil, "bench", "--offline", "--data", goldData, "--audit", goldAudit, "--gold", gold,
				"--conditions", "full,truncation", "--budget", "40", "--out", dir, "--resamples", "50")
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			s := readSummary(t, dir)
			for c, v := range w.retention {
				if got := s.Conditions[c].Categories["1-4"][bench.MetricAnswerRetention].Mean; !near(got, v) {
					t.Errorf("%s answer retention %v, want %v", c, got, v)
				}
				if got := s.Conditions[c].Categories["4"][bench.MetricEvidenceRetention].Mean; !near(got, w.evidence[c]) {
					t.Errorf("%s evidence retention (cat 4) %v, want %v", c, got, w.evidence[c])
				}
			}
			g := s.Gold
			if g == nil {
				t.Fatal("no gold section")
			}
			if g.Option != gold || g.Entries != 3 || g.Changed["1-4"] != w.changed || !near(g.Ceiling["1-4"], w.ceiling) {
				t.Errorf("gold %+v", g)
			}
			// The audit faults q0 (cat 4) and q3 (cat 2): ceilings 1/2 and 0.
			if !near(g.OriginalCeiling["4"], 0.5) || !near(g.OriginalCeiling["2"], 0) || !near(g.OriginalCeiling["1"], 1) {
				t.Errorf("original ceilings %v", g.OriginalCeiling)
			}
			// Paired corrected − original, whichever gold the run used:
			// full +0.5 and truncation +0.25 answer retention on cats 1–4;
			// truncation's evidence retention on cat 4: q0 −1, q1 +1.
			diffs := map[string]float64{}
			for c, ps := range g.Paired {
				for _, p := range ps {
					diffs[c+"/"+p.Category+"/"+p.Metric] = p.Diff.Mean
				}
			}
			for k, v := range map[string]float64{"full/1-4/answer_retention": 0.5, "truncation/1-4/answer_retention": 0.25, "truncation/4/evidence_retention": 0, "truncation/1/answer_retention": 0} {
				if got, ok := diffs[k]; !ok || !near(got, v) {
					t.Errorf("paired %s = %v (%v), want %v", k, got, ok, v)
				}
			}
			if !strings.Contains(out, "ceiling ("+gold+" gold)") {
				t.Errorf("no ceiling row in the table:\n%s", out)
			}
			md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
			if !strings.Contains(string(md), "Gold answers and ceilings") || !strings.Contains(string(md), "corrected − original") || !strings.Contains(string(md), "| Gold | "+gold+" |") {
				t.Errorf("report.md has no gold section")
			}
			// Identical runs give identical bytes.
			again := t.TempDir()
			if _, _, err := run(t, nil, "bench", "--offline", "--data", goldData, "--audit", goldAudit, "--gold", gold,
				"--conditions", "full,truncation", "--budget", "40", "--out", again, "--resamples", "50"); err != nil {
				t.Fatal(err)
			}
			a, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
			b, _ := os.ReadFile(filepath.Join(again, "summary.json"))
			if string(a) != string(b) {
				t.Error("two identical runs wrote different summary.json")
			}
			var key map[string]any
			data, _ := os.ReadFile(filepath.Join(dir, "run.json"))
			if err := json.Unmarshal(data, &key); err != nil || key["audit_sha256"] == nil || (gold == "corrected") != (key["gold"] == "corrected") {
				t.Errorf("run.json %s", data)
			}
		})
	}
	// The gold is part of the resume settings.
	dir := t.TempDir()
	args := []string{"bench", "--offline", "--data", goldData, "--audit", goldAudit, "--conditions", "full", "--out", dir, "--resamples", "20"}
	if _, _, err := run(t, nil, args...); err != nil {
		t.Fatal(err)
	}
	_, _, err := run(t, nil, append(args, "--gold", "corrected")...)
	if err == nil || !strings.Contains(err.Error(), "gold was (none), now corrected") {
		t.Errorf("resume with another gold: %v", err)
	}
	// A directory started before the audit was used (no audit_sha256 in
	// run.json) resumes under the original gold, with ceilings and without
	// the paired comparison.
	old := t.TempDir()
	oldArgs := []string{"bench", "--offline", "--data", goldData, "--conditions", "full", "--out", old, "--resamples", "20"}
	if _, _, err := run(t, nil, oldArgs...); err != nil {
		t.Fatal(err)
	}
	if s := readSummary(t, old); s.Gold != nil {
		t.Errorf("gold section without an audit: %+v", s.Gold)
	}
	_, stderr, err := run(t, nil, append(oldArgs, "--audit", goldAudit)...)
	if err != nil || !strings.Contains(stderr, "was started without the LoCoMo audit") {
		t.Fatalf("resume of a pre-audit directory: %v\n%s", err, stderr)
	}
	if g := readSummary(t, old).Gold; g == nil || !near(g.Ceiling["1-4"], 0.5) || len(g.Paired) != 0 {
		t.Errorf("pre-audit directory: gold %+v", g)
	}
}

func TestBenchGoldErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nowhere", "errors.json")
	data, _ := os.ReadFile(goldData)
	copied := filepath.Join(dir, "data", "locomo", "locomo.json")
	if err := os.MkdirAll(filepath.Dir(copied), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copied, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--gold", "corrected", "--data", goldData, "--audit", missing}, 1, "expected at " + missing},
		// The default path is ../locomo-audit/errors.json beside the data's directory.
		{[]string{"--gold", "corrected", "--data", copied}, 1, "expected at " + filepath.Join(dir, "data", "locomo-audit", "errors.json")},
		{[]string{"--gold", "corrected"}, 1, "pass --data locomo10.json"},
		{[]string{"--gold", "fixed"}, 2, "--gold must be original or corrected"},
		{[]string{"--judge-prompt", "lenient"}, 2, "--judge-prompt must be paper or strict"},
		// An audit of other data: named explicitly, it must fit.
		{[]string{"--gold", "original", "--audit", goldAudit}, 1, "differs from the data's"},
	} {
		_, _, err := run(t, nil, append([]string{"bench", "--offline", "--out", dir}, tt.args...)...)
		if err == nil || exitCode(err) != tt.code || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v (exit %d), want exit %d with %q", tt.args, err, exitCode(err), tt.code, tt.want)
		}
	}
}

// fakeJudgeServer speaks the Anthropic Messages API. QA requests get
// "Rex"; judge requests get YES when the model answer equals the gold
// (case-insensitive), and for the audit's vague answers YES under the
// paper's prompt and NO under the strict one.
func fakeJudgeServer(t *testing.T, judged *atomic.Int64) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/v1/messages" || json.Unmarshal(body, &req) != nil || len(req.Messages) == 0 {
			http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad request"}}`, 400)
			return
		}
		var user string
		if json.Unmarshal(req.Messages[0].Content, &user) != nil {
			var blocks []struct{ Text string }
			json.Unmarshal(req.Messages[0].Content, &blocks)
			for _, b := range blocks {
				user += b.Text
			}
		}
		reply := "Rex"
		if strings.Contains(user, "Gold answer:") {
			judged.Add(1)
			gold := between(user, "Gold answer: ", ". Model answer:")
			answer := between(user, "Model answer: ", ". ")
			switch {
			case strings.Contains(user, "it had to do with") && strings.Contains(user, bench.StrictJudgeInstruction):
				reply = "NO"
			case strings.Contains(user, "it had to do with"):
				reply = "YES"
			case strings.EqualFold(strings.TrimSpace(gold), strings.TrimSpace(answer)):
				reply = "YES"
			default:
				reply = "NO"
			}
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"msg_1","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":%q}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}`, req.Model, reply)
	}))
}

// TestBenchGoldJudge runs QA and judge against a fake server: the judge is
// asked again under the other gold only where the answer changed, and the
// judge audit reports vague-answer acceptance under both prompts.
func TestBenchGoldJudge(t *testing.T) {
	var judged atomic.Int64
	srv := fakeJudgeServer(t, &judged)
	defer srv.Close()
	vars := map[string]string{"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.URL}
	for _, prompt := range []string{"paper", "strict"} {
		dir := t.TempDir()
		_, stderr, err := run(t, vars, "bench", "--data", goldData, "--audit", goldAudit, "--gold", "corrected", "--conditions", "full",
			"--qa", "anthropic:claude-sonnet-4-6", "--judge-prompt", prompt, "--judge-audit", "2",
			"--cache", filepath.Join(dir, "cache.db"), "--out", dir, "--resamples", "20")
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		rows := map[string]bench.Row{}
		for _, r := range readRows(t, dir) {
			rows[r.QuestionID] = r
		}
		// q0: "Rex" is right under the corrected gold, wrong under "Max".
		q0 := rows["g-1:q0"]
		if q0.Metrics[bench.MetricJudge] != 1 || q0.Alt == nil || q0.Alt.Gold != "Max" || q0.Alt.Metrics[bench.MetricJudge] != 0 {
			t.Errorf("%s: q0 %+v alt %+v", prompt, q0.Metrics, q0.Alt)
		}
		// q1's answer did not change: the verdict is copied, not asked.
		if q1 := rows["g-1:q1"]; q1.Alt == nil || q1.Alt.Metrics[bench.MetricJudge] != q1.Metrics[bench.MetricJudge] {
			t.Errorf("%s: q1 %+v", prompt, q1.Alt)
		}
		if rows["g-1:q2"].Alt != nil {
			t.Errorf("%s: untouched question has an alt row", prompt)
		}
		s := readSummary(t, dir)
		a := s.JudgeAudit
		if a == nil || a.Prompt != prompt || len(a.ByPrompt) != 2 {
			t.Fatalf("%s: audit %+v", prompt, a)
		}
		if p, st := a.ByPrompt["paper"][bench.AuditVague], a.ByPrompt["strict"][bench.AuditVague]; p.Asked != 2 || p.Rate != 1 || st.Asked != 2 || st.Rate != 0 {
			t.Errorf("%s: vague acceptance paper %+v strict %+v", prompt, p, st)
		}
		if a.Kinds[bench.AuditVague] != a.ByPrompt[prompt][bench.AuditVague] {
			t.Errorf("%s: kinds %+v are not the run prompt's", prompt, a.Kinds)
		}
		if s.Settings.JudgePrompt != prompt || s.Settings.Gold != "corrected" {
			t.Errorf("settings %+v", s.Settings)
		}
		md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
		if !strings.Contains(string(md), "False acceptance by judge prompt") {
			t.Errorf("%s: report has no prompt comparison", prompt)
		}
	}
}
