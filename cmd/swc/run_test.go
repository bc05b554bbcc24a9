package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swcmem/swc/internal/locomotest"
)

// needLoCoMo returns the shared LoCoMo file's path, or skips tb (see
// locomotest.Need).
func needLoCoMo(tb testing.TB) string {
	tb.Helper()
	return locomotest.Need(tb)
}

// run executes the CLI in-process and returns stdout, stderr and the error.
func run(t *testing.T, vars map[string]string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	env := NewEnv(strings.NewReader(""), &out, &errb, nil)
	for k, v := range vars {
		env.Vars[k] = v
	}
	err := Run(context.Background(), env, args)
	return out.String(), errb.String(), err
}

func TestHelpAndVersion(t *testing.T) {
	out, _, err := run(t, nil, "help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"stats", "render", "version", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL"} {
		if !strings.Contains(out, want) {
			t.Errorf("help does not mention %q", want)
		}
	}
	if _, _, err := run(t, nil, "help", "stats"); err != nil {
		t.Errorf("help stats: %v", err)
	}
	if _, _, err := run(t, nil, "help", "nope"); err == nil || exitCode(err) != 2 {
		t.Errorf("help nope: %v", err)
	}
	out, _, err = run(t, nil, "version")
	if err != nil || !strings.HasPrefix(out, "swc ") || !strings.Contains(out, "cl100k_base") {
		t.Errorf("version = %q, %v", out, err)
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"nope"}, `unknown command "nope"`},
		{[]string{"stats", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"stats", "extra"}, `unexpected argument "extra"`},
		{[]string{"render", "--conversation"}, "flag needs an argument"},
		{[]string{"bench", "--memory-limit", "lots"}, `want a positive size such as 1GiB, 512MiB or 268435456 (got "lots"), or off`},
		{[]string{"bench", "--memory-limit", "-5"}, `(got "-5"), or off`},
	}
	for _, tt := range tests {
		_, _, err := run(t, nil, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) || exitCode(err) != 2 {
			t.Errorf("%v: err = %v (exit %d), want usage error containing %q", tt.args, err, exitCode(err), tt.want)
		}
	}
}

func TestDataErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		path string
		want []string
	}{
		{filepath.Join(dir, "missing.json"), []string{"missing.json", "no such file"}},
		{write("empty.json", ""), []string{"empty.json", "file is empty"}},
		{write("obj.json", `{"a": 1}`), []string{"obj.json", "JSON list"}},
		{write("trunc.json", `[{"sample_id": "x", "conv`), []string{"trunc.json", "ends early"}},
		{write("noconv.json", `[{"sample_id": "s9"}]`), []string{"s9", `"conversation"`}},
	}
	for _, tt := range tests {
		for _, cmd := range []string{"stats", "render"} {
			_, _, err := run(t, nil, cmd, "--data", tt.path)
			if err == nil || exitCode(err) != 1 {
				t.Errorf("%s %s: err = %v, want a data error", cmd, tt.path, err)
				continue
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: error %q does not mention %q", cmd, err, w)
				}
			}
		}
	}
}

func TestStatsSample(t *testing.T) {
	out, _, err := run(t, nil, "stats")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "total (1)") || !strings.Contains(out, "text-only:") {
		t.Errorf("stats output:\n%s", out)
	}
}

func TestStatsLoCoMoJSON(t *testing.T) {
	path := needLoCoMo(t)
	out, stderr, err := run(t, nil, "stats", "--data", path, "--json")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"conversations": 10,`, `"sessions": 272,`, `"turns": 5882,`, `"questions": 1986,`, `"text_only": 1935,`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stats --json lacks %s", want)
		}
	}
	r := decodeStats(t, out)
	tc := r.Totals.TextOnlyByCategory
	if got := tc["1"] + tc["2"] + tc["3"] + tc["4"]; got != 1501 || tc["5"] != 434 {
		t.Errorf("text-only by category = %v, want 1501 in 1–4 and 434 in 5", tc)
	}
	if !strings.Contains(stderr, "warning") {
		t.Errorf("expected warnings about dangling evidence on stderr, got %q", stderr)
	}
}

func TestRender(t *testing.T) {
	out, _, err := run(t, nil, "render")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "[Session 1 — ") {
		t.Errorf("render output starts %q", out[:min(len(out), 60)])
	}
	_, _, err = run(t, nil, "render", "--conversation", "no-such")
	if err == nil || !strings.Contains(err.Error(), `no conversation "no-such"`) {
		t.Errorf("unknown conversation: %v", err)
	}
}

// TestBenchMemoryLimit: bench's soft memory limit is --memory-limit when
// given (off: none), else none when GOMEMLIMIT is set (the runtime's),
// else 1536MiB.
func TestBenchMemoryLimit(t *testing.T) {
	tests := []struct {
		flag, env string
		want      int64
		ok        bool
	}{
		{"", "", benchMemoryLimit, true},
		{"", "4GiB", 0, false},
		{"2GiB", "", 2 << 30, true},
		{"2GiB", "4GiB", 2 << 30, true},
		{"off", "", 0, false},
		{"0", "4GiB", 0, false},
	}
	for _, tt := range tests {
		var m memLimitFlag
		if tt.flag != "" {
			if err := m.Set(tt.flag); err != nil {
				t.Fatal(err)
			}
		}
		var environ []string
		if tt.env != "" {
			environ = []string{"GOMEMLIMIT=" + tt.env}
		}
		env := NewEnv(nil, nil, nil, environ)
		if got, ok := m.limit(env); got != tt.want || ok != tt.ok {
			t.Errorf("--memory-limit %q, GOMEMLIMIT %q: %d %v, want %d %v", tt.flag, tt.env, got, ok, tt.want, tt.ok)
		}
	}
}
