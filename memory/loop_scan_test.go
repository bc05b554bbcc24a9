package memory

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// The expressions command and looksAtMatch scan for by hand;
// each scan must answer as its expression does.
var (
	fenceExpr = regexp.MustCompile("(?s)```[a-zA-Z]*\\n(.*?)```")
)

// commandByExpr is command as the expression finds the blocks.
func commandByExpr(text string) string {
	m := fenceExpr.FindAllStringSubmatch(text, -1)
	if len(m) == 0 {
		return ""
	}
	return strings.TrimSpace(m[len(m)-1][1])
}

// randomText joins n pieces of parts picked by rng.
func randomText(rng *rand.Rand, parts []string, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(parts[rng.IntN(len(parts))])
	}
	return b.String()
}

func TestCommandMatchesExpression(t *testing.T) {
	cases := []string{
		"", "no block", "```bash\nls\n```", "```\nls -la\n```",
		"THOUGHT: look\n\n```bash\ngrep -n x a.py\n```",
		"```bash\nfirst\n```\ntext\n```sh\nsecond\n```",
		"```bash\nunclosed", "````bash\nfour\n````", "```bash ls\n```\n```\nx```",
		"``` bash\nx\n```", "```py3\nx\n```\n```\ny\n```", "```\n```", "```\n``",
		"a```b\nc```d```e\nf```", "```ba-sh\nx\n```", "```\r\nx\n```", "```BASH\n  x  \n```",
		"```bash\nα β\n```", "x ```\n\n```\n```",
	}
	for _, c := range cases {
		if got, want := command(c), commandByExpr(c); got != want {
			t.Errorf("command(%q) = %q, want %q", c, got, want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	parts := []string{"`", "``", "```", "bash", "b", "\n", " ", "x", "-", "\r", "é", "`\n"}
	for range 50000 {
		s := randomText(rng, parts, rng.IntN(24))
		if got, want := command(s), commandByExpr(s); got != want {
			t.Fatalf("command(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestLooksAtMatchesExpression(t *testing.T) {
	cases := []string{
		"", "execute_bash {\"command\":\"cat -n a.py\"}", "execute_bash {\"command\":\"ls\"}",
		"str_replace_editor {}", "STR_REPLACE", "apply_patch", "apply_patchx", "xgrep", "grep_x",
		"Grep", "rg", "r g", "nl", "NL1", "ſed -n 1p", "ſearch", "cat\u00e9", "\u00e9cat", "Read", "readme",
		"view_file", "file.view", "open(", "_open", "sed2", "2sed", "search/find",
	}
	for _, c := range cases {
		if got, want := looksAtMatch(c), looksAt.MatchString(c); got != want {
			t.Errorf("looksAtMatch(%q) = %v, want %v", c, got, want)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	parts := []string{"cat", "CAT", "sed", "ſ", "ed", "_", "x", "1", " ", ".", "/", "str", "replace", "apply", "patch", "é", "K", "n", "l", "\"", "grep", "rg"}
	for range 50000 {
		s := randomText(rng, parts, rng.IntN(8))
		if got, want := looksAtMatch(s), looksAt.MatchString(s); got != want {
			t.Fatalf("looksAtMatch(%q) = %v, want %v", s, got, want)
		}
	}
}
