package memory

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/swcmem/swc"
)

func TestClipArgs(t *testing.T) {
	c := mustNew(t, DefaultOptions())
	file := ""
	for k := range 60 {
		file += fmt.Sprintf("def handler_%d(request):\n    return respond(request, %d)\n", k, k)
	}
	long, _ := json.Marshal(file)
	cases := []struct {
		name    string
		args    string
		clipped bool
		want    []string // substrings of the clipped arguments
	}{
		{"a Write's content", `{"file_path":"/src/app/views.py","content":` + string(long) + `}`, true,
			[]string{`"file_path":"/src/app/views.py"`, `"content":"def handler_0(request):\n`, `more lines`, `tokens left out]"`}},
		{"every long member, order and spacing kept", `{ "old_string" : ` + string(long) + `, "new_string": ` + string(long) + `, "replace_all": false }`, true,
			[]string{`{ "old_string" : "def handler_0`, `, "new_string": "def handler_0`, `, "replace_all": false }`}},
		{"a short member whole", `{"command":"go test ./...","description":"Run the tests"}`, false, nil},
		{"not an object", string(long), false, nil},
		{"a nested long string (MultiEdit's edits)", `{"file_path":"a.py","edits":[{"old_string":` + string(long) + `,"new_string":"x"}]}`, true,
			[]string{`{"file_path":"a.py","edits":[{"old_string":"def handler_0(request):\n`, ` tokens left out]","new_string":"x"}]}`}},
		{"a custom tool's free text (apply_patch)", "*** Begin Patch\n*** Update File: app/views.py\n" + file + "*** End Patch", true,
			[]string{"*** Begin Patch\n*** Update File: app/views.py\n", "more lines, "}},
		{"a list", `[` + string(long) + `]`, false, nil},
		{"not JSON", `{"content":` + string(long), false, nil},
		{"one long line: its leading words", `{"content":` + strings.Repeat(`"`, 1) + strings.Repeat("word ", 400) + `"}`, true, []string{`"content":"word word`, `word [swc:hX … `, ` tokens left out]"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := c.clipArgs(tc.args, "hX")
			if ok != tc.clipped {
				t.Fatalf("clipped %v, want %v: %.200s", ok, tc.clipped, got)
			}
			if !ok {
				return
			}
			var obj map[string]any
			if !strings.HasPrefix(tc.args, "{") {
				if n := c.countText(got); n > DefaultTurnTokens+24 {
					t.Errorf("free text keeps %d tokens: %q", n, got)
				}
			} else if err := json.Unmarshal([]byte(got), &obj); err != nil {
				t.Fatalf("not a JSON object: %v: %.300s", err, got)
			}
			var was map[string]any
			_ = json.Unmarshal([]byte(tc.args), &was)
			for k, v := range was {
				s, isString := v.(string)
				switch w := obj[k]; {
				case !isString && strings.Contains(fmt.Sprint(w), "tokens left out]"):
				case !isString || c.countText(s) <= c.clipArgTokens():
					if fmt.Sprint(w) != fmt.Sprint(v) {
						t.Errorf("member %q changed: %v", k, w)
					}
				default:
					ws, _ := w.(string)
					if n := c.countText(ws); n > DefaultTurnTokens+24 {
						t.Errorf("member %q keeps %d tokens: %q", k, n, ws)
					}
				}
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q: %.400s", w, got)
				}
			}
		})
	}
}

// callLoop is a coding agent's tool loop whose every turn writes a file
// of lines lines through a Write call, then edits it.
func callLoop(steps, lines int) []swc.Message {
	msgs := []swc.Message{{Role: swc.RoleSystem, Content: "You are a coding agent."}, {Role: swc.RoleUser, Content: "Add the handlers to app/views.py."}}
	for k := range steps {
		file := ""
		for j := range lines {
			file += fmt.Sprintf("def handler_%d_%d(request):\n    return respond(request, %d)\n", k, j, j)
		}
		content, _ := json.Marshal(file)
		id := fmt.Sprintf("toolu_%02d", k)
		msgs = append(msgs,
			swc.Message{Role: swc.RoleAssistant, Content: "Writing the file.", ToolCalls: []swc.ToolCall{
				{ID: id, Name: "Write", Arguments: fmt.Sprintf(`{"file_path":"app/views_%d.py","content":%s}`, k, content)},
				{ID: id + "b", Name: "Bash", Arguments: `{"command":"python -m pytest -q"}`},
			}},
			swc.Message{Role: swc.RoleTool, ToolCallID: id, Content: fmt.Sprintf("File created successfully at: app/views_%d.py", k)},
			swc.Message{Role: swc.RoleTool, ToolCallID: id + "b", Content: strings.Repeat(fmt.Sprintf("tests/test_views_%d.py::test_handler PASSED\n", k), 60)})
	}
	return msgs
}

// TestLoopClipsOldCalls: once its exchange's outputs are stubbed, an old
// turn's long call arguments are clipped in the request sent (Calls):
// ids, names and short members as they came, the clipped member naming
// the turn's handle, which Recall resolves to the whole turn; the turn
// being answered and the verbatim window's turns keep their calls; the
// tokens counted are those of the messages sent. TurnTokens -1 clips none.
func TestLoopClipsOldCalls(t *testing.T) {
	msgs := callLoop(12, 40)
	last := len(msgs) - 3
	for _, turn := range []int{0, -1} {
		o := DefaultOptions()
		o.Budget, o.TurnTokens = 200000, turn
		c := mustNew(t, o)
		res, err := c.Compress(t.Context(), msgs)
		if err != nil {
			t.Fatal(err)
		}
		if turn < 0 {
			if len(res.Calls) > 0 {
				t.Errorf("TurnTokens -1 clipped the calls of %d turns", len(res.Calls))
			}
			continue
		}
		if len(res.Calls) == 0 {
			t.Fatal("no call clipped")
		}
		if _, ok := res.Calls[last]; ok {
			t.Error("the turn being answered had its calls clipped")
		}
		handles := map[string][]int{}
		for _, r := range res.Recall {
			handles[r.Handle] = r.Messages
		}
		for i, cs := range res.Calls {
			m := msgs[i]
			if m.Role != swc.RoleAssistant || len(cs) != len(m.ToolCalls) {
				t.Fatalf("message %d: %d calls for %d", i, len(cs), len(m.ToolCalls))
			}
			if _, ok := res.Rewritten[i+2]; !ok {
				t.Errorf("turn %d's calls clipped while its output is verbatim", i)
			}
			for k, tc := range cs {
				if tc.ID != m.ToolCalls[k].ID || tc.Name != m.ToolCalls[k].Name {
					t.Errorf("turn %d call %d: id or name changed: %+v", i, k, tc)
				}
				if tc.Name == "Bash" && tc.Arguments != m.ToolCalls[k].Arguments {
					t.Errorf("turn %d: a short call changed: %s", i, tc.Arguments)
				}
			}
			h := HistoryHandle(msgs[i : i+1])
			if !strings.Contains(cs[0].Arguments, "[swc:"+h+" …") {
				t.Errorf("turn %d: clipped arguments do not name handle %s: %.300s", i, h, cs[0].Arguments)
			}
			if got := handles[h]; len(got) != 1 || got[0] != i {
				t.Errorf("turn %d: handle %s recalls %v", i, h, got)
			}
			if !strings.Contains(Original(msgs[i:i+1]), "handler_") {
				t.Errorf("the original of turn %d lacks its file", i)
			}
		}
		n := 0
		for k, src := range res.Source {
			m := res.Messages[k]
			if src >= 0 {
				if cs, ok := res.Calls[src]; ok && m.ToolCalls[0].Arguments != cs[0].Arguments {
					t.Errorf("message %d sent without its clipped calls", src)
				}
			}
			n += c.Cost(m)
		}
		if n != res.Tokens {
			t.Errorf("Tokens %d, the messages sent cost %d", res.Tokens, n)
		}
		if old, now := c.CountMessages(msgs), res.Tokens; now > old*2/3 {
			t.Errorf("sent %d of %d tokens", now, old)
		}
	}
}

// TestLoopClipsOldCallsStable: two requests of a loop between the
// window's jumps clip the same calls the same way (the prefix stays
// cached).
func TestLoopClipsOldCallsStable(t *testing.T) {
	msgs := callLoop(14, 40)
	o := DefaultOptions()
	o.Budget = 200000
	a, b := mustNew(t, o), mustNew(t, o)
	short := msgs[:len(msgs)-3]
	r1, err := a.Compress(t.Context(), short)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := b.Compress(t.Context(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	same := 0
	for i, cs := range r1.Calls {
		if cs2, ok := r2.Calls[i]; ok && cs2[0].Arguments == cs[0].Arguments {
			same++
		}
	}
	if same == 0 {
		t.Fatalf("no clipped call the same in both requests (%d, %d clipped)", len(r1.Calls), len(r2.Calls))
	}
	re := regexp.MustCompile(`\[swc:h[0-9a-f]{10} … \d+ more lines, \d+ tokens left out\]`)
	for _, cs := range r2.Calls {
		if !re.MatchString(cs[0].Arguments) {
			t.Errorf("no clip line: %.300s", cs[0].Arguments)
		}
	}
}
