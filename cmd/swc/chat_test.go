package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/memory"
)

var assistantSample = filepath.Join("..", "..", "chat", "sample.jsonl")

// runStdin is run with stdin.
func runStdin(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	env := NewEnv(strings.NewReader(stdin), &out, &errb, nil)
	err := Run(context.Background(), env, args)
	return out.String(), errb.String(), err
}

func TestCompressChatOutputs(t *testing.T) {
	for _, tok := range []string{"cl100k_base", "o200k_base"} {
		counter, _ := memory.New(memory.Options{Tokenizer: tok})
		// openai
		out, stderr, err := run(t, nil, "compress", "--input", assistantSample, "--budget", "1200", "--tokenizer", tok, "--output-format", "openai", "--strategy", "swc-anchored")
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		in, err := chat.Parse([]byte(out), chat.OpenAI)
		if err != nil {
			t.Fatalf("openai output does not parse: %v", err)
		}
		if err := chat.CheckOpenAI(chat.OpenAIMessages(in.Messages)); err != nil {
			t.Error(err)
		}
		// One system message, the first, holding the instructions then
		// the memory: strict chat templates refuse a second.
		for i, m := range in.Messages {
			if m.Role == swc.RoleSystem && (i > 0 || !strings.HasPrefix(m.Content, "You are Sol") || !strings.Contains(m.Content, "Earlier conversation, consolidated")) {
				t.Errorf("%s: message %d is a system message: %.80q", tok, i, m.Content)
			}
		}
		if n := counter.CountMessages(in.Messages); n > 1200 {
			t.Errorf("%s: openai output has %d tokens > 1200", tok, n)
		}
		if !strings.Contains(stderr, tok) || !strings.Contains(stderr, "8 sessions by gaps of 30m0s") {
			t.Errorf("summary: %s", stderr)
		}
		// anthropic
		out, _, err = run(t, nil, "compress", "--input", assistantSample, "--budget", "1200", "--tokenizer", tok, "--output-format", "anthropic")
		if err != nil {
			t.Fatal(err)
		}
		var req chat.AnthropicRequest
		if err := json.Unmarshal([]byte(out), &req); err != nil {
			t.Fatal(err)
		}
		if err := chat.CheckAnthropic(req); err != nil {
			t.Error(err)
		}
		if !strings.Contains(req.System, "You are Sol") || !strings.Contains(req.System, "[Session 1 — 9:12 am on 3 March, 2025]") {
			t.Errorf("system: %.200s", req.System)
		}
	}
	// json, from stdin
	data, _ := os.ReadFile(assistantSample)
	out, _, err := runStdin(t, string(data), "compress", "--input", "-", "--budget", "1500", "--output-format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var res memory.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Tokens > 1500 || len(res.Context.Chunks) != 8 || len(res.Sessions) != 8 {
		t.Fatalf("json: %v, %d tokens", err, res.Tokens)
	}
	// text
	out, _, err = run(t, nil, "compress", "--input", assistantSample, "--budget", "1500")
	if err != nil || !strings.HasPrefix(out, "[system]\nYou are Sol") || !strings.Contains(out, "[system: memory]\n") || !strings.Contains(out, "omitted]") {
		t.Errorf("text: %v\n%.400s", err, out)
	}
}

func TestChatInputEveryCommand(t *testing.T) {
	for _, args := range [][]string{
		{"inspect", "--input", assistantSample, "--budget", "1500"},
		{"render", "--input", assistantSample},
		{"mentions", "--input", assistantSample},
		{"stats", "--input", assistantSample},
		{"preserve", "--input", assistantSample, "--budget", "1500"},
	} {
		out, stderr, err := run(t, nil, args...)
		if err != nil {
			t.Errorf("%v: %v\n%s", args, err, stderr)
			continue
		}
		if args[0] == "inspect" && !strings.Contains(out, "history: 8 sessions by gaps of 30m0s") {
			t.Errorf("inspect does not show the grouping:\n%s", out)
		}
		if args[0] == "render" && !strings.Contains(out, "[Session 9 — 12:00 pm on 14 April, 2025]") {
			t.Errorf("render:\n%.300s", out)
		}
		if args[0] == "mentions" && !strings.Contains(out, "2025-03-04") { // "yesterday" on 5 March
			t.Errorf("mentions do not anchor against the session date:\n%.300s", out)
		}
	}
}

func TestChatInputErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	orphan := write("orphan.json", `[{"role":"user","content":"a"},{"role":"tool","tool_call_id":"x","content":"b"}]`)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"compress", "--input", orphan}, 1, `orphan.json: messages[1].tool_call_id: "x" answers no tool call`},
		{[]string{"compress", "--input", write("mixed.jsonl", "{\"role\":\"user\",\"content\":\"a\"}\n{\"speaker\":\"A\",\"text\":\"b\"}\n")}, 1, "mixed.jsonl: line 2: a jsonl {speaker,text} line among openai messages"},
		{[]string{"compress", "--input", write("what.txt", "hello")}, 1, "what.txt: cannot detect the format"},
		{[]string{"compress", "--input", write("empty.json", "[]")}, 1, "empty.json: no messages"},
		{[]string{"compress", "--input", filepath.Join(dir, "missing.json")}, 1, "no such file"},
		{[]string{"compress", "--input", assistantSample, "--data", "x.json"}, 2, "give --data or --input, not both"},
		{[]string{"compress", "--input", assistantSample, "--tokenizer", "p50k"}, 2, "unknown tokenizer"},
		{[]string{"compress", "--input", assistantSample, "--output-format", "xml"}, 2, "--output-format"},
		{[]string{"compress", "--input", assistantSample, "--format", "yaml"}, 2, "unknown format"},
		{[]string{"compress", "--input", assistantSample, "--strategy", "full"}, 2, "unknown strategy"},
		{[]string{"stats", "--input", assistantSample, "--format", "anthropic"}, 1, "anthropic input is a Messages request body"},
	} {
		_, _, err := run(t, nil, tc.args...)
		if err == nil || exitCode(err) != tc.code || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v (exit %d), want exit %d with %q", tc.args, err, exitCode(err), tc.code, tc.want)
		}
	}
}

// TestCompressOverBudgetWarns: a budget the last message alone exceeds
// is no error: the shortest tail goes out, and stderr says by how much it
// is over.
func TestCompressOverBudgetWarns(t *testing.T) {
	out, stderr, err := run(t, nil, "compress", "--input", assistantSample, "--budget", "20", "--output-format", "openai")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "tokens over the budget of 20") {
		t.Errorf("stderr: %s", stderr)
	}
	if _, err := chat.Parse([]byte(out), chat.OpenAI); err != nil {
		t.Errorf("output: %v", err)
	}
}

// TestCompressLoCoMoAsChat: --data with a chat output format compresses
// the conversation as chat messages.
func TestCompressLoCoMoAsChat(t *testing.T) {
	out, _, err := run(t, nil, "compress", "--output-format", "openai", "--budget", "2000")
	if err != nil {
		t.Fatal(err)
	}
	in, err := chat.Parse([]byte(out), chat.OpenAI)
	// LoCoMo has no instructions: the memory starts the first message
	// kept, a user's; swc adds no system message.
	if err != nil || len(in.Messages) != 8 || in.Messages[0].Role != "user" || !strings.HasPrefix(in.Messages[0].Content, memory.Preamble) {
		t.Fatalf("%v: %d messages", err, len(in.Messages))
	}
}
