package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runIn is run with stdin.
func runIn(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	env := NewEnv(strings.NewReader(stdin), &out, &errb, nil)
	err := Run(context.Background(), env, args)
	return out.String(), errb.String(), err
}

// TestUsageErrorsAreOneLine: a bad flag or argument is one line saying where
// the flags are listed, not the whole flag list; "swc" alone is a usage
// error with the command list on stderr.
func TestUsageErrorsAreOneLine(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"compress", "-bogus"}, "compress: flag provided but not defined: -bogus (see 'swc compress -h')"},
		{[]string{"version", "extra"}, `version: unexpected argument "extra"`},
		{[]string{"compress", "--top-k", "0"}, "--top-k must be at least 1 (got 0)"},
		{[]string{"inspect", "--top-k", "-3"}, "--top-k must be at least 1"},
		{[]string{"compress", "--upto", "99"}, "--upto 99: sample-1 has only 12 sessions"},
		{[]string{"compress", "--budget", "5"}, "the smallest useful budget here is"},
		{[]string{"bench", "--budget", "5", "--out", "unused"}, "the smallest useful budget here is"},
	}
	for _, tt := range tests {
		_, stderr, err := run(t, nil, tt.args...)
		if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err = %v (exit %d), want a usage error containing %q", tt.args, err, exitCode(err), tt.want)
		}
		if stderr != "" {
			t.Errorf("%v: stderr %q besides the one-line error", tt.args, stderr)
		}
	}
	_, stderr, err := run(t, nil)
	if exitCode(err) != 2 || !strings.Contains(stderr, "Commands:") {
		t.Errorf("swc without arguments: exit %d, stderr %q; want help on stderr, exit 2", exitCode(err), stderr)
	}
}

// TestHelpHasNoEmptyFlags: commands without flags print no "Flags:"
// heading, and render's usage agrees with its optional --conversation.
func TestHelpHasNoEmptyFlags(t *testing.T) {
	for _, args := range [][]string{{"llm", "-h"}, {"version", "-h"}} {
		_, stderr, err := run(t, nil, args...)
		if err != nil || !strings.HasPrefix(stderr, "Usage: swc ") || strings.Contains(stderr, "Flags:") {
			t.Errorf("%v: err %v, help %q", args, err, stderr)
		}
	}
	_, stderr, _ := run(t, nil, "render", "-h")
	if !strings.Contains(stderr, "[--conversation ID]") || !strings.Contains(stderr, "Flags:") {
		t.Errorf("render -h: %q", stderr)
	}
}

// TestJSONErrorsInWords: syntax errors say so with a position; type
// errors never show Go type names.
func TestJSONErrorsInWords(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ text, want string }{
		{`{"foo": [1,2`, "invalid JSON: the file ends early, at line 1 (byte 12)"},
		{`not json at all`, "invalid JSON at line 1, column 3 (byte 2)"},
		{`[1,2,3]`, "sample 0: want an object with sample_id, conversation and qa, found a number"},
		{`[{"sample_id": "a", "conversation": {"speaker_a": "A", "speaker_b": "B"}, "qa": {}}]`, `field "qa": want a list, found an object`},
	}
	for i, tt := range tests {
		p := filepath.Join(dir, "d.json")
		if err := os.WriteFile(p, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := run(t, nil, "stats", "--data", p)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "locomo.") || strings.Contains(err.Error(), "raw") {
			t.Errorf("%d %q: err = %v, want %q and no type names", i, tt.text, err, tt.want)
		}
	}
}

// TestDataFromStdin: --data - reads stdin wherever --data is read.
func TestDataFromStdin(t *testing.T) {
	file := filepath.Join("..", "..", "locomo", "sample.json")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := run(t, nil, "render", "--data", file)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"render", "--data", "-"},
		{"stats", "--data", "-"},
		{"compress", "--data", "-"},
		{"mentions", "--data", "-"},
		{"bench", "--data", "-", "--conditions", "full", "--out", t.TempDir()},
	} {
		out, _, err := runIn(t, string(b), args...)
		if err != nil || out == "" {
			t.Errorf("%v: err %v, %d bytes out", args, err, len(out))
		}
		if args[0] == "render" && out != want {
			t.Errorf("render --data - differs from render --data FILE")
		}
	}
}

// TestGistsFromStdin: preserve --gists - reads the gists from stdin, and
// --data - with --gists - is refused (one stdin).
func TestGistsFromStdin(t *testing.T) {
	b, err := os.ReadFile(preserveGists)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := run(t, nil, "preserve", "--data", preserveConvs, "--gists", preserveGists, "--json")
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := runIn(t, string(b), "preserve", "--data", preserveConvs, "--gists", "-", "--json")
	if err != nil || got != want {
		t.Errorf("--gists -: err %v, output differs from --gists FILE: %v", err, got != want)
	}
	if _, _, err := runIn(t, string(b), "preserve", "--data", "-", "--gists", "-"); exitCode(err) != 2 {
		t.Errorf("--data - --gists -: %v, want a usage error", err)
	}
}

// TestWarningsOnlyForConversationsInUse: LoCoMo's three dangling evidence
// ids are one counted line, only for the conversations picked; -v lists
// them.
func TestWarningsOnlyForConversationsInUse(t *testing.T) {
	path := needLoCoMo(t)
	_, stderr, err := run(t, nil, "render", "--data", path, "--conversation", "conv-26")
	if err != nil || strings.Contains(stderr, "warning") {
		t.Errorf("conv-26: err %v, stderr %q; want no warnings", err, stderr)
	}
	_, stderr, _ = run(t, nil, "render", "--data", path, "--conversation", "conv-42")
	if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "2 data warnings about conv-42") || !strings.Contains(stderr, "-v") {
		t.Errorf("conv-42: stderr %q; want one line counting 2 warnings", stderr)
	}
	_, stderr, _ = run(t, nil, "render", "--data", path, "--conversation", "conv-42", "-v")
	if strings.Count(stderr, "swc: warning: conv-42: qa[") != 2 {
		t.Errorf("conv-42 -v: stderr %q; want both warnings", stderr)
	}
}

// TestProviderFailureIsOneLine: a provider that cannot be reached gives one
// line naming provider, model, URL and cause, without repeated prefixes or
// an all-zero usage table.
func TestProviderFailureIsOneLine(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/v1"
	srv.Close() // connection refused from now on
	for _, strat := range []string{"swc-full", "sliding"} {
		_, stderr, err := run(t, nil, "compress", "--strategy", strat, "--gister", "ollama:llama3", "--ollama-base-url", url, "--max-attempts", "1", "--no-cache")
		if err == nil {
			t.Fatalf("%s: no error", strat)
		}
		msg := err.Error()
		for _, want := range []string{"ollama: llama3 (" + url + "/chat/completions)", "connection error after 1 attempt", "refused"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: %q lacks %q", strat, msg, want)
			}
		}
		if strings.Count(msg, "llama3") != 1 || strings.Count(msg, "gist") > 1 || strings.Contains(msg, `Post "`) {
			t.Errorf("%s: repeated prefixes in %q", strat, msg)
		}
		if strings.Contains(stderr, "usage") || strings.Contains(stderr, "LLM") {
			t.Errorf("%s: stderr before the error: %q", strat, stderr)
		}
	}
}

// TestSessionsNumberedFromOne: inspect and compress number sessions as the
// rendered text does; JSON keeps the 0-based index.
func TestSessionsNumberedFromOne(t *testing.T) {
	out, _, err := run(t, nil, "inspect", "--strategy", "truncation")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[2], "1 ") || strings.Contains(out, "session 0") {
		t.Errorf("inspect does not number sessions from 1:\n%s", out)
	}
	if !strings.Contains(out, "session 2, ") {
		t.Errorf("inspect drops not numbered from 1:\n%s", out)
	}
	js, _, _ := run(t, nil, "inspect", "--strategy", "truncation", "--json")
	if !strings.Contains(js, `"session": 0,`) {
		t.Errorf("inspect --json lost the 0-based index")
	}
	// Chat messages: both tables number the sample's sessions (ids S1, S2,
	// …) from 1, as the memory message's headers do.
	out, _, err = run(t, nil, "inspect", "--output-format", "openai", "--budget", "2000")
	if err != nil {
		t.Fatal(err)
	}
	var firsts []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "1" {
			firsts = append(firsts, l)
		}
		if strings.HasPrefix(l, "0 ") {
			t.Errorf("a table row numbered 0: %q", l)
		}
	}
	if len(firsts) != 2 || !strings.Contains(firsts[0], " S1 ") {
		t.Errorf("inspect of chat messages: rows numbered 1 %q, want one per table, the first session S1:\n%s", firsts, out)
	}
	// preserve's report quotes lost mentions with their session from 1:
	// D1:… is session 1.
	out, _, err = run(t, nil, "preserve", "--conditions", "swc-full")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "(session 0)") || !regexp.MustCompile(`D(\d+):\d+ \(session (\d+)\)`).MatchString(out) {
		t.Errorf("preserve examples:\n%s", out)
	}
	for _, m := range regexp.MustCompile(`D(\d+):\d+ \(session (\d+)\)`).FindAllStringSubmatch(out, -1) {
		if m[1] != m[2] {
			t.Errorf("turn D%s:… shown in session %s", m[1], m[2])
		}
	}
}

// TestBenchSummaryLine: n is the categories-1–4 n, and the wording is
// plural-aware.
func TestBenchSummaryLine(t *testing.T) {
	out, stderr, err := run(t, nil, "bench", "--conditions", "full", "--out", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// The sample's text-only questions: 52 in categories 1–4 (8, 23, 6,
	// 15), 58 in all (locomo/sample.json).
	if !strings.Contains(out, "over categories 1–4: n = 52 (matched set, all categories: 58)") {
		t.Errorf("bench summary line:\n%s", out)
	}
	for _, want := range []string{"1 condition × 1 conversation in", "open "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("bench stderr lacks %q:\n%s", want, stderr)
		}
	}
}
