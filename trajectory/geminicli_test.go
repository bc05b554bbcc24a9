package trajectory

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/swcmem/swc/chat"
)

// TestGeminiCLISession: a Gemini CLI session record
// (testdata/tiny_gemini_cli.jsonl, hand-written in the shape the CLI
// 0.61 writes: metadata, a $set of the first messages, a record written
// again under its id, a user record repeating a call's results, an info
// record, a $rewindTo dropping a retried answer, a call without a result,
// results as text and as parts) is read as the Gemini API body of its
// last request, as the CLI rebuilds its history; each request of it
// within the API's rules.
func TestGeminiCLISession(t *testing.T) {
	data, err := os.ReadFile("testdata/tiny_gemini_cli.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := parseFile("gcli", data)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Agent != "Gemini CLI" || len(tr.Bodies) != 1 || tr.Bodies[0].Format != chat.Gemini {
		t.Fatalf("agent %q, %d bodies", tr.Agent, len(tr.Bodies))
	}
	body := string(tr.Bodies[0].Data)
	for _, gone := range []string{"ABANDONED", "INFO LINE", "Run the tests first.", `"thought"`} {
		if strings.Contains(body, gone) {
			t.Errorf("the body holds %s", gone)
		}
	}
	var b struct {
		Model    string `json:"model"`
		Contents []struct {
			Role  string                       `json:"role"`
			Parts []map[string]json.RawMessage `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(tr.Bodies[0].Data, &b); err != nil {
		t.Fatal(err)
	}
	var shape []string
	for _, c := range b.Contents {
		var kinds []string
		for _, p := range c.Parts {
			for k := range p {
				kinds = append(kinds, k)
			}
		}
		shape = append(shape, c.Role+"("+strings.Join(kinds, ",")+")")
	}
	want := "user(text,text) model(text,functionCall) user(functionResponse) model(text,functionCall) user(functionResponse) model(functionCall) user(functionResponse) model(text)"
	if got := strings.Join(shape, " "); got != want || b.Model != "gemini-3-flash-preview" {
		t.Errorf("contents:\n got %s (model %q)\nwant %s", got, b.Model, want)
	}
	if !strings.Contains(body, `"output":"(no output)"`) || !strings.Contains(body, "Successfully modified file") {
		t.Error("a call's result is missing")
	}
	replaysClean(t, tr.Name, tr.Bodies[0], 4)
}

// TestGeminiCLISessionOlder: an older release's session file, one JSON
// object with its messages, is read the same way; a bad line and a
// session with no message are errors naming the problem.
func TestGeminiCLISessionOlder(t *testing.T) {
	old := `{
  "sessionId": "s", "projectHash": "p",
  "messages": [
    {"id": "a", "type": "user", "content": "Rename foo to bar."},
    {"id": "b", "type": "gemini", "content": "Done.", "model": "gemini-2.5-pro"}
  ]
}`
	tr, err := parseFile("old", []byte(old))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"model":"gemini-2.5-pro","contents":[{"role":"user","parts":[{"text":"Rename foo to bar."}]},{"role":"model","parts":[{"text":"Done."}]}]}`
	if tr.Agent != "Gemini CLI" || string(tr.Bodies[0].Data) != want {
		t.Errorf("agent %q, body %s", tr.Agent, tr.Bodies[0].Data)
	}
	meta := `{"sessionId":"s","projectHash":"p"}`
	for _, c := range []struct{ data, want string }{
		{meta + "\n{not json\n", "a Gemini CLI session: line 2"},
		{meta + "\n", "a Gemini CLI session: no user or gemini records"},
		{meta + "\n" + `{"id":"a","type":"user","content":7}`, "a Gemini CLI session: record a: content neither text nor parts"},
	} {
		if _, err := parseFile("bad", []byte(c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.data, err, c.want)
		}
	}
}
