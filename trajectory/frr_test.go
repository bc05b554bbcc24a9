package trajectory

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/swcmem/swc/chat"
)

// The hand count of testdata/tiny.json (both forms: the same run as Chat
// Completions and as Messages), which tiny_responses.json and
// tiny_gemini.json hold too, as Responses input items and as Gemini
// contents: every form has the same requests, targets and FRR (the Gemini
// form's thought part in a2 is no part of its next turn). The run: system, task "Fix the crash in
// the parser.", then
//
//	a1 "Let me look around." bash(ls -R src tests)  → t1 "src/parser.py\nsrc/lexer.py\ntests/test_parser.py"
//	a2 bash(cat src/parser.py)                      → t2 "def parse_expr(tokens): … build_tree(tokens[0]) … line 120 …"
//	a3 "parse_expr fails …; fix the build_tree call." edit(path src/parser.py, …) → t3 "edited src/parser.py"
//	a4 "Now run the tests." bash(python -m pytest tests/test_parser.py -q) → t4 "3 passed in 0.12s"
//	a5 "All 3 tests pass; fixed parse_expr."
//
// Five requests, cut before a1…a5. Targets (identifiers of the next turn
// held earlier only in tool outputs):
//
//	req0 → a1: "ls -R src tests" holds no identifier: excluded.
//	req1 → a2: src/parser.py, parser.py (both in t1, in nothing else): 2.
//	req2 → a3: parse_expr, build_tree (in t2); src/parser.py and parser.py
//	           are now in a2's arguments, not targets: 2.
//	req3 → a4: tests/test_parser.py, test_parser.py, test_parser (in t1): 3.
//	req4 → a5: parse_expr is in a3's text now: excluded.
//
// mask-1 at a budget everything fits (the last observation verbatim, older
// ones "[output omitted]"): req1 keeps t1 (2/2), req2 keeps t2 (2/2), req3
// keeps t3 only and its targets were in t1 (0/3). FRR = (1+1+0)/3 = 2/3;
// pooled 4/7. Truncation at a budget of 1 token keeps only the latest
// turn: req1 [a1 t1] 2/2, req2 [a2 t2] 2/2, req3 [a3 t3] 0/3: the same
// 2/3, every request over the budget.
var tinyTargets = [][]string{
	nil,
	{"src/parser.py", "parser.py"},
	{"parse_expr", "build_tree"},
	{"tests/test_parser.py", "test_parser.py", "test_parser"},
	nil,
}

// Own targets (identifiers of the next turn held by earlier assistant
// turns, their text or their calls' arguments, and not by the
// instructions or the task): req2 → a3: src/parser.py, parser.py (a2's
// arguments); req4 → a5: parse_expr (a3's text); none elsewhere. Every
// condition that keeps the assistant turns keeps them (ORR 1 over 2
// requests); truncation at 1 token keeps req2's a2 (2/2) and not req4's
// a3 (0/1): ORR 0.5.
var tinyOwn = [][]string{nil, nil, {"src/parser.py", "parser.py"}, nil, {"parse_expr"}}

// loadTiny returns the tiny run in its four forms: Chat Completions and
// Messages (tiny.json), Responses (tiny_responses.json, a plain body) and
// Gemini (tiny_gemini.json, a trajectory file with a "gemini" body: the
// first two calls without ids, answered by name, the last two with ids;
// every call signed; a2 opens with a thought naming src/lexer.py, held
// in t1 only, which must not make it a target of request 1).
func loadTiny(t *testing.T) []Trajectory {
	t.Helper()
	var out []Trajectory
	for _, f := range []string{"tiny.json", "tiny_responses.json", "tiny_gemini.json"} {
		data, err := os.ReadFile("testdata/" + f)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := parseFile(f, data)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tr)
	}
	return out
}

func TestTinyTargets(t *testing.T) {
	trajs := loadTiny(t)
	bodies := append(append(trajs[0].Bodies, trajs[1].Bodies...), trajs[2].Bodies...)
	if len(bodies) != 4 || bodies[2].Format != chat.Responses || bodies[3].Format != chat.Gemini {
		t.Fatalf("bodies: %+v, want openai, anthropic, responses and gemini", bodies)
	}
	for _, b := range bodies {
		tr := trajs[0]
		rp, err := NewReplay(tr.Name, b)
		if err != nil {
			t.Fatal(err)
		}
		if rp.Len() != len(tinyTargets) {
			t.Fatalf("%s: %d requests, want %d", b.Format, rp.Len(), len(tinyTargets))
		}
		for i, want := range tinyTargets {
			q, err := rp.Request(i)
			if err != nil {
				t.Fatal(err)
			}
			if got := q.Targets(); !slices.Equal(got, want) {
				t.Errorf("%s request %d: targets %q, want %q (next turn %q)", b.Format, i, got, want, q.Next)
			}
			if got := q.OwnTargets(); !slices.Equal(got, tinyOwn[i]) {
				t.Errorf("%s request %d: own targets %q, want %q (next turn %q)", b.Format, i, got, tinyOwn[i], q.Next)
			}
		}
	}
}

func TestTinyFRR(t *testing.T) {
	for _, tt := range []struct {
		cond        Condition
		budget      int
		frr, pooled float64
		over        int
		orr         float64
	}{
		{Mask{K: 1}, 100000, 2.0 / 3, 4.0 / 7, 0, 1},
		{Truncation{}, 1, 2.0 / 3, 4.0 / 7, 5, 0.5},
		{Truncation{}, 100000, 1, 1, 0, 1},
	} {
		var rows []Row
		r := &Runner{Trajectories: loadTiny(t), Conditions: []Condition{tt.cond}, Budgets: []int{tt.budget},
			Write: func(row Row) error { rows = append(rows, row); return nil }}
		if err := r.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		s := Summarize(Settings{Budgets: []int{tt.budget}, Conditions: []string{tt.cond.Name()}}, rows)
		if len(s.Cells) != 4 {
			t.Fatalf("%d cells, want openai, anthropic, responses and gemini", len(s.Cells))
		}
		for _, c := range s.Cells {
			name := c.Format + " " + c.Condition
			if c.Requests != 5 || c.FRRN != 3 || c.NoTargets != 2 {
				t.Errorf("%s: %d requests, %d with targets, %d without; want 5, 3, 2", name, c.Requests, c.FRRN, c.NoTargets)
			}
			if c.ORRN != 2 || !near(c.ORR, tt.orr) {
				t.Errorf("%s@%d: ORR %v over %d requests, want %v over 2", name, tt.budget, c.ORR, c.ORRN, tt.orr)
			}
			if !near(c.FRR, tt.frr) || !near(c.Pooled, tt.pooled) {
				t.Errorf("%s@%d: FRR %v pooled %v, want %v and %v", name, tt.budget, c.FRR, c.Pooled, tt.frr, tt.pooled)
			}
			if wantN := min(tt.over, 3); c.FRROverN != wantN || wantN > 0 && !near(c.FRROver, tt.frr) {
				t.Errorf("%s@%d: FRR over the budget %v of %d, want %v of %d", name, tt.budget, c.FRROver, c.FRROverN, tt.frr, wantN)
			}
			if c.Breaches != 0 || c.Refusals != 0 || c.OverBudget != tt.over {
				t.Errorf("%s: breaches %d refusals %d over %d, want 0 0 %d", name, c.Breaches, c.Refusals, c.OverBudget, tt.over)
			}
		}
		for _, row := range rows {
			if len(row.Breaches) > 0 {
				t.Errorf("%s: %v", row.Key(), row.Breaches)
			}
		}
	}
}

// requestsTargeting returns the requests of rp, checking that there are
// as many as want lists and that each one's targets are want's.
func requestsTargeting(t *testing.T, rp *Replay, want [][]string) []*Request {
	t.Helper()
	if rp.Len() != len(want) {
		t.Fatalf("%d requests, want %d", rp.Len(), len(want))
	}
	qs := make([]*Request, len(want))
	for i, w := range want {
		q, err := rp.Request(i)
		if err != nil {
			t.Fatal(err)
		}
		if got := q.Targets(); !slices.Equal(got, w) {
			t.Errorf("request %d: targets %q, want %q", i, got, w)
		}
		qs[i] = q
	}
	return qs
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

// testdata/tiny_text.json is a text-acting run: observations are user
// messages shaped like command output. Requests: before a1 (no identifier
// in observations: none yet), before a2 ("sed -n 160,175p
// django/contrib/sitemaps/__init__.py": the path, __init__.py and __init__
// were in the <returncode> observation only; 160 was nowhere), before a3
// (get_latest_lastmod appeared nowhere, the path is in a2 now; the
// harness's "Please always provide…" is a user message, not an
// observation).
func TestTinyTextActing(t *testing.T) {
	rp := replayOf(t, "testdata/tiny_text.json", "tiny-text")
	want := [][]string{nil, {"django/contrib/sitemaps/__init__.py", "__init__.py", "__init__"}, nil}
	for i, q := range requestsTargeting(t, rp, want) {
		w := want[i]
		if i == 2 && (q.kinds[3] != observation || q.kinds[5] != user) {
			t.Errorf("request 2: kinds %v, want messages[3] an observation, messages[5] a user message", q.kinds)
		}
		body, err := Mask{K: 0}.Compress(context.Background(), q, 100000)
		if err != nil {
			t.Fatal(err)
		}
		n, text := rp.Measure(body)
		if i == 1 && (slices.ContainsFunc(w, func(id string) bool { return strings.Contains(text, id) }) || n >= q.Tokens) {
			t.Errorf("mask-0 kept an identifier or no token: %d of %d tokens, %q", n, q.Tokens, text)
		}
	}
}

// testdata/tiny_cline.json is a run of an agent that calls tools in XML
// tags of its text (hand-written in the shape of Cline's classic format:
// Anthropic form, each result a user message of text blocks, its header
// "[read_file for '…'] Result:", the output, then the editor's state).
// Requests: before a1 (nothing observed yet), before a2 (the path the
// search found: the path, its file name and its stem, only in the search's
// result; bff/src is the agent's own), before a3 (quote.regularMarketPrice
// and regularMarketPrice, only in the file the read showed).
func TestTinyXMLCalls(t *testing.T) {
	rp := replayOf(t, "testdata/tiny_cline.json", "tiny-cline")
	want := [][]string{nil, {"bff/src/services/quoteService.ts", "quoteService.ts", "quoteService"}, {"quote.regularMarketPrice", "regularMarketPrice"}}
	for i, q := range requestsTargeting(t, rp, want) {
		if i == 2 {
			if !slices.Equal(q.kinds, []kind{instruction, task, assistant, observation, assistant, observation}) {
				t.Errorf("request 2: kinds %v, want the results observations", q.kinds)
			}
			body, err := Mask{K: 0}.Compress(context.Background(), q, 100000)
			if err != nil {
				t.Fatal(err)
			}
			if _, text := rp.Measure(body); strings.Contains(text, "regularMarketPrice") || !strings.Contains(text, "market is closed") {
				t.Errorf("mask-0 kept an output or dropped the task: %q", text)
			}
		}
	}
}

// testdata/tiny_sweagent.json is shaped like an SWE-agent run (hand-written):
// a demonstration as the first user message, then the task, both ending
// with the "(Current directory: …)\nbash-$" prompt SWE-agent appends to
// every observation. The task is not an observation (it comes before the
// agent's first turn, so both it and the demonstration are the task, kept
// by every baseline); the outputs are, so the path and checkNotNaN, which
// only they hold, are the targets.
func TestTinySWEAgent(t *testing.T) {
	rp := replayOf(t, "testdata/tiny_sweagent.json", "tiny-sweagent")
	path := "gson/src/main/java/com/google/gson/stream/JsonWriter.java"
	want := [][]string{nil, {path}, {"checkNotNaN"}}
	for i, q := range requestsTargeting(t, rp, want) {
		if q.kinds[1] != task || q.kinds[2] != task {
			t.Errorf("request %d: kinds %v, want the demonstration and the task both the task", i, q.kinds)
		}
		if i == 2 {
			if q.kinds[4] != observation || q.kinds[6] != observation {
				t.Errorf("request 2: kinds %v, want messages[4] and [6] observations", q.kinds)
			}
			body, err := Mask{K: 0}.Compress(context.Background(), q, 100000)
			if err != nil {
				t.Fatal(err)
			}
			if _, text := rp.Measure(body); strings.Contains(text, "checkNotNaN") || !strings.Contains(text, "cannot write NaN") {
				t.Errorf("mask-0 kept an output or dropped the task: %q", text)
			}
			body, err = Truncation{}.Compress(context.Background(), q, 1)
			if err != nil {
				t.Fatal(err)
			}
			if _, text := rp.Measure(body); !strings.Contains(text, "cannot write NaN") || !strings.Contains(text, "DEMONSTRATION") {
				t.Errorf("truncation dropped the task or the demonstration: %q", text)
			}
		}
	}
}

// replayOf returns the replay of the first body of trajectory file path,
// named name.
func replayOf(t *testing.T, path, name string) *Replay {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := parseFile(name, data)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := NewReplay(tr.Name, tr.Bodies[0])
	if err != nil {
		t.Fatal(err)
	}
	return rp
}
