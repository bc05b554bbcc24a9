package observe

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/swcmem/swc/internal/skipnote"
	"github.com/swcmem/swc/tokens"
)

// trajectoryDir is where the shared coding-agent trajectories live:
// shared/data/trajectories beside the repository's directory.
func trajectoryDir() string {
	_, file, _, _ := runtime.Caller(0) // …/observe/trajectory_test.go
	root := filepath.Dir(filepath.Dir(file))
	return filepath.Join(filepath.Dir(root), "shared", "data", "trajectories")
}

// step is one message of a trajectory as the retention test reads it.
type step struct {
	role string
	text string       // content text; of an assistant turn with its calls' arguments
	obs  *Observation // a tool output or text-acting observation
	id   string       // the call id (or the message index) the handle is of
}

// loadTrajectory reads a trajectory file's OpenAI form into steps: tool
// messages (with their call) and user messages shaped as observations
// (with the command of the assistant turn before them).
func loadTrajectory(t *testing.T, path string) []step {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		OpenAI struct {
			Messages []struct {
				Role      string          `json:"role"`
				Content   json.RawMessage `json:"content"`
				ToolCalls []struct {
					ID       string `json:"id"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
				ToolCallID string `json:"tool_call_id"`
			} `json:"messages"`
		} `json:"openai"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	type call struct{ name, args string }
	calls := map[string]call{}
	lastCommand := ""
	var steps []step
	for i, m := range file.OpenAI.Messages {
		text := contentText(m.Content)
		s := step{role: m.Role, text: text}
		switch m.Role {
		case "assistant":
			lastCommand = bashBlock(text)
			for _, c := range m.ToolCalls {
				calls[c.ID] = call{c.Function.Name, c.Function.Arguments}
				s.text += "\n" + c.Function.Arguments
			}
		case "tool":
			c := calls[m.ToolCallID]
			s.obs = &Observation{Tool: c.name, Arguments: c.args, Output: text}
			s.id = m.ToolCallID
		case "user":
			if i > 1 && IsObservation(text) {
				s.obs = &Observation{Arguments: lastCommand, Output: text}
				s.id = strconv.Itoa(i)
			}
		}
		steps = append(steps, s)
	}
	return steps
}

// contentText is a message content's text: a string, or its text parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

var bashRe = regexp.MustCompile("(?s)```bash\\s*\\n(.*?)```")

// bashBlock returns the command of a text-acting turn's bash block.
func bashBlock(text string) string {
	if m := bashRe.FindStringSubmatch(text); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

// tailBaseline keeps the header and the output's last lines up to limit
// tokens in all: the "keep the end of the output" stand-in.
func tailBaseline(o Observation, handle string, limit int) string {
	body, exit, ok := unwrap(o.Output)
	head := header(handle, callText(o), outcome(body, exit, ok, o.IsError))
	lines := strings.Split(body, "\n")
	with := func(k int) string { return head + "\n" + strings.Join(lines[k:], "\n") }
	// The smallest k whose tail fits: tokens fall as k grows.
	lo, hi := 0, len(lines)
	for lo < hi {
		mid := (lo + hi) / 2
		if tokens.Count(with(mid)) <= limit {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if lo == len(lines) {
		return head
	}
	return with(lo)
}

// TestTrajectories stubs every old tool output of the shared trajectories
// (one a later assistant turn came after) and checks each stub is within
// MaxTokens, deterministic and under a stable handle. It logs forward
// retention: of the identifiers a later assistant turn uses that were,
// before it, only in this output (not in the system prompt, the task, an
// assistant turn or another message the request keeps whole), the share
// the stub holds, against the output's last lines at the stub's token
// count; at the default size per file, then (without -short) at half and
// twice that.
func TestTrajectories(t *testing.T) {
	dir := trajectoryDir()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		skipnote.Skip(t, "trajectories", "none found in "+dir+", so the stub retention test skips")
	}
	handleRe := regexp.MustCompile(`^h[0-9a-f]{10}$`)
	type use struct {
		file         string
		obs          Observation
		h            string
		known, focus map[string]bool
		want         []string
	}
	var uses []use
	for _, path := range files {
		steps := loadTrajectory(t, path)
		for i, s := range steps {
			if s.obs == nil {
				continue
			}
			h := Handle(s.id, s.obs.Output)
			if !handleRe.MatchString(h) || h != Handle(s.id, s.obs.Output) {
				t.Fatalf("%s: message %d: handle %q", filepath.Base(path), i, h)
			}
			outIDs := Identifiers(s.obs.Output)
			known := map[string]bool{}
			focus := map[string]bool{} // what a loop may mark: the task's and the calls' identifiers
			later := 0                 // assistant turns after the output
			for j, u := range steps {
				if j > i && u.role == "assistant" {
					later++
					if later >= 2 { // the output is old: a turn came between
						if want := forwardUses(outIDs, u.text, known); len(want) > 0 {
							uses = append(uses, use{filepath.Base(path), *s.obs, h, maps.Clone(known), maps.Clone(focus), want})
						}
					}
				}
				if u.obs == nil { // the request keeps it whole
					for _, id := range Identifiers(u.text) {
						known[id] = true
					}
				}
				marked := ""
				switch {
				case j == 1:
					marked = u.text // the task
				case u.obs != nil:
					marked = u.obs.Arguments // a call
				}
				for _, id := range Identifiers(marked) {
					focus[id] = true
				}
			}
		}
	}
	if len(uses) == 0 {
		t.Fatal("no forward uses found: the loader read no observations")
	}
	limits := []int{DefaultStubTokens, DefaultStubTokens / 2, DefaultStubTokens * 2}
	if testing.Short() {
		limits = limits[:1]
	}
	for _, limit := range limits {
		var total, kept, base, stubTokens, outTokens int
		perFile := map[string][3]int{}
		for _, u := range uses {
			r := checkStub(t, u.obs, u.h, limit, u.known, u.want)
			total, kept, base = total+len(u.want), kept+r.kept, base+r.base
			stubTokens += r.tokens
			outTokens += tokens.Count(u.obs.Output)
			f := perFile[u.file]
			perFile[u.file] = [3]int{f[0] + len(u.want), f[1] + r.kept, f[2] + r.base}
		}
		if limit == DefaultStubTokens {
			for _, name := range slices.Sorted(maps.Keys(perFile)) {
				f := perFile[name]
				t.Logf("%-52s %4d uses: stub %5.1f%%, tail %5.1f%%", name, f[0], pct(f[1], f[0]), pct(f[2], f[0]))
			}
		}
		t.Logf("MaxTokens %d: %d uses over %d stubs (mean %d tokens, outputs mean %d): stub keeps %.1f%%, tail %.1f%%",
			limit, total, len(uses), stubTokens/len(uses), outTokens/len(uses), pct(kept, total), pct(base, total))
		if kept <= base {
			t.Errorf("MaxTokens %d: stubs keep %d of %d forward uses, no more than the output's tail (%d)", limit, kept, total, base)
		}
	}
	// With Focus: the identifiers of the task and of every call so far.
	var total, kept int
	for _, u := range uses {
		opt := StubOptions{Handle: u.h, Known: func(id string) bool { return u.known[id] }, Focus: func(id string) bool { return u.focus[id] }}
		stub := Stub(u.obs, opt)
		if n := tokens.Count(stub); n > DefaultStubTokens {
			t.Fatalf("stub with Focus of %d tokens:\n%s", n, stub)
		}
		has := idSet(stub)
		for _, id := range u.want {
			total++
			if has[id] {
				kept++
			}
		}
	}
	t.Logf("MaxTokens %d, Focus = the task's and the calls' identifiers: stub keeps %.1f%%", DefaultStubTokens, pct(kept, total))
	// As memory stubs by default: Focus, and after the diagnostic and Focus
	// rounds only lines worth memory.DefaultStubValue per token.
	var stubTokens int
	total, kept = 0, 0
	for _, u := range uses {
		opt := StubOptions{Handle: u.h, MinValue: 0.05, Known: func(id string) bool { return u.known[id] }, Focus: func(id string) bool { return u.focus[id] }}
		stub := Stub(u.obs, opt)
		stubTokens += tokens.Count(stub)
		has := idSet(stub)
		for _, id := range u.want {
			total++
			if has[id] {
				kept++
			}
		}
	}
	t.Logf("MaxTokens %d, Focus, MinValue 0.05 (memory's default): stub keeps %.1f%% (mean %d tokens)", DefaultStubTokens, pct(kept, total), stubTokens/len(uses))
}

// forwardUses returns the identifiers of an output that turn uses and
// the request does not otherwise hold.
func forwardUses(outIDs []string, turn string, known map[string]bool) []string {
	used := idSet(turn)
	var want []string
	for _, id := range outIDs {
		if used[id] && !known[id] {
			want = append(want, id)
		}
	}
	return want
}

type stubResult struct{ kept, base, tokens int }

// checkStub stubs o within limit tokens, fails t when the stub is over
// it, not deterministic or not under its handle, and counts the wanted
// identifiers the stub and the tail baseline keep.
func checkStub(t *testing.T, o Observation, h string, limit int, known map[string]bool, want []string) stubResult {
	t.Helper()
	opt := StubOptions{Handle: h, MaxTokens: limit, Known: func(id string) bool { return known[id] }}
	stub := Stub(o, opt)
	if again := Stub(o, opt); again != stub {
		t.Fatalf("stub not deterministic:\n%s\n---\n%s", stub, again)
	}
	n := tokens.Count(stub)
	if n > limit {
		t.Fatalf("stub of %d tokens > %d:\n%s", n, limit, stub)
	}
	if !strings.HasPrefix(stub, "[swc:"+h+" ") {
		t.Fatalf("stub does not open with its handle %s:\n%s", h, stub)
	}
	if body, _, _ := unwrap(o.Output); body != "" && !slices.ContainsFunc(strings.Split(body, "\n"), func(l string) bool { return len(l) > pieceLineBytes }) {
		if n, want := accounted(stub), strings.Count(body, "\n")+1; n != want {
			t.Fatalf("stub accounts for %d lines of %d:\n%s", n, want, stub)
		}
	}
	has, tail := idSet(stub), idSet(tailBaseline(o, h, n))
	r := stubResult{tokens: n}
	for _, id := range want {
		if has[id] {
			r.kept++
		}
		if tail[id] {
			r.base++
		}
	}
	return r
}

func idSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, id := range Identifiers(s) {
		m[id] = true
	}
	return m
}

func pct(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }

// TestReuseRates logs, over the shared trajectories, how often a later
// assistant turn reuses an identifier first seen in a tool output, by the
// identifier's kind and by how many lines of the output hold it (names
// alone in finer steps), by whether a definition line holds it, and of
// self.x and this.x attributes: the evidence for Stub's weights. An
// identifier counts when no message kept whole up to the turn right after
// the output holds it; it is reused when an assistant turn after that one
// names it.
func TestReuseRates(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(trajectoryDir(), "*.json"))
	if len(files) == 0 {
		skipnote.Skip(t, "trajectories", "none found in "+trajectoryDir()+", so the reuse rates are not measured")
	}
	kindNames := [...]string{kindNumber: "number", kindName: "name", kindDotted: "dotted", kindPath: "path", kindRef: "file:line"}
	var byKind [len(kindNames)][2]int
	byLines := map[string]*[2]int{"1": {}, "2-3": {}, "4-9": {}, "10+": {}}
	byName := map[string]*[2]int{"1": {}, "2-3": {}, "4-9": {}, "10-29": {}, "30-99": {}, "100+": {}} // names alone
	var byDef [2][2]int                                                                               // not held by a definition line, held by one
	var selfDotted [2]int                                                                             // self.x, this.x
	for _, path := range files {
		steps := loadTrajectory(t, path)
		for i, s := range steps {
			if s.obs == nil {
				continue
			}
			known, used := map[string]bool{}, map[string]bool{}
			for j, u := range steps {
				switch {
				case j <= i+1 && u.obs == nil:
					for _, id := range Identifiers(u.text) {
						known[id] = true
					}
				case j > i+1 && u.role == "assistant":
					for _, id := range Identifiers(u.text) {
						used[id] = true
					}
				}
			}
			body, _, _ := unwrap(s.obs.Output)
			kinds, lines := map[string]kind{}, map[string]int{}
			defined := map[string]bool{} // held by a definition line
			for _, l := range strings.Split(body, "\n") {
				inLine := map[string]bool{}
				code, _ := codeOf(l)
				def := definition(code)
				scan(l, func(id string, k kind) {
					if _, ok := kinds[id]; !ok {
						kinds[id] = k
					}
					if !inLine[id] {
						inLine[id] = true
						lines[id]++
					}
					defined[id] = defined[id] || def
				})
			}
			for id, k := range kinds {
				if known[id] {
					continue
				}
				bucket := "1"
				switch n := lines[id]; {
				case n >= 10:
					bucket = "10+"
				case n >= 4:
					bucket = "4-9"
				case n >= 2:
					bucket = "2-3"
				}
				nameBucket := ""
				if k == kindName {
					switch n := lines[id]; {
					case n >= 100:
						nameBucket = "100+"
					case n >= 30:
						nameBucket = "30-99"
					case n >= 10:
						nameBucket = "10-29"
					default:
						nameBucket = bucket
					}
				}
				def := 0
				if defined[id] {
					def = 1
				}
				self := k == kindDotted && (strings.HasPrefix(id, "self.") || strings.HasPrefix(id, "this."))
				counters := []*[2]int{&byKind[k], byLines[bucket], &byDef[def]}
				if nameBucket != "" {
					counters = append(counters, byName[nameBucket])
				}
				if self {
					counters = append(counters, &selfDotted)
				}
				for _, c := range counters {
					c[0]++
					if used[id] {
						c[1]++
					}
				}
			}
		}
	}
	for k, c := range byKind {
		t.Logf("%-9s %5d identifiers, %4d reused: %4.1f%%", kindNames[k], c[0], c[1], pct(c[1], c[0]))
	}
	for _, b := range []string{"1", "2-3", "4-9", "10+"} {
		c := byLines[b]
		t.Logf("in %-3s lines %5d identifiers, %4d reused: %4.1f%%", b, c[0], c[1], pct(c[1], c[0]))
	}
	for _, b := range []string{"1", "2-3", "4-9", "10-29", "30-99", "100+"} {
		c := byName[b]
		t.Logf("names in %-5s lines %5d, %4d reused: %4.1f%%", b, c[0], c[1], pct(c[1], c[0]))
	}
	t.Logf("held by a definition line %5d, %4d reused: %4.1f%%; by none %5d, %4d reused: %4.1f%%",
		byDef[1][0], byDef[1][1], pct(byDef[1][1], byDef[1][0]), byDef[0][0], byDef[0][1], pct(byDef[0][1], byDef[0][0]))
	t.Logf("self.x and this.x %5d, %4d reused: %4.1f%%", selfDotted[0], selfDotted[1], pct(selfDotted[1], selfDotted[0]))
}
