package memory

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/swcmem/swc/observe"
)

// TestCallSummary: a dropped call's line shows what the call was on —
// values without JSON's names and quotes, a path's end kept when it is
// cut, a shell command without the `cd` every step starts with, an XML
// call's parameter values — in at most callBytes bytes of arguments.
func TestCallSummary(t *testing.T) {
	for _, tc := range []struct {
		name, tool, args, want string
	}{
		{"a view of a long path", "str_replace_editor", `{"command": "view", "path": "/workspace/ponylang__ponyc__0.1/src/libponyc/ast/parser.c"}`,
			"str_replace_editor(view /workspace/…/libponyc/ast/parser.c)"},
		{"short arguments whole", "Read", `{"file_path":"src/a.go","limit":40}`, "Read(src/a.go 40)"},
		{"null, false and empty left out", "Grep", `{"pattern":"TODO","path":null,"glob":"","multiline":false}`, "Grep(TODO)"},
		{"true kept", "Edit", `{"replace_all":true,"file_path":"a.go"}`, "Edit(true a.go)"},
		{"a list compact", "view", `{"view_range":[314,317]}`, "view([314,317])"},
		{"a shell command in JSON", "execute_bash", `{"command": "cd /workspace/ponylang__ponyc__0.1 && grep -n \"DECL(pattern);\" src/libponyc/ast/parser.c"}`,
			`execute_bash(grep -n "DECL(pattern);" src/li…c/ast/parser.c)`},
		{"an edit: the path, then what fits", "Edit", `{"file_path":"/home/dev/project/internal/server/handlers.go","old_string":"func (s *Server) handle(w http.ResponseWriter)","new_string":"x"}`,
			"Edit(/home/dev/p…nal/server/handlers.go func (s…)"},
		{"no object", "custom", `free text arguments`, "custom(free text arguments)"},
		{"an edit's string is no command", "Edit", `{"file_path":"a.sh","old_string":"cd x && rm -rf y"}`, "Edit(a.sh cd x && rm -rf y)"},
		{"a text agent's command that only looks like an XML call", "", "echo $(date)\n<<EOF", "echo $(date) <<EOF"},
		{"a text agent's command", "", "cd /testbed && python -m pytest tests/model_fields/test_jsonfield.py -x -q 2>&1 | tail -20",
			"python -m pytest tests/mod…s/test_jsonfield.py…"},
		{"a text agent's command, cd alone", "", "cd /testbed", "cd /testbed"},
		{"an XML call", "", "read file(path=bff/src/services/holdingService.ts)\n<read_file>\n<path>bff/src/services/holdingService.ts</path>\n</read_file>",
			"read_file(bff/src/services/holdingService.ts)"},
		{"an XML value holding a comma", "", xmlCommand("<read_file>\n<path>docs/a, b.md</path>\n</read_file>"), "read_file(docs/a, b.md)"},
		{"an XML call with a long value", "", xmlCommand("<write_to_file>\n<path>src/a.ts</path>\n<content>\nconst a = 1;\nconst b = 2;\n</content>\n</write_to_file>"),
			"write_to_file(src/a.ts)"},
	} {
		got := callSummary(tc.tool, tc.args)
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestFitValues: whatever the words, the result is valid UTF-8 of at most
// n bytes (the "…" marks included).
func TestFitValues(t *testing.T) {
	words := []string{"日本語のパスです/とても/長い/ディレクトリ/ファイル.go", "x", strings.Repeat("é", 40), "tail"}
	for n := 1; n <= 80; n++ {
		got := fitValues(append([]string(nil), words...), n)
		if !utf8.ValidString(got) || len(got) > n+len("…") {
			t.Errorf("n=%d: %q (%d bytes)", n, got, len(got))
		}
	}
}

// TestDropLine: a dropped call's memory line names the call and what its
// output held — a file view's definitions, not a line of its code that
// names an error; a listing's entries; an error's headline — in at most
// loopLineTokens tokens.
func TestDropLine(t *testing.T) {
	c, err := New(DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	view := "[read_file for 'src/services/holdingService.ts'] Result:\nimport { db } from '../db';\n\nexport const createHolding = async (data) => {\n  if (!data) {\n    throw new Error('Stock not found');\n  }\n};\n\nexport async function closeHolding(id) {\n  return db.close(id);\n}\n<environment_details>\n# VSCode Open Tabs\nsrc/a.ts\n</environment_details>"
	long := strings.Repeat("very_long_function_name_number_", 3)
	var many strings.Builder
	for i := range 40 {
		fmt.Fprintf(&many, "def %s%d(self):\n    pass\n", long, i)
	}
	for _, tc := range []struct {
		name string
		ob   observe.Observation
		want string
	}{
		{"a file view", observe.Observation{Tool: "read_file", Arguments: `{"path":"src/services/holdingService.ts"}`, Output: view},
			"[swc:h0000000000 read_file(src/services/holdingService.ts) → 11 lines: createHolding closeHolding]"},
		{"a listing", observe.Observation{Tool: "Glob", Arguments: `{"pattern":"**/*Controller.ts"}`, Output: "/w/src/controllers/a.ts\n/w/src/controllers/b.ts\n/w/src/controllers/portfolioController.ts"},
			"[swc:h0000000000 Glob(**/*Controller.ts) → 3 lines: a.ts b.ts portfolioController.ts]"},
		{"an error", observe.Observation{Tool: "str_replace_editor", Arguments: `{"command":"str_replace","path":"/w/a.py"}`, Output: "ERROR:\nNo replacement was performed, old_str `x` did not appear verbatim in /w/a.py.", IsError: true},
			"[swc:h0000000000 str_replace_editor(str_replace /w/a.py) → error, 2 lines, ERROR: No replacement was performed, old_str `x` did not appear verbatim in /w/a.py.]"},
	} {
		if got := c.dropLine(tc.ob, "h0000000000"); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
	got := c.dropLine(observe.Observation{Tool: "cat", Output: many.String()}, "h0000000000")
	if n := c.counter.Count(got); n > loopLineTokens || !strings.HasSuffix(got, "…]") || !utf8.ValidString(got) {
		t.Errorf("a long line: %d tokens (most %d): %q", n, loopLineTokens, got)
	}
}
