package chat

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/tokens"
)

// geminiBody is a generateContent body with every part type: a system
// instruction, a user question, a model turn that thinks (thought part
// and signature) and calls two functions (one with an id, one without),
// the user's responses (in the other order, the second matched by name)
// and an image, and code execution.
const geminiBody = `{"model":"ignored","systemInstruction":{"parts":[{"text":"You are terse."}]},
"contents":[
 {"role":"user","parts":[{"text":"List the files"},{"inlineData":{"mimeType":"image/png","data":"iVBORw0K"}}]},
 {"role":"model","parts":[{"text":"planning","thought":true},{"functionCall":{"name":"ls","args":{"dir":"."},"id":"c1"},"thoughtSignature":"c2lnMQ=="},{"functionCall":{"name":"cat","args":{"f":"a"}}}]},
 {"role":"user","parts":[{"functionResponse":{"name":"cat","response":{"output":"hello"}}},{"functionResponse":{"id":"c1","name":"ls","response":{"error":"denied"}}},{"fileData":{"mimeType":"text/plain","fileUri":"gs://x"}}]},
 {"role":"model","parts":[{"executableCode":{"language":"PYTHON","code":"print(1)"}},{"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"1"}},{"futurePart":{"x":1}},{"text":"done"}]},
 {"parts":[{"text":"thanks"}]}
],
"tools":[{"functionDeclarations":[{"name":"ls"}]}],"generationConfig":{"temperature":0},"toolConfig":{},"safetySettings":[],"cachedContent":"cachedContents/x"}`

func TestParseGemini(t *testing.T) {
	in, err := Parse([]byte(geminiBody), Auto)
	if err != nil {
		t.Fatal(err)
	}
	if in.Format != Gemini {
		t.Fatalf("format %q, want gemini", in.Format)
	}
	want := []swc.Message{
		{Role: swc.RoleSystem, Content: "You are terse."},
		{Role: swc.RoleUser, Content: "List the files\n[inlineData image/png]", MediaTokens: geminiImageDefault},
		{Role: swc.RoleAssistant, Content: "[thought]", MediaTokens: tokens.Count("planning"), ToolCalls: []swc.ToolCall{
			{ID: "c1", Name: "ls", Arguments: `{"dir":"."}`},
			{ID: "gemini:1:2", Name: "cat", Arguments: `{"f":"a"}`}}},
		{Role: swc.RoleTool, Content: "hello", ToolCallID: "gemini:1:2", Name: "cat"},
		{Role: swc.RoleTool, Content: "[error] denied", ToolCallID: "c1", Name: "ls"},
		{Role: swc.RoleUser, Content: "[fileData text/plain]"},
		{Role: swc.RoleAssistant, Content: "[executableCode PYTHON]\nprint(1)\n[codeExecutionResult OUTCOME_OK]\n1\n[futurePart]\ndone"},
		{Role: swc.RoleUser, Content: "thanks"},
	}
	if !reflect.DeepEqual(in.Messages, want) {
		t.Errorf("messages:\n got %+v\nwant %+v", in.Messages, want)
	}
	if wantO := []int{-1, 0, 1, 2, 2, 2, 3, 4}; !reflect.DeepEqual(in.Origin, wantO) {
		t.Errorf("origin %v, want %v", in.Origin, wantO)
	}
	if in.Where[3] != "contents[2].parts[0]" || in.Where[0] != "systemInstruction" {
		t.Errorf("where %q", in.Where)
	}
	if len(in.Raw) != 5 || !strings.Contains(string(in.Raw[1]), `"thoughtSignature":"c2lnMQ=="`) {
		t.Errorf("raw contents not kept: %d %s", len(in.Raw), in.Raw[1])
	}
	for _, k := range []string{"model", "tools", "generationConfig", "toolConfig", "safetySettings", "cachedContent", "contents", "systemInstruction"} {
		if _, ok := in.Body[k]; !ok {
			t.Errorf("body lost %q", k)
		}
	}
}

func TestParseGeminiShapes(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []swc.Message
	}{
		{"snake_case fields", `{"system_instruction":{"parts":[{"text":"S"}]},"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"function_call":{"name":"f","args":{}}}]},{"role":"user","parts":[{"function_response":{"name":"f","response":{"output":"r"}}}]}]}`,
			[]swc.Message{{Role: swc.RoleSystem, Content: "S"}, {Role: swc.RoleUser, Content: "q"},
				{Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: "gemini:1:0", Name: "f", Arguments: "{}"}}},
				{Role: swc.RoleTool, Content: "r", ToolCallID: "gemini:1:0", Name: "f"}}},
		{"countTokens generateContentRequest", `{"generateContentRequest":{"model":"models/m","contents":[{"role":"user","parts":[{"text":"hi"}]}]}}`,
			[]swc.Message{{Role: swc.RoleUser, Content: "hi"}}},
		{"string system instruction, response object", `{"systemInstruction":"S","contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"functionCall":{"name":"f","id":"a"}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","id":"other-id","response":{"lines":3}}},{"text":"go on"}]}]}`,
			[]swc.Message{{Role: swc.RoleSystem, Content: "S"}, {Role: swc.RoleUser, Content: "q"},
				{Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: "a", Name: "f", Arguments: "{}"}}},
				{Role: swc.RoleTool, Content: `{"lines":3}`, ToolCallID: "a", Name: "f"}, {Role: swc.RoleUser, Content: "go on"}}},
		{"a 512×512 PNG inline, a PDF file", `{"contents":[{"role":"user","parts":[{"inline_data":{"mime_type":"image/png","data":"iVBORw0KGgoAAAANSUhEUgAAAgAAAAIACAIAAAB7GkOt"}},{"fileData":{"mimeType":"application/pdf","fileUri":"gs://b/x.pdf"}}]}]}`,
			[]swc.Message{{Role: swc.RoleUser, Content: "[inlineData image/png]\n[fileData application/pdf]", MediaTokens: geminiImageDefault + geminiPDFPageTokens}}}, // any image counts high; the PDF swc cannot read: one page
		{"thought without text, empty parts", `{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"thought":true,"thoughtSignature":"eA=="},{"text":"a"}]},{"role":"user","parts":[]}]}`,
			[]swc.Message{{Role: swc.RoleUser, Content: "q"}, {Role: swc.RoleAssistant, Content: "[thought]\na"}, {Role: swc.RoleUser}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := Parse([]byte(tc.body), Auto)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(in.Messages, tc.want) {
				t.Errorf("\n got %+v\nwant %+v", in.Messages, tc.want)
			}
		})
	}
}

func TestParseGeminiErrors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"contents":{"role":"user"}}`, "contents: want an array, got an object"},
		{`{"contents":[{"role":"system","parts":[{"text":"x"}]}]}`, `contents[0].role: "system" is not a Gemini content role`},
		{`{"contents":[{"role":"user","parts":[{"functionCall":{"name":"f"}}]}]}`, "contents[0].parts[0].functionCall: a functionCall part in a user content"},
		{`{"contents":[{"role":"model","parts":[{"functionResponse":{"name":"f"}}]}]}`, "contents[0].parts[0].functionResponse: a functionResponse part in a model content"},
		{`{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"functionCall":{"name":"f"}}]},{"role":"user","parts":[{"functionResponse":{"name":"g","response":{}}}]}]}`, `contents[2].parts[0].functionResponse: answers no functionCall of the model content before it (name "g"`},
		{`{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"functionCall":{"args":{}}}]}]}`, "contents[1].parts[0].functionCall.name: missing"},
		{`{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"functionCall":{"name":"f"}}]},{"role":"user","parts":[{"text":"no answer"}]}]}`, `call "gemini:1:0" has no result`},
		{`{"contents":[{"role":"user","parts":["text"]}]}`, "contents[0].parts[0]: want a part object, got a string"},
		{`{"contents":[]}`, "no messages"},
		{`{"generateContentRequest":{"model":"m"}}`, `generateContentRequest has no "contents"`},
	} {
		_, err := Parse([]byte(tc.body), Gemini)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant …%s…", tc.body, err, tc.want)
		}
	}
}

func TestDetectGemini(t *testing.T) {
	for _, body := range []string{`{"contents":[]}`, `{"generateContentRequest":{"contents":[]}}`} {
		if f, err := Detect([]byte(body)); err != nil || f != Gemini {
			t.Errorf("%s: %q %v, want gemini", body, f, err)
		}
	}
	if f, _ := Detect([]byte(`{"messages":[{"role":"user","content":"x"}]}`)); f != OpenAI {
		t.Errorf("openai body detected as %q", f)
	}
}

// TestParseGeminiSDKBody reads what google.golang.org/genai sent
// (testdata/genai-go): the generateContent body and countTokens' contents.
func TestParseGeminiSDKBody(t *testing.T) {
	want := []swc.Message{
		{Role: swc.RoleUser, Content: "List the files in the repo."},
		{Role: swc.RoleAssistant, Content: "[thought]", MediaTokens: tokens.Count("I should list them."), ToolCalls: []swc.ToolCall{
			{ID: "call-1", Name: "list_directory", Arguments: `{"path":"."}`},
			{ID: "gemini:1:2", Name: "read_file", Arguments: `{"path":"go.mod"}`}}},
		{Role: swc.RoleTool, Content: "go.mod\nmain.go", ToolCallID: "call-1", Name: "list_directory"},
		{Role: swc.RoleTool, Content: "module x", ToolCallID: "gemini:1:2", Name: "read_file"},
		{Role: swc.RoleAssistant, Content: "Two files."},
		{Role: swc.RoleUser, Content: "Thanks. What is in main.go?\n[inlineData image/png]", MediaTokens: geminiImageDefault},
	}
	for _, tc := range []struct {
		file   string
		system bool
	}{{"generateContent.json", true}, {"countTokens.json", false}} {
		data, err := os.ReadFile(filepath.Join("testdata", "genai-go", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		in, err := Parse(data, Auto)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		w := want
		if tc.system {
			w = append([]swc.Message{{Role: swc.RoleSystem, Content: "You are a coding agent."}}, want...)
		}
		if in.Format != Gemini || !reflect.DeepEqual(in.Messages, w) {
			t.Errorf("%s: %s\n got %+v\nwant %+v", tc.file, in.Format, in.Messages, w)
		}
	}
}
