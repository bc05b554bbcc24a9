package memory

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

func TestXMLCallOf(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		ok         bool
		values     []string
	}{
		{"read", "<thinking>\nLook at the routes.\n</thinking>\n\n<read_file>\n<path>src/routes.ts</path>\n</read_file>", true, []string{"src/routes.ts"}},
		{"write, trailing space", "I'll write it.\n\n<write_to_file>\n<path>a.ts</path>\n<content>\nconst a = 1;\n</content>\n</write_to_file>\n\n", true, []string{"a.ts", "\nconst a = 1;\n"}},
		{"a value holding its closing tag mid-line", "<write_to_file>\n<path>x.md</path>\n<content>\nwrite </content> tags like this\n</content>\n</write_to_file>", true, []string{"x.md", "\nwrite </content> tags like this\n"}},
		{"a value holding tags", "<replace_in_file>\n<path>a.html</path>\n<diff>\n<<<<<<< SEARCH\n<b>x</b>\n=======\n<i>x</i>\n>>>>>>> REPLACE\n</diff>\n</replace_in_file>", true, []string{"a.html", "\n<<<<<<< SEARCH\n<b>x</b>\n=======\n<i>x</i>\n>>>>>>> REPLACE\n"}},
		{"no parameters", "Done.\n<list_files>\n</list_files>", true, nil},
		{"a fenced shell command", "THOUGHT: look\n\n```bash\ncat a.py\n```", false, nil},
		{"CodeAct text, not parameters", "Run it.\n<execute_bash>\nls -la\n</execute_bash>", false, nil},
		{"a function tag", "<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>", false, nil},
		{"opening mid-line", "see <read_file>\n<path>a</path>\n</read_file>", false, nil},
		{"prose after the call", "<read_file>\n<path>a</path>\n</read_file>\nThen I will edit it.", false, nil},
		{"an unclosed parameter", "<read_file>\n<path>a\n</read_file>", false, nil},
		{"an uppercase tag", "<Read_File>\n<path>a</path>\n</Read_File>", false, nil},
		{"a written file showing the same call", "<write_to_file>\n<path>docs/tools.md</path>\n<content>\nExample:\n<write_to_file>\n<path>x</path>\n</write_to_file>\n</content>\n</write_to_file>", true, []string{"docs/tools.md", "\nExample:\n<write_to_file>\n<path>x</path>\n</write_to_file>\n"}},
		{"CRLF", "<read_file>\r\n<path>a.ts</path>\r\n</read_file>", true, []string{"a.ts"}},
		{"nothing", "", false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			xc, ok := xmlCallOf(tc.text)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			var got []string
			for _, v := range xc.values {
				got = append(got, tc.text[v[0]:v[1]])
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.values) {
				t.Errorf("values %q, want %q", got, tc.values)
			}
			if call := tc.text[xc.start:xc.end]; !strings.HasPrefix(call, "<") || !strings.HasSuffix(call, ">") || command(tc.text) == "" {
				t.Errorf("call %q, command %q", call, command(tc.text))
			}
		})
	}
}

func TestXMLCommand(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"<thinking>\nLook.\n</thinking>\n\n<read_file>\n<path>src/routes.ts</path>\n</read_file>", "read file(path=src/routes.ts)"},
		{"<search_files>\n<path>src</path>\n<regex>getQuote</regex>\n<file_pattern>*.ts</file_pattern>\n</search_files>", "search files(path=src, regex=getQuote, file_pattern=*.ts)"},
		{"<write_to_file>\n<path>index.html</path>\n<content>\n<html>\n<head></head>\n</html>\n</content>\n</write_to_file>", "write to file(path=index.html, content)"},
		{"<list-files>\n</list-files>", "list files()"},
		{"THOUGHT: x\n\n```bash\ncat a.py\n```", "cat a.py"},
	} {
		got := command(tc.text)
		if xc, ok := xmlCallOf(tc.text); ok {
			tc.want += "\n" + tc.text[xc.start:xc.end]
		}
		if got != tc.want {
			t.Errorf("command(%.40q) = %q, want %q", tc.text, got, tc.want)
		}
	}
	if !looksAtMatch(command("<read_file>\n<path>a.ts</path>\n</read_file>")) {
		t.Error("a read_file call does not read as looking at a file")
	}
}

// clineLoop is a loop of an agent that calls tools in XML tags of its
// text: each step reads a file, then writes it whole; each result opens
// with its header.
func clineLoop(steps int) []swc.Message {
	msgs := []swc.Message{
		{Role: swc.RoleSystem, Content: "You are a coding agent. Use one tool per message, written as XML tags."},
		{Role: swc.RoleUser, Content: "<task>\nAdd the missing handlers to src/routes.ts.\n</task>"},
	}
	env := "\n<environment_details>\n# VSCode Open Tabs\nsrc/routes.ts\n</environment_details>"
	for k := range steps {
		file := fmt.Sprintf("src/handlers/h%02d.ts", k)
		var body strings.Builder
		for j := range 60 {
			fmt.Fprintf(&body, "export const handler%02d_%02d = async (req: Request) => respond(req, %d);\n", k, j, 1000+j)
		}
		msgs = append(msgs,
			swc.Message{Role: swc.RoleAssistant, Content: "<thinking>\nI need to see " + file + ".\n</thinking>\n\n<read_file>\n<path>" + file + "</path>\n</read_file>"},
			swc.Message{Role: swc.RoleUser, Content: "[read_file for '" + file + "'] Result:\n" + body.String() + env},
			swc.Message{Role: swc.RoleAssistant, Content: "<thinking>\nNow the new handler.\n</thinking>\n\n<write_to_file>\n<path>" + file + "</path>\n<content>\n" + body.String() + "export const added = 1;\n</content>\n</write_to_file>"},
			swc.Message{Role: swc.RoleUser, Content: "[write_to_file for '" + file + "'] Result:\nThe content was successfully saved to " + file + "." + env})
	}
	return msgs
}

// TestLoopXMLCalls: a loop whose agent calls tools in XML tags of its
// text is compressed as a tool loop: old results stubbed under handles,
// the turns of stubbed exchanges keep their call's tags and short
// parameters whole and their long ones clipped under the turn's handle,
// which resolves to the turn; the turns of the verbatim window come as
// they were.
func TestLoopXMLCalls(t *testing.T) {
	msgs := clineLoop(16)
	o := DefaultOptions()
	o.Budget = 12000
	c := mustNew(t, o)
	res, err := c.Compress(t.Context(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Tokens > o.Budget {
		t.Fatalf("%d tokens over the budget %d", res.Tokens, o.Budget)
	}
	stubs, clipped := 0, 0
	for i, text := range res.Rewritten {
		m := msgs[i]
		switch m.Role {
		case swc.RoleUser:
			if !strings.HasPrefix(text, "[swc:h") {
				t.Errorf("result %d rewritten without a stub's handle: %.60q", i, text)
			}
			stubs++
		case swc.RoleAssistant:
			if !strings.Contains(m.Content, "<write_to_file>") {
				if text != m.Content {
					t.Errorf("read turn %d rewritten: %q", i, text)
				}
				continue
			}
			clipped++
			xc, ok := xmlCallOf(text)
			if !ok || len(xc.values) != 2 {
				t.Fatalf("turn %d no longer ends with its call: %q", i, text)
			}
			path, content := text[xc.values[0][0]:xc.values[0][1]], text[xc.values[1][0]:xc.values[1][1]]
			if !strings.HasPrefix(path, "src/handlers/") || !strings.Contains(content, " more lines, ") || !strings.HasPrefix(text, "<thinking>\nNow the new handler.") {
				t.Errorf("turn %d clipped to %q", i, text)
			}
			h := HistoryHandle([]swc.Message{m})
			if !strings.Contains(content, "[swc:"+h+" … ") {
				t.Errorf("turn %d: the clipped content names no handle %s: %q", i, h, content)
			}
			found := false
			for _, r := range res.Recall {
				found = found || r.Handle == h && len(r.Messages) == 1 && r.Messages[0] == i
			}
			if !found {
				t.Errorf("turn %d: handle %s is not recallable", i, h)
			}
		}
	}
	if stubs == 0 || clipped == 0 {
		t.Fatalf("%d results stubbed, %d turns clipped: not compressed as a tool loop", stubs, clipped)
	}
	last := len(msgs) - 2 // the last write, the turn being answered
	if msgs[last].Role != swc.RoleAssistant {
		t.Fatalf("message %d is no assistant turn", last)
	}
	if _, ok := res.Rewritten[last]; ok {
		t.Errorf("the turn being answered was clipped")
	}
}

// TestLoopXMLFeedbackKept: a result holding the person's words (their
// <feedback> on a result, their <answer> to a question) is their text,
// kept whole however far back, while the results around it are stubbed.
func TestLoopXMLFeedbackKept(t *testing.T) {
	msgs := clineLoop(16)
	feedback := "[attempt_completion] Result:\nThe user has provided feedback on the results.\n<feedback>\nAlso export handler totals from src/handlers/index.ts.\n</feedback>\n<environment_details>\n# VSCode Open Tabs\nsrc/routes.ts\n</environment_details>"
	at := 6 // after the second step's write result
	msgs = append(msgs[:at:at], append([]swc.Message{
		{Role: swc.RoleAssistant, Content: "<attempt_completion>\n<result>\nDone.\n</result>\n</attempt_completion>"},
		{Role: swc.RoleUser, Content: feedback},
	}, msgs[at:]...)...)
	o := DefaultOptions()
	o.Budget = 12000
	res, err := mustNew(t, o).Compress(t.Context(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Rewritten[at+1]; ok || !slices.Contains(res.Source, at+1) {
		t.Fatalf("the person's feedback was rewritten or left out (sources %v)", res.Source)
	}
	if len(res.Rewritten) == 0 {
		t.Fatal("nothing stubbed: not compressed as a tool loop")
	}
}

// TestLoopWalkCountsClippedTurns: the walk prices the turns of stubbed
// exchanges clipped, so a loop whose turns write files whole is not taken
// for larger than it goes out: the request keeps more of the loop and
// fills the budget, as a loop of short turns does. Priced whole, every
// drop freed the room of turns that clipping had already freed (about
// half of this budget went unused).
func TestLoopWalkCountsClippedTurns(t *testing.T) {
	msgs := clineLoop(30)
	o := DefaultOptions()
	o.Budget = 8000
	c := mustNew(t, o).WithAlignUser()
	for _, cut := range []int{len(msgs), len(msgs) - 4, len(msgs) - 12, len(msgs) - 26} { // each ends with a result
		res, err := c.Compress(t.Context(), msgs[:cut])
		if err != nil {
			t.Fatal(err)
		}
		if res.Tokens > o.Budget || res.Tokens < o.Budget*2/3 {
			t.Errorf("%d messages: %d tokens sent at a budget of %d (want from 2/3 of it to all)", cut, res.Tokens, o.Budget)
		}
	}
}

// FuzzXMLCall: whatever a turn's text, xmlCallOf's spans lie in order
// within it, and a call clipped by clipXMLCall still ends the text as a
// call of as many parameters, each value under the clipping length as it
// was.
func FuzzXMLCall(f *testing.F) {
	for _, m := range clineLoop(2) {
		f.Add(m.Content)
	}
	f.Add("<write_to_file>\n<path>docs/tools.md</path>\n<content>\nExample:\n<write_to_file>\n<path>x</path>\n</write_to_file>\n</content>\n</write_to_file>")
	f.Add("<a>\r\n<p>v</p>\r\n</a>")
	o := DefaultOptions()
	o.TurnTokens = 8
	c, err := New(o)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		xc, ok := xmlCallOf(text)
		if !ok {
			if _, _, clipped := c.clipXMLCall(swc.Message{Role: swc.RoleAssistant, Content: text}, text); clipped {
				t.Fatal("clipped a text that ends with no call")
			}
			return
		}
		if xc.start < 0 || xc.end > len(text) || xc.start >= xc.end {
			t.Fatalf("call span [%d, %d) of %d bytes", xc.start, xc.end, len(text))
		}
		prev := xc.start
		for _, v := range xc.values {
			if v[0] < prev || v[1] < v[0] || v[1] > xc.end {
				t.Fatalf("value span %v out of order (after %d, call ends at %d)", v, prev, xc.end)
			}
			prev = v[1]
		}
		out, _, clipped := c.clipXMLCall(swc.Message{Role: swc.RoleAssistant, Content: text}, text)
		if !clipped {
			return
		}
		yc, ok := xmlCallOf(out)
		if !ok || len(yc.values) != len(xc.values) {
			t.Fatalf("clipped call no longer parses as %d parameters: %q", len(xc.values), out)
		}
		for k, v := range xc.values {
			if val := text[v[0]:v[1]]; len(val) < 4*c.clipArgTokens() && out[yc.values[k][0]:yc.values[k][1]] != val {
				t.Fatalf("short value %d changed: %q → %q", k, val, out[yc.values[k][0]:yc.values[k][1]])
			}
		}
	})
}

// TestLoopXMLCacheMark: in Anthropic form a loop whose results come back
// as user text (Cline) has its last stub marked for the prompt cache, as
// a native loop's last stubbed tool_result is: a jump of the window then
// keeps every earlier stub cached, where the client's mark on its last
// message, whose prefix the jump changed, keeps nothing.
func TestLoopXMLCacheMark(t *testing.T) {
	msgs := clineLoop(16)
	body := map[string]any{"model": "claude-sonnet-4-5", "max_tokens": 8192, "system": msgs[0].Content}
	var list []map[string]any
	for i, m := range msgs[1:] {
		content := any(m.Content)
		if i == len(msgs)-2 { // the client marks its last message
			content = []map[string]any{{"type": "text", "text": m.Content, "cache_control": map[string]string{"type": "ephemeral"}}}
		}
		list = append(list, map[string]any{"role": string(m.Role), "content": content})
	}
	body["messages"] = list
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	in, err := chat.Parse(raw, chat.Anthropic)
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Budget = 12000
	res, err := mustNew(t, o).Compress(t.Context(), in.Messages)
	if err != nil {
		t.Fatal(err)
	}
	last := -1
	for i, m := range in.Messages {
		if _, ok := res.Rewritten[i]; ok && m.Role == swc.RoleUser {
			last = max(last, in.Origin[i])
		}
	}
	if last < 0 {
		t.Fatal("no result stubbed")
	}
	out, err := SpliceRequest(in, res)
	if err != nil {
		t.Fatal(err)
	}
	var sent struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(out, &sent); err != nil {
		t.Fatal(err)
	}
	var marked []int
	for i, m := range sent.Messages {
		if strings.Contains(string(m.Content), `"cache_control"`) {
			marked = append(marked, i)
		}
	}
	if want := []int{last, len(sent.Messages) - 1}; !slices.Equal(marked, want) {
		t.Errorf("marked messages %v, want the last stub's and the client's %v", marked, want)
	}
	var blocks []map[string]json.RawMessage
	if err := json.Unmarshal(sent.Messages[last].Content, &blocks); err != nil || len(blocks) != 1 || !strings.HasPrefix(string(blocks[0]["text"]), `"[swc:h`) {
		t.Errorf("the last stub is not one marked text block: %s", sent.Messages[last].Content)
	}
}
