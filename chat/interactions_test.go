package chat

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/swcmem/swc"
)

// interactionsSteps is a tool loop in the steps shape: the task, a call
// answered, a thought and a second call answered, then the model's text.
const interactionsSteps = `{"model":"gemini-3-flash-preview","system_instruction":"sys","store":false,"input":[
{"type":"user_input","content":[{"type":"text","text":"fix the bug"}]},
{"type":"thought","signature":"sig1","summary":[{"type":"text","text":"look first"}]},
{"type":"function_call","id":"c1","name":"read","arguments":{"path":"a.go"}},
{"type":"function_result","call_id":"c1","name":"read","result":"package a\nfunc A() {}"},
{"type":"model_output","content":[{"type":"text","text":"Reading b."}]},
{"type":"function_call","id":"c2","name":"read","arguments":{"path":"b.go"}},
{"type":"function_result","call_id":"c2","name":"read","is_error":true,"result":[{"type":"text","text":"no such file"},{"type":"image","mime_type":"image/png","data":"AAAA"}]},
{"type":"model_output","content":[{"type":"text","text":"Done."}]}]}`

// interactionsTurns is a loop in the turns shape.
const interactionsTurns = `{"model":"gemini-2.5-flash","input":[
{"role":"user","content":"fix the bug"},
{"role":"model","content":[{"type":"function_call","id":"c1","name":"read","arguments":{"path":"a.go"}}]},
{"role":"user","content":[{"type":"function_result","call_id":"c1","name":"read","result":{"lines":2}}]},
{"role":"model","content":[{"type":"text","text":"Done."}]}]}`

func TestParseInteractions(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string // role: content [calls] (tool: id)
		origins    []int
	}{
		{"steps", interactionsSteps, []string{
			"system: sys",
			"user: fix the bug",
			"assistant: [thought] [read c1]",
			"tool c1: package a\nfunc A() {}",
			"assistant: Reading b. [read c2]",
			"tool c2: [error] no such file\n[inlineData image/png]",
			"assistant: Done.",
		}, []int{-1, 0, 1, 2, 3, 4, 5}},
		{"turns", interactionsTurns, []string{
			"user: fix the bug",
			"assistant:  [read c1]",
			`tool c1: {"lines":2}`,
			"assistant: Done.",
		}, []int{0, 1, 2, 3}},
		{"a string", `{"model":"m","input":"hello"}`, []string{"user: hello"}, []int{0}},
		{"a content object", `{"model":"m","input":{"type":"text","text":"hi"}}`, []string{"user: hi"}, []int{0}},
		{"contents", `{"model":"m","input":[{"type":"text","text":"what is it?"},{"type":"image","uri":"files/x","mime_type":"image/jpeg","resolution":"low"}]}`,
			[]string{"user: what is it?\n[fileData image/jpeg]"}, []int{0}},
		{"a server tool's steps", `{"model":"m","input":[{"type":"user_input","content":[{"type":"text","text":"news?"}]},{"type":"google_search_call","id":"s1","arguments":{"queries":["x"]}},{"type":"google_search_result","call_id":"s1","result":[{"title":"t"}]},{"type":"model_output","content":[{"type":"text","text":"None."}]}]}`,
			[]string{"user: news?", "assistant: [google_search_call]\n" + `{"arguments":{"queries":["x"]},"id":"s1","type":"google_search_call"}` + "\n[google_search_result]\n" + `{"call_id":"s1","result":[{"title":"t"}],"type":"google_search_result"}` + "\nNone."}, []int{0, 1}},
	} {
		in, err := Parse([]byte(tc.body), Interactions)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got []string
		for _, m := range in.Messages {
			got = append(got, describe(m))
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
		if fmt.Sprint(in.Origin) != fmt.Sprint(tc.origins) {
			t.Errorf("%s: origins %v, want %v", tc.name, in.Origin, tc.origins)
		}
	}
}

// describe writes a message as TestParseInteractions wants it.
func describe(m swc.Message) string {
	s := string(m.Role)
	if m.Role == swc.RoleTool {
		s += " " + m.ToolCallID
	}
	s += ": " + m.Content
	for _, c := range m.ToolCalls {
		s += " [" + c.Name + " " + c.ID + "]"
	}
	return s
}

// TestParseInteractionsMedia: an image counts as Gemini 3 counts it, by
// its resolution; a thought's summary counts its tokens; a server tool's
// step counts the media it holds, not their bytes as text; a text
// document a token a 4 bytes; media placeholders read as a Gemini
// part's, which the tool loop knows (IsPlaceholder).
func TestParseInteractionsMedia(t *testing.T) {
	png := pngBase64(t, 64, 64)
	in, err := Parse([]byte(`{"model":"m","input":[{"type":"user_input","content":[{"type":"text","text":"plot it"}]},{"type":"code_execution_result","call_id":"x","signature":"`+strings.Repeat("s", 400)+`","result":[{"type":"image","mime_type":"image/png","data":"`+png+`"}]},{"type":"model_output","content":[{"type":"text","text":"Done."}]}]}`), Interactions)
	if err != nil {
		t.Fatal(err)
	}
	if m := in.Messages[1]; m.MediaTokens != 1120 || strings.Contains(m.Content, png) || !strings.Contains(m.Content, `"data":"[`) || strings.Contains(m.Content, "ssss") {
		t.Errorf("a server step's image: %d tokens, text %q", m.MediaTokens, m.Content)
	}
	csv := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("a,b,c\n", 1000)))
	in, err = Parse([]byte(`{"model":"m","input":[{"type":"text","text":"sum it"},{"type":"document","mime_type":"text/csv","data":"`+csv+`"}]}`), Interactions)
	if err != nil {
		t.Fatal(err)
	}
	if got := in.Messages[0].MediaTokens; got != 1500 {
		t.Errorf("a CSV of 6,000 bytes counts %d, want 1,500", got)
	}
	for _, line := range []string{"[inlineData image/png]", "[fileData video/mp4]", "[inlineData audio]"} {
		if !IsPlaceholder(line) {
			t.Errorf("IsPlaceholder(%q) = false", line)
		}
	}
	in, err = Parse([]byte(`{"model":"m","input":[{"type":"text","text":"a"},{"type":"image","uri":"files/x","mime_type":"image/png","resolution":"low"},{"type":"image","data":"AAAA","mime_type":"image/png"}]}`), Interactions)
	if err != nil {
		t.Fatal(err)
	}
	if got := in.Messages[0].MediaTokens; got != 280+1120 {
		t.Errorf("media tokens %d, want %d", got, 280+1120)
	}
	in, err = Parse([]byte(interactionsSteps), Interactions)
	if err != nil {
		t.Fatal(err)
	}
	if in.Messages[2].MediaTokens == 0 || in.Messages[5].MediaTokens != 1120 {
		t.Errorf("thought tokens %d, result image %d", in.Messages[2].MediaTokens, in.Messages[5].MediaTokens)
	}
}

func TestParseInteractionsErrors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`[]`, "interactions input is a request body"},
		{`{"model":"m"}`, "input: missing"},
		{`{"model":"m","input":[]}`, "input: an empty array"},
		{`{"model":"m","input":7}`, "input: want a string"},
		{`{"model":"m","input":["x"]}`, "input[0]: want an object"},
		{`{"model":"m","input":[{"type":"widget"}]}`, `input[0].type: "widget" is not a content or step type`},
		{`{"model":"m","input":[{"role":"user","content":"a"},{"type":"text","text":"b"}]}`, "input[1]: turns mixed"},
		{`{"model":"m","input":[{"role":"system","content":"a"}]}`, `input[0].role: "system" is not a turn's role`},
		{`{"model":"m","input":[{"type":"user_input","content":[{"type":"text","text":"a"}]},{"type":"function_result","call_id":"x","name":"f","result":"r"}]}`, `input[1]: answers no function_call`},
		{`{"model":"m","input":[{"type":"function_call","id":"c","arguments":{}}]}`, "input[0].name: missing"},
		{`{"model":"m","system_instruction":{"parts":[]},"input":"a"}`, "system_instruction: want a string"},
		{`{"model":"m","input":[{"type":"text"}]}`, "input[0].text: missing"},
		{`{"model":"m","input":[{"role":"model","content":[{"type":"function_result","call_id":"c","result":"r"}]}]}`, "input[0].content[0]: a function_result in a model turn"},
	} {
		_, err := Parse([]byte(tc.body), Interactions)
		if err == nil || !strings.Contains(err.Error(), tc.want) || swc.ErrorCode(err) != swc.EINVALID {
			t.Errorf("%s: error %v, want EINVALID with %q", tc.body, err, tc.want)
		}
	}
}

// TestSpliceInteractions writes compressed messages back in each shape.
func TestSpliceInteractions(t *testing.T) {
	// interactionsSteps' messages: 0 system, 1 user, 2 model (thought,
	// c1), 3 tool c1, 4 model (text, c2), 5 tool c2, 6 model "Done.".
	steps := []struct {
		name string
		res  Output
		want string
	}{
		{"memory after the task, an old exchange left out", Output{Memory: "MEM", Source: []int{0, 1, -1, 4, 5, 6}},
			`{"input":[{"type":"user_input","content":[{"type":"text","text":"fix the bug"}]},{"content":[{"text":"MEM","type":"text"}],"type":"user_input"},{"type":"model_output","content":[{"type":"text","text":"Reading b."}]},{"type":"function_call","id":"c2","name":"read","arguments":{"path":"b.go"}},{"type":"function_result","call_id":"c2","name":"read","is_error":true,"result":[{"type":"text","text":"no such file"},{"type":"image","mime_type":"image/png","data":"AAAA"}]},{"type":"model_output","content":[{"type":"text","text":"Done."}]}],"model":"gemini-3-flash-preview","store":false,"system_instruction":"sys"}`},
		{"a stub, a clipped turn and call", Output{Memory: "MEM", Source: []int{0, 1, -1, 2, 3, 4, 5, 6},
			Rewritten: map[int]string{3: "[swc:h1 read a.go → 2 lines]", 2: ""},
			Calls:     map[int][]swc.ToolCall{2: {{ID: "c1", Name: "read", Arguments: `{"path":"a"}`}}}},
			`{"input":[{"type":"user_input","content":[{"type":"text","text":"fix the bug"}]},{"content":[{"text":"MEM","type":"text"}],"type":"user_input"},{"signature":"sig1","type":"thought"},{"arguments":{"path":"a"},"id":"c1","name":"read","type":"function_call"},{"call_id":"c1","name":"read","result":"[swc:h1 read a.go → 2 lines]","type":"function_result"},{"type":"model_output","content":[{"type":"text","text":"Reading b."}]},{"type":"function_call","id":"c2","name":"read","arguments":{"path":"b.go"}},{"type":"function_result","call_id":"c2","name":"read","is_error":true,"result":[{"type":"text","text":"no such file"},{"type":"image","mime_type":"image/png","data":"AAAA"}]},{"type":"model_output","content":[{"type":"text","text":"Done."}]}],"model":"gemini-3-flash-preview","store":false,"system_instruction":"sys"}`},
		{"a model turn first: the memory a user element before it", Output{Memory: "MEM", Source: []int{0, -1, 4, 5, 6}, Rewritten: map[int]string{4: "Reading"}},
			`{"input":[{"content":[{"text":"MEM","type":"text"}],"type":"user_input"},{"content":[{"text":"Reading","type":"text"}],"type":"model_output"},{"type":"function_call","id":"c2","name":"read","arguments":{"path":"b.go"}},{"type":"function_result","call_id":"c2","name":"read","is_error":true,"result":[{"type":"text","text":"no such file"},{"type":"image","mime_type":"image/png","data":"AAAA"}]},{"type":"model_output","content":[{"type":"text","text":"Done."}]}],"model":"gemini-3-flash-preview","store":false,"system_instruction":"sys"}`},
		{"the task rewritten: the memory in the instruction", Output{Memory: "MEM", Source: []int{0, 1, -1, 6}, Rewritten: map[int]string{1: "fix it"}},
			`{"input":[{"content":[{"text":"fix it","type":"text"}],"type":"user_input"},{"type":"model_output","content":[{"type":"text","text":"Done."}]}],"model":"gemini-3-flash-preview","store":false,"system_instruction":"sys\n\nMEM"}`},
	}
	in, err := Parse([]byte(interactionsSteps), Interactions)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range steps {
		checkInteractionsSplice(t, tc.name, in, tc.res, tc.want)
	}
	// A first-revision list of contents holding a call and its result: a
	// user element swc writes is a text object, not a step.
	in, err = Parse([]byte(`{"model":"m","input":[{"type":"text","text":"go"},{"type":"function_call","id":"c","name":"f","arguments":{}},{"type":"function_result","call_id":"c","name":"f","result":"ok"}]}`), Interactions)
	if err != nil {
		t.Fatal(err)
	}
	checkInteractionsSplice(t, "contents with a call", in, Output{Memory: "MEM", Source: []int{-1, 1, 2}},
		`{"input":[{"text":"MEM","type":"text"},{"type":"function_call","id":"c","name":"f","arguments":{}},{"type":"function_result","call_id":"c","name":"f","result":"ok"}],"model":"m"}`)
	// interactionsTurns' messages: 0 user, 1 model c1, 2 tool c1, 3 model.
	in, err = Parse([]byte(interactionsTurns), Interactions)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		res  Output
		want string
	}{
		{"memory after the task turn", Output{Memory: "MEM", Source: []int{0, -1, 3}},
			`{"input":[{"content":[{"text":"fix the bug","type":"text"},{"text":"MEM","type":"text"}],"role":"user"},{"role":"model","content":[{"type":"text","text":"Done."}]}],"model":"gemini-2.5-flash"}`},
		{"no instruction: the memory first", Output{Memory: "MEM", Source: []int{-1, 0, 1, 2, 3}, Rewritten: map[int]string{2: "stub"}},
			`{"input":[{"content":[{"text":"MEM","type":"text"}],"role":"user"},{"role":"user","content":"fix the bug"},{"role":"model","content":[{"type":"function_call","id":"c1","name":"read","arguments":{"path":"a.go"}}]},{"content":[{"call_id":"c1","name":"read","result":"stub","type":"function_result"}],"role":"user"},{"role":"model","content":[{"type":"text","text":"Done."}]}],"model":"gemini-2.5-flash"}`},
		{"a model turn first, no memory", Output{Source: []int{3}},
			`{"input":[{"content":[{"text":"` + StartText + `","type":"text"}],"role":"user"},{"role":"model","content":[{"type":"text","text":"Done."}]}],"model":"gemini-2.5-flash"}`},
	} {
		checkInteractionsSplice(t, tc.name, in, tc.res, tc.want)
	}
}

// checkInteractionsSplice splices res into in and checks the body is
// want and parses.
func checkInteractionsSplice(t *testing.T, name string, in *Input, res Output, want string) {
	t.Helper()
	out, err := Splice(in, res)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if string(out) != want {
		t.Errorf("%s:\n got %s\nwant %s", name, out, want)
	}
	if _, err := Parse(out, Interactions); err != nil {
		t.Errorf("%s: the body written does not parse: %v", name, err)
	}
}

// FuzzInteractions: any body either parses or is refused with an
// EINVALID error, and one that parses is written back, every message kept
// and a memory added, as a body that parses again.
func FuzzInteractions(f *testing.F) {
	for _, s := range []string{interactionsSteps, interactionsTurns, `{"input":"x"}`, `{"input":{"type":"image","data":"AA"}}`,
		`{"input":[{"type":"function_call","id":"c","name":"f","arguments":null},{"type":"function_result","call_id":"c","result":null}]}`,
		`{"system_instruction":"s","input":[{"role":"model","content":[{"type":"thought"}]},{"role":"user","content":[]}]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) { spliceBack(t, []byte(body), Interactions) })
}
