package memory

import (
	"strings"
	"testing"

	"github.com/swcmem/swc"
)

func TestTurnHead(t *testing.T) {
	c := mustNew(t, DefaultOptions())
	long := "THOUGHT: The bug is in `django/core/mail/message.py`. " + strings.Repeat("It encodes the header before the domain is converted, so a non-ASCII host name fails there. ", 6) + "Last, the tests must pass."
	cmd := "```bash\nsed -n '250,270p' django/core/mail/message.py\n```"
	cases := []struct {
		name     string
		content  string
		clipped  bool
		want     []string // substrings of the clipped text, in order
		wantNone []string // substrings it must not hold
	}{
		{"text agent: first sentence, handle, command", long + "\n\n" + cmd, true,
			[]string{"THOUGHT: The bug is in `django/core/mail/message.py`.", "[swc:h", " …]", cmd}, []string{"tests must pass"}},
		{"prose only", long, true, []string{"THOUGHT: The bug is in", "fails there. [swc:h"}, []string{"tests must pass"}},
		{"every fenced block kept", long + "\n```python\nx = 1\n```\nThen run it.\n" + cmd, true,
			[]string{"```python\nx = 1\n```", cmd}, []string{"Then run it.", "tests must pass"}},
		{"short turn whole", "THOUGHT: Run the tests.\n\n" + cmd, false, nil, nil},
		{"prose just over the limit whole", strings.Repeat("word ", 60), false, nil, nil},
		{"a placeholder: not all of the message", "[image]\n" + long, false, nil, nil},
		{"Anthropic reasoning: clipped, its placeholder gone", "[thinking]\n" + long + "\n[redacted_thinking]", true,
			[]string{"THOUGHT: The bug is in", "[swc:h"}, []string{"[thinking]", "[redacted_thinking]", "tests must pass"}},
		{"reasoning beside another placeholder: whole", "[thinking]\n" + long + "\n[image]", false, nil, nil},
		{"a Gemini media part: not all of the message", long + "\n[inlineData image/png]", false, nil, nil},
		{"an open fence", long + "\n```bash\nls\n", false, nil, nil},
		{"a call's text (Responses' hosted call)", "[web_search_call] " + long, false, nil, nil},
		{"an action in tags (CodeAct)", long + "\n<execute_bash>\nls -la\n</execute_bash>", false, nil, nil},
		{"a call written as text", long + "\n<function=execute_bash>\n<parameter=command>ls</parameter>\n", false, nil, nil},
		{"tags inside a fence do not count", long + "\n```bash\necho '</div>' > t.html\n```", true, []string{"THOUGHT: The bug is in", "echo '</div>'"}, []string{"tests must pass"}},
		{"a block of four backticks holds a fenced block whole", long + "\n````markdown\n```python\nprint(1)\n```\n````", true,
			[]string{"````markdown\n```python\nprint(1)\n```\n````"}, []string{"tests must pass"}},
		{"a fence line with an info string does not close a block", long + "\n```bash\ncat > notes.md <<'EOF'\n```python\nprint(1)\n```\nEOF\n```", false, nil, nil},
		{"a command in a fence opened mid-line: whole (the prose holds it)", long + " I'll list it now:```bash\nls -la src/libponyc/ast\n```\nthen\n````", false, nil, nil},
		{"a first sentence too long: its words", strings.Repeat("naïve ", 200) + "end.", true, []string{"naïve naïve", "[swc:h"}, nil},
		{"Chinese: its first sentences", "我需要先看解析器的代码。" + strings.Repeat("头部在编码确定之前就被读取了，所以名字会漂移。", 12), true, []string{"我需要先看解析器的代码。", "[swc:h"}, nil},
		{"no spaces and no full stop: its leading characters", strings.Repeat("解析器读取头部", 60), true, []string{"解析器读取", "[swc:h"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := swc.Message{Role: swc.RoleAssistant, Content: tc.content}
			got, h, ok := c.turnHead(m, DefaultTurnTokens)
			if ok != tc.clipped {
				t.Fatalf("clipped %v, want %v: %q", ok, tc.clipped, got)
			}
			if !ok {
				return
			}
			if h == "" {
				t.Fatalf("no handle: %q", got)
			}
			if h != HistoryHandle([]swc.Message{m}) || !strings.Contains(got, "[swc:"+h+" …]") {
				t.Errorf("handle %s not the turn's or not shown: %q", h, got)
			}
			at := 0
			for _, w := range tc.want {
				i := strings.Index(got[at:], w)
				if i < 0 {
					t.Fatalf("%q lacks %q (in order): %q", tc.name, w, got)
				}
				at += i + len(w)
			}
			for _, w := range tc.wantNone {
				if strings.Contains(got, w) {
					t.Errorf("holds %q: %q", w, got)
				}
			}
			prose, _, _ := fences(got)
			if n := c.counter.Count(strings.Join(prose, "\n")); n > DefaultTurnTokens+16 {
				t.Errorf("prose of %d tokens kept: %q", n, got)
			}
			if !strings.HasPrefix(got, strings.TrimSpace(got)) || !isValidUTF8(got) {
				t.Errorf("not trimmed or not UTF-8: %q", got)
			}
		})
	}
}

func isValidUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// TestLoopTurnsClipped: a text-acting agent's loop clips the turns of the
// exchanges whose observations are stubbed — commands whole, tool calls
// untouched — and leaves the turns of the verbatim window as they came;
// TurnTokens -1 clips none.
func TestLoopTurnsClipped(t *testing.T) {
	think := " " + strings.Repeat("I think the parser drops the header because the encoding runs first. ", 5)
	var msgs []swc.Message
	msgs = append(msgs, swc.Message{Role: swc.RoleSystem, Content: "You are a coding agent."}, swc.Message{Role: swc.RoleUser, Content: "Fix the bug in parser.py."})
	for k := range 12 {
		msgs = append(msgs,
			swc.Message{Role: swc.RoleAssistant, Content: "THOUGHT: Step " + string(rune('a'+k)) + "." + think + "\n\n```bash\ncat -n parser.py\n```"},
			swc.Message{Role: swc.RoleUser, Content: "<returncode>0</returncode>\n<output>\n" + strings.Repeat("  1\tdef parse(header_value, encoding):\n", 80) + "</output>"})
		if k == 2 { // an answer to the person, then their next request
			msgs = append(msgs, swc.Message{Role: swc.RoleAssistant, Content: "Here is what I found so far." + think},
				swc.Message{Role: swc.RoleUser, Content: "Thanks, go on."})
		}
	}
	answer := 8 // the index of the answer to the person
	for _, turn := range []int{0, -1} {
		o := DefaultOptions()
		o.Budget, o.TurnTokens = 100000, turn
		c := mustNew(t, o)
		res, err := c.Compress(t.Context(), msgs)
		if err != nil {
			t.Fatal(err)
		}
		if msgs[answer].Content != "Here is what I found so far."+think {
			t.Fatalf("message %d is not the answer: %.40q", answer, msgs[answer].Content)
		}
		if _, ok := res.Rewritten[answer]; ok {
			t.Errorf("the answer to the person was clipped")
		}
		stubs, clipped := 0, 0
		for i, text := range res.Rewritten {
			if msgs[i].Role != swc.RoleAssistant {
				stubs++
				continue
			}
			clipped++
			if !strings.HasSuffix(text, "```bash\ncat -n parser.py\n```") || strings.Count(text, "encoding runs first") > 3 {
				t.Errorf("turn %d clipped to %q", i, text)
			}
			if _, stubbed := res.Rewritten[i+1]; !stubbed {
				t.Errorf("turn %d clipped while its observation is verbatim", i)
			}
		}
		switch {
		case stubs == 0:
			t.Fatalf("TurnTokens %d: no stub", turn)
		case turn < 0 && clipped > 0:
			t.Errorf("TurnTokens -1 clipped %d turns", clipped)
		case turn == 0 && clipped != stubs:
			t.Errorf("%d turns clipped, %d observations stubbed", clipped, stubs)
		}
	}
}

// TestTurnHeadReasoning: an old Anthropic turn whose prose is too short
// to clip still goes without its reasoning blocks: its text as it came,
// their placeholders taken out, no handle (nothing of the text is left
// out); a turn without reasoning is left alone.
func TestTurnHeadReasoning(t *testing.T) {
	c := mustNew(t, DefaultOptions())
	cases := []struct {
		name, content, want string
		ok                  bool
	}{
		{"thinking and a short text", "[thinking]\nLet me read the file.", "Let me read the file.", true},
		{"thinking alone (a turn of calls)", "[thinking]", "", true},
		{"two thinking blocks around the text", "[thinking]\nFirst.\n[redacted_thinking]", "First.", true},
		{"a Gemini thought", "[thought]\nFirst.", "First.", true},
		{"no reasoning, short", "Let me read the file.", "", false},
		{"reasoning beside an image", "[thinking]\n[image]\nSee.", "", false},
		{"a line that only mentions thinking", "I was [thinking] about it.", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, h, ok := c.turnHead(swc.Message{Role: swc.RoleAssistant, Content: tc.content}, DefaultTurnTokens)
			if ok != tc.ok || ok && (got != tc.want || h != "") {
				t.Fatalf("turnHead = %q, %q, %v; want %q, \"\", %v", got, h, ok, tc.want, tc.ok)
			}
		})
	}
	if _, _, ok := c.turnHead(swc.Message{Role: swc.RoleAssistant, Content: "[thinking]\nx"}, -1); ok {
		t.Error("TurnTokens off: a turn was rewritten")
	}
}
