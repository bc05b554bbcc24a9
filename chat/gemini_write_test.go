package chat

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSpliceGeminiPartly: a user content whose function responses went
// into the memory keeps its text part alone; a rewritten response becomes
// {"output": text} with its name and id; a body without systemInstruction
// gets none (a model may take none: Gemma), the memory opening its first
// content instead; a countTokens body is written inside its
// generateContentRequest.
func TestSpliceGeminiPartly(t *testing.T) {
	body := []byte(`{"generateContentRequest":{"contents":[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{},"id":"a"}},{"functionCall":{"name":"g","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","id":"a","response":{"output":"long output"},"willContinue":false}},{"functionResponse":{"name":"g","response":{"output":"other"}}},{"text":"and now?"}]}],"model":"models/m"}}`)
	in, err := Parse(body, Gemini)
	if err != nil {
		t.Fatal(err)
	}
	// Messages: 0 user, 1 model, 2 tool f, 3 tool g, 4 user "and now?".
	cases := []struct {
		name      string
		source    []int
		rewritten map[int]string
		want      string
	}{
		{"text alone", []int{-1, 4}, nil,
			`{"generateContentRequest":{"contents":[{"parts":[{"text":"MEM"},{"text":"and now?"}],"role":"user"}],"model":"models/m"}}`},
		{"rewritten response", []int{-1, 0, 1, 2, 3, 4}, map[int]string{2: "[swc:h1 f() → ok]"},
			`{"generateContentRequest":{"contents":[{"role":"user","parts":[{"text":"MEM"},{"text":"go"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{},"id":"a"}},{"functionCall":{"name":"g","args":{}}}]},{"parts":[{"functionResponse":{"id":"a","name":"f","response":{"output":"[swc:h1 f() → ok]"},"willContinue":false}},{"functionResponse":{"name":"g","response":{"output":"other"}}},{"text":"and now?"}],"role":"user"}],"model":"models/m"}}`},
		{"rewritten text", []int{-1, 0, 1, 2, 3, 4}, map[int]string{4: "stub"},
			`{"generateContentRequest":{"contents":[{"role":"user","parts":[{"text":"MEM"},{"text":"go"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{},"id":"a"}},{"functionCall":{"name":"g","args":{}}}]},{"parts":[{"functionResponse":{"name":"f","id":"a","response":{"output":"long output"},"willContinue":false}},{"functionResponse":{"name":"g","response":{"output":"other"}}},{"text":"stub"}],"role":"user"}],"model":"models/m"}}`},
	}
	for _, tc := range cases {
		res := Output{Memory: "MEM", Source: tc.source, Rewritten: tc.rewritten}
		checkGeminiSplice(t, tc.name, in, res, tc.want)
	}
}

// TestSpliceGeminiMemoryInTask: a memory that follows the task (a tool
// loop's) goes into the task's content as a text part after its own,
// every other byte as it came, and systemInstruction stays as it came; a
// task swc rewrote sends it to systemInstruction.
func TestSpliceGeminiMemoryInTask(t *testing.T) {
	body := []byte(`{"systemInstruction":{"parts":[{"text":"sys"}]},"contents":[{"role":"user","parts":[{"text":"env"}, {"text":"go"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{},"id":"a"}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","id":"a","response":{"output":"long output"}}}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{},"id":"b"}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","id":"b","response":{"output":"out b"}}}]}]}`)
	in, err := Parse(body, Gemini)
	if err != nil {
		t.Fatal(err)
	}
	// Messages: 0 system, 1 user, 2 model, 3 tool a, 4 model, 5 tool b.
	for _, tc := range []struct {
		name      string
		rewritten map[int]string
		want      string
	}{
		{"after the task", nil,
			`{"contents":[{"role":"user","parts":[{"text":"env"}, {"text":"go"},{"text":"MEM"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{},"id":"b"}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","id":"b","response":{"output":"out b"}}}]}],"systemInstruction":{"parts":[{"text":"sys"}]}}`},
		{"the task rewritten", map[int]string{1: "short"},
			`{"contents":[{"parts":[{"text":"short"}],"role":"user"},{"role":"model","parts":[{"functionCall":{"name":"f","args":{},"id":"b"}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","id":"b","response":{"output":"out b"}}}]}],"systemInstruction":{"parts":[{"text":"sys"},{"text":"MEM"}]}}`},
	} {
		res := Output{Memory: "MEM", Source: []int{0, 1, -1, 4, 5}, Rewritten: tc.rewritten}
		checkGeminiSplice(t, tc.name, in, res, tc.want)
	}
}

// checkGeminiSplice splices res into in and checks the body is want and
// parses.
func checkGeminiSplice(t *testing.T, name string, in *Input, res Output, want string) {
	t.Helper()
	out, err := geminiCodec{}.Splice(in, res)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != want {
		t.Errorf("%s:\n got %s\nwant %s", name, out, want)
	}
	if _, err := Parse(out, Gemini); err != nil {
		t.Errorf("%s: the body written does not parse: %v", name, err)
	}
}

// TestSpliceGeminiRewrittenModel: a model content's rewritten text keeps
// its function calls, so that they stay answered.
func TestSpliceGeminiRewrittenModel(t *testing.T) {
	body := []byte(`{"contents":[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"text":"a long plan"},{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"ok"}}}]}]}`)
	in, err := Parse(body, Gemini)
	if err != nil {
		t.Fatal(err)
	}
	out, err := geminiCodec{}.Splice(in, Output{Source: []int{0, 1, 2}, Rewritten: map[int]string{1: "plan"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"contents":[{"role":"user","parts":[{"text":"go"}]},{"parts":[{"text":"plan"},{"functionCall":{"name":"f","args":{}}}],"role":"model"},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"ok"}}}]}]}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}

// TestSpliceGeminiModelFirst: kept contents starting with a model turn get
// a user turn before it: the memory, or without one StartText; a body
// that starts with a model turn itself is left so.
func TestSpliceGeminiModelFirst(t *testing.T) {
	body := []byte(`{"contents":[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"ok"}}}]}]}`)
	in, err := Parse(body, Gemini)
	if err != nil {
		t.Fatal(err)
	}
	tail := `{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"ok"}}}]}]}`
	for _, tc := range []struct{ memory, want string }{
		{"MEM", `{"contents":[{"parts":[{"text":"MEM"}],"role":"user"},` + tail},
		{"", `{"contents":[{"parts":[{"text":"` + StartText + `"}],"role":"user"},` + tail},
	} {
		out, err := geminiCodec{}.Splice(in, Output{Memory: tc.memory, Source: []int{1, 2}})
		if err != nil || string(out) != tc.want {
			t.Errorf("memory %q: %v\n got %s\nwant %s", tc.memory, err, out, tc.want)
		}
	}
	own := []byte(`{"contents":[{"role":"model","parts":[{"text":"hello"}]},{"role":"user","parts":[{"text":"hi"}]}]}`)
	in, err = Parse(own, Gemini)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := (geminiCodec{}).Splice(in, Output{Source: []int{0, 1}}); err != nil || string(out) != string(own) {
		t.Errorf("a body starting with a model turn: %v %s", err, out)
	}
}

func TestAppendInstruction(t *testing.T) {
	for _, tc := range []struct{ sys, want string }{
		{``, `{"parts":[{"text":"M"}]}`},
		{`null`, `{"parts":[{"text":"M"}]}`},
		{`"S"`, `{"parts":[{"text":"S"},{"text":"M"}]}`},
		{`{"role":"system","parts":[{"text":"S"}]}`, `{"parts":[{"text":"S"},{"text":"M"}],"role":"system"}`},
	} {
		got, err := appendInstruction(json.RawMessage(tc.sys), "M")
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: got %s %v, want %s", tc.sys, got, err, tc.want)
		}
	}
	if _, err := appendInstruction(json.RawMessage(`[1]`), "M"); err == nil {
		t.Error("an array systemInstruction was accepted")
	}
}

// TestSpliceGeminiCachedContent: a request naming a cachedContent must
// not set systemInstruction (the API answers 400), so the memory opens
// its first content as a text part before the content's own, or stands
// as a user content of its own when no content is kept whole enough to
// take it; systemInstruction is never created.
func TestSpliceGeminiCachedContent(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		source     []int
		want       string
	}{
		{"first content takes it",
			`{"cachedContent":"cachedContents/abc","contents":[{"role":"user","parts":[{"text":"old"}]},{"role":"model","parts":[{"text":"noted"}]},{"role":"user","parts":[ {"text":"and now?"}]}]}`,
			[]int{-1, 2},
			`{"cachedContent":"cachedContents/abc","contents":[{"role":"user","parts":[{"text":"MEM"}, {"text":"and now?"}]}]}`},
		{"snake case, a content kept byte for byte",
			`{"cached_content":"cachedContents/abc","contents":[{"role":"user","parts":[{"text":"old"}]},{"role":"model","parts":[{"text":"noted"}]},{"role":"user","parts":[ {"text":"and now?"},{"text":"p.s."}]}]}`,
			[]int{-1, 2},
			`{"cached_content":"cachedContents/abc","contents":[{"role":"user","parts":[{"text":"MEM"}, {"text":"and now?"},{"text":"p.s."}]}]}`},
		{"nothing kept",
			`{"cachedContent":"cachedContents/abc","contents":[{"role":"user","parts":[{"text":"old"}]},{"role":"model","parts":[{"text":"noted"}]},{"role":"user","parts":[{"text":"q"}]}]}`,
			[]int{-1},
			`{"cachedContent":"cachedContents/abc","contents":[{"parts":[{"text":"MEM"}],"role":"user"}]}`},
		{"no cache: the client's systemInstruction takes it",
			`{"cachedContent":null,"systemInstruction":{"parts":[{"text":"S"}]},"contents":[{"role":"user","parts":[{"text":"old"}]},{"role":"model","parts":[{"text":"noted"}]},{"role":"user","parts":[{"text":"and now?"}]}]}`,
			[]int{0, -1, 3},
			`{"cachedContent":null,"contents":[{"role":"user","parts":[{"text":"and now?"}]}],"systemInstruction":{"parts":[{"text":"S"},{"text":"MEM"}]}}`},
		{"a cache and the client's systemInstruction: left as it came",
			`{"cachedContent":"cachedContents/abc","systemInstruction":{"parts":[{"text":"S"}]},"contents":[{"role":"user","parts":[{"text":"old"}]},{"role":"model","parts":[{"text":"noted"}]},{"role":"user","parts":[{"text":"and now?"}]}]}`,
			[]int{0, -1, 3},
			`{"cachedContent":"cachedContents/abc","contents":[{"role":"user","parts":[{"text":"MEM"},{"text":"and now?"}]}],"systemInstruction":{"parts":[{"text":"S"}]}}`},
	} {
		in, err := Parse([]byte(tc.body), Gemini)
		if err != nil {
			t.Fatal(err)
		}
		checkGeminiSplice(t, tc.name, in, Output{Memory: "MEM", Source: tc.source}, tc.want)
	}
}

func TestWithLeadingMemory(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"role":"user","parts":[]}`, `{"role":"user","parts":[{"text":"M"}]}`},
		{`{"role":"user","parts":[ ]}`, `{"role":"user","parts":[{"text":"M"} ]}`},
		{`{"parts":[{"text":"a"}],"role":"user"}`, `{"parts":[{"text":"M"},{"text":"a"}],"role":"user"}`},
		{`{"role":"user"}`, `{"parts":[{"text":"M"}],"role":"user"}` + "|" + `{"role":"user"}`},
	} {
		got := withLeadingMemory([]json.RawMessage{json.RawMessage(tc.in)}, "M")
		var s []string
		for _, c := range got {
			s = append(s, string(c))
		}
		if g := strings.Join(s, "|"); g != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, g, tc.want)
		}
	}
}
