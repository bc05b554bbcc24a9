package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/memory"
	"github.com/swcmem/swc/strategy"
)

// requestLoop returns a coding agent's tool loop as a request body of
// format f: a task, then steps calls of read_file each answered by a file
// view of about 700 tokens.
func requestLoop(f chat.Format, steps int) []byte {
	const task = "Fix the crash in src/app/parser.py when parse_header gets an empty line; tests in tests/test_parser.py."
	view := func(i int) string {
		var b strings.Builder
		for l := range 60 {
			fmt.Fprintf(&b, "%d: def handler_%d_%d(self, value): return self.table[%d] + value\n", 100+l, i, l, l)
		}
		return b.String()
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	var items []string
	for i := range steps {
		id, args, out := fmt.Sprintf("call_%d", i), fmt.Sprintf(`{"path":"src/app/mod_%d.py"}`, i), q(view(i))
		switch f {
		case chat.OpenAI:
			items = append(items, fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":%q,"type":"function","function":{"name":"read_file","arguments":%s}}]}`, id, q(args)),
				fmt.Sprintf(`{"role":"tool","tool_call_id":%q,"content":%s}`, id, out))
		case chat.Anthropic:
			items = append(items, fmt.Sprintf(`{"role":"assistant","content":[{"type":"tool_use","id":%q,"name":"read_file","input":%s}]}`, id, args),
				fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":%s}]}`, id, out))
		case chat.Gemini:
			items = append(items, fmt.Sprintf(`{"role":"model","parts":[{"functionCall":{"name":"read_file","args":%s}}]}`, args),
				fmt.Sprintf(`{"role":"user","parts":[{"functionResponse":{"name":"read_file","response":{"output":%s}}}]}`, out))
		case chat.Responses:
			items = append(items, fmt.Sprintf(`{"type":"function_call","call_id":%q,"name":"read_file","arguments":%s}`, id, q(args)),
				fmt.Sprintf(`{"type":"function_call_output","call_id":%q,"output":%s}`, id, out))
		case chat.Interactions:
			items = append(items, fmt.Sprintf(`{"type":"function_call","id":%q,"name":"read_file","arguments":%s}`, id, args),
				fmt.Sprintf(`{"type":"function_result","call_id":%q,"name":"read_file","result":%s}`, id, out))
		}
	}
	list := strings.Join(items, ",")
	switch f {
	case chat.OpenAI:
		return []byte(`{"model":"gpt-5","messages":[{"role":"system","content":"You are a coding agent."},{"role":"user","content":` + q(task) + `},` + list + `]}`)
	case chat.Anthropic:
		return []byte(`{"model":"claude-sonnet-4-6","max_tokens":1024,"system":"You are a coding agent.","messages":[{"role":"user","content":` + q(task) + `},` + list + `]}`)
	case chat.Gemini:
		return []byte(`{"systemInstruction":{"parts":[{"text":"You are a coding agent."}]},"contents":[{"role":"user","parts":[{"text":` + q(task) + `}]},` + list + `]}`)
	case chat.Responses:
		return []byte(`{"model":"gpt-5","instructions":"You are a coding agent.","input":[{"role":"user","content":` + q(task) + `},` + list + `]}`)
	}
	return []byte(`{"model":"gemini-3-flash-preview","store":false,"input":[{"type":"user_input","content":[{"type":"text","text":` + q(task) + `}]},` + list + `]}`)
}

// TestCompressRequestOutput: swc compress reads a request body of every
// format the proxy reads, detected by its shape, and --output-format
// request writes it back compressed as the proxy's middleware does: the
// same bytes, in the same format, within the budget.
func TestCompressRequestOutput(t *testing.T) {
	dir := t.TempDir()
	const budget = 3000
	for _, tc := range []struct {
		f      chat.Format
		path   string
		mw     func(*memory.Compressor, func(*memory.Result, error)) memory.Middleware
		format string // --format; "" detects it
	}{
		{chat.OpenAI, "/v1/chat/completions", memory.OpenAIMiddleware, ""},
		{chat.Anthropic, "/v1/messages", memory.AnthropicMiddleware, ""},
		{chat.Gemini, "/v1beta/models/gemini-3-flash-preview:generateContent", memory.GeminiMiddleware, ""},
		{chat.Responses, "/v1/responses", memory.ResponsesMiddleware, ""},
		{chat.Interactions, "/v1beta/interactions", memory.InteractionsMiddleware, ""},
		{chat.Interactions, "/v1beta/interactions", memory.InteractionsMiddleware, "interactions"},
	} {
		t.Run(string(tc.f)+tc.format, func(t *testing.T) {
			body := requestLoop(tc.f, 24)
			file := filepath.Join(dir, string(tc.f)+".json")
			if err := os.WriteFile(file, body, 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"compress", "--input", file, "--budget", fmt.Sprint(budget), "--compaction", "epoch", "--output-format", "request"}
			if tc.format != "" {
				args = append(args, "--format", tc.format)
			}
			out, stderr, err := run(t, nil, args...)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			if !strings.Contains(stderr, "a tool loop:") {
				t.Errorf("summary: %s", stderr)
			}
			got := bytes.TrimSuffix([]byte(out), []byte("\n"))
			in, err := chat.Parse(got, tc.f)
			if err != nil {
				t.Fatalf("output does not read as %s: %v\n%.300s", tc.f, err, got)
			}
			c, err := memory.New(memory.Options{Strategy: strategy.Default, Budget: budget, Compaction: memory.Epoch})
			if err != nil {
				t.Fatal(err)
			}
			before, _ := c.CountBody(body, tc.f)
			if n := c.CountMessages(in.Messages); n > budget || n >= before {
				t.Errorf("output %d tokens, input %d, budget %d", n, before, budget)
			}
			// The proxy's middleware, with the same settings, sends the same bytes.
			var sent []byte
			mw := tc.mw(c, nil)
			req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1"+tc.path, bytes.NewReader(body))
			_, err = mw(req, func(r *http.Request) (*http.Response, error) {
				sent, _ = io.ReadAll(r.Body)
				return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, sent) {
				t.Errorf("compress wrote %d bytes, the middleware sent %d:\n%.400s\n---\n%.400s", len(got), len(sent), got, sent)
			}
		})
	}
}

// TestCompressRequestFits: a body within the budget is written back as it came.
func TestCompressRequestFits(t *testing.T) {
	body := requestLoop(chat.Responses, 2)
	file := filepath.Join(t.TempDir(), "small.json")
	if err := os.WriteFile(file, append(body, '\n', '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := run(t, nil, "compress", "--input", file, "--budget", "8000", "--output-format", "request")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if out != string(body)+"\n" || !strings.Contains(stderr, "already within the budget") {
		t.Errorf("out %q\nstderr %s", out, stderr)
	}
}

// TestCompressRequestErrors: --output-format request without a request
// body, and formats named wrong, are usage errors naming the problem.
func TestCompressRequestErrors(t *testing.T) {
	arr := filepath.Join(t.TempDir(), "messages.json")
	if err := os.WriteFile(arr, []byte(`[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	mixed := filepath.Join(t.TempDir(), "mixed.json")
	if err := os.WriteFile(mixed, []byte(`{"model":"gemma3","input":[{"role":"user","content":"hi"},{"type":"user_input","content":[{"type":"text","text":"x"}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	continued := filepath.Join(t.TempDir(), "continued.json")
	if err := os.WriteFile(continued, []byte(`{"model":"gemini-3-flash-preview","previous_interaction_id":"v1_1","input":"and then?"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compress", "--output-format", "request"}, "give the body with --input"},
		{[]string{"compress", "--input", arr, "--output-format", "request"}, "is not a request body"},
		{[]string{"compress", "--input", assistantSample, "--output-format", "request"}, "is not a request body"},
		{[]string{"compress", "--input", arr, "--format", "bard"}, "want auto, openai, anthropic, gemini, responses, interactions"},
		{[]string{"compress", "--input", continued, "--output-format", "request"}, "previous_interaction_id: the history is stored at the provider"},
		{[]string{"compress", "--input", mixed}, "(read as interactions, told by its shape; --format names the format when that is wrong)"},
	} {
		_, stderr, err := run(t, nil, tc.args...)
		if err == nil || !strings.Contains(err.Error()+stderr, tc.want) {
			t.Errorf("%v: err %v, stderr %s; want %q", tc.args, err, stderr, tc.want)
		}
	}
}

// TestCompressModel: --model says which model a Gemini body is for (its
// URL names it, not the body), so that its media count as that model
// counts them: a 4K screenshot 15 tiles of 258 tokens before Gemini 3,
// 1,120 tokens for Gemini 3 (the default).
func TestCompressModel(t *testing.T) {
	var pic bytes.Buffer
	if err := png.Encode(&pic, image.NewGray(image.Rect(0, 0, 3840, 2160))); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "screenshot.json")
	body := `{"contents":[{"role":"user","parts":[{"text":"what is on screen?"},{"inlineData":{"mimeType":"image/png","data":"` + base64.StdEncoding.EncodeToString(pic.Bytes()) + `"}}]}]}`
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	tokens := map[string]int{}
	for _, model := range []string{"", "gemini-2.5-pro", "gemini-3-pro-preview"} {
		out, stderr, err := run(t, nil, "compress", "--input", file, "--budget", "100000", "--model", model, "--output-format", "json")
		if err != nil {
			t.Fatalf("%s: %v\n%s", model, err, stderr)
		}
		var res struct {
			TokensBefore int `json:"tokens_before"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		tokens[model] = res.TokensBefore
	}
	if tokens["gemini-2.5-pro"]-tokens[""] != 15*258-1120 || tokens["gemini-3-pro-preview"] != tokens[""] {
		t.Errorf("tokens by model: %v", tokens)
	}
}

// TestCompressHoldBudget: a tool loop whose newest output alone overflows
// the budget goes out whole over it, with a warning; with --hold-budget
// that output is cut to a stub with its handle and the request fits, in
// every request format.
func TestCompressHoldBudget(t *testing.T) {
	dir := t.TempDir()
	const budget = 600
	for _, f := range []chat.Format{chat.OpenAI, chat.Anthropic, chat.Gemini, chat.Responses} {
		t.Run(string(f), func(t *testing.T) {
			body := requestLoop(f, 2)
			file := filepath.Join(dir, string(f)+".json")
			if err := os.WriteFile(file, body, 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := memory.New(memory.Options{Strategy: strategy.Default, Budget: budget})
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"compress", "--input", file, "--budget", fmt.Sprint(budget), "--output-format", "request"}
			for _, hold := range []bool{false, true} {
				a := args
				if hold {
					a = append(a, "--hold-budget")
				}
				out, stderr, err := run(t, nil, a...)
				if err != nil {
					t.Fatalf("%v\n%s", err, stderr)
				}
				in, err := chat.Parse([]byte(out), f)
				if err != nil {
					t.Fatalf("output does not read as %s: %v", f, err)
				}
				n := c.CountMessages(in.Messages)
				last := in.Messages[len(in.Messages)-1].Content
				if !hold {
					if n <= budget || !strings.Contains(stderr, "over the budget") || strings.Contains(last, "[swc:") {
						t.Errorf("without --hold-budget: %d tokens, last output %.80q\n%s", n, last, stderr)
					}
					continue
				}
				if n > budget || !strings.Contains(stderr, "--hold-budget cut the newest tool outputs") || !strings.Contains(last, "[swc:h") || strings.Contains(stderr, "over the budget") {
					t.Errorf("--hold-budget: %d tokens of %d, last output %.80q\n%s", n, budget, last, stderr)
				}
			}
		})
	}
}

// TestCompressHoldBudgetTools: with --hold-budget the request's tool
// definitions take their part of the budget: the messages are compressed
// to what they leave, and stderr says how much that is.
func TestCompressHoldBudgetTools(t *testing.T) {
	const budget = 3000
	tools := `[{"type":"function","function":{"name":"read_file","description":"` + strings.Repeat("Reads a file and returns its numbered lines. ", 80) + `","parameters":{"type":"object"}}}]`
	body := bytes.Replace(requestLoop(chat.OpenAI, 24), []byte(`{"model":"gpt-5",`), []byte(`{"model":"gpt-5","tools":`+tools+`,`), 1)
	file := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(file, body, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := memory.New(memory.Options{Strategy: strategy.Default, Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	toolTokens := c.ToolTokens([]byte(tools))
	out, stderr, err := run(t, nil, "compress", "--input", file, "--budget", fmt.Sprint(budget), "--output-format", "request", "--hold-budget")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	in, err := chat.Parse([]byte(out), chat.OpenAI)
	if err != nil {
		t.Fatal(err)
	}
	if n := c.CountMessages(in.Messages); toolTokens < 500 || n > budget-toolTokens || !strings.Contains(stderr, fmt.Sprintf("the tool definitions take %d tokens of the budget, the messages get %d", toolTokens, budget-toolTokens)) {
		t.Errorf("%d tokens of messages, tools %d, budget %d:\n%s", n, toolTokens, budget, stderr)
	}
}
