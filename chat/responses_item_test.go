package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/swcmem/swc/internal/rawjson"
)

// itemCases are input items of a Responses body, the usual and the odd.
var itemCases = []string{
	`{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}`,
	`{"type":"function_call","id":"fc_1","call_id":"call_1","name":"shell","arguments":"{\"command\":[\"ls\"]}"}`,
	`{"type":"function_call_output","call_id":"call_1","output":"a\nb\u00e9 \"q\""}`,
	`{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"x"}]}`,
	`{"type":"custom_tool_call","call_id":"c","name":"apply_patch","input":"*** Begin Patch\n"}`,
	`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"t"}],"encrypted_content":"gAAA=="}`,
	`{"type":"tool_search_call","call_id":"c","arguments":{"query":"x"}}`,
	`{"type":"program","id":"p","code":"print(1)"}`,
	`{"type":"program_output","call_id":"p","result":"1"}`,
	`{"type":"mcp_approval_response","approval_request_id":"a","approve":true}`,
	`{"type":"computer_call","call_id":"c","action":{"type":"click","x":1}}`,
	`{"type":"apply_patch_call","call_id":"c","operation":{"type":"create_file","path":"a"}}`,
	`{"role":"assistant","content":"plain"}`,
	`{"role":null,"content":null,"output":null,"type":null}`,
	`{"type":"message","role":"user","role":null}`,
	`{"type":"a","type":"b"}`,
	` { "type" : "message" , "content" : [ 1 , 2 ] } `,
	`{"Type":"message"}`,
	`{"TYPE":"x","Call_ID":"y"}`,
	`{"type":1}`,
	`{"role":2}`,
	`{"type":"message","content":"\ud800"}`,
	"{\"type\":\"message\",\"content\":\"\xff\"}",
	"{\"type\":\"\xff\"}",
	`{"type":"message"`,
	`{"type":"message"} x`,
	`[]`,
	`null`,
	`{}`,
	`{"unknown":{"deep":[1,{"a":"b"}]},"type":"x"}`,
	`{"id":"\u0041\n","name":"k\\u"}`,
}

func TestDecodeItemSameAsUnmarshal(t *testing.T) {
	for _, raw := range itemCases {
		sameAsUnmarshal(t, []byte(raw))
	}
	// The fast read takes the usual items itself.
	for _, raw := range itemCases[:13] {
		var it rItem
		if !rawjson.Fields([]byte(raw), it.field, itemNames) {
			t.Errorf("%s: read by json.Unmarshal, not the fast read", raw)
		}
	}
	for _, raw := range []string{`{"Type":"message"}`, `{"type":1}`, "{\"type\":\"\xff\"}"} {
		var it rItem
		if rawjson.Fields([]byte(raw), it.field, itemNames) {
			t.Errorf("%s: the fast read took it", raw)
		}
	}
	for _, raw := range partCases {
		samePartAsUnmarshal(t, []byte(raw))
	}
}

// partCases are content parts, the usual and the odd.
var partCases = []string{
	`{"type":"input_text","text":"hi\nthere"}`,
	`{"type":"output_text","text":"x","annotations":[]}`,
	`{"type":"input_text","text":null}`,
	`{"type":"refusal","refusal":"no"}`,
	`{"type":"input_image","image_url":"data:image/png;base64,AAAA","detail":"low"}`,
	`{"type":"input_image","image_url":{"url":"x"}}`,
	`{"type":"input_file","filename":"a.pdf","file_data":"JVBERi0="}`,
	`{"type":"logs","stdout":"ok","stderr":""}`,
	`{"Text":"x"}`,
	`{"ſtdout":"x","text":"y"}`,
	`{"text":1}`,
	`{"text":"\ud800"}`,
	`{}`,
	`[]`,
}

func samePartAsUnmarshal(t *testing.T, raw []byte) {
	t.Helper()
	var got, want part
	gerr := decodePart(raw, &got)
	werr := json.Unmarshal(raw, &want)
	if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
		t.Fatalf("%q: error %v, json.Unmarshal's %v", raw, gerr, werr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: decoded %+v, json.Unmarshal %+v", raw, got, want)
	}
}

func sameAsUnmarshal(t *testing.T, raw []byte) {
	t.Helper()
	var got, want rItem
	gerr := decodeItem(raw, &got)
	werr := json.Unmarshal(raw, &want)
	if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
		t.Fatalf("%q: error %v, json.Unmarshal's %v", raw, gerr, werr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: decoded %+v, json.Unmarshal %+v", raw, got, want)
	}
}

func FuzzDecodeItem(f *testing.F) {
	for _, raw := range itemCases {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		sameAsUnmarshal(t, raw)
	})
}

func FuzzDecodePart(f *testing.F) {
	for _, raw := range partCases {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { samePartAsUnmarshal(t, raw) })
}

// codexBody returns a Responses body shaped like a Codex CLI request of
// about tokens tokens (4 bytes a token): instructions, a task, then
// steps of a reasoning item, a shell call and its output (a file viewed,
// a JSON object in a JSON string, as Codex writes it), and now and then
// a message.
func codexBody(tokens int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"model":"gpt-5-codex","instructions":"You are Codex, a coding agent.","stream":true,"input":[`)
	b.WriteString(`{"type":"message","role":"user","content":[{"type":"input_text","text":"Fix the failing test in pkg/store."}]}`)
	for step := 0; b.Len() < 4*tokens; step++ {
		fmt.Fprintf(&b, `,{"type":"reasoning","id":"rs_%d","summary":[{"type":"summary_text","text":"**Looking at store_%d.go**"}],"encrypted_content":"gAAAAB%s"}`, step, step, strings.Repeat("Zm9v", 200))
		fmt.Fprintf(&b, `,{"type":"function_call","id":"fc_%d","call_id":"call_%d","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"sed -n '1,200p' pkg/store/store_%d.go\"],\"workdir\":\"/repo\"}"}`, step, step, step)
		var out strings.Builder
		for line := 1; line <= 120; line++ {
			fmt.Fprintf(&out, "%4d\tfunc (s *Store) Get%d(ctx context.Context, key string) (\"value\", error) { return s.m[key], nil }\n", line, line)
		}
		inner, _ := json.Marshal(map[string]any{"output": out.String(), "metadata": map[string]int{"exit_code": 0}})
		outer, _ := json.Marshal(string(inner))
		fmt.Fprintf(&b, `,{"type":"function_call_output","call_id":"call_%d","output":%s}`, step, outer)
		if step%5 == 4 {
			fmt.Fprintf(&b, `,{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Step %d done: the store reads keys."}]}`, step)
		}
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// BenchmarkParseResponses times Parse of a Codex-shaped Responses body
// per size: remembered, the same body again, its items from itemMemo (an
// agent's next request resends them); fast, the items, parts and strings
// read by rawjson; general, every one by json.Unmarshal (the parser
// before).
func BenchmarkParseResponses(b *testing.B) { benchParse(b, Responses, codexBody) }

// BenchmarkParseGemini times Parse of a Gemini CLI-shaped body per size:
// remembered, the same body again, its contents from contentMemo; fast,
// objects, arrays, calls and strings read by rawjson; general, every one
// by json.Unmarshal (the parser before).
func BenchmarkParseGemini(b *testing.B) { benchParse(b, Gemini, geminiCLIBody) }

func benchParse(b *testing.B, f Format, body func(tokens int) []byte) {
	for _, tokens := range []int{10_000, 100_000} {
		data := body(tokens)
		for _, mode := range []struct {
			name       string
			fast, memo bool
		}{{"remembered", true, true}, {"fast", true, false}, {"general", false, false}} {
			b.Run(fmt.Sprintf("%dk/%s", tokens/1000, mode.name), func(b *testing.B) {
				defer func(v, m bool) { rawjson.Fast, memoItems = v, m }(rawjson.Fast, memoItems)
				rawjson.Fast, memoItems = mode.fast, mode.memo
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					if _, err := Parse(data, f); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestParseFastSameAsGeneral parses Codex- and Gemini CLI-shaped bodies
// with rawjson's reads, with them and itemMemo (twice: the second time
// from it) and with json.Unmarshal alone: the same input.
func TestParseFastSameAsGeneral(t *testing.T) {
	for _, tc := range []struct {
		f    Format
		body []byte
	}{{Responses, codexBody(3_000)}, {Responses, []byte(agentInput)}, {Gemini, geminiCLIBody(3_000)}} {
		memoItems = false
		fast, err := Parse(tc.body, tc.f)
		memoItems = true
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second time from itemMemo
			remembered, err := Parse(tc.body, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(fast.Messages, remembered.Messages) || !reflect.DeepEqual(fast.Raw, remembered.Raw) || !reflect.DeepEqual(fast.Body, remembered.Body) {
				t.Errorf("%s: parses with and without itemMemo differ", tc.f)
			}
		}
		rawjson.Fast = false
		general, err := Parse(tc.body, tc.f)
		rawjson.Fast = true
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fast.Messages, general.Messages) || !reflect.DeepEqual(fast.Raw, general.Raw) || !reflect.DeepEqual(fast.Body, general.Body) {
			t.Errorf("%s: fast and general parses differ:\n%+v\n%+v", tc.f, fast.Messages, general.Messages)
		}
		if len(fast.Messages) < 3 || tc.f == Gemini && len(fast.Messages[2].ToolCalls) == 0 {
			t.Errorf("%s: %d messages", tc.f, len(fast.Messages))
		}
	}
}

// functionCases are Gemini functionCall and functionResponse values.
var functionCases = []string{
	`{"id":"c1","name":"read_file","args":{"path":"a.go"}}`,
	`{"name":"run_shell_command","response":{"output":"ok"},"parts":[{"inlineData":{"mimeType":"image/png","data":"AA=="}}]}`,
	`{"name":"x","parts":null}`,
	`{"name":"x","parts":[]}`,
	`{"name":"x","parts":{}}`,
	`{"name":"x","parts":[1,}`,
	`{"Name":"x"}`,
	`{"name":1}`,
	`{"id":null,"args":null}`,
}

func sameFunctionAsUnmarshal(t *testing.T, raw []byte) {
	t.Helper()
	var got, want geminiFunction
	gerr := got.decode(raw)
	werr := json.Unmarshal(raw, &want)
	if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
		t.Fatalf("%q: error %v, json.Unmarshal's %v", raw, gerr, werr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: decoded %+v, json.Unmarshal %+v", raw, got, want)
	}
}

func TestDecodeFunctionSameAsUnmarshal(t *testing.T) {
	for _, raw := range functionCases {
		sameFunctionAsUnmarshal(t, []byte(raw))
	}
}

func FuzzDecodeFunction(f *testing.F) {
	for _, raw := range functionCases {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { sameFunctionAsUnmarshal(t, raw) })
}

// geminiCLIBody returns a Gemini API body shaped like a Gemini CLI
// request of about tokens tokens: a system instruction, a task, then
// per step a model content with a thought signature and a functionCall,
// and a user content with its functionResponse (a file read).
func geminiCLIBody(tokens int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"systemInstruction":{"parts":[{"text":"You are an interactive CLI agent."}]},"contents":[`)
	b.WriteString(`{"role":"user","parts":[{"text":"Fix the failing test in pkg/store."}]}`)
	for step := 0; b.Len() < 4*tokens; step++ {
		fmt.Fprintf(&b, `,{"role":"model","parts":[{"text":"Reading store_%d.go.","thoughtSignature":"%s"},{"functionCall":{"id":"read-%d","name":"read_file","args":{"absolute_path":"/repo/pkg/store/store_%d.go"}}}]}`, step, strings.Repeat("Q2lF", 60), step, step)
		var out strings.Builder
		for line := 1; line <= 120; line++ {
			fmt.Fprintf(&out, "func (s *Store) Get%d(ctx context.Context, key string) (\"value\", error) { return s.m[key], nil }\n", line)
		}
		resp, _ := json.Marshal(map[string]any{"output": out.String()})
		fmt.Fprintf(&b, `,{"role":"user","parts":[{"functionResponse":{"id":"read-%d","name":"read_file","response":%s}}]}`, step, resp)
	}
	b.WriteString(`],"generationConfig":{"temperature":0}}`)
	return b.Bytes()
}
