package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// sharer is one agent of TestAgentsShareOneSWC: the tag of its step
// files' lines and which of the requests swc got are its own.
type sharer struct {
	a    agent
	tag  string
	mine func(s sent) bool
}

// The pair: Claude Code speaks only Anthropic routes (HEAD / and
// /v1/messages, count_tokens included), Codex only the Responses route,
// so the test's front of swc tells their requests apart by path.
var sharers = []sharer{
	{a: claudeCode, tag: "SHARE-CLAUDE-CODE", mine: func(s sent) bool {
		return s.path == "HEAD /" || strings.HasPrefix(s.path, "POST /v1/messages")
	}},
	{a: codex, tag: "SHARE-CODEX", mine: func(s sent) bool { return strings.HasPrefix(s.path, "POST /v1/responses") }},
}

// TestAgentsShareOneSWC runs Claude Code (Anthropic Messages) and Codex
// (Responses) at the same time through one swc — one service, one SQLite
// store, one key — each against its own scripted upstream (swc's
// Anthropic route to Claude Code's, its OpenAI route to Codex's), at
// budget 8,000 for 40 steps each. Each run must pass what check asks of a
// run alone; and no request of one agent may reach the other's upstream,
// nor anything of one agent's loop (its step files' tagged lines, its
// work directory, the handles of its stubs) the other's upstream or the
// other agent.
func TestAgentsShareOneSWC(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real agent programs (minutes); not with -short")
	}
	const budget = 8000
	for _, s := range sharers {
		npmBin(t, s.a.bin) // skips (or fails, in CI) before the runs
	}
	t.Parallel()
	rns := make([]*run, len(sharers))
	for i, s := range sharers {
		a := s.a
		a.name = "shared-" + a.name
		rns[i] = prepare(t, a, budget, Steps, s.tag)
	}
	px := startProxy(t, upstreams{Anthropic: rns[0].up, OpenAI: rns[1].up}, budget)
	starts := make([]func() result, len(rns))
	for i, rn := range rns {
		starts[i] = rn.start(t, px.URL, px.Key)
	}
	results := make([]result, len(rns))
	var wg sync.WaitGroup
	begin := time.Now()
	for i := range starts {
		wg.Go(func() { results[i] = starts[i]() })
	}
	wg.Wait()
	t.Logf("both runs: %.1fs", time.Since(begin).Seconds())

	reqs := px.requests()
	owner := make([]int, len(reqs)) // sharer index of each request, -1: neither's
	switches, last := 0, -1
	for n, s := range reqs {
		owner[n] = -1
		for i, sh := range sharers {
			if sh.mine(s) {
				owner[n] = i
			}
		}
		if owner[n] < 0 {
			t.Errorf("request %d (%s → %d) is neither agent's", n+1, s.path, s.status)
			continue
		}
		if last >= 0 && owner[n] != last {
			switches++
		}
		last = owner[n]
	}
	t.Logf("swc got %d requests, the agents' interleaved (%d changes of agent between consecutive requests)", len(reqs), switches)
	if switches < 2 {
		t.Errorf("the runs did not overlap: %d changes of agent in swc's %d requests", switches, len(reqs))
	}

	for i, s := range sharers {
		rns[i].measure(&results[i], px, s.mine)
		t.Run(s.a.name, func(t *testing.T) { check(t, results[i], Steps) })
	}

	sides := make([]side, len(rns))
	for i, rn := range rns {
		sides[i] = side{name: sharers[i].a.name, tag: sharers[i].tag, markers: []string{sharers[i].tag, rn.work, rn.home}, got: rn.up.Received()}
	}
	problems, notes := crossed(reqs, owner, sides)
	for _, n := range notes {
		t.Log(n)
	}
	for _, p := range problems {
		t.Error(p)
	}
	for i, r := range results {
		t.Logf("%s: last request %d → %d tokens, %.1fs", sharers[i].a.name, r.SentTokens, r.FwdTokens, r.Wall.Seconds())
	}
}

// side is one agent of a shared swc, as crossed reads it.
type side struct {
	name    string
	tag     string   // its step files' tag: its upstream must see it
	markers []string // what is of its run alone: the tag, its directories
	got     []Received
}

// crossed reports what of one side's run reached the other's: a request
// its upstream got that is not swc's forward of one of its agent's own
// (by the number the front gave it; owner: the side of each of reqs, -1
// for neither), the other's markers in what its upstream got or in its
// agent's own requests, a handle both upstreams got (outside tools), and
// an upstream that never saw its own tag (the checks would be blind). It
// returns the problems and a note per side.
func crossed(reqs []sent, owner []int, sides []side) (problems, notes []string) {
	handles := make([]map[string]bool, len(sides))
	for i, sd := range sides {
		handles[i] = map[string]bool{}
		own := 0
		for k, got := range sd.got {
			n, err := strconv.Atoi(got.Seq)
			switch {
			case err != nil || n < 1 || n > len(reqs):
				problems = append(problems, fmt.Sprintf("%s's upstream: its request %d (%s) carries no number of an agent's request (%s %q)", sd.name, k+1, got.Path, HeaderSeq, got.Seq))
			case owner[n-1] != i:
				problems = append(problems, fmt.Sprintf("%s's upstream: its request %d (%s) is swc's forward of request %d (%s), not one of %s's", sd.name, k+1, got.Path, n, reqs[n-1].path, sd.name))
			}
			for o, other := range sides {
				for _, m := range other.markers {
					if o != i && bytes.Contains(got.Body, []byte(m)) {
						problems = append(problems, fmt.Sprintf("%s's upstream: its request %d holds %q, of %s's run", sd.name, k+1, m, other.name))
					}
				}
			}
			if bytes.Contains(got.Body, []byte(sd.tag)) {
				own++
			}
			for _, h := range handlesOf(got.Body) {
				handles[i][h] = true
			}
		}
		if own == 0 {
			problems = append(problems, fmt.Sprintf("%s's upstream: none of its %d requests holds its own step files' tag %q", sd.name, len(sd.got), sd.tag))
		}
		notes = append(notes, fmt.Sprintf("%s's upstream: %d requests, %d holding its own step files' lines, %d handles of swc's stubs", sd.name, len(sd.got), own, len(handles[i])))
		for n, s := range reqs {
			if owner[n] != i {
				continue
			}
			for o, other := range sides {
				for _, m := range other.markers {
					if o != i && bytes.Contains(s.body, []byte(m)) {
						problems = append(problems, fmt.Sprintf("%s's request %d to swc holds %q, of %s's run", sd.name, n+1, m, other.name))
					}
				}
			}
		}
	}
	for i := range sides {
		for j := i + 1; j < len(sides); j++ {
			var common []string
			for h := range handles[i] {
				if handles[j][h] {
					common = append(common, h)
				}
			}
			if len(common) > 0 {
				slices.Sort(common)
				problems = append(problems, fmt.Sprintf("the upstreams of %s and %s both got the handles %v: a stub of one agent's loop went to the other's", sides[i].name, sides[j].name, common))
			}
		}
	}
	return problems, notes
}

// handlesOf returns the handles of swc's stubs and memory messages in a
// forwarded body, outside its tools (whose swc_recall description shows
// an example).
func handlesOf(body []byte) []string {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return nil
	}
	var out []string
	for k, v := range m {
		if k == "tools" {
			continue
		}
		for _, h := range stubHandle.FindAllSubmatch(v, -1) {
			out = append(out, string(h[1]))
		}
	}
	return out
}

// TestCrossed makes each of crossed's findings fire on crafted requests
// and none on clean ones.
func TestCrossed(t *testing.T) {
	// swc got 1 and 3 from agent A, 2 from B; -1: neither's.
	reqs := []sent{{path: "POST /v1/messages", body: []byte(`{"a":1}`)}, {path: "POST /v1/responses", body: []byte(`{"b":1}`)},
		{path: "POST /v1/messages", body: []byte(`{"a":2}`)}}
	owner := []int{0, 1, 0}
	body := func(s string) []byte {
		return []byte(`{"messages":[` + strconv.Quote(s) + `],"tools":[{"description":"e.g. [swc:h0000000000 …]"}]}`)
	}
	clean := func() []side {
		return []side{
			{name: "A", tag: "TAG-A", markers: []string{"TAG-A", "/work/a"}, got: []Received{
				{Seq: "1", Body: body("TAG-A step 01 [swc:h1111111111 cat /work/a/step-01.txt]")}, {Seq: "3", Body: body("TAG-A step 02")}}},
			{name: "B", tag: "TAG-B", markers: []string{"TAG-B", "/work/b"}, got: []Received{
				{Seq: "2", Body: body("TAG-B step 01 [swc:h2222222222 cat /work/b/step-01.txt]")}}},
		}
	}
	for _, c := range []struct {
		name   string
		change func(sides []side, reqs []sent)
		want   string // in the one problem; "" for none
	}{
		{"clean", func([]side, []sent) {}, ""},
		{"the other's request", func(s []side, _ []sent) { s[1].got[0].Seq = "3" }, "B's upstream: its request 1 () is swc's forward of request 3 (POST /v1/messages), not one of B's"},
		{"no number", func(s []side, _ []sent) { s[0].got[1].Seq = "" }, "carries no number"},
		{"the other's tag upstream", func(s []side, _ []sent) { s[0].got[1].Body = body("TAG-A step 02 TAG-B step 07") }, `A's upstream: its request 2 holds "TAG-B", of B's run`},
		{"the other's directory upstream", func(s []side, _ []sent) { s[1].got[0].Body = body("TAG-B cat /work/a/step-03.txt") }, `holds "/work/a", of A's run`},
		{"the other's tag back at the agent", func(_ []side, r []sent) { r[1].body = []byte(`{"input":"TAG-A step 01"}`) }, `B's request 2 to swc holds "TAG-A"`},
		{"a handle in common", func(s []side, _ []sent) { s[1].got[0].Body = body("TAG-B [swc:h1111111111 …]") }, "both got the handles [h1111111111]"},
		{"own tag never seen", func(s []side, _ []sent) { s[1].got[0].Body = body("step 01") }, `none of its 1 requests holds its own step files' tag "TAG-B"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			sides, rs := clean(), slices.Clone(reqs)
			c.change(sides, rs)
			problems, _ := crossed(rs, owner, sides)
			switch {
			case c.want == "" && len(problems) > 0:
				t.Errorf("problems on clean runs: %q", problems)
			case c.want != "" && (len(problems) != 1 || !strings.Contains(problems[0], c.want)):
				t.Errorf("problems %q, want one holding %q", problems, c.want)
			}
		})
	}
}
